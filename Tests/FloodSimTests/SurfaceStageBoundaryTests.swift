import Foundation
import GeoCore
import Testing
@testable import FloodSim

/// Fixed-level (river stage) cells on the surface grid: what they let in and out, and the water
/// balance's check that a stage term the stage cannot explain is reported (issue 58 §6).
@Suite("Surface flow: river stage boundary")
struct SurfaceStageBoundaryTests {
    /// A 10 × 6 grid of 100 m cells like the south edge of the district at coarsening 10: the
    /// bottom row a river (ground 14 m) held at 19.5 m on the open south edge, the row above it a
    /// levee at 29.3 m, land at 20 m behind it. Every edge open.
    static func riverOnOpenEdge() throws -> SurfaceDomain {
        let ground = try Grid(width: 10, height: 6, geoTransform: .northUp(west: 0, north: 600, cellWidth: 100, cellHeight: 100)) { _, r in
            r == 5 ? 14 : (r == 4 ? 29.3 : 20)
        }
        let river = SurfaceBoundary.FixedLevel(cells: (0..<10).map { SurfaceCell(column: $0, row: 5) }, stage: SurfaceTimeSeries(constant: 19.5))
        return try SurfaceDomain(elevation: ground, roughness: .uniform(0.016), boundary: SurfaceBoundary(edges: .open, fixedLevels: [river]))
    }

    @Test("a river held at its stage on an open edge lets nothing through the edge (it poured 637,000 m³/s out and back in)")
    func heldCellsOnAnOpenEdge() throws {
        let flow = try SurfaceFlow(domain: Self.riverOnOpenEdge(), settings: SurfaceFlowSettings(threads: 1))
        let b = flow.run(until: 900).volumeBalance
        // The stage is flat and the levee above it, so no water has a reason to move: before the
        // fix the edge drained the river by the bed slope down from the levee (15.3 m over 100 m)
        // and the stage refilled it, some 10⁸ m³ in and out in 15 minutes.
        #expect(b.stageInflow == 0, "\(b)")
        #expect(b.boundaryInflow == 0 && b.boundaryOutflow == 0, "\(b)")
        #expect(b.unexplainedStageInflow == nil)
    }

    @Test("a stage inflow the stage cannot explain is reported, not hidden behind a ~0 % continuity error")
    func blownUpStageTermIsReported() throws {
        // A sea held at 12 m beside two cells of 5 m ground that end on an open edge: the sea
        // pours through them and over the edge for as long as the run lasts, and is refilled to
        // its stage after every step. Filling both cells to 12 m would take 1,400 m³; what it lets
        // in beyond that leaves over the edge, so the continuity error stays ~0.
        let ground = try Grid(width: 3, height: 1, geoTransform: .northUp(west: 0, north: 10, cellWidth: 10, cellHeight: 10), repeating: 5)
        let sea = SurfaceBoundary.FixedLevel(cells: [SurfaceCell(column: 0, row: 0)], stage: SurfaceTimeSeries(constant: 12))
        var boundary = SurfaceBoundary(fixedLevels: [sea])
        boundary.east = .open
        let flow = try SurfaceFlow(domain: SurfaceDomain(elevation: ground, boundary: boundary), settings: SurfaceFlowSettings(threads: 1))
        let b = flow.run(until: 600).volumeBalance
        #expect(b.stageFillCapacity == 1400)
        #expect(b.stageInflow > 50 * b.stageFillCapacity, "\(b)")
        #expect(abs(b.relativeError) < 1e-9, "the error cannot see it: \(b)")
        #expect(b.unexplainedStageInflow == b.stageInflow - b.stageOutflow - 1400)
        #expect(b.description.contains("IMPLAUSIBLE"))
    }

    @Test("a rising stage explains the water it lets in: the bathtub to its highest level")
    func risingStageIsExplained() throws {
        // A 3 × 1 channel at 0 m, the west cell held at a stage rising from 0.5 to 1.5 m; the
        // other cells fill from it. Capacity: the held cell 1 m of rise, the two others 1.5 m each.
        let ground = try Grid(width: 3, height: 1, geoTransform: .northUp(west: 0, north: 10, cellWidth: 10, cellHeight: 10), repeating: 0)
        let stage = try SurfaceTimeSeries(times: [0, 600], values: [0.5, 1.5])
        let domain = try SurfaceDomain(elevation: ground, boundary: SurfaceBoundary(fixedLevels: [.init(cells: [SurfaceCell(column: 0, row: 0)], stage: stage)]))
        let flow = try SurfaceFlow(domain: domain, settings: SurfaceFlowSettings(threads: 1))
        let b = flow.run(until: 1200).volumeBalance
        #expect(abs(b.stageFillCapacity - (1 + 1.5 + 1.5) * 100) < 1e-9)
        #expect(b.stageInflow > 390, "\(b)")
        #expect(b.unexplainedStageInflow == nil, "\(b)")
    }

    @Test("the coupled account of the quick look of issue 58 names the stage inflow and its share and is implausible at −0.000 %")
    func quickLookAccount() {
        // The terms `simulate flood --duration-scale 0.05 --dem-coarsening 10` printed before the
        // fix (m³), its boundary outflow all over the open edge (as the same fault gave it on the
        // strip of `DistrictSurfaceCoarseningTests`); a fill capacity of 6 million m³.
        var b = CoupledFloodBalance()
        b.subcatchmentRain = 305_377.9
        b.gridRain = 357_334.6
        b.surfaceBoundaryInflow = 573_193_008.5
        b.stageInflow = 573_193_008.5
        b.runoffLosses = 51_730.3
        b.outfallOutflow = 44_087.1
        b.surfaceBoundaryOutflow = 573_278_690.7
        b.stageOutflow = 0
        b.initialStorage = 3_013_380.4
        b.finalStorage = 3_496_584.4
        b.stageFillCapacity = 6_000_000
        #expect(abs(b.errorPercent) < 0.001, "the continuity error alone shows nothing wrong")
        let stage = b.terms.first { $0.name == "river stage inflow" }
        #expect((stage?.percentOfInflow ?? 0) > 99)
        #expect(b.terms.first { $0.name == "rain on the grid" }.map { $0.percentOfInflow < 0.1 } == true)
        #expect(b.implausibility?.contains("865 × the storm's rain") == true, "\(b.implausibility ?? "plausible")")
        #expect(b.description.contains("IMPLAUSIBLE"))
        #expect(b.termsDescription.contains("river stage inflow 573193008.5 m³ (99.4 %)"), "\(b.termsDescription)")
        // The same account with the stage's inflow within its capacity is plausible.
        b.stageInflow = 1_000
        b.surfaceBoundaryInflow = 1_000
        #expect(b.implausibility == nil)
    }
}
