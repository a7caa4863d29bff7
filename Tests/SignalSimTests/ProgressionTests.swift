import Testing
@testable import SignalSim

@Suite("Corridor delay under offsets (cyclic flow profiles)")
struct ProgressionTests {
    /// The reference corridor of shared/reference/signals.md §8 with SUMO's saturation flow and lost
    /// time: 4 crossroads 300 m apart at 13.89 m/s, eastbound 500 veh/h, westbound 300, side streets 150
    /// (or another count, spacing and flows on the same crossroads).
    static func reference(count: Int = 4, spacing: Double = 300, eastbound: Double = 500, westbound: Double = 300,
                          side: Double = 150) -> (intersections: [CorridorIntersection], links: [CorridorLink]) {
        let intersections = (0..<count).map { i in
            CorridorIntersection(demand: IntersectionDemand(id: "J\(i + 1)", amber: 3, allRed: 2, startupLost: 3.8, approaches: [
                ApproachDemand(id: "W", lanes: 1, saturationPerLane: 1859, flows: MovementFlows(through: eastbound)),
                ApproachDemand(id: "E", lanes: 1, saturationPerLane: 1859, flows: MovementFlows(through: westbound)),
                ApproachDemand(id: "N", lanes: 1, saturationPerLane: 1859, flows: MovementFlows(through: side)),
                ApproachDemand(id: "S", lanes: 1, saturationPerLane: 1859, flows: MovementFlows(through: side)),
            ], stages: [["W", "E"], ["N", "S"]]), outboundApproach: "W", inboundApproach: "E")
        }
        return (intersections, (1..<count).map { _ in CorridorLink(length: spacing, outboundSpeed: 13.89) })
    }

    static func plan(comparedOffsets: [Double]? = nil) throws -> CorridorPlan {
        let (intersections, links) = reference()
        return try CorridorTiming.plan(id: "REF", intersections: intersections, links: links,
                                       settings: SignalTimingSettings(minimumCycle: 90, maximumCycle: 90), comparedOffsets: comparedOffsets)
    }

    @Test("uniform arrivals served in whole-second greens give HCM's uniform delay d₁ and g/C on green")
    func uniformArrivalsGiveHCMUniformDelay() throws {
        for (cycle, green, flow, s) in [(90.0, 60.0, 500.0, 1859.0), (60, 20, 300, 1800), (120, 45, 600, 1900)] {
            let profile = CyclicFlowProfile.uniform(flow, cycle: cycle)
            let shares = (0..<Int(cycle)).map { k in (10..<(10 + Int(green))).contains(k) ? 1.0 : 0.0 }
            let served = try #require(profile.served(saturation: s, green: shares))
            let d1 = SignalTiming.hcmDelay(cycle: cycle, effectiveGreen: green, flow: flow, capacity: s * green / cycle, analysisPeriod: 0.25).uniform
            #expect(abs(served.uniformDelay - d1) < 1e-6, "C \(cycle) g \(green): \(served.uniformDelay) against d₁ \(d1)")
            #expect(abs(served.arrivalsOnGreen - green / cycle) < 1e-9)
            // What arrives in a cycle leaves in it.
            #expect(abs(served.departures.meanFlow - flow) < 1e-6)
        }
        // More than a cycle's green can serve has no steady state.
        let shares = (0..<60).map { $0 < 10 ? 1.0 : 0.0 }
        #expect(CyclicFlowProfile.uniform(400, cycle: 60).served(saturation: 1800, green: shares) == nil)
    }

