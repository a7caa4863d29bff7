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

    /// The corridor timed with every controller held to `cycle`: an independent plan per candidate.
    static func fixed(at cycle: Double, _ intersections: [CorridorIntersection], _ links: [CorridorLink],
                      id: String = "COR-1") throws -> CorridorPlan {
        try CorridorTiming.plan(id: id, intersections: intersections, links: links,
                                settings: SignalTimingSettings(minimumCycle: cycle, maximumCycle: cycle))
    }

    @Test("a cycle range searched for the band takes the most efficient band (b + k·b̄)/C of its cycles from the critical one up, the shortest of equals")
    func cycleRange() throws {
        let (intersections, links) = Self.arterial()
        let critical = try CorridorTiming.plan(id: "COR-1", intersections: intersections, links: links)
        #expect(critical.cycleRange == nil && critical.criticalCycle == critical.cycle)
        let range = (critical.cycle - 10)...(critical.cycle + 40)
        let plan = try CorridorTiming.plan(id: "COR-1", intersections: intersections, links: links, cycleRange: range, cycleObjective: .band)
        #expect(plan.criticalCycle == critical.cycle && plan.criticalIntersection == "IX-2" && plan.cycleRange == range)
        #expect(plan.cycle >= critical.cycle && plan.cycle <= range.upperBound && plan.cycle == plan.cycle.rounded())
        #expect(plan.timings.allSatisfy { $0.cycle == plan.cycle })
        // A longer cycle than the critical one names what it costs: the critical cycle's wave and delay.
        if plan.cycle > critical.cycle {
            #expect(plan.atCriticalCycle?.wave == critical.wave)
            #expect(abs((plan.atCriticalCycle?.meanControlDelay ?? -1) - critical.meanControlDelay) < 1e-9)
            #expect(plan.warnings.first?.contains(String(format: "from %.1f to %.1f s/veh", critical.meanControlDelay, plan.meanControlDelay)) == true)
        } else {
            #expect(plan.atCriticalCycle == nil)
        }
        let efficiency = plan.wave.objective / plan.cycle
        var candidate = critical.cycle
        while candidate <= range.upperBound {
            let other = try Self.fixed(at: candidate, intersections, links)
            let e = other.wave.objective / candidate
            #expect(e <= efficiency + 1e-9, "\(candidate) s beats the chosen \(plan.cycle) s")
            if candidate < plan.cycle { #expect(e < efficiency - 1e-9, "\(candidate) s ties the chosen \(plan.cycle) s") }
            if candidate == plan.cycle { #expect(other.wave == plan.wave && other.timings == plan.timings) }
            candidate += 1
        }
    }

    @Test("a cycle range searched for delay takes the shortest cycle within the tolerance of the lowest mean control delay under its wave")
    func cycleRangeForDelay() throws {
        let (intersections, links) = Self.arterial()
        let critical = try CorridorTiming.plan(id: "COR-1", intersections: intersections, links: links)
        let range = critical.cycle...(critical.cycle + 30)
        let plan = try CorridorTiming.plan(id: "COR-1", intersections: intersections, links: links, cycleRange: range, cycleObjective: .delay)
        #expect(plan.cycleObjective == .delay && plan.cycleRange == range)
        var delays: [Double: Double] = [:]
        var candidate = critical.cycle
        while candidate <= range.upperBound {
            let other = try Self.fixed(at: candidate, intersections, links)
            delays[candidate] = other.meanControlDelay
            if candidate == plan.cycle { #expect(other.timings == plan.timings && other.directions == plan.directions) }
            candidate += 1
        }
        // The shortest cycle within the tolerance of the lowest delay of the range.
        let lowest = delays.values.min()!
        let tolerance = SignalTiming.cycleDelayTolerance
        #expect(abs(delays[plan.cycle]! - plan.meanControlDelay) < 1e-9 && plan.meanControlDelay <= lowest + tolerance)
        #expect(delays.filter { $0.key < plan.cycle }.allSatisfy { $0.value > lowest + tolerance })
        if plan.cycle > critical.cycle {
            #expect(plan.warnings.first?.contains("lowest mean control delay of the range") == true)
        }
        // Without a range there is nothing to search, and no objective is reported.
        #expect(critical.cycleObjective == nil)
        let byDefault = try CorridorTiming.plan(id: "COR-1", intersections: intersections, links: links, cycleRange: range)  // delay by default
        #expect(byDefault.cycleObjective == .delay)
    }

    @Test("a searched range reports each cycle it has coordinated, and what the report throws ends the search")
    func cycleRangeProgress() throws {
        let (intersections, links) = Self.arterial()
        let critical = try CorridorTiming.plan(id: "COR-1", intersections: intersections, links: links).cycle
        // From below the critical cycle: only the cycles from the critical one up are coordinated.
        let range = (critical - 5)...(critical + 9)
        var reports: [(Int, Int)] = []
        let plan = try CorridorTiming.plan(id: "COR-1", intersections: intersections, links: links, cycleRange: range) { reports.append(($0, $1)) }
        #expect(reports.map(\.0) == Array(0...10) && reports.allSatisfy { $0.1 == 10 })
        #expect(plan == (try CorridorTiming.plan(id: "COR-1", intersections: intersections, links: links, cycleRange: range)))
        struct Stop: Error {}
        var calls = 0
        #expect(throws: Stop.self) {
            try CorridorTiming.plan(id: "COR-1", intersections: intersections, links: links, cycleRange: range) { done, _ in
                calls += 1
                if done == 3 { throw Stop() }
            }
        }
        #expect(calls == 4)
        // No range, nothing searched: no report.
        _ = try CorridorTiming.plan(id: "COR-1", intersections: intersections, links: links) { _, _ in Issue.record("reported without a range") }
    }

    @Test("a link beyond any corridor is refused naming it: longer than 10 km, or a speed outside 1-40 m/s (a km/h figure given as m/s)",
          arguments: [(CorridorLink(length: 1e9, outboundSpeed: 13.89), "links[1].length_m"),
                      (CorridorLink(length: 300, outboundSpeed: 50), "links[1].outbound_speed_m_s"),
                      (CorridorLink(length: 300, outboundSpeed: 13.89, inboundSpeed: 1e-9), "links[1].inbound_speed_m_s")])
    func implausibleLinks(_ link: CorridorLink, _ field: String) {
        let (intersections, arterial) = Self.arterial()
        var links = arterial
        links[1] = link
        #expect { try CorridorTiming.plan(id: "C", intersections: intersections, links: links) } throws: {
            ($0 as? SignalTimingError)?.field == field
        }
    }

    @Test("an inbound weight outside 0-10 is refused naming inbound_weight, as the green-wave process refuses it",
          arguments: [-0.5, 10.5, 1e120, .infinity, .nan])
    func inboundWeightOutOfRange(_ k: Double) {
        let (intersections, links) = Self.arterial()
        #expect { try CorridorTiming.plan(id: "C", intersections: intersections, links: links, inboundWeight: k) } throws: {
            ($0 as? SignalTimingError)?.field == "inbound_weight"
        }
    }

    @Test("both ends of the inbound weights are taken, and a corridor whose inbound flow is over ten times the outbound weighs it 10")
    func inboundWeightEnds() throws {
        var (intersections, links) = Self.arterial()
        for k in [CorridorTiming.inboundWeights.lowerBound, CorridorTiming.inboundWeights.upperBound] {
            #expect(try CorridorTiming.plan(id: "C", intersections: intersections, links: links, inboundWeight: k).wave.inboundWeight == k)
        }
        for i in intersections.indices {
            intersections[i].demand.approaches[0].flows.through = 20  // W, outbound
        }
        #expect(try CorridorTiming.plan(id: "C", intersections: intersections, links: links).wave.inboundWeight == 10)
    }

    @Test("a cycle range the critical intersection cannot run, or beyond the maximum cycle, is refused naming it")
    func badCycleRange() throws {
        let (intersections, links) = Self.arterial()
        let critical = try CorridorTiming.plan(id: "COR-1", intersections: intersections, links: links).cycle
        #expect { try CorridorTiming.plan(id: "C", intersections: intersections, links: links, cycleRange: 20...(critical - 1)) } throws: {
            guard let e = $0 as? SignalTimingError else { return false }
            return e.field == "cycle_range_s" && e.reason.contains("IX-2")
        }
        #expect { try CorridorTiming.plan(id: "C", intersections: intersections, links: links, cycleRange: critical...200) } throws: {
            ($0 as? SignalTimingError)?.field == "cycle_range_s"
        }
    }

    @Test("a one-way wave names the shortest longer cycle whose wave runs both ways")
    func twoWayAlternative() throws {
        // Two signals 1,200 m apart at 12.5 m/s: 96 s each way. At the critical 56 s cycle the
        // inbound band would need the second signal's green 2·96 s mod 56 = 24 s from where the
        // outbound band needs it, more than the 18 s through green: one way only.
        let demand = { (id: String) in
            CorridorIntersection(demand: IntersectionDemand(id: id, approaches: [
                ApproachDemand(id: "W", lanes: 2, saturationPerLane: 1800, flows: MovementFlows(through: 900)),
                ApproachDemand(id: "E", lanes: 2, saturationPerLane: 1800, flows: MovementFlows(through: 900)),
                ApproachDemand(id: "N", lanes: 1, saturationPerLane: 1800, flows: MovementFlows(through: 700)),
                ApproachDemand(id: "S", lanes: 1, saturationPerLane: 1800, flows: MovementFlows(through: 700)),
            ], stages: [["W", "E"], ["N", "S"]]), outboundApproach: "W", inboundApproach: "E")
        }
        let intersections = [demand("A"), demand("B")]
        let links = [CorridorLink(length: 1200, outboundSpeed: 12.5)]
        let plan = try CorridorTiming.plan(id: "COR-2", intersections: intersections, links: links)
        #expect(plan.wave.progression != .twoWay && plan.warnings.first == plan.wave.oneWayNote)
        let found = try #require(plan.twoWayAlternative)
        let alternative = found.wave
        #expect(alternative.progression == .twoWay && alternative.cycle > plan.cycle)
        var candidate = plan.cycle + 1
        while candidate < alternative.cycle {
            #expect(try Self.fixed(at: candidate, intersections, links, id: "COR-2").wave.progression != .twoWay, "\(candidate) s")
            candidate += 1
        }
        let there = try Self.fixed(at: alternative.cycle, intersections, links, id: "COR-2")
        #expect(there.wave == alternative && abs(there.meanControlDelay - found.meanControlDelay) < 1e-9)
        #expect(plan.warnings.count == 2 && plan.warnings[1].contains(String(format: "%.0f s", alternative.cycle)))
        // Searching a range makes the choice instead: no alternative is named beside it.
        let ranged = try CorridorTiming.plan(id: "COR-2", intersections: intersections, links: links,
                                             cycleRange: plan.cycle...alternative.cycle)
        #expect(ranged.twoWayAlternative == nil)
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
        // Longer than a corridor is coordinated in one piece.
        let long = Array(repeating: intersections[0], count: CorridorTiming.mostSignals + 1)
        #expect { try CorridorTiming.plan(id: "C", intersections: long, links: Array(repeating: links[0], count: long.count - 1)) } throws: {
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
        // The legend names which band runs which way.
        #expect(svg.contains("outbound band (IX-1 → IX-4)") && svg.contains("inbound band (IX-4 → IX-1)"))
    }

    @Test("a corridor named with quotes, & and < is escaped in the diagram (quotes were left raw), which stays well-formed")
    func diagramEscapes() throws {
        let (intersections, links) = Self.arterial()
        let plan = try CorridorTiming.plan(id: #"COR "A" & 'B' <1>"#, intersections: intersections, links: links, inboundWeight: 1)
        let svg = TimeSpaceDiagram.svg(corridor: plan.corridor, wave: plan.wave)
        #expect(svg.contains("COR &quot;A&quot; &amp; &#39;B&#39; &lt;1&gt;"))
        #expect(!svg.contains(#"COR "A""#))
        #expect(XMLParser(data: Data(svg.utf8)).parse())
    }
}
