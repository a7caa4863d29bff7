import Foundation
import Testing
@testable import FloodSim

@Suite("Flooding and ponding at a surcharged node")
struct HydraulicsFloodingTests {
    static let inflowPeak = 1.0

    /// A 0.5 m pipe, 100 m long, from a 2 m deep manhole to an outfall held at the pipe's crown,
    /// fed 1 m³/s for an hour: more than the pipe can carry under the manhole's full head.
    static func surcharged(pondedArea: Double, allowPonding: Bool, duration: Double = 3 * 3600) -> HydraulicNetwork {
        let nodes = [
            HydraulicNode(id: "MH", invertElevation: 101, maxDepth: 2, pondedArea: pondedArea),
            HydraulicNode(id: "OUT", invertElevation: 100, kind: .outfall(OutfallBoundary(stage: .fixed(100.5)))),
        ]
        let pipe = HydraulicLink(id: "P", fromNode: 0, toNode: 1,
                                 kind: .conduit(Conduit(length: 100, roughness: 0.013, crossSection: .circular(diameter: 0.5))))
        let storm = TimeSeries(times: [0, 600, 4200, 4800], values: [0, inflowPeak, inflowPeak, 0])
        return HydraulicNetwork(nodes: nodes, links: [pipe], inflows: [NodeInflow(node: 0, series: storm)],
                                options: RoutingOptions(duration: duration, routingStep: 5, allowPonding: allowPonding))
    }

    /// Full-pipe Manning capacity under the head difference between the full manhole and the outfall.
    static var pipeCapacity: Double {
        let area = Double.pi * 0.25 * 0.25, radius = 0.125
        let frictionSlope = (103.0 - 100.5) / 100
        return area * pow(radius, 2.0 / 3.0) * frictionSlope.squareRoot() / 0.013
    }

    @Test("without ponding the excess over pipe capacity is lost as flooding")
    func floodingLoss() throws {
        let results = try DrainageRouting(network: Self.surcharged(pondedArea: 0, allowPonding: false)).run()
        let node = results.nodes[0]
        let expectedRate = Self.inflowPeak - Self.pipeCapacity
        #expect(abs(node.maxFloodRate - expectedRate) / expectedRate < 0.03,
                "flood rate \(node.maxFloodRate) vs inflow − capacity \(expectedRate)")
        #expect(node.maxDepth == 2)
        #expect(node.hoursFlooded > 0.9 && node.hoursFlooded < 1.2)
        let c = results.continuity
        #expect(abs(c.flooding - node.floodVolume) / node.floodVolume < 0.01)
        // The plateau alone floods about (inflow − capacity) × 1 h.
        #expect(abs(c.flooding - expectedRate * 3600) / (expectedRate * 3600) < 0.1)
        #expect(abs(c.errorPercent) < 0.5)
    }

    @Test("with ponding the excess is stored above the rim and drains back")
    func pondingReturns() throws {
        let lost = try DrainageRouting(network: Self.surcharged(pondedArea: 0, allowPonding: false)).run()
        let routing = try DrainageRouting(network: Self.surcharged(pondedArea: 5000, allowPonding: true, duration: 5 * 3600))
        let ponded = routing.run()
        let c = ponded.continuity
        #expect(c.flooding < 0.01 * lost.continuity.flooding, "system flooding loss \(c.flooding) m³")
        #expect(ponded.nodes[0].maxPondedVolume > 0.8 * lost.continuity.flooding)
        #expect(ponded.nodes[0].maxPondedVolume < 1.05 * lost.continuity.flooding)
        #expect(ponded.nodes[0].maxDepth > 2)
        // Everything that ponded has returned to the pipe and left through the outfall.
        #expect(routing.nodeVolumes[0] < 1)
        #expect(abs(c.externalOutflow - c.externalInflow) / c.externalInflow < 0.01)
        #expect(abs(c.errorPercent) < 0.5)
    }
}
