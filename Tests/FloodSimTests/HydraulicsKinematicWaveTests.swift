import Foundation
import Testing
@testable import FloodSim

@Suite("Kinematic and dynamic wave on a long mild pipe")
struct HydraulicsKinematicWaveTests {
    /// A 3 km trunk of 1.2 m pipe at 0.1 % in six 500 m reaches, fed a triangular 0.8 m³/s storm.
    static func longPipe(_ method: RoutingOptions.Method) -> HydraulicNetwork {
        var nodes = (0..<6).map { HydraulicNode(id: "M\($0)", invertElevation: 103 - 0.5 * Double($0), maxDepth: 4) }
        nodes.append(HydraulicNode(id: "OUT", invertElevation: 100, kind: .outfall(OutfallBoundary(stage: .free))))
        let links = (0..<6).map {
            HydraulicLink(id: "P\($0)", fromNode: $0, toNode: $0 + 1,
                          kind: .conduit(Conduit(length: 500, roughness: 0.013, crossSection: .circular(diameter: 1.2))))
        }
        let storm = TimeSeries(times: [0, 3600, 10800], values: [0, 0.8, 0])
        return HydraulicNetwork(nodes: nodes, links: links, inflows: [NodeInflow(node: 0, series: storm)],
                                options: RoutingOptions(method: method, duration: 6 * 3600, routingStep: 10))
    }

    @Test("peak outflows agree within 5 % and both attenuate the 0.8 m³/s inflow peak")
    func peaksAgree() throws {
        let kw = try DrainageRouting(network: Self.longPipe(.kinematicWave)).run()
        let dw = try DrainageRouting(network: Self.longPipe(.dynamicWave)).run()
        let kwPeak = kw.nodes[6].maxTotalInflow, dwPeak = dw.nodes[6].maxTotalInflow
        #expect(abs(kwPeak - dwPeak) / dwPeak < 0.05, "kinematic \(kwPeak) vs dynamic \(dwPeak) m³/s")
        #expect(kwPeak <= 0.8 + 1e-9 && dwPeak <= 0.8 + 1e-3)
        #expect(kwPeak > 0.7 && dwPeak > 0.7)
        // SWMM 5.2.4's own kinematic wave reports a 2.09 % continuity error on this model (one
        // box-scheme cell per 500 m reach); dynamic wave closes within 0.5 %.
        #expect(abs(kw.continuity.errorPercent) < 2.5)
        #expect(abs(dw.continuity.errorPercent) < 0.5)
    }
}
