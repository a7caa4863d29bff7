import Foundation
import Testing
@testable import SignalSim

/// Webster's formulas against the published worked examples (shared/reference/signals.md §1–2)
/// and the plans built on them.
@Suite("Webster and HCM timing")
struct WebsterTimingTests {
    @Test("Webster's optimum cycle reproduces the worked examples: 58, 77 and 105 s",
          arguments: [(16.0, 0.3125 + 0.1875, 58.0), (12.0, 0.40 + 0.30, 77.0), (12.0, 0.320 + 0.460, 105.0)])
    func websterCycleExamples(lost: Double, y: Double, expected: Double) throws {
        let c0 = try #require(SignalTiming.websterCycle(lostTime: lost, flowRatioSum: y))
        #expect(c0.rounded(.up) == expected)
    }

    @Test("Webster's delay check: C = 60 s, g = 27 s, q = 600, s = 1800 gives x = 0.741 and 17.6 s/veh")
    func websterDelayCheck() throws {
        let d = try #require(SignalTiming.websterDelay(cycle: 60, effectiveGreen: 27, flow: 600, saturationFlow: 1800))
        #expect(abs(d - 17.6) < 0.05)
        let p = TimedIntersection.performance(id: "A", flow: 600, saturationFlow: 1800, effectiveGreen: 27, cycle: 60, analysisPeriod: 0.25)
        #expect(abs(p.degreeOfSaturation - 0.741) < 0.001)
    }

    @Test("HCM 2000 check: v = 800, c = 775, g/C = 0.40, C = 90 s, T = 0.25 h gives d1 27.0 + d2 40.9 = 67.9 s/veh, LOS E")
    func hcmCheck() {
        let (d1, d2) = SignalTiming.hcmDelay(cycle: 90, effectiveGreen: 36, flow: 800, capacity: 775, analysisPeriod: 0.25)
        #expect(abs(d1 - 27.0) < 0.05)
        #expect(abs(d2 - 40.9) < 0.05)
        #expect(abs(d1 + d2 - 67.9) < 0.05)
        // x > 1: level of service F whatever the delay.
        #expect(LevelOfService(controlDelay: 67.9, degreeOfSaturation: 800.0 / 775) == .f)
        #expect(LevelOfService(controlDelay: 67.9, degreeOfSaturation: 0.95) == .e)
    }

