import Foundation
#if canImport(FoundationXML)
import FoundationXML
#endif
import Testing
@testable import SignalSim

@Suite("Corridor timing and time–space diagram")
struct CorridorTimingTests {
    /// Four crossroads on an east–west arterial, 300 m apart at 13.89 m/s; the second is the busiest.
    static func arterial() -> (intersections: [CorridorIntersection], links: [CorridorLink]) {
        let side: [Double] = [300, 600, 300, 300]
        let intersections = side.enumerated().map { i, cross in
            CorridorIntersection(demand: IntersectionDemand(id: "IX-\(i + 1)", approaches: [
                ApproachDemand(id: "W", lanes: 2, saturationPerLane: 1800, flows: MovementFlows(through: 500)),
                ApproachDemand(id: "E", lanes: 2, saturationPerLane: 1800, flows: MovementFlows(through: 300)),
                ApproachDemand(id: "N", lanes: 1, saturationPerLane: 1800, flows: MovementFlows(through: cross)),
                ApproachDemand(id: "S", lanes: 1, saturationPerLane: 1800, flows: MovementFlows(through: cross)),
            ], stages: [["W", "E"], ["N", "S"]]), outboundApproach: "W", inboundApproach: "E")
        }
        return (intersections, (1...3).map { _ in CorridorLink(length: 300, outboundSpeed: 13.89) })
    }

    @Test("one common cycle from the busiest intersection; offsets give the bands the wave reports")
    func commonCycle() throws {
        let (intersections, links) = Self.arterial()
        let plan = try CorridorTiming.plan(id: "COR-1", intersections: intersections, links: links)
        let own = try intersections.map { try SignalTiming.webster($0.demand) }
        #expect(plan.cycle == own.map(\.cycle).max())
        #expect(plan.criticalIntersection == "IX-2")
        #expect(plan.timings.allSatisfy { $0.cycle == plan.cycle })
        #expect(abs(plan.wave.inboundWeight - 0.6) < 1e-9)
        let (b, bb) = try GreenWave.bandwidths(plan.corridor, cycle: plan.cycle, offsets: plan.wave.offsets)
        #expect(abs(b - plan.wave.outboundBandwidth) < 1e-6 && abs(bb - plan.wave.inboundBandwidth) < 1e-6)
        #expect(plan.wave.outboundBandwidth > 0)
    }

    @Test("an approach the intersection lacks is named")
    func unknownApproach() {
        var (intersections, links) = Self.arterial()
        intersections[2].inboundApproach = "Q"
        #expect { try CorridorTiming.plan(id: "C", intersections: intersections, links: links) } throws: {
            ($0 as? SignalTimingError)?.field == "intersections[2].inbound_approach"
        }
        #expect { try CorridorTiming.plan(id: "C", intersections: [intersections[0]], links: []) } throws: {
            ($0 as? SignalTimingError)?.field == "intersections"
        }
    }

    /// Counts elements by name while checking the document is well-formed XML.
    final class Elements: NSObject, XMLParserDelegate {
        var counts: [String: Int] = [:]
        func parser(_ parser: XMLParser, didStartElement name: String, namespaceURI: String?, qualifiedName: String?,
                    attributes: [String: String] = [:]) {
            counts[name, default: 0] += 1
        }
    }

    @Test("the time–space diagram is well-formed SVG with both bands and every signal labelled")
    func diagram() throws {
        let (intersections, links) = Self.arterial()
        let plan = try CorridorTiming.plan(id: "COR-1", intersections: intersections, links: links, inboundWeight: 1)
        let svg = TimeSpaceDiagram.svg(corridor: plan.corridor, wave: plan.wave)
        let parser = XMLParser(data: Data(svg.utf8))
        let elements = Elements()
        parser.delegate = elements
        #expect(parser.parse())
        #expect((elements.counts["polygon"] ?? 0) >= 2)
        for i in 1...4 { #expect(svg.contains(">IX-\(i)</text>")) }
        #expect(svg.contains("outbound band"))
    }
}
