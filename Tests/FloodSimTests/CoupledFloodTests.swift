import Foundation
import GeoCore
import Testing
@testable import FloodSim

/// The 1D–2D coupled loop on a small street: a tilted plane 80 m × 6 m (2 m cells, walled) falling
/// 1 % eastward, with a manhole J1 near the top, J2 at the low end and an outfall beyond. J1 takes
/// more water than its small pipe to J2 can carry, surcharges and spills; the spill runs down the
/// street to J2, whose large pipe to the outfall has room, and drains back in.
@Suite("Coupled 1D–2D flood")
struct CoupledFloodTests {
    static let cell = 2.0
    static let columns = 40, rows = 3

    /// Ground at column c: 10 m at the west edge, falling 1 % eastward.
    static func ground(column c: Int) -> Double { 10 - 0.01 * (Double(c) + 0.5) * cell }

    static func plane() throws -> SurfaceDomain {
        let grid = try Grid(width: columns, height: rows,
                            geoTransform: .northUp(west: 0, north: Double(rows) * cell, cellWidth: cell, cellHeight: cell)) { c, _ in
            Float(ground(column: c))
        }
        return try SurfaceDomain(elevation: grid, roughness: .uniform(0.015), boundary: .closed)
    }

    static let j1 = SurfaceCell(column: 5, row: 1), j2 = SurfaceCell(column: 38, row: 1)

    /// J1 → (0.2 m pipe) → J2 → (1.0 m pipe) → O1, rims at the DEM's ground, with `inflow` m³/s into J1.
    static func network(inflow: Double) -> HydraulicNetwork {
        let g1 = ground(column: j1.column), g2 = ground(column: j2.column)
        let nodes = [
            HydraulicNode(id: "J1", invertElevation: g1 - 2, maxDepth: 2),
            HydraulicNode(id: "J2", invertElevation: g2 - 2.5, maxDepth: 2.5),
            HydraulicNode(id: "O1", invertElevation: g2 - 3, kind: .outfall(OutfallBoundary(stage: .free))),
        ]
        let links = [
            HydraulicLink(id: "C1", fromNode: 0, toNode: 1, kind: .conduit(Conduit(length: 66, roughness: 0.013, crossSection: .circular(diameter: 0.2)))),
            HydraulicLink(id: "C2", fromNode: 1, toNode: 2, kind: .conduit(Conduit(length: 20, roughness: 0.013, crossSection: .circular(diameter: 1.0)))),
        ]
        let series = TimeSeries(times: [0, 600, 1200], values: [inflow, inflow, 0])
        return HydraulicNetwork(nodes: nodes, links: links, inflows: [NodeInflow(node: 0, series: series)],
                                options: RoutingOptions(method: .dynamicWave, duration: 1800, routingStep: 2))
    }

    static let links = [CoupledFlood.Link(node: 0, cell: j1, area: 0.5), CoupledFlood.Link(node: 1, cell: j2, area: 0.5)]

    @Test("a surcharging pipe spills onto the street and the water returns at the downstream manhole")
    func spillAndReturn() throws {
        let run = try CoupledFlood(network: Self.network(inflow: 0.15), surface: Self.plane(), links: Self.links, duration: 1800,
                                   settings: .init(surface: SurfaceFlowSettings(threads: 1)))
        let result = run.run()
        let spill = result.exchanges[0], drain = result.exchanges[1]
        #expect(spill.spilled > 20, "J1 should spill tens of m³, spilled \(spill.spilled)")
        #expect(drain.drained > 0.5 * spill.spilled, "J2 should take most of the spill back, took \(drain.drained) of \(spill.spilled)")
        #expect(result.surface.maxDepth[column: Self.j1.column, row: Self.j1.row] > 0)
        // Water reached J2's street cell on the way down.
        #expect(result.surface.maxDepth[column: Self.j2.column, row: Self.j2.row] > 0.001)
        #expect(abs(result.balance.errorPercent) < 0.5, "\(result.balance)")
    }

    @Test("rain on a partly routed street: the coupled mass balance closes within 0.5 %")
    func massBalanceWithRunoff() throws {
        // A subcatchment of 0.2 ha draining to J1, plus 60 mm/h on the grid for 20 minutes.
        let sub = RunoffSubcatchment(name: "S1", area: 2000, imperviousFraction: 0.8, width: 40, slope: 0.01, nImpervious: 0.013,
                                     nPervious: 0.1, storageImpervious: 0.002, storagePervious: 0.005, zeroStorageFraction: 0.25,
                                     infiltration: .horton(maxRate: 75 / 3.6e6, minRate: 6 / 3.6e6, decay: 4 / 3600,
                                                           regeneration: 0, maxVolume: 0),
                                     outlet: .node("J1"), gauge: 0)
        let rain = Hyetograph(starts: [0, 1200], intensities: [60, 0], lastInterval: 600)
        let runoff = RunoffSimulation(subcatchments: [sub], gauges: [rain], wetStep: 30, dryStep: 60, duration: 1800)
        let grid = try SurfaceRainfall(startTimes: [0, 1200], intensities: [60, 0])
        let run = try CoupledFlood(network: Self.network(inflow: 0.1), runoff: runoff, surface: Self.plane(), gridRainfall: grid,
                                   links: Self.links, duration: 1800, settings: .init(surface: SurfaceFlowSettings(threads: 1)))
        var reports = 0
        let result = run.run { _ in reports += 1 }
        #expect(reports > 10)
        #expect(result.balance.subcatchmentRain > 0 && result.balance.gridRain > 0)
        #expect(result.balance.runoffToNetwork > 0)
        #expect(abs(result.balance.errorPercent) < 0.5, "\(result.balance)")
    }

    @Test("a dry street over pipes with room exchanges nothing")
    func noExchangeWhenDry() throws {
        let run = try CoupledFlood(network: Self.network(inflow: 0.005), surface: Self.plane(), links: Self.links, duration: 900)
        let result = run.run()
        #expect(result.balance.pipeToSurface == 0)
        #expect(result.balance.surfaceToPipe == 0)
        #expect(result.surface.volumeBalance.storage == 0)
        #expect(result.hoursAboveThreshold.values.allSatisfy { $0 == 0 })
    }

    @Test("a link on a missing node or outside the grid is refused, naming the link")
    func badLinks() throws {
        #expect(throws: FloodInputError.self) {
            try CoupledFlood(network: Self.network(inflow: 0), surface: Self.plane(),
                             links: [CoupledFlood.Link(node: 7, cell: Self.j1)], duration: 60)
        }
        do {
            _ = try CoupledFlood(network: Self.network(inflow: 0), surface: Self.plane(),
                                 links: [CoupledFlood.Link(node: 0, cell: SurfaceCell(column: 99, row: 0))], duration: 60)
            Issue.record("expected an error")
        } catch let e as FloodInputError {
            #expect(e.field == "links[0]")
        }
    }
}
