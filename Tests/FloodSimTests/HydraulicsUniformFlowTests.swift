import Foundation
import Testing
@testable import FloodSim

/// Manning normal depth of `flow` in a full circle of `diameter` (exact geometry, bisection).
func manningNormalDepth(flow: Double, diameter d: Double, roughness n: Double, slope s: Double) -> Double {
    func conveyance(_ y: Double) -> Double {
        let theta = 2 * acos(1 - 2 * y / d)
        let area = d * d / 8 * (theta - sin(theta))
        let perimeter = d / 2 * theta
        return area * pow(area / perimeter, 2.0 / 3.0) * s.squareRoot() / n
    }
    var lo = 1e-9, hi = 0.938 * d
    for _ in 0..<80 {
        let mid = 0.5 * (lo + hi)
        if conveyance(mid) < flow { lo = mid } else { hi = mid }
    }
    return 0.5 * (lo + hi)
}

@Suite("Uniform flow in a single pipe")
struct HydraulicsUniformFlowTests {
    /// One 1 m pipe, 800 m long at 0.2 %, from a junction to an outfall held at normal depth.
    static func singlePipe(inflow: Double, method: RoutingOptions.Method = .dynamicWave) -> HydraulicNetwork {
        let length = 800.0, slope = 0.002
        let nodes = [
            HydraulicNode(id: "J1", invertElevation: 10 + length * slope, maxDepth: 3),
            HydraulicNode(id: "OUT", invertElevation: 10, kind: .outfall(OutfallBoundary(stage: .normal))),
        ]
        let pipe = HydraulicLink(id: "C1", fromNode: 0, toNode: 1,
                                 kind: .conduit(Conduit(length: length, roughness: 0.013, crossSection: .circular(diameter: 1))))
        let steady = NodeInflow(node: 0, baseline: inflow)
        return HydraulicNetwork(nodes: nodes, links: [pipe], inflows: [steady],
                                options: RoutingOptions(method: method, duration: 4 * 3600, routingStep: 10))
    }

    @Test("an empty network routes nothing and balances")
    func emptyNetwork() throws {
        let routing = try DrainageRouting(network: HydraulicNetwork(nodes: [], links: []))
        let results = routing.run()
        #expect(results.nodes.isEmpty)
        #expect(results.continuity.totalInflow == 0)
        #expect(results.continuity.errorPercent == 0)
    }

    @Test("steady flow reaches Manning normal depth under dynamic wave")
    func dynamicWaveNormalDepth() throws {
        let q = 0.6
        let routing = try DrainageRouting(network: Self.singlePipe(inflow: q))
        _ = routing.run()
        let expected = manningNormalDepth(flow: q, diameter: 1, roughness: 0.013, slope: 0.002)
        let upstream = routing.depth(atNode: 0)
        #expect(abs(upstream - expected) / expected < 0.02, "upstream depth \(upstream) vs normal depth \(expected)")
        #expect(abs(routing.flow(inLink: 0) - q) / q < 0.005)
    }

    @Test("steady flow reaches Manning normal depth under kinematic wave")
    func kinematicWaveNormalDepth() throws {
        let q = 0.6
        let routing = try DrainageRouting(network: Self.singlePipe(inflow: q, method: .kinematicWave))
        _ = routing.run()
        let expected = manningNormalDepth(flow: q, diameter: 1, roughness: 0.013, slope: 0.002)
        #expect(abs(routing.linkDepths[0] - expected) / expected < 0.02)
        #expect(abs(routing.flow(inLink: 0) - q) / q < 0.005)
    }

    @Test("a link naming a missing node is rejected with its id")
    func badReference() {
        var network = Self.singlePipe(inflow: 0.1)
        network.links[0].toNode = 7
        #expect(throws: HydraulicsError.self) { try DrainageRouting(network: network) }
        do { _ = try DrainageRouting(network: network) } catch let e as HydraulicsError {
            #expect(e.code == .badReference)
            #expect(e.message.contains("C1"))
        } catch { Issue.record("unexpected error \(error)") }
    }
}
