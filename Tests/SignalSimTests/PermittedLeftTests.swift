import Foundation
import Testing
@testable import SignalSim

/// Left turns that run against opposing traffic (permitted, 许可型左转) discharge only through its
/// gaps: HCM 2000's through-car equivalent E_L1 = s₀/s_lt with the gap-acceptance saturation flow
/// s_lt = v₀·e^(−v₀·t_c/3600)/(1 − e^(−v₀·t_f/3600)), t_c = 4.5 s, t_f = 2.5 s.
@Suite("Permitted left turns")
struct PermittedLeftTests {
    @Test("E_L1 follows the opposing flow; protected or unopposed lefts keep 1/f_L")
    func equivalents() {
        let s = SaturationFlowDefaults()
        #expect(abs(s.leftEquivalent(opposingFlow: 0) - 1 / 0.95) < 1e-12)
        // v₀ = 800: s_lt = 800·e^(−1)/(1 − e^(−0.5556)) = 294.3/0.4262 = 690.5 veh/h; E = 1800/690.5 = 2.607.
        #expect(abs(s.leftEquivalent(opposingFlow: 800) - 2.607) < 0.005)
        // v₀ = 400: s_lt = 400·e^(−0.5)/(1 − e^(−0.2778)) = 242.6/0.2425 = 1000.4; E = 1.799.
        #expect(abs(s.leftEquivalent(opposingFlow: 400) - 1.799) < 0.005)
        let rising = [100.0, 300, 600, 900, 1200, 1500].map { s.leftEquivalent(opposingFlow: $0) }
        #expect(zip(rising, rising.dropFirst()).allSatisfy { $0 < $1 })
        // A shared lane: s = s₀/(P_T + P_L·E + P_R/f_R).
        let shared = MovementFlows(through: 700, left: 200, right: 100)
        let expected = 1800 / ((700 + 200 * s.leftEquivalent(opposingFlow: 800) + 100 / 0.85) / 1000)
        #expect(abs(s.perLane(for: shared, opposingFlow: 800) - expected) < 1e-9)
    }

    static func twoStage(leftStage: Bool = false, arms: Bool = true, saturation: Double? = nil, scale: Double = 1) -> IntersectionDemand {
        func approach(_ id: String, _ arm: String, _ flows: MovementFlows) -> ApproachDemand {
            ApproachDemand(id: id, lanes: 3, saturationPerLane: saturation, flows: flows.scaled(by: scale), arm: arms ? arm : nil)
        }
        return IntersectionDemand(id: "IX-P", approaches: [
            approach("RD-1-N", "N", MovementFlows(through: 776, left: 184, right: 112)),
            approach("RD-2-S", "S", MovementFlows(through: 715, left: 115, right: 97)),
            approach("RD-3-W", "W", MovementFlows(through: 168, left: 26, right: 26)),
        ], stages: leftStage ? [["RD-1-N"], ["RD-2-S"], ["RD-3-W"]] : [["RD-1-N", "RD-2-S"], ["RD-3-W"]])
    }

    @Test("a shared lane group facing opposing through traffic in its stage gets the permitted-left saturation flow")
    func sharedLanesOpposed() throws {
        let opposed = try SignalTiming.webster(Self.twoStage())
        let n = try #require(opposed.approaches.first { $0.id == "RD-1-N" })
        let s = SaturationFlowDefaults()
        // N's lefts turn through S's 715 + 97 veh/h, all of them in the group's leftmost lane:
        // 184 lefts at E_L1 = 2.64 fill more of that lane than the equivalents spread over three
        // lanes give, so the lane holds the group to 1072 × 1800 / (184 × 2.64) veh/h.
        let flows = MovementFlows(through: 776, left: 184, right: 112)
        let e = s.leftEquivalent(opposingFlow: 812)
        #expect(e > 2.6 && e < 2.7)
        #expect(3 * s.perLane(for: flows, opposingFlow: 812) > 1072 * 1800 / (184 * e))
        #expect(abs(n.saturationFlow - 1072 * 1800 / (184 * e)) < 1e-9)
        #expect(n.saturationFlow < 3 * s.perLane(for: flows) * 0.8)
        // W's lefts face no E arm: protected factor only.
        let w = try #require(opposed.approaches.first { $0.id == "RD-3-W" })
        #expect(abs(w.saturationFlow - 3 * s.perLane(for: MovementFlows(through: 168, left: 26, right: 26))) < 1e-9)
        // Busier (above the minimum cycle and greens), the stage of the opposed lefts gets a larger
        // share of the cycle than the same flows timed as if the lefts were protected, and runs
        // at a lower degree of saturation than under that plan.
        let busy = Self.twoStage(scale: 1.8)
        let aware = try SignalTiming.webster(busy)
        let unaware = try SignalTiming.webster(Self.twoStage(arms: false, scale: 1.8))
        #expect(aware.flowRatioSum > unaware.flowRatioSum)
        #expect(aware.plan.stages[0].green / aware.cycle > unaware.plan.stages[0].green / unaware.cycle)
        let judged = try SignalTiming.evaluate(unaware.plan, for: busy)
        #expect(aware.approaches[0].degreeOfSaturation < judged.approaches[0].degreeOfSaturation)
    }

