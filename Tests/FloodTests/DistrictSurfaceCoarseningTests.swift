import FloodSim
import Foundation
import GeoCore
@testable import Flood
@testable import Scenarios
import Testing

/// The river stage boundary of the district's surface at every DEM coarsening (issue 58 §6: the
/// quick look at coarsening 10 let 573 million m³ in and out through the 长江's cells in 15
/// minutes, against 24 m³ at coarsening 2).
///
/// The ground is the district's southern strip on a 1 km square of 10 m cells: the 长江 below
/// its bank at y = 120 m (ground 14 m, held at 19.5 m behind a levee crest of 29.3 m), the bank
/// rising to 21 m at y = 400 m, land beyond. 60 mm/h of rain for 15 minutes on every cell.
///
/// The bound, and why: the stage is constant and below the crest, so the river takes the rain
/// that falls on its held cells and some of the rain on the levee's cells, and lets nothing in.
/// Per coarsening f (cells Δx_f):
/// - stage inflow ≈ 0;
/// - P·A_held(f) ≤ stage outflow ≤ P·(A_held(f) + A_levee(f)), P the rain depth;
/// - across coarsenings, a cell is held when its centre lies in the river's band, so the held
///   area misses the band's true area by at most half a cell along the band's edge (length L,
///   1 km here): |out(f) − out(1)| ≤ P·(L·(Δx_f + Δx_1)/2 + A_levee(f) + A_levee(1)).
///   That is all the resolution explains; a boundary flux outside it is the boundary treatment.
@Suite("District surface: the river stage boundary at every coarsening")
struct DistrictSurfaceCoarseningTests {
    static let size = 1000.0, rain = 60.0, duration = 900.0
    static let bankY = 120.0

    static func ground(_ y: Double) -> Float {
        if y < bankY { return 14 }
        if y < 400 { return Float(14 + 7 * (y - bankY) / (400 - bankY)) }
        return Float(21 + 0.0045 * (y - 400))
    }

    static func dem() throws -> Grid {
        let n = Int(size / 10)
        return try Grid(width: n, height: n, geoTransform: .northUp(west: 0, north: size, cellWidth: 10, cellHeight: 10)) { _, r in
            ground(size - (Double(r) + 0.5) * 10)
        }
    }

    static func surface(factor: Int) throws -> DistrictSurface {
        // As the district draws the 长江: 1500 m wide, its centreline 750 m south of the bank.
        let river = Feature(id: .string("RV-03"), geometry: .lineString(LineString([Position(x: -50, y: bankY - 750), Position(x: size + 50, y: bankY - 750)])),
                            properties: ["name": "长江", "width_m": 1500, "levee_crest_m": 29.3])
        let identity = try CoordinateTransformer.shared(from: .districtMetric, to: .districtMetric)
        let layers = FloodDistrictLayers(features: ["rivers": [river]], toMetric: identity, toStorage: identity)
        return try DistrictSurface.build(dem: dem(), factor: factor, layers: layers, stage: SurfaceTimeSeries(constant: 19.5), stageRivers: ["长江"])
    }

    struct Flux {
        var cellSize: Double, heldArea: Double, leveeArea: Double
        var balance: SurfaceVolumeBalance
    }

    static func flux(factor: Int) throws -> Flux {
        let s = try surface(factor: factor)
        let dx = s.domain.cellSize
        let held = Set(s.domain.boundary.fixedLevels.flatMap(\.cells).map { $0.row * s.domain.width + $0.column })
        // The levee's cells: those the build raised above the coarsened ground.
        let original = try DistrictSurface.coarsened(dem(), factor: factor)
        let levee = s.domain.elevation.values.indices.filter { s.domain.elevation.values[$0] != original.values[$0] }.count
        let rainfall = try SurfaceRainfall(startTimes: [0, duration], intensities: [rain, 0], cellWeights: s.rainWeights)
        let flow = try SurfaceFlow(domain: s.domain, rainfall: rainfall, settings: SurfaceFlowSettings(threads: 2))
        let balance = flow.run(until: duration).volumeBalance
        return Flux(cellSize: dx, heldArea: Double(held.count) * dx * dx, leveeArea: Double(levee) * dx * dx, balance: balance)
    }

    @Test("coarsening 1, 2, 5, 10 changes the stage's flux by no more than the resolution explains", arguments: [2, 5, 10])
    func stageFluxAcrossCoarsenings(factor: Int) throws {
        let p = Self.rain / 3_600_000 * Self.duration
        let fine = try Self.flux(factor: 1), coarse = try Self.flux(factor: factor)
        for f in [fine, coarse] {
            let b = f.balance
            print("cells \(f.cellSize) m: held \(f.heldArea) m², levee \(f.leveeArea) m², stage in \(b.stageInflow) m³, stage out \(b.stageOutflow) m³, "
                  + "edges out \(b.boundaryOutflow - b.stageOutflow) m³, rain \(b.rain) m³, error \(b.relativeError * 100) %")
            #expect(b.stageInflow <= 1e-6 * b.rain, "cells of \(f.cellSize) m: \(b)")
            #expect(b.stageOutflow >= p * f.heldArea * (1 - 1e-6), "cells of \(f.cellSize) m: \(b)")
            #expect(b.stageOutflow <= p * (f.heldArea + f.leveeArea), "cells of \(f.cellSize) m: \(b)")
            #expect(b.unexplainedStageInflow == nil)
            #expect(abs(b.relativeError) < 1e-6)
        }
        let bound = p * (Self.size * (coarse.cellSize + fine.cellSize) / 2 + coarse.leveeArea + fine.leveeArea)
        #expect(abs(coarse.balance.stageOutflow - fine.balance.stageOutflow) <= bound,
                "\(coarse.balance.stageOutflow) m³ at \(coarse.cellSize) m against \(fine.balance.stageOutflow) m³ at 10 m (bound \(bound) m³)")
    }
}