    @Test("random arrivals halt on the displayed red and behind the standing queue: (r/C)/(1 − y), whatever the anticipation")
    func randomArrivalsHalt() throws {
        for (cycle, shown, flow, s) in [(90.0, 50.0, 500.0, 1859.0), (60, 25, 300, 1800), (120, 70, 900, 1900)] {
            let profile = CyclicFlowProfile.uniform(flow, cycle: cycle)
            let window = (0..<Int(cycle)).map { k in (10..<(10 + Int(shown))).contains(k) ? 1.0 : 0.0 }
            let arriving = flow / 3600 * cycle
            let expected = (cycle - shown) / cycle / (1 - flow / s)
            for anticipation in [0.0, 1.5, 3] {
                let halts = profile.halted(saturation: s, shown: window, anticipation: anticipation) / arriving
                #expect(abs(halts - expected) < 1e-6, "C \(cycle) shown \(shown) q \(flow): \(halts) against \(expected)")
            }
        }
    }

    @Test("a direction without traffic reads a vehicle's figures, as a plan does at zero flow: d₁ = r²/(2C), halts on red, none departs")
    func noTrafficReadsOneVehicle() throws {
        let cycle = 90.0, green = 40.0
        let window = (0..<90).map { k in (10..<50).contains(k) ? 1.0 : 0.0 }
        let empty = CyclicFlowProfile(rates: Array(repeating: 0, count: 90), step: 1)
        let served = try #require(empty.served(saturation: 1800, green: window, halting: (shown: window, anticipation: 0)))
        #expect(abs(served.uniformDelay - (cycle - green) * (cycle - green) / (2 * cycle)) < 1e-3)
        #expect(abs(served.halts - (cycle - green) / cycle) < 1e-6 && abs(served.arrivalsOnGreen - green / cycle) < 1e-6)
        #expect(served.departures.rates.allSatisfy { $0 == 0 })
    }

    @Test("a platoon halts only where it meets red or a queue: none on green, all on red, none in the red's last v/(2b)")
    func platoonsHaltOnRed() throws {
        let window = (0..<90).map { k in (30..<70).contains(k) ? 1.0 : 0.0 }  // shown from 30 s to 70 s
        func halts(_ from: Int, _ to: Int, anticipation: Double = 0) -> Double {
            let rates = (0..<90).map { (from..<to).contains($0) ? 0.3 : 0.0 }
            let profile = CyclicFlowProfile(rates: rates, step: 1)
            return profile.halted(saturation: 1800, shown: window, anticipation: anticipation) / (0.3 * Double(to - from))
        }
        #expect(halts(35, 55) == 0)
        #expect(abs(halts(75, 85) - 1) < 1e-9)
        // Arriving in the red's last 2 s, a car braking for 2 s sees the green before it stops.
        #expect(halts(28, 30, anticipation: 2) == 0 && abs(halts(28, 30) - 1) < 1e-9)
        // A platoon reaching the line on red halts, and so do the cars that reach its queue before it has
        // gone: 5 s of red gather 1.5 cars, served at 0.5 veh/s as 0.3 arrive, gone 7.5 s into the green;
        // 3.75 of the 6 cars halt.
        #expect(abs(halts(25, 45) - 0.625) < 1e-9, "\(halts(25, 45))")
    }

    @Test("Robertson's dispersion keeps the flow, moves the platoon's head by β·t and flattens it")
    func dispersionKeepsFlowAndMovesThePlatoon() {
        var rates = Array(repeating: 0.0, count: 90)
        for k in 0..<20 { rates[k] = 0.5 }
        let platoon = CyclicFlowProfile(rates: rates, step: 1)
        let there = platoon.dispersed(over: 30)
        #expect(abs(there.meanFlow - platoon.meanFlow) < 1e-9)
        let head = Int((0.8 * 30).rounded())
        #expect(there.rates[head - 1] < 0.01 && there.rates[head] > 0.04)
        #expect(there.rates.max()! < 0.5)
        // A longer link spreads the platoon more.
        #expect(platoon.dispersed(over: 60).rates.max()! < there.rates.max()!)
    }

