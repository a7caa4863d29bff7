import CSurfaceSweeps
import Foundation
import GeoCore
import Testing
@testable import FloodSim

/// Steady and conservation checks of the 2D kernel (flood.md §5.2.4), buildings, point sources
/// and the independence of results from the thread count.
@Suite("Surface flow: conservation, buildings, threads")
struct SurfaceConservationTests {
    /// An undulating 60 × 50 DEM with 5 m cells, a basin in the middle and a rise to the east.
    static func undulatingGround() throws -> Grid {
        try Grid(width: 60, height: 50, geoTransform: .northUp(west: 0, north: 250, cellWidth: 5, cellHeight: 5)) { c, r in
            let x = Double(c), y = Double(r)
            return Float(0.02 * x + 0.4 * sin(x / 4) * cos(y / 5) + 0.001 * (x - 30) * (x - 30) / 10)
        }
    }

    @Test("lake at rest over bumps and islands stays at rest")
    func lakeAtRest() throws {
        // Elevations on a 1/1024 m lattice, so level − ground is exact in Float32 and the lake
        // starts perfectly flat: any flow is the scheme's own doing.
        let ground = try Self.undulatingGround().map { ($0 * 1024).rounded() / 1024 }
        let level: Float = 1.0  // some bumps stand above it: wet and dry cells side by side
        let depth = ground.map { max(0, level - $0) }
        let domain = try SurfaceDomain(elevation: ground, roughness: .uniform(0.03))
        let flow = try SurfaceFlow(domain: domain, settings: SurfaceFlowSettings(threads: 1), initialDepth: depth)
        _ = flow.run(until: 600)
        #expect(flow.steps > 0)
        #expect(flow.maxUnitDischarge == 0)
        var worst = 0.0
        for r in 0..<ground.height {
            for c in 0..<ground.width where depth[column: c, row: r] > 0 {
                worst = max(worst, abs(flow.waterLevel(at: SurfaceCell(column: c, row: r)) - Double(level)))
            }
        }
        #expect(worst == 0)
    }

    @Test("closed box under rain holds R·A·t")
    func closedBoxRain() throws {
        let ground = try Self.undulatingGround()
        let intensity = 60.0, duration = 1800.0  // mm/h, s
        let domain = try SurfaceDomain(elevation: ground, roughness: .uniform(0.02))
        let flow = try SurfaceFlow(domain: domain, rainfall: .constant(intensity),
                                   settings: SurfaceFlowSettings(threads: 1, progressInterval: 10))
        var reports: [WorkProgress] = []
        let result = flow.run(until: duration) { reports.append($0) }
        #expect(reports.count == result.steps / 10 + 1)
        #expect(reports.last?.completed == duration)
        #expect(reports.last?.fraction == 1)
        #expect(reports.last?.unit == "s" && reports.last?.stage == "surface flow")
        let expected = intensity / 3_600_000 * duration * 60 * 50 * 25
        let balance = result.volumeBalance
        #expect(abs(balance.rain - expected) / expected < 1e-12)
        #expect(abs(balance.storage - expected) / expected < 1e-3)
        #expect(abs(balance.relativeError) < 1e-3)
    }

