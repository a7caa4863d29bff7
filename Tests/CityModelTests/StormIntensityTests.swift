import Foundation
import GeoCore
import Testing
@testable import CityModel
import TestSupport

/// Sewer sizing of the generated district (the storm-intensity formula itself moved to FloodSim:
/// Tests/FloodSimTests/RainfallStormIntensityTests.swift).
@Suite("Sewer sizing")
struct StormIntensityTests {
    @Test("Manning full-pipe capacity of a DN1000 concrete pipe at 1 ‰ is 0.758 m³/s")
    func manning() {
        let q = SewerSection.circular(diameter: 1000).fullCapacity(slope: 0.001, manningN: 0.013)
        #expect(abs(q - 0.7582) < 0.001)
        #expect(SewerSection.box(width: 3000, height: 2000).sizeText == "3000X2000")
        #expect(SewerSection.circular(diameter: 300).minimumSlope == 0.003)
    }

    @Test("generated sewers carry their design flow, never shrink downstream and keep cover")
    func generatedSewers() throws {
        let d = try generatedDistrict()
        let manholes = Dictionary(uniqueKeysWithValues: d[layer: "drainage_manholes"].map { ($0.id?.description ?? "", $0.properties) })
        /// Full-flow area in m² of a pipe's section.
        func area(_ p: Feature) -> Double {
            if let d = p.properties["diameter_mm"]?.doubleValue { return Double.pi * d * d / 4e6 }
            return (p.properties["width_mm"]?.doubleValue ?? 0) * (p.properties["height_mm"]?.doubleValue ?? 0) / 1e6
        }
        var areaInto: [String: Double] = [:]
        let pipes = d[layer: "drainage_pipes"]
        for p in pipes {
            let down = p.properties["downstream_node"]?.stringValue ?? ""
            areaInto[down] = max(areaInto[down] ?? 0, area(p))
        }
        var undersized = 0
        for p in pipes {
            let flow = p.properties["design_flow_ls"]?.doubleValue ?? 0, cap = p.properties["capacity_ls"]?.doubleValue ?? 0
            if cap + 0.5 < flow { undersized += 1 }
            let up = p.properties["upstream_node"]?.stringValue ?? ""
            let h = Double(p.properties["diameter_mm"]?.integerValue ?? p.properties["height_mm"]?.integerValue ?? 0) / 1000
            #expect(area(p) + 1e-9 >= (areaInto[up] ?? 0), "\(p.id?.description ?? "") shrinks below an upstream pipe")
            if let m = manholes[up], let rim = m["rim_elevation_m"]?.doubleValue, let inv = m["invert_elevation_m"]?.doubleValue {
                #expect(rim - inv - h >= 0.7 - 0.002, "\(up): cover \(rim - inv - h)")
            }
            #expect((p.properties["slope"]?.doubleValue ?? 0) >= 0.0005)
        }
        #expect(undersized == 0)
        // Trunk sewers to the outfalls need big sections: the rational method is doing work.
        #expect(pipes.contains { $0.properties["shape"] == "RECT_CLOSED" })
    }
}
