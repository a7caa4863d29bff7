import Foundation
import Testing
@testable import FloodSim

@Suite("Outfall boundary conditions")
struct HydraulicsOutfallTests {
    /// A manhole draining through a 1 m pipe (200 m, 0.1 %) to an outfall with `stage`.
    static func pipe(to stage: OutfallBoundary.Stage, flapGate: Bool = false, inflow: Double = 0,
                     duration: Double = 2 * 3600) -> HydraulicNetwork {
        let nodes = [
            HydraulicNode(id: "MH", invertElevation: 100.2, maxDepth: 4),
            HydraulicNode(id: "OUT", invertElevation: 100, kind: .outfall(OutfallBoundary(stage: stage, flapGate: flapGate))),
        ]
        let link = HydraulicLink(id: "P", fromNode: 0, toNode: 1,
                                 kind: .conduit(Conduit(length: 200, roughness: 0.013, crossSection: .circular(diameter: 1))))
        let inflows = inflow > 0 ? [NodeInflow(node: 0, baseline: inflow)] : []
        return HydraulicNetwork(nodes: nodes, links: [link], inflows: inflows,
                                options: RoutingOptions(duration: duration, routingStep: 5))
    }

    /// Critical depth in a 1 m circle by bisection on Q²/g = A³/T (exact geometry).
    static func criticalDepth(flow q: Double, diameter d: Double) -> Double {
        var lo = 1e-6, hi = d * 0.999
        for _ in 0..<80 {
            let y = 0.5 * (lo + hi)
            let theta = 2 * acos(1 - 2 * y / d)
            let area = d * d / 8 * (theta - sin(theta))
            let top = d * sin(theta / 2)
            if area * area * area / top < q * q / 9.81456 { lo = y } else { hi = y }
        }
        return 0.5 * (lo + hi)
    }

    @Test("a free outfall sits at the smaller of critical and normal depth")
    func freeOutfall() throws {
        let routing = try DrainageRouting(network: Self.pipe(to: .free, inflow: 0.5))
        _ = routing.run()
        let yn = manningNormalDepth(flow: 0.5, diameter: 1, roughness: 0.013, slope: 0.001)
        let yc = Self.criticalDepth(flow: 0.5, diameter: 1)
        let expected = min(yn, yc)
        #expect(abs(routing.depth(atNode: 1) - expected) / expected < 0.02, "outfall depth \(routing.depth(atNode: 1)) vs \(expected)")
    }

    @Test("a fixed stage backs water up to a level pool")
    func fixedStage() throws {
        let routing = try DrainageRouting(network: Self.pipe(to: .fixed(101.0)))
        let results = routing.run()
        #expect(abs(routing.head(atNode: 0) - 101.0) < 0.02, "manhole head \(routing.head(atNode: 0))")
        #expect(abs(routing.depth(atNode: 1) - 1.0) < 1e-9)
        // Backflow enters through the outfall and is counted as inflow.
        #expect(results.continuity.externalInflow > 0)
        #expect(abs(results.continuity.errorPercent) < 1)
    }

    @Test("a flap gate keeps the high stage out")
    func flapGate() throws {
        let routing = try DrainageRouting(network: Self.pipe(to: .fixed(101.0), flapGate: true))
        _ = routing.run()
        #expect(routing.depth(atNode: 0) < 0.01)
        #expect(routing.flow(inLink: 0) == 0)
    }

    @Test("a stage time series is followed by the water upstream")
    func stageSeries() throws {
        let rising = TimeSeries(times: [0, 3600, 7200], values: [100.0, 100.8, 101.5])
        let routing = try DrainageRouting(network: Self.pipe(to: .timeSeries(rising)))
        routing.advance(to: 3600)
        #expect(abs(routing.depth(atNode: 1) - 0.8) < 1e-6)
        #expect(abs(routing.head(atNode: 0) - 100.8) < 0.05)
        routing.advance(to: 7200)
        #expect(abs(routing.time - 7200) < 1e-9)
        #expect(abs(routing.head(atNode: 0) - 101.5) < 0.05)
    }
}
