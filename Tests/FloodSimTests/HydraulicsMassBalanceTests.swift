import Foundation
import Testing
@testable import FloodSim

@Suite("Routing continuity on a branched network")
struct HydraulicsMassBalanceTests {
    /// A hydrograph rising from 0 to `peak` m³/s at `rise` seconds and back to 0 at `end` seconds.
    static func hydrograph(peak: Double, rise: Double, end: Double) -> TimeSeries {
        TimeSeries(times: [0, rise, end], values: [0, peak, 0])
    }

    /// Three laterals (A, B, C) joining a trunk (T1 → T2 → outfall), 0.3–0.9 m pipes.
    static func branched(method: RoutingOptions.Method) -> HydraulicNetwork {
        let nodes = [
            HydraulicNode(id: "A", invertElevation: 24, maxDepth: 3),
            HydraulicNode(id: "B", invertElevation: 23, maxDepth: 3),
            HydraulicNode(id: "C", invertElevation: 21.5, maxDepth: 3),
            HydraulicNode(id: "T1", invertElevation: 22, maxDepth: 3),
            HydraulicNode(id: "T2", invertElevation: 21, maxDepth: 3),
            HydraulicNode(id: "OUT", invertElevation: 20, kind: .outfall(OutfallBoundary(stage: .free))),
        ]
        func pipe(_ id: String, _ from: Int, _ to: Int, _ length: Double, _ d: Double) -> HydraulicLink {
            HydraulicLink(id: id, fromNode: from, toNode: to,
                          kind: .conduit(Conduit(length: length, roughness: 0.013, crossSection: .circular(diameter: d))))
        }
        let links = [
            pipe("A-T1", 0, 3, 400, 0.45), pipe("B-T1", 1, 3, 250, 0.45), pipe("T1-T2", 3, 4, 300, 0.75),
            pipe("C-T2", 2, 4, 200, 0.3), pipe("T2-OUT", 4, 5, 350, 0.9),
        ]
        let inflows = [
            NodeInflow(node: 0, series: hydrograph(peak: 0.25, rise: 1800, end: 5400)),
            NodeInflow(node: 1, series: hydrograph(peak: 0.15, rise: 2400, end: 6000)),
            NodeInflow(node: 2, series: hydrograph(peak: 0.08, rise: 1200, end: 4800)),
        ]
        return HydraulicNetwork(nodes: nodes, links: links, inflows: inflows,
                                options: RoutingOptions(method: method, duration: 4 * 3600, routingStep: 5))
    }

    @Test("dynamic wave closes the mass balance within 0.5 %")
    func continuityCloses() throws {
        let results = try DrainageRouting(network: Self.branched(method: .dynamicWave)).run()
        let c = results.continuity
        // The inflow volume is the area under the three triangles.
        let expectedInflow = 0.5 * (0.25 * 5400 + 0.15 * 6000 + 0.08 * 4800)
        #expect(abs(c.externalInflow - expectedInflow) / expectedInflow < 0.005)
        #expect(abs(c.errorPercent) < 0.5, "continuity error \(c.errorPercent) %")
        #expect(c.flooding == 0)
        // After the storm has passed almost everything has left through the outfall.
        #expect(abs(results.nodes[5].outfallVolume - c.externalOutflow) / c.externalOutflow < 0.01)
        #expect(c.externalOutflow / expectedInflow > 0.97)
    }
}