    @Test("HCM's incremental delay factor k is the intersection's to set (0.5 pretimed by default), and only in (0, 1]")
    func incrementalDelayFactor() throws {
        let (_, pretimed) = SignalTiming.hcmDelay(cycle: 90, effectiveGreen: 36, flow: 800, capacity: 775, analysisPeriod: 0.25)
        let (_, lower) = SignalTiming.hcmDelay(cycle: 90, effectiveGreen: 36, flow: 800, capacity: 775, analysisPeriod: 0.25,
                                               incrementalDelayFactor: 0.4)
        #expect(lower < pretimed - 1)
        var demand = Self.crossroads()
        let standard = try SignalTiming.webster(demand)
        demand.incrementalDelayFactor = 0.4
        let calibrated = try SignalTiming.webster(demand)
        #expect(calibrated.plan == standard.plan, "k changes the predicted delay, not the plan")
        for (a, b) in zip(calibrated.approaches, standard.approaches) {
            #expect(a.incrementalDelay < b.incrementalDelay && a.uniformDelay == b.uniformDelay)
        }
        let decoded = try JSONDecoder().decode(IntersectionDemand.self, from: Data(#"{"id": "K", "incremental_delay_factor": 0.4, "approaches": [{"id": "N", "lanes": 1, "flows_veh_h": {"through": 300}}], "stages": [["N"]]}"#.utf8))
        #expect(decoded.incrementalDelayFactor == 0.4)
        demand.incrementalDelayFactor = 1.5
        let refused = #expect(throws: SignalTimingError.self) { try SignalTiming.webster(demand) }
        #expect(refused?.field == "incremental_delay_factor")
    }

    @Test("the analysis period T changes the predicted incremental delay, not the plan; below saturation d₂ rises with T to the steady-state random delay")
    func analysisPeriod() throws {
        // T → ∞ below saturation: d₂ → 3600·k·x / (c·(1 − x)), Webster's random-arrival term at k = 0.5.
        let (_, long) = SignalTiming.hcmDelay(cycle: 60, effectiveGreen: 27, flow: 600, capacity: 810, analysisPeriod: 24)
        let x = 600.0 / 810
        #expect(abs(long - 3600 * 0.5 * x / (810 * (1 - x))) < 0.05)
        let quarter = try SignalTiming.webster(Self.crossroads())
        let hour = try SignalTiming.webster(Self.crossroads(), settings: SignalTimingSettings(analysisPeriod: 1))
        #expect(hour.plan == quarter.plan)
        for (a, b) in zip(hour.approaches, quarter.approaches) {
            #expect(a.uniformDelay == b.uniformDelay && a.incrementalDelay > b.incrementalDelay && a.incrementalDelay < 1.5 * b.incrementalDelay)
        }
        let refused = #expect(throws: SignalTimingError.self) {
            try SignalTiming.webster(Self.crossroads(), settings: SignalTimingSettings(analysisPeriod: 0))
        }
        #expect(refused?.field == "analysis_period_h")
    }

    @Test("an intersection's own base saturation flow and turn factors time the lane groups that give none; a group's own value replaces the base for its lanes, its turns discounted by the same factors")
    func intersectionSaturationFlow() throws {
        func turning(_ given: Double? = nil) -> IntersectionDemand {
            IntersectionDemand(id: "IX-S", approaches: [
                ApproachDemand(id: "NL", lanes: 1, flows: MovementFlows(left: 200), arm: "N"),
                ApproachDemand(id: "N", lanes: 2, flows: MovementFlows(through: 700, right: 150), arm: "N"),
                ApproachDemand(id: "W", lanes: 1, saturationPerLane: given, flows: MovementFlows(through: 400, right: 100), arm: "W"),
            ], stages: [["N"], ["NL"], ["W"]])
        }
        let design = try SignalTiming.webster(turning())
        var measured = turning()
        measured.saturationFlow = 1900
        measured.leftTurnFactor = 0.9
        measured.rightTurnFactor = 0.8
        let timed = try SignalTiming.webster(measured)
        let s = Dictionary(uniqueKeysWithValues: timed.approaches.map { ($0.id, $0.saturationFlow) })
        let d = Dictionary(uniqueKeysWithValues: design.approaches.map { ($0.id, $0.saturationFlow) })
        #expect(abs(d["NL"]! - 1800 * 0.95) < 0.01 && abs(s["NL"]! - 1900 * 0.9) < 0.01)
        // Two lanes, 850 veh/h of which 150 right: the rightmost lane (150 rights) is not the tighter one here.
        #expect(abs(s["N"]! - 2 * 1900 / ((700 + 150 / 0.8) / 850)) < 0.01)
        #expect(timed.plan.cycle != design.plan.cycle)
        var given = turning(1500)
        given.saturationFlow = 1900
        // W: 400 through and 100 right (the default factor 0.85) on one lane whose through traffic discharges at 1500.
        let w = try #require(try SignalTiming.webster(given).approaches.first { $0.id == "W" })
        #expect(abs(w.saturationFlow - 1500 / ((400 + 100 / 0.85) / 500)) < 0.01)
        let decoded = try JSONDecoder().decode(IntersectionDemand.self, from: Data(#"{"id": "K", "saturation_flow_pcu_h": 1900, "left_turn_factor": 0.9, "right_turn_factor": 0.8, "approaches": [{"id": "N", "lanes": 1, "flows_veh_h": {"through": 300}}], "stages": [["N"]]}"#.utf8))
        #expect(decoded.saturationFlow == 1900 && decoded.leftTurnFactor == 0.9 && decoded.rightTurnFactor == 0.8)
        for (field, bad) in [("saturation_flow_pcu_h", { (d: inout IntersectionDemand) in d.saturationFlow = -5 }),
                             ("left_turn_factor", { (d: inout IntersectionDemand) in d.leftTurnFactor = 1.2 }),
                             ("right_turn_factor", { (d: inout IntersectionDemand) in d.rightTurnFactor = 0 })] {
            var demand = turning()
            bad(&demand)
            let refused = #expect(throws: SignalTimingError.self) { try SignalTiming.webster(demand) }
            #expect(refused?.field == field)
        }
    }

    @Test("a lane group's site conditions are factors on its saturation flow: GB 50647's lane width (1 from 3.0 to 3.5 m), HCM 2000's grade, heavy vehicles and bus blockage; out of range refused naming the field")
    func siteConditions() throws {
        // GB 50647's width correction is continuous at its breaks and flat over the design lane.
        for (width, factor) in [(2.7, 0.88), (2.8, 0.92), (3.0, 1.0), (3.25, 1.0), (3.5, 1.0), (3.75, 1.0125), (4.5, 1.05)] {
            #expect(abs(LaneGroupConditions(laneWidth: width).laneWidthFactor - factor) < 1e-9, "width \(width)")
        }
        #expect(abs(LaneGroupConditions(grade: 4).gradeFactor - 0.98) < 1e-12 && abs(LaneGroupConditions(grade: -4).gradeFactor - 1.02) < 1e-12)
        #expect(abs(LaneGroupConditions(heavyVehicles: 10).heavyVehicleFactor - 1 / 1.1) < 1e-12)
        // 20 buses an hour, each blocking a lane 14.4 s, on a group of two lanes: (2 − 0.08)/2.
        #expect(abs(LaneGroupConditions(busesStopping: 20).busBlockageFactor(lanes: 2) - 0.96) < 1e-12)
        // 250 buses an hour (HCM's most) would close a one-lane group: the factor stops at 0.05.
        #expect(LaneGroupConditions(busesStopping: 250).busBlockageFactor(lanes: 1) == 0.05)
        // All four in one fixed order, to the last bit: a plan is the same on every run (a CI run once
        // differed in the last digit when they were multiplied in a dictionary's order).
        let all = LaneGroupConditions(laneWidth: 2.8, grade: 3, heavyVehicles: 20, busesStopping: 30)
        #expect(all.factor(lanes: 3) == all.laneWidthFactor * all.gradeFactor * all.heavyVehicleFactor * all.busBlockageFactor(lanes: 3))
        func crossroads(_ conditions: LaneGroupConditions) -> IntersectionDemand {
            IntersectionDemand(id: "IX-C", approaches: [
                ApproachDemand(id: "N", lanes: 2, flows: MovementFlows(through: 900, right: 100), conditions: conditions),
                ApproachDemand(id: "S", lanes: 2, flows: MovementFlows(through: 800)),
                ApproachDemand(id: "W", lanes: 1, flows: MovementFlows(through: 400)),
                ApproachDemand(id: "E", lanes: 1, flows: MovementFlows(through: 380)),
            ], stages: [["N", "S"], ["W", "E"]])
        }
        let plain = try SignalTiming.webster(crossroads(LaneGroupConditions()))
        let site = LaneGroupConditions(laneWidth: 2.8, grade: 4, heavyVehicles: 10, busesStopping: 20)
        let timed = try SignalTiming.webster(crossroads(site))
        let before = try #require(plain.approaches.first { $0.id == "N" }), after = try #require(timed.approaches.first { $0.id == "N" })
        // The whole group's saturation flow (turns discounted as before) times each factor.
        #expect(abs(after.saturationFlow - before.saturationFlow * 0.92 * 0.98 / 1.1 * 0.96) < 1e-6)
        #expect(before.saturationFactors == nil)
        let factors = try #require(after.saturationFactors)
        #expect(Set(factors.keys) == ["lane_width", "grade", "heavy_vehicles", "buses_stopping"] && abs(factors["buses_stopping"]! - 0.96) < 1e-12)
        // N is the critical approach of its stage: its lower capacity lengthens the cycle.
        #expect(timed.plan.cycle > plain.plan.cycle)
        let json = #"{"id": "K", "approaches": [{"id": "N", "lanes": 2, "lane_width_m": 2.8, "grade_pct": 4, "heavy_vehicles_pct": 10, "buses_stopping_veh_h": 20, "flows_veh_h": {"through": 900, "right": 100}}, {"id": "S", "lanes": 2, "flows_veh_h": {"through": 800}}, {"id": "W", "lanes": 1, "flows_veh_h": {"through": 400}}, {"id": "E", "lanes": 1, "flows_veh_h": {"through": 380}}], "stages": [["N", "S"], ["W", "E"]]}"#
        let decoded = try JSONDecoder().decode(IntersectionDemand.self, from: Data(json.utf8))
        #expect(decoded.approaches[0].conditions == site && decoded.approaches[1].conditions == LaneGroupConditions())
        // Encoded and read back unchanged, the conditions under their JSON names.
        let encoded = String(decoding: try JSONEncoder().encode(decoded), as: UTF8.self)
        #expect(encoded.contains("\"lane_width_m\":2.8") && encoded.contains("\"buses_stopping_veh_h\":20"))
        #expect(try JSONDecoder().decode(IntersectionDemand.self, from: Data(encoded.utf8)) == decoded)
        for (field, bad) in [("lane_width_m", LaneGroupConditions(laneWidth: 2.5)), ("lane_width_m", LaneGroupConditions(laneWidth: 5)),
                             ("grade_pct", LaneGroupConditions(grade: 12)), ("grade_pct", LaneGroupConditions(grade: .nan)),
                             ("heavy_vehicles_pct", LaneGroupConditions(heavyVehicles: -1)), ("heavy_vehicles_pct", LaneGroupConditions(heavyVehicles: 120)),
                             ("buses_stopping_veh_h", LaneGroupConditions(busesStopping: 300))] {
            let refused = #expect(throws: SignalTimingError.self) { try SignalTiming.webster(crossroads(bad)) }
            #expect(refused?.field == "approaches[0]." + field)
        }
    }

    @Test("Webster's delay is undefined at or above saturation; HCM's still answers")
    func saturatedDelay() {
        #expect(SignalTiming.websterDelay(cycle: 90, effectiveGreen: 30, flow: 700, saturationFlow: 1800) == nil)
        let (d1, d2) = SignalTiming.hcmDelay(cycle: 90, effectiveGreen: 30, flow: 700, capacity: 600, analysisPeriod: 0.25)
        #expect(d1 > 0 && d2 > 0 && d2.isFinite)
    }

    static func crossroads(ns: Double = 600, ew: Double = 350) -> IntersectionDemand {
        IntersectionDemand(id: "IX-T", amber: 3, allRed: 2, startupLost: 3, approaches: [
            ApproachDemand(id: "N", lanes: 1, saturationPerLane: 1800, flows: MovementFlows(through: ns)),
            ApproachDemand(id: "S", lanes: 1, saturationPerLane: 1800, flows: MovementFlows(through: ns)),
            ApproachDemand(id: "W", lanes: 1, saturationPerLane: 1800, flows: MovementFlows(through: ew)),
            ApproachDemand(id: "E", lanes: 1, saturationPerLane: 1800, flows: MovementFlows(through: ew)),
        ], stages: [["N", "S"], ["W", "E"]])
    }

    @Test("a pedestrian-only stage (行人专用相位阶段) names no approach: it runs its crossings' minimum green, lost to every vehicle in Webster's cycle, with no vehicle minimum and no minimum-green warning")
    func pedestrianOnlyStage() throws {
        var demand = Self.crossroads()
        demand.stages.append([])
        demand.crossings = ["N", "S", "E", "W"].map { PedestrianCrossing(id: "P-\($0)", length: 20, stage: 2) }
        let timing = try SignalTiming.webster(demand)
        let settings = SignalTimingSettings()
        let walk = settings.pedestrianStartup + 20 / settings.walkingSpeed
        #expect(timing.plan.stages[2].approaches.isEmpty && timing.plan.stages[2].green == walk.rounded())
        // L = 3 × (3 + 2 − 3) … as Webster counts it: the stages' lost times and the whole pedestrian stage.
        let lost = 3 * demand.lostTimePerStage, pedestrian = walk + demand.amber - demand.startupLost
        let c0 = try #require(SignalTiming.websterCycle(lostTime: lost + pedestrian, flowRatioSum: timing.flowRatioSum))
        #expect(timing.websterCycle.map { abs($0 - c0) < 1e-9 } == true && timing.cycle == c0.rounded(.up))
        #expect(timing.lostTime == lost && !timing.warnings.contains { $0.code == .minimumGreen })
        #expect(timing.crossings.allSatisfy { $0.stage == 2 && $0.green == timing.plan.stages[2].green })
        // The vehicle stages share what is left at Webster's degree of saturation.
        let x = timing.approaches.map(\.degreeOfSaturation)
        #expect(x.max()! - x.min()! < 0.05, "\(x)")
        // Evaluated as stored, it reads the same.
        #expect(try SignalTiming.evaluate(timing.plan, for: demand).approaches.map(\.controlDelay) == timing.approaches.map(\.controlDelay))
    }

    @Test("a stage may not green movements that cross: perpendicular throughs, adjacent lefts, a left and the through from the next arm clockwise; opposite lefts, a left against the opposing through (permitted) and merging rights may run together")
    func conflictingMovements() throws {
        func lane(_ id: String, _ flows: MovementFlows, arm: String? = nil) -> ApproachDemand {
            ApproachDemand(id: id, lanes: 1, saturationPerLane: 1800, flows: flows, arm: arm)
        }
        func timed(_ approaches: [ApproachDemand], _ stages: [[String]]) -> String? {
            do { _ = try SignalTiming.webster(IntersectionDemand(id: "C", approaches: approaches, stages: stages)); return nil } catch {
                return (error as? SignalTimingError)?.field ?? "\(error)"
            }
        }
        let nl = lane("NL", MovementFlows(left: 100), arm: "N"), sl = lane("SL", MovementFlows(left: 100), arm: "S")
        let el = lane("EL", MovementFlows(left: 100), arm: "E"), wl = lane("WL", MovementFlows(left: 100), arm: "W")
        let e = lane("E", MovementFlows(through: 300)), w = lane("W", MovementFlows(through: 300)), s = lane("S", MovementFlows(through: 300))
        let nr = lane("NR", MovementFlows(right: 100), arm: "N")
        #expect(timed([nl, sl, e, w], [["NL", "SL"], ["E", "W"]]) == nil)
        #expect(timed([nl, s, e, w], [["NL", "S"], ["E", "W"]]) == nil)  // permitted: NL yields to S
        #expect(timed([nr, e, w], [["E", "W", "NR"]]) == nil)  // NR merges with E's through
        #expect(timed([nl, el, s, w], [["NL", "EL"], ["S", "W"]]) == "stages[0]")
        #expect(timed([nl, wl, s, e], [["NL", "WL"], ["S", "E"]]) == "stages[0]")
        // North's left crosses the westbound through from the east, and merges with the eastbound one from the west.
        #expect(timed([nl, e, w, s], [["NL", "E"], ["W", "S"]]) == "stages[0]")
        #expect(timed([nl, w, e, s], [["NL", "W"], ["E"], ["S"]]) == nil)
    }

    @Test("lefts in a stage shared with an approach whose arm (or their own) is not known are marked arm-unknown, not timed silently as unopposed")
    func unknownArmLefts() throws {
        var demand = Self.crossroads()
        demand.approaches[0].flows.left = 80
        #expect(!(try SignalTiming.webster(demand)).warnings.contains { $0.code == .armUnknown })
        var renamed = demand
        renamed.approaches[0].id = "north"
        renamed.stages = [["north", "S"], ["W", "E"]]
        let marked = try SignalTiming.webster(renamed).warnings.filter { $0.code == .armUnknown }
        #expect(marked.count == 1 && marked[0].approach == "north" && marked[0].message.contains("the arm of north is not known"), "\(marked)")
        // Its arm given, the left is known to cross S's traffic: the permitted-left warning instead.
        renamed.approaches[0].arm = "N"
        let known = try SignalTiming.webster(renamed).warnings
        #expect(!known.contains { $0.code == .armUnknown } && known.contains { $0.code == .permittedLeft && $0.approach == "north" })
    }

    @Test("a lane group of right turns alone in no stage is a free right turn: outside Y and the greens, its green the whole cycle, marked uncontrolled; a through or left group in no stage is still refused")
    func freeRightTurn() throws {
        var demand = Self.crossroads()
        demand.approaches.append(ApproachDemand(id: "NR", lanes: 1, saturationPerLane: 1800, flows: MovementFlows(right: 300), arm: "N"))
        let free = try SignalTiming.webster(demand)
        let staged = try SignalTiming.webster(Self.crossroads())
        #expect(free.flowRatioSum == staged.flowRatioSum && free.plan == staged.plan)
        let nr = try #require(free.approaches.first { $0.id == "NR" })
        #expect(nr.uncontrolled == true && nr.effectiveGreen == free.cycle && nr.uniformDelay == 0)
        #expect(abs(nr.capacity - 1800 * 0.85) < 1e-9 && nr.controlDelay < 1 && nr.levelOfService == .a)
        #expect(free.approaches.filter { $0.id != "NR" }.allSatisfy { $0.uncontrolled == nil })
        // A stored plan evaluated with the group left out of its stages reads it the same way.
        let evaluated = try SignalTiming.evaluate(free.plan, for: demand)
        #expect(evaluated.approaches.first { $0.id == "NR" }?.uncontrolled == true)
        for movements in [MovementFlows(through: 10, right: 300), MovementFlows(left: 20, right: 300)] {
            var mixed = demand
            mixed.approaches[4].flows = movements
            #expect { try SignalTiming.webster(mixed) } throws: { ($0 as? SignalTimingError)?.field == "approaches[4]" }
        }
    }

    @Test("a two-stage crossroads: the cycle holds the stages, greens follow the flow ratios, delays agree with Webster")
    func twoStagePlan() throws {
        let timing = try SignalTiming.webster(Self.crossroads())
        // L = 2 × (3 + 2) = 10 s; Y = 600/1800 + 350/1800 = 0.5278; C₀ = 20/0.4722 = 42.4 → 43 s.
        #expect(timing.lostTime == 10)
        #expect(abs(timing.flowRatioSum - 0.52778) < 1e-4)
        #expect(timing.cycle == 43)
        #expect(timing.plan.stages.map(\.green).allSatisfy { $0 >= 10 })
        #expect(timing.plan.cycle == timing.plan.stages.reduce(0) { $0 + $1.green + 5 })
        // The busier stage gets the longer green.
        #expect(timing.plan.stages[0].green > timing.plan.stages[1].green)
        for a in timing.approaches {
            #expect(a.degreeOfSaturation < 1)
            let webster = try #require(a.websterDelay)
            #expect(abs(webster - a.controlDelay) < 3, "Webster and HCM agree below saturation")
        }
        #expect(timing.warnings.isEmpty)
    }

    @Test("left turns through opposing traffic are marked: their predicted delay is not to be trusted as it is for protected movements")
    func permittedLeftsAreMarked() throws {
        var demand = Self.crossroads()
        demand.approaches[0].flows.left = 80
        let timing = try SignalTiming.webster(demand)
        let marked = timing.warnings.filter { $0.code == .permittedLeft }
        #expect(marked.count == 1)
        #expect(marked.first?.approach == "N")
        #expect(marked.first?.message.hasPrefix("approach N turns 80 veh/h left through 600 veh/h of opposing traffic") == true)
        // In its one lane the waiting lefts hold up the through traffic behind them: the warning says so.
        #expect(marked.first?.message.contains("holds up the traffic behind it") == true)
        var wider = demand
        wider.approaches[0].lanes = 2
        let widerMarked = try SignalTiming.webster(wider).warnings.filter { $0.code == .permittedLeft }
        #expect(widerMarked.count == 1)
        #expect(widerMarked.first?.message.contains("holds up") == false)
        // The same lefts with a stage of their own are protected: nothing to mark.
        demand.approaches.append(ApproachDemand(id: "NL", lanes: 1, saturationPerLane: 1700, flows: MovementFlows(left: 80)))
        demand.approaches[0].flows.left = 0
        demand.stages = [["N", "S"], ["NL"], ["W", "E"]]
        #expect(try SignalTiming.webster(demand).warnings.allSatisfy { $0.code != .permittedLeft })
        // Protected in a leading stage and permitted beside S in the next (保护-许可左转): marked as such,
        // with what SUMO measured on such bays, not the figures of lefts permitted throughout.
        demand.approaches[demand.approaches.count - 1].arm = "N"
        demand.stages = [["N", "NL"], ["N", "S", "NL"], ["W", "E"]]
        let both = try SignalTiming.webster(demand).warnings.filter { $0.code == .permittedLeft }
        #expect(both.count == 1)
        #expect(both.first?.approach == "NL")
        #expect(both.first?.message.hasPrefix("approach NL turns 80 veh/h left, protected in stage 1 and permitted through 600 veh/h of opposing traffic in stage 2") == true)
        #expect(both.first?.message.contains("26 such left bays") == true)
        #expect(both.first?.message.contains("shares") == false)
        // The same in a lane shared with N's through traffic says what the bays do not measure.
        demand.approaches.removeLast()
        demand.approaches[0].flows.left = 80
        demand.stages = [["N"], ["N", "S"], ["W", "E"]]
        let shared = try SignalTiming.webster(demand).warnings.filter { $0.code == .permittedLeft }
        #expect(shared.first?.message.hasPrefix("approach N turns 80 veh/h left, protected in stage 1 and permitted") == true)
        #expect(shared.first?.message.contains("holds up the traffic behind it") == true)
    }

    @Test("Y above 0.9 gives GB 50647's redesign warning")
    func redesignWarning() throws {
        let timing = try SignalTiming.webster(Self.crossroads(ns: 900, ew: 790))
        #expect(timing.flowRatioSum > 0.9 && timing.flowRatioSum < 1)
        #expect(timing.warnings.contains { $0.code == .redesign })
    }

    @Test("oversaturated (Y ≥ 1): the best plan at the maximum cycle, greens in proportion, none negative, and it says so")
    func oversaturated() throws {
        let timing = try SignalTiming.webster(Self.crossroads(ns: 1200, ew: 900))
        #expect(timing.flowRatioSum >= 1)
        #expect(timing.websterCycle == nil)
        #expect(timing.cycle == 180)
        #expect(timing.plan.stages.allSatisfy { $0.green > 0 })
        #expect(timing.warnings.contains { $0.code == .oversaturated })
        #expect(timing.warnings.contains { $0.code == .overCapacity })
        // Each over-capacity warning names its approach; the intersection-wide ones name none.
        #expect(Set(timing.warnings.filter { $0.code == .overCapacity }.compactMap(\.approach)) == ["N", "S", "W", "E"])
        #expect(timing.warnings.filter { $0.code == .oversaturated }.allSatisfy { $0.approach == nil })
        // The over-capacity warning says how fast the queue grows: (q − c)·T over the 15-minute period.
        let north = try #require(timing.approaches.first { $0.id == "N" })
        let growth = String(format: "by about %.0f vehicles in 15 minutes", (1200 - north.capacity) * 0.25)
        #expect(timing.warnings.contains { $0.approach == "N" && $0.message.contains(growth) })
        // Greens in proportion to flow ratios: equal degrees of saturation.
        let xs = timing.approaches.map(\.degreeOfSaturation)
        #expect(xs.max()! - xs.min()! < 0.03)
        #expect(timing.approaches.allSatisfy { $0.levelOfService == .f })
    }

    @Test("a long crossing sets its stage's green: G ≥ t + L/v, a refuge island halves the length")
    func pedestrianMinimum() throws {
        var demand = Self.crossroads(ns: 200, ew: 100)
        demand.crossings = [PedestrianCrossing(id: "P-W", length: 30, stage: 1)]
        let timing = try SignalTiming.webster(demand)
        // 4 s + 30 m / 1.0 m/s = 34 s displayed at least.
        #expect(timing.plan.stages[1].green >= 34)
        #expect(timing.warnings.contains { $0.code == .minimumGreen })
        demand.crossings[0].refugeIsland = true
        let halved = try SignalTiming.webster(demand)
        #expect(halved.plan.stages[1].green >= 19)
        #expect(halved.plan.stages[1].green < timing.plan.stages[1].green)
    }

    /// Four stages whose left bays are held at the 10 s minimum green, and a leading-left chain
    /// (N keeps its green from NL's stage into S's) whose small stages are; both found by drawing
    /// intersections until 80 % of the flows lengthened the cycle (137 → 122 s and 122 → 138 s
    /// when the cycle grew until the other stages ran at the degree of saturation of Webster's split).
    static let heldAtMinimums = [
        #"{"id": "M", "amber_s": 3, "all_red_s": 2, "startup_lost_s": 3, "approaches": [{"id": "N", "lanes": 1, "flows_veh_h": {"through": 560}}, {"id": "NL", "arm": "N", "lanes": 1, "flows_veh_h": {"left": 40}}, {"id": "S", "lanes": 1, "flows_veh_h": {"through": 520}}, {"id": "SL", "arm": "S", "lanes": 1, "flows_veh_h": {"left": 30}}, {"id": "W", "lanes": 1, "flows_veh_h": {"through": 420}}, {"id": "WL", "arm": "W", "lanes": 1, "flows_veh_h": {"left": 35}}, {"id": "E", "lanes": 1, "flows_veh_h": {"through": 380}}, {"id": "EL", "arm": "E", "lanes": 1, "flows_veh_h": {"left": 25}}], "stages": [["N", "S"], ["NL", "SL"], ["W", "E"], ["WL", "EL"]]}"#,
        #"{"id": "P", "amber_s": 3, "all_red_s": 3, "startup_lost_s": 3, "approaches": [{"id": "N", "lanes": 1, "flows_veh_h": {"through": 300}}, {"id": "NL", "arm": "N", "lanes": 2, "flows_veh_h": {"left": 181.6}, "storage_m": 90}, {"id": "S", "lanes": 2, "flows_veh_h": {"through": 575.2}, "saturation_veh_h_lane": 1590}, {"id": "SL", "arm": "S", "lanes": 2, "flows_veh_h": {"left": 37.6}, "storage_m": 45}, {"id": "E", "lanes": 3, "flows_veh_h": {"through": 448.8}}, {"id": "EL", "arm": "E", "lanes": 1, "flows_veh_h": {"left": 32}}, {"id": "W", "lanes": 3, "flows_veh_h": {"through": 423.2}}, {"id": "WL", "arm": "W", "lanes": 2, "flows_veh_h": {"left": 233.6}, "storage_m": 30}], "stages": [["N", "NL"], ["N", "S"], ["SL"], ["E", "EL"], ["E", "W"], ["WL"]]}"#,
    ]

    @Test("stages held at their minimum greens: the cycle is the shortest whole second within the tolerance of the least mean Webster delay, and fewer vehicles never lengthen it",
          arguments: heldAtMinimums)
    func minimumsSetTheCycleByDelay(json: String) throws {
        let demand = try JSONDecoder().decode(IntersectionDemand.self, from: Data(json.utf8))
        let timing = try SignalTiming.webster(demand)
        let c0 = try #require(timing.websterCycle)
        #expect(timing.cycle > c0.rounded(.up), "the minimums leave an approach above x = 0.9 at C₀: the cycle grows")
        #expect(timing.warnings.contains { $0.code == .minimumGreen && $0.message.contains(String(format: "the cycle is %.0f s", timing.cycle)) })
        let delays = PlanPropertyTests.meanWebsterDelays(demand, from: c0.rounded(.up))
        let least = try #require(delays.map(\.delay).min())
        #expect(try #require(delays.first { $0.cycle == timing.cycle }).delay <= least + SignalTiming.cycleDelayTolerance)
        #expect(delays.filter { $0.cycle < timing.cycle }.allSatisfy { $0.delay > least + SignalTiming.cycleDelayTolerance })
        for factor in [0.9, 0.8, 0.7] {
            var fewer = demand
            fewer.approaches = demand.approaches.map { var a = $0; a.flows = a.flows.scaled(by: factor); return a }
            #expect(try SignalTiming.webster(fewer).cycle <= timing.cycle, "\(factor) of the flows")
        }
    }

    /// Broken intersections and the field each error must name.
    static let broken: [(field: String, change: @Sendable (inout IntersectionDemand) -> Void)] = [
        ("stages[1][0]", { $0.stages = [["N", "S"], ["X", "E"]] }),
        ("approaches[2].flows_veh_h.through", { $0.approaches[2].flows.through = -5 }),
        ("approaches[0].lanes", { $0.approaches[0].lanes = 0 }),
        // N again after a stage without it: an approach may run on into the next stage (搭接), not stop and come back.
        ("stages[2][0]", { $0.stages = [["N", "S"], ["W"], ["N"], ["E"]] }),
        ("approaches[3]", { $0.stages = [["N", "S"], ["W"]] }),
        ("stages", { $0.stages = [] }),
        // Beyond any site: a unit or a digit wrong. The arithmetic would run (1e308 veh/h overflowed
        // to an infinite delay that could not even be written as JSON).
        ("approaches[1].flows_veh_h.left", { $0.approaches[1].flows.left = 1e308 }),
        ("approaches[0].saturation_veh_h_lane", { $0.approaches[0].saturationPerLane = 18_000 }),
        ("approaches[3].lanes", { $0.approaches[3].lanes = 40 }),
        ("approaches[2].storage_m", { $0.approaches[2].storage = 0 }),
        ("approaches[1].storage_m", { $0.approaches[1].storage = .infinity }),
        ("amber_s", { $0.amber = 30 }),
        ("all_red_s", { $0.allRed = .infinity }),
        ("startup_lost_s", { $0.startupLost = 1e300 }),
        ("saturation_flow_pcu_h", { $0.saturationFlow = 19_000 }),
        // So small or long that the figures ran to infinity and the plan could not be written (fuzz-signal).
        ("permitted_left_critical_gap_s", { $0.permittedLeftCriticalGap = 6.4e119 }),
        ("permitted_left_follow_up_s", { $0.permittedLeftFollowUp = 60 }),
        ("left_turn_factor", { $0.leftTurnFactor = 1e-300 }),
        ("saturation_flow_pcu_h", { $0.saturationFlow = 1e-300 }),
        ("approaches[0].saturation_veh_h_lane", { $0.approaches[0].saturationPerLane = 50 }),
        // More than a site holds: the arithmetic over them would tie up a server that was sent them.
        ("approaches", { d in
            d.approaches = (0..<33).map { ApproachDemand(id: "A\($0)", lanes: 1, flows: MovementFlows(through: 10)) }
            d.stages = [d.approaches.map(\.id)]
        }),
        ("stages", { $0.stages = (0..<17).map { _ in ["N"] } }),
        // An empty stage no crossing is walked in.
        ("stages[2]", { $0.stages = [["N", "S"], ["W", "E"], []] }),
        // Green together for movements that cross (GB/T 20999's conflict table).
        ("stages[0]", { $0.stages = [["N", "E"], ["S", "W"]] }),
        ("stages[0]", { $0.stages = [["N", "S", "W", "E"]] }),
    ]

    @Test("bad input names its field", arguments: broken.indices)
    func badInput(_ index: Int) {
        var demand = Self.crossroads()
        Self.broken[index].change(&demand)
        let field = Self.broken[index].field
        #expect { try SignalTiming.webster(demand) } throws: { ($0 as? SignalTimingError)?.field == field }
    }

    @Test("evaluating a given plan: the 90 s default plan delays more than Webster's")
    func evaluateGivenPlan() throws {
        let demand = Self.crossroads()
        let fixed = SignalPlan(stages: [StageTiming(approaches: ["N", "S"], green: 40, amber: 3, allRed: 2),
                                        StageTiming(approaches: ["W", "E"], green: 40, amber: 3, allRed: 2)])
        let given = try SignalTiming.evaluate(fixed, for: demand)
        let webster = try SignalTiming.webster(demand)
        #expect(given.cycle == 90)
        #expect(given.meanControlDelay > webster.meanControlDelay)
    }

    @Test("a group's outermost lanes hold all its turns: a left and right group of two lanes saturates in its busier lane")
    func deFactoTurnLanes() throws {
        let s = SaturationFlowDefaults()
        // The stem of a T: 2 lanes, 200 lefts, 500 rights. Spread evenly the equivalents fill
        // (200/0.95 + 500/0.85)/2 = 399.4 veh/h of each lane; the right lane alone holds 500/0.85 = 588.2.
        let stem = ApproachDemand(id: "E", lanes: 2, flows: MovementFlows(left: 200, right: 500))
        let through = ApproachDemand(id: "N", lanes: 2, flows: MovementFlows(through: 600))
        let timing = try SignalTiming.webster(IntersectionDemand(id: "T", approaches: [stem, through], stages: [["N"], ["E"]]))
        #expect(abs(timing.approaches[0].saturationFlow - 700 * 1800 * 0.85 / 500) < 1e-9)
        #expect(timing.approaches[0].saturationFlow < 2 * s.perLane(for: stem.flows))
        // Turns that the other lanes can balance leave the group's lanes shared evenly.
        let mixed = ApproachDemand(id: "E", lanes: 3, flows: MovementFlows(through: 900, left: 150, right: 150))
        let even = try SignalTiming.webster(IntersectionDemand(id: "X", approaches: [mixed, through], stages: [["N"], ["E"]]))
        #expect(abs(even.approaches[0].saturationFlow - 3 * s.perLane(for: mixed.flows)) < 1e-9)
    }
}