    @Test("the wave's platoons arrive on green downstream; offsets against the platoon cost more than random arrivals")
    func offsetsDecideTheDownstreamDelay() throws {
        let plan = try Self.plan()
        let outbound = try #require(plan.directions.first { $0.direction == .outbound })
        let inbound = try #require(plan.directions.first { $0.direction == .inbound })
        #expect(outbound.signals.map(\.intersection) == ["J1", "J2", "J3", "J4"])
        #expect(inbound.signals.map(\.intersection) == ["J4", "J3", "J2", "J1"])
        // The first signal of each direction sees random arrivals: its plan's own figure.
        let w = try #require(plan.timings[0].approaches.first { $0.id == "W" })
        #expect(outbound.signals[0].delay == w.controlDelay && outbound.signals[0].isolatedDelay == w.controlDelay)
        // Downstream of the wave the platoon arrives on green (61 s outbound band of 90).
        for signal in outbound.signals.dropFirst() {
            #expect(signal.delay < 0.5 * signal.isolatedDelay && signal.arrivalsOnGreen > 0.85)
        }
        #expect(outbound.delay < 0.5 * outbound.isolatedDelay)
        #expect(abs(outbound.delay - outbound.signals.reduce(0) { $0 + $1.delay }) < 1e-9)
        // J2's offset swept round the cycle: the platoon arriving on red costs more than random
        // arrivals, and the delay falls as the share arriving on green rises.
        let (two, link) = Self.reference(count: 2)
        var swept: [(delay: Double, onGreen: Double, isolated: Double)] = []
        for offset in stride(from: 0.0, to: 90, by: 5) {
            let p = try CorridorTiming.plan(id: "two", intersections: two, links: link,
                                            settings: SignalTimingSettings(minimumCycle: 90, maximumCycle: 90), comparedOffsets: [0, offset])
            let j2 = try #require(p.atComparedOffsets?.directions.first { $0.direction == .outbound }?.signals.last)
            swept.append((j2.delay, j2.arrivalsOnGreen, j2.isolatedDelay))
        }
        let worst = swept.max { $0.delay < $1.delay }!, best = swept.min { $0.delay < $1.delay }!
        #expect(worst.delay > 1.5 * worst.isolated && worst.onGreen < 0.5)
        #expect(best.delay < 0.5 * best.isolated && best.onGreen > 0.85)
        let byGreen = swept.sorted { $0.onGreen < $1.onGreen }
        #expect(byGreen.first!.delay > byGreen.last!.delay)
    }

