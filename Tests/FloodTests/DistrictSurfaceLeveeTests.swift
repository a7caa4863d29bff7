import FloodSim
import Foundation
import GeoCore
@testable import Flood
@testable import Scenarios
import Testing

/// Levees (`rivers.levee_crest_m`) in the district's flood surface: a river held at its stage stays
/// in its channel while the stage is below the crest, and spills over when it is above. A 300 m ×
/// 300 m flat plain (15 m) of 10 m cells with a 40 m wide river across it; 20 simulated minutes.
@Suite("District surface: levees along stage-held rivers")
struct DistrictSurfaceLeveeTests {
    static func surface(crest: Double?, stage: Double) throws -> DistrictSurface {
        let dem = try Grid(width: 30, height: 30, geoTransform: .northUp(west: 0, north: 300, cellWidth: 10, cellHeight: 10), repeating: 15)
        var properties: [String: JSONValue] = ["name": "长江", "width_m": 40]
        if let crest { properties["levee_crest_m"] = .number(crest) }
        let river = Feature(id: .string("RV"), geometry: .lineString(LineString([Position(x: -50, y: 150), Position(x: 350, y: 150)])),
                            properties: properties)
        let identity = try CoordinateTransformer.shared(from: .districtMetric, to: .districtMetric)
        let layers = FloodDistrictLayers(features: ["rivers": [river]], toMetric: identity, toStorage: identity)
        return try DistrictSurface.build(dem: dem, factor: 1, layers: layers, stage: SurfaceTimeSeries(constant: stage), stageRivers: ["长江"])
    }

    /// The deepest water on land (outside the river's band) after 20 minutes.
    static func landDepth(_ s: DistrictSurface) throws -> Double {
        let result = try SurfaceFlow(domain: s.domain).run(until: 1200)
        var deepest = 0.0
        for (i, d) in result.maxDepth.values.enumerated() where s.permanentWater.values[i] == 0 {
            // The levee's own cells are land too; the plain behind them is what floods.
            deepest = max(deepest, Double(d))
        }
        return deepest
    }

    @Test("the cells just outside the channel are raised to the crest; the channel and the plain keep their ground")
    func crestCells() throws {
        let s = try Self.surface(crest: 20, stage: 18)
        let z = s.domain.elevation
        // Rows: cell centres at y = 295 - 10 r; the band is 130…170 m, the ring one cell beyond it.
        func at(_ y: Double) -> Float { z[column: 15, row: Int((300 - y) / 10)] }
        #expect(at(145) == 15 && at(155) == 15, "the channel keeps its bed")
        #expect(at(175) == 20 && at(125) == 20, "the levee on both banks")
        #expect(at(195) == 15 && at(105) == 15, "the plain behind the levee")
        #expect(!s.domain.boundary.fixedLevels.isEmpty)
        let none = try Self.surface(crest: nil, stage: 18)
        #expect(none.domain.elevation.values.allSatisfy { $0 == 15 }, "no levee without levee_crest_m")
    }

    @Test("a stage below the crest stays in the channel; above it, or with no levee, the plain floods")
    func overtopping() throws {
        #expect(try Self.landDepth(Self.surface(crest: 20, stage: 18)) < 0.001)
        #expect(try Self.landDepth(Self.surface(crest: nil, stage: 18)) > 1)
        #expect(try Self.landDepth(Self.surface(crest: 20, stage: 20.5)) > 0.2)
    }
}