    @Test("buildings block flow: nothing crosses a wall of building cells")
    func buildingsBlockFlow() throws {
        let ground = try flatGrid(width: 30, height: 10, cellSize: 2, elevation: 0)
        // A wall of buildings across the grid at column 15, water only west of it.
        let buildings = try Grid(width: 30, height: 10, geoTransform: ground.geoTransform) { c, _ in c == 15 ? 1 : 0 }
        let depth = try Grid(width: 30, height: 10, geoTransform: ground.geoTransform) { c, _ in c < 15 ? 0.5 : 0 }
        let domain = try SurfaceDomain(elevation: ground, roughness: .uniform(0.02), buildings: buildings)
        let flow = try SurfaceFlow(domain: domain, rainfall: .constant(30), settings: SurfaceFlowSettings(threads: 1),
                                   initialDepth: depth)
        let result = flow.run(until: 300)
        for r in 0..<10 {
            #expect(result.maxDepth[column: 15, row: r] == 0)            // no rain or water on roofs
            for c in 16..<30 { #expect(result.depth[column: c, row: r] == Float(30.0 / 3_600_000 * 300)) }  // rain only
        }
        #expect(abs(result.volumeBalance.relativeError) < 1e-6)
    }

    @Test("water flows round a building, not through it")
    func flowRoundBuilding() throws {
        let ground = try Grid(width: 40, height: 21, geoTransform: .northUp(west: 0, north: 42, cellWidth: 2, cellHeight: 2)) { c, _ in
            Float(Double(40 - c) * 0.01)
        }
        let buildings = try Grid(width: 40, height: 21, geoTransform: ground.geoTransform) { c, r in
            (18...22).contains(c) && (5...15).contains(r) ? 1 : 0
        }
        var boundary = SurfaceBoundary.closed
        boundary.inflows = (0..<21).map {
            SurfaceBoundary.Inflow(cell: SurfaceCell(column: 0, row: $0), discharge: SurfaceTimeSeries(constant: 0.01))
        }
        boundary.east = .open
        let domain = try SurfaceDomain(elevation: ground, roughness: .uniform(0.02), buildings: buildings, boundary: boundary)
        let flow = try SurfaceFlow(domain: domain, settings: SurfaceFlowSettings(threads: 1))
        let result = flow.run(until: 900)
        for r in 5...15 { for c in 18...22 { #expect(result.maxDepth[column: c, row: r] == 0) } }
        #expect(result.depth[column: 30, row: 10] > 0.001)        // water reached the lee of the building
        #expect(result.volumeBalance.boundaryOutflow > 0)
        #expect(abs(result.volumeBalance.relativeError) < 1e-3)
    }

    /// A scenario with everything switched on: rain with a per-cell pattern, losses, buildings,
    /// an open edge, an inflow hydrograph, a fixed river stage, and point sources and sinks
    /// (one sink far larger than the water it finds). `isa` is the compilation of the row sweeps
    /// (SurfaceSweepTests), by default the one a run picks.
    static func busyScenario(threads: Int, isa: CTSurfaceISA = ct_surface_best_isa()) throws -> (SurfaceFlow, SurfaceFlowResult) {
        let ground = try undulatingGround()
        let t = ground.geoTransform
        let weights = try Grid(width: 60, height: 50, geoTransform: t) { c, _ in Float(0.5 + Double(c) / 60) }
        let rain = try SurfaceRainfall(startTimes: [0, 600, 1200], intensities: [20, 80, 0], cellWeights: weights)
        let loss = try Grid(width: 60, height: 50, geoTransform: t) { _, r in r < 10 ? 15 : 0 }
        let buildings = try Grid(width: 60, height: 50, geoTransform: t) { c, r in
            (20...24).contains(c) && (20...26).contains(r) ? 1 : 0
        }
        var boundary = SurfaceBoundary.closed
        boundary.east = .open
        boundary.inflows = [SurfaceBoundary.Inflow(cell: SurfaceCell(column: 2, row: 25),
                                                   discharge: try SurfaceTimeSeries(times: [0, 600, 1500], values: [0, 0.5, 0]))]
        boundary.fixedLevels = [SurfaceBoundary.FixedLevel(cells: (40..<50).map { SurfaceCell(column: 0, row: $0) },
                                                           stage: try SurfaceTimeSeries(times: [0, 1800], values: [0.2, 0.6]))]
        let landUse = try Grid(width: 60, height: 50, geoTransform: t) { c, _ in c < 30 ? 1 : 2 }
        let domain = try SurfaceDomain(elevation: ground,
                                       roughness: .landUse(landUse, LandUseRoughness(manningN: [1: 0.015, 2: 0.05])),
                                       buildings: buildings, lossRate: loss, boundary: boundary)
        let flow = try SurfaceFlow(domain: domain, rainfall: rain, settings: SurfaceFlowSettings(threads: threads))
        flow.kernel.isa = isa
        try flow.setSource(0.05, at: SurfaceCell(column: 30, row: 10))
        try flow.setSource(-5, at: SurfaceCell(column: 31, row: 30))
        let result = flow.run(until: 1800)
        return (flow, result)
    }

    @Test("mass balance closes within 0.1 % on a DEM with rain, losses, edges, inflow, stage and sources")
    func massConservationWithSources() throws {
        let (flow, result) = try Self.busyScenario(threads: 2)
        let b = result.volumeBalance
        print(b)
        #expect(b.rain > 0 && b.losses > 0 && b.boundaryInflow > 0 && b.boundaryOutflow > 0)
        #expect(b.sourceInflow > 0 && b.sourceOutflow > 0)
        #expect(b.sourceOutflow < 5 * 1800)                               // the big sink was limited
        #expect(flow.appliedSource(at: SurfaceCell(column: 31, row: 30)) > -5)
        #expect(abs(b.relativeError) < 1e-3)
        #expect(result.timeOfMaxDepth[column: 31, row: 15] > 0)
    }

    @Test("two threads give the same depths as one, bit for bit")
    func threadsAgree() throws {
        let (_, one) = try Self.busyScenario(threads: 1)
        let (_, two) = try Self.busyScenario(threads: 2)
        let (_, three) = try Self.busyScenario(threads: 3)
        #expect(one.steps == two.steps)
        #expect(one.depth.values == two.depth.values)
        #expect(one.maxDepth.values == two.maxDepth.values)
        #expect(one.depth.values == three.depth.values)
        let a = one.volumeBalance, b = two.volumeBalance
        #expect(abs(a.storage - b.storage) <= 1e-12 * a.storage)
        #expect(abs(a.losses - b.losses) <= 1e-12 * a.losses)
    }
}