    @Test("the wave halts its platoons fewer times than random arrivals; offsets against the platoon halt more of it")
    func offsetsDecideTheHalts() throws {
        let plan = try Self.plan()
        let outbound = try #require(plan.directions.first { $0.direction == .outbound })
        #expect(abs(outbound.stops - outbound.signals.reduce(0) { $0 + $1.stops }) < 1e-9)
        #expect(outbound.signals[0].stops == outbound.signals[0].isolatedStops)
        for signal in outbound.signals.dropFirst() { #expect(signal.stops < 0.3 * signal.isolatedStops, "\(signal)") }
        let (two, link) = Self.reference(count: 2)
        var halts: [Double] = []
        var isolated = 0.0
        for offset in stride(from: 0.0, to: 90, by: 5) {
            let p = try CorridorTiming.plan(id: "two", intersections: two, links: link,
                                            settings: SignalTimingSettings(minimumCycle: 90, maximumCycle: 90), comparedOffsets: [0, offset])
            let j2 = try #require(p.atComparedOffsets?.directions.first { $0.direction == .outbound }?.signals.last)
            halts.append(j2.stops)
            isolated = j2.isolatedStops
        }
        #expect(halts.min()! < 0.25 * isolated && halts.max()! > 1.5 * isolated, "\(halts) against \(isolated)")
    }

    @Test("the wave's own offsets compared give the wave's figures; the corridor's mean delay takes the progressed ones")
    func comparedOffsetsAndMeanDelay() throws {
        let plan = try Self.plan()
        let same = try #require(try Self.plan(comparedOffsets: plan.timings.map(\.plan.offset)).atComparedOffsets)
        #expect(same.directions == plan.directions && abs(same.meanControlDelay - plan.meanControlDelay) < 1e-9)
        #expect(plan.atComparedOffsets == nil)
        // Flow-weighted over every lane group, the through groups with their progressed delay.
        var progressed: [String: Double] = [:]
        for s in plan.directions.flatMap(\.signals) { progressed["\(s.intersection)/\(s.approach)"] = s.delay }
        var total = 0.0, flow = 0.0
        for t in plan.timings {
            for a in t.approaches {
                total += a.flow * (progressed["\(t.intersection)/\(a.id)"] ?? a.controlDelay)
                flow += a.flow
            }
        }
        #expect(abs(plan.meanControlDelay - total / flow) < 1e-9)
        #expect(plan.meanControlDelay < CorridorPlan.meanControlDelay(plan.timings, directions: []))
    }

    @Test("compared offsets must be one finite number per signal")
    func badComparedOffsets() throws {
        #expect { try Self.plan(comparedOffsets: [0, 10]) } throws: {
            ($0 as? SignalTimingError)?.field == "compared_offsets_s"
        }
        #expect { try Self.plan(comparedOffsets: [0, 10, .nan, 3]) } throws: {
            ($0 as? SignalTimingError)?.field == "compared_offsets_s[2]"
        }
    }

    @Test("a turning share leaves the corridor: only the through platoon goes on, the rest of an approach arrives at random")
    func onlyThroughTrafficGoesOn() throws {
        var (intersections, links) = Self.reference(count: 2)
        intersections[0].demand.approaches[0].flows = MovementFlows(through: 250, left: 125, right: 125)
        let plan = try CorridorTiming.plan(id: "T", intersections: intersections, links: links,
                                           settings: SignalTimingSettings(minimumCycle: 90, maximumCycle: 90))
        let out = try #require(plan.directions.first { $0.direction == .outbound })
        let full = try #require(try Self.plan().directions.first { $0.direction == .outbound })
        // Half of J2's W arrivals now come at random: its delay lies between the full platoon's and the isolated one.
        #expect(out.signals[1].delay > full.signals[1].delay && out.signals[1].delay < out.signals[1].isolatedDelay)
    }

    /// Three crossroads 450 m apart with equal flows both ways (400 veh/h, side streets 250) at 100 s:
    /// the widest band (k = 1) is one-way, so the other direction meets every signal at random.
    static func equalFlows() -> (intersections: [CorridorIntersection], links: [CorridorLink]) {
        reference(count: 3, spacing: 450, eastbound: 400, westbound: 400, side: 250)
    }

    static func equalFlows(offsetObjective: OffsetObjective) throws -> CorridorPlan {
        let (intersections, links) = equalFlows()
        return try CorridorTiming.plan(id: "EQ", intersections: intersections, links: links,
                                       settings: SignalTimingSettings(minimumCycle: 100, maximumCycle: 100), offsetObjective: offsetObjective)
    }

    @Test("offsets for delay lower the corridor's delay below the widest band's, keep its greens, and report the band they give")
    func offsetsForDelay() throws {
        let band = try Self.equalFlows(offsetObjective: .band)
        let delay = try Self.equalFlows(offsetObjective: .delay)
        #expect(band.offsetObjective == .band && band.atBandOffsets == nil)
        #expect(delay.offsetObjective == .delay)
        #expect(band.wave.progression == .outboundOnly)
        // Same cycle and greens; only the offsets move, the first signal's held.
        #expect(delay.cycle == band.cycle)
        #expect(delay.timings.map(\.plan.stages) == band.timings.map(\.plan.stages))
        #expect(delay.timings[0].plan.offset == band.timings[0].plan.offset)
        // Lower in the model, the band's own figures beside it, and a note saying so.
        let atBand = try #require(delay.atBandOffsets)
        #expect(atBand.meanControlDelay == band.meanControlDelay && atBand.wave == band.wave)
        #expect(delay.meanControlDelay < band.meanControlDelay - 1, "\(delay.meanControlDelay) against \(band.meanControlDelay)")
        #expect(delay.warnings.contains { $0.hasPrefix("offsets set for the corridor's lowest delay") })
        #expect(!delay.warnings.contains { $0.hasPrefix("one-way progression") } && delay.twoWayAlternative == nil)
        // Here the gain is the inbound traffic's, now progressed too.
        let inbound = try #require(delay.directions.first { $0.direction == .inbound })
        let bandInbound = try #require(band.directions.first { $0.direction == .inbound })
        #expect(inbound.delay < bandInbound.delay)
        // The wave reported is the band those offsets give: its bands pass every green.
        let (b, bb) = try GreenWave.bandwidths(delay.corridor, cycle: delay.cycle, offsets: delay.wave.offsets)
        #expect(abs(b - delay.wave.outboundBandwidth) < 1e-9 && abs(bb - delay.wave.inboundBandwidth) < 1e-9)
        let t = delay.corridor.outboundTimes, tb = delay.corridor.inboundTimes
        for (i, signal) in delay.corridor.signals.enumerated() {
            if b > 0 {
                let into = mod(delay.wave.outboundBandStart + t[i] - delay.wave.offsets[i], delay.cycle)
                #expect(into + b <= signal.outboundGreen + 1e-6, "outbound band leaves \(signal.id)'s green")
            }
            if bb > 0 {
                let into = mod(delay.wave.inboundBandStart - tb[i] - delay.wave.offsets[i] - signal.inboundGreenShift, delay.cycle)
                #expect(into + bb <= signal.inboundGreen + 1e-6, "inbound band leaves \(signal.id)'s green")
            }
        }
    }

    @Test("no single signal's offset moved by whole seconds lowers the delay the offsets for delay give")
    func offsetsForDelayAreALocalOptimum() throws {
        let (intersections, links) = Self.equalFlows()
        let delay = try Self.equalFlows(offsetObjective: .delay)
        for i in 1..<delay.timings.count {
            for k in stride(from: 1.0, to: delay.cycle, by: 1) {
                var moved = delay.timings
                moved[i].plan.offset = mod(moved[i].plan.offset + k, delay.cycle)
                let directions = CorridorTiming.progression(intersections: intersections, links: links, timings: moved)
                #expect(CorridorPlan.meanControlDelay(moved, directions: directions) >= delay.meanControlDelay - 1e-6, "signal \(i) moved by \(k) s")
            }
        }
    }

    @Test("a range searched for the band's efficiency with offsets set for delay is refused naming the cycle objective")
    func bandCycleWithDelayOffsets() throws {
        let (intersections, links) = Self.reference()
        #expect {
            try CorridorTiming.plan(id: "REF", intersections: intersections, links: links, cycleRange: 40...60,
                                    cycleObjective: .band, offsetObjective: .delay)
        } throws: { ($0 as? SignalTimingError)?.field == "cycle_objective" }
        let searched = try CorridorTiming.plan(id: "REF", intersections: intersections, links: links, cycleRange: 40...60, offsetObjective: .delay)
        #expect(searched.cycleObjective == .delay && searched.offsetObjective == .delay && searched.atBandOffsets?.wave.cycle == searched.cycle)
    }

    @Test("offsets for delay never cost more than the widest band's, whatever the corridor")
    func offsetsForDelayNeverWorse() throws {
        let (intersections, links) = Self.reference()
        for cycle in [60.0, 75, 90] {
            let settings = SignalTimingSettings(minimumCycle: cycle, maximumCycle: cycle)
            let band = try CorridorTiming.plan(id: "REF", intersections: intersections, links: links, settings: settings)
            let delay = try CorridorTiming.plan(id: "REF", intersections: intersections, links: links, settings: settings, offsetObjective: .delay)
            #expect(delay.meanControlDelay <= band.meanControlDelay + 1e-9, "C \(cycle)")
        }
    }
}
