import GeoCore
import Testing
@testable import CityModel
import TestSupport

/// The sample district's parking guidance data: a week of history for the lots with live detection
/// only, on-street berths with detectors where the section is smart, and signs whose content never
/// shows a number for a lot nobody can see.
@Suite("Sample district parking")
struct ParkingDistrictTests {
    @Test("a week of 15-minute occupancy history for every smart lot and none for the others")
    func history() throws {
        let d = try generatedDistrict()
        let lots = d[layer: "parking_lots"]
        let smart = Set(lots.filter { $0.properties["smart"] == true }.compactMap { $0.id?.description })
        let readings = d[layer: "parking_occupancy"]
        let byLot = Dictionary(grouping: readings) { $0.properties["lot"]?.stringValue ?? "" }
        #expect(Set(byLot.keys) == smart)
        for (lot, rows) in byLot {
            #expect(rows.count == 7 * 65, "\(lot)")
            let capacity = rows[0].properties["capacity"]?.integerValue ?? 0
            let occupied = rows.compactMap { $0.properties["occupied"]?.integerValue }
            #expect(occupied.allSatisfy { $0 >= 0 && $0 <= capacity })
            // Realistic: busy at some point in the week, never full all the time.
            #expect(Double(occupied.max() ?? 0) >= 0.6 * Double(capacity), "\(lot)")
            #expect(Double(occupied.min() ?? 0) <= 0.5 * Double(capacity), "\(lot)")
        }
    }

    @Test("signs list three lots and show -- for a lot without live detection")
    func signs() throws {
        let d = try generatedDistrict()
        let lots = Dictionary(uniqueKeysWithValues: d[layer: "parking_lots"].map { ($0.id?.description ?? "", $0) })
        let signs = d[layer: "parking_guidance_signs"]
        #expect(signs.count >= 4)
        for s in signs {
            let listed = s.properties["lots"]?.arrayValue?.compactMap(\.stringValue) ?? []
            #expect(listed.count == 3)
            let parts = (s.properties["content"]?.stringValue ?? "").split(separator: "；")
            #expect(parts.count == 3)
            for (id, part) in zip(listed, parts) {
                let lot = try #require(lots[id])
                if lot.properties["smart"] == false { #expect(part.hasSuffix(" --"), "\(id): \(part)") }
                else { #expect(!part.hasSuffix(" --"), "\(id): \(part)") }
            }
        }
    }

    @Test("on-street berths carry a detector exactly where their section is smart")
    func berths() throws {
        let d = try generatedDistrict()
        let lots = Dictionary(uniqueKeysWithValues: d[layer: "parking_lots"].map { ($0.id?.description ?? "", $0) })
        let berths = d[layer: "parking_berths"]
        #expect(!berths.isEmpty)
        for b in berths {
            let lot = try #require(lots[b.properties["lot"]?.stringValue ?? ""])
            #expect(lot.properties["kind"] == "道路泊位")
            #expect((b.properties["detector"] != nil) == (lot.properties["smart"] == true))
        }
    }
}