    @Test("no factor where the inputs do not call for it: separate stages, no compass arm; a group's own saturation flow is the base its lefts are discounted from")
    func onlyWhereCalledFor() throws {
        let s = SaturationFlowDefaults()
        let separate = try SignalTiming.webster(Self.twoStage(leftStage: true))
        let n = try #require(separate.approaches.first { $0.id == "RD-1-N" })
        #expect(abs(n.saturationFlow - 3 * s.perLane(for: MovementFlows(through: 776, left: 184, right: 112))) < 1e-9)
        // The default base given as the group's own changes nothing; a lower one lowers every group,
        // its opposed lefts still discounted (as the shared lanes above).
        let design = try SignalTiming.webster(Self.twoStage())
        #expect(try SignalTiming.webster(Self.twoStage(saturation: 1800)).approaches.map(\.saturationFlow) == design.approaches.map(\.saturationFlow))
        let measured = try SignalTiming.webster(Self.twoStage(saturation: 1700))
        #expect(zip(measured.approaches, design.approaches).allSatisfy { $0.saturationFlow < $1.saturationFlow })
        #expect(measured.approaches.allSatisfy { $0.saturationFlow < 3 * 1700 })
        // Approach ids that are compass arms oppose each other without an explicit arm (`--input` JSON).
        let json = #"{"id": "X", "approaches": [{"id": "N", "lanes": 1, "flows_veh_h": {"through": 400, "left": 100}}, {"id": "S", "lanes": 1, "flows_veh_h": {"through": 500}}], "stages": [["N", "S"]]}"#
        let demand = try JSONDecoder().decode(IntersectionDemand.self, from: Data(json.utf8))
        let timing = try SignalTiming.webster(demand)
        #expect(abs(timing.approaches[0].saturationFlow - s.perLane(for: MovementFlows(through: 400, left: 100), opposingFlow: 500)) < 1e-9)
    }

    @Test("an intersection's measured gap acceptance replaces HCM's defaults; a bad one is refused naming it")
    func measuredGaps() throws {
        var measured = Self.twoStage()
        measured.permittedLeftCriticalGap = 6.5
        measured.permittedLeftFollowUp = 3.0
        let slower = SaturationFlowDefaults(permittedLeftCriticalGap: 6.5, permittedLeftFollowUp: 3.0)
        // v₀ = 800: s_lt = 800·e^(−1.444)/(1 − e^(−0.6667)) = 388 veh/h (SUMO 1.28 measured 394-396).
        #expect(abs(1800 / slower.leftEquivalent(opposingFlow: 800) - 388) < 1)
        let timing = try SignalTiming.webster(measured)
        let hcm = try SignalTiming.webster(Self.twoStage())
        #expect(timing.approaches[0].saturationFlow < hcm.approaches[0].saturationFlow)
        #expect(abs(timing.approaches[0].saturationFlow - 1072 * 1800 / (184 * slower.leftEquivalent(opposingFlow: 812))) < 1e-9)
        #expect(timing.plan.stages[0].green > hcm.plan.stages[0].green)
        measured.permittedLeftFollowUp = 0
        #expect { try SignalTiming.webster(measured) } throws: { ($0 as? SignalTimingError)?.field == "permitted_left_follow_up_s" }
        let json = #"{"id": "X", "permitted_left_critical_gap_s": 6.5, "approaches": [{"id": "N", "lanes": 1, "flows_veh_h": {"through": 400}}], "stages": [["N"]]}"#
        #expect(try JSONDecoder().decode(IntersectionDemand.self, from: Data(json.utf8)).permittedLeftCriticalGap == 6.5)
    }
}
