import Foundation
import Testing
@testable import SignalSim

/// Overlapping stages (搭接): an approach that keeps its green from one stage into the next, as a
/// leading left (N with its left bay, then N with S) runs its through traffic.
@Suite("Overlapping stages: critical path, split and evaluation")
struct OverlappingStageTests {
    /// N's through runs in stages 1 and 2: with its left bay NL first, then beside S.
    static func leadingLeft(north: Double = 900, left: Double = 250, south: Double = 700) -> IntersectionDemand {
        IntersectionDemand(id: "IX-LEAD", approaches: [
            ApproachDemand(id: "N", lanes: 2, flows: MovementFlows(through: north), arm: "N"),
            ApproachDemand(id: "NL", lanes: 1, flows: MovementFlows(left: left), arm: "N"),
            ApproachDemand(id: "S", lanes: 2, flows: MovementFlows(through: south), arm: "S"),
            ApproachDemand(id: "W", lanes: 2, flows: MovementFlows(through: 500), arm: "W"),
            ApproachDemand(id: "E", lanes: 2, flows: MovementFlows(through: 450), arm: "E"),
        ], stages: [["N", "NL"], ["N", "S"], ["W", "E"]])
    }

    @Test("the critical path runs through the leading left and S when they need more than N alone: Y, L and Webster's cycle are the path's")
    func criticalPathThroughTheShortStages() throws {
        let t = try SignalTiming.webster(Self.leadingLeft())
        let y = (NL: 250 / 1710.0, S: 700 / 3600.0, W: 500 / 3600.0)
        #expect(abs(t.flowRatioSum - (y.NL + y.S + y.W)) < 1e-9)
        #expect(t.lostTime == 15)  // three stage changes on the path, 5 s each
        #expect(t.plan.cycle == ((1.5 * 15 + 5) / (1 - t.flowRatioSum)).rounded(.up))
        #expect(t.criticalApproaches == ["NL", "S", "W"])
        // N keeps its green through the change between its stages: both greens, amber and all-red between, its amber, less Ls.
        let n = try #require(t.approaches.first { $0.id == "N" })
        #expect(n.effectiveGreen == t.plan.stages[0].green + 5 + t.plan.stages[1].green + 3 - 3)
        // The path's approaches run at one degree of saturation (up to whole-second greens); N well below it.
        let x = Dictionary(uniqueKeysWithValues: t.approaches.map { ($0.id, $0.degreeOfSaturation) })
        let common = t.flowRatioSum * t.plan.cycle / (t.plan.cycle - t.lostTime)
        for id in ["NL", "S", "W"] { #expect(abs(x[id]! - common) < 0.05, "\(id): \(x[id]!) against \(common)") }
        #expect(x["N"]! < common - 0.2)
    }

    @Test("when N alone needs more than its left bay and S together, the path is N through both stages: two changes, not three")
    func criticalPathThroughTheOverlap() throws {
        let t = try SignalTiming.webster(Self.leadingLeft(north: 2400, left: 80, south: 300))
        #expect(t.criticalApproaches == ["N", "N", "W"])
        #expect(t.lostTime == 10)
        #expect(abs(t.flowRatioSum - (2400 / 3600.0 + 500 / 3600.0)) < 1e-9)
        let x = Dictionary(uniqueKeysWithValues: t.approaches.map { ($0.id, $0.degreeOfSaturation) })
        #expect(abs(x["N"]! - x["W"]!) < 0.05, "\(x)")
        #expect(x.values.allSatisfy { $0 <= x["N"]! + 0.05 }, "\(x)")
    }

    @Test("the split gives the lowest common degree of saturation: no other split of the greens (a 0.05 s grid) does better",
          arguments: [(900.0, 250.0, 700.0), (2400, 80, 300), (1200, 400, 1100), (600, 500, 900)])
    func splitIsOptimal(north: Double, left: Double, south: Double) throws {
        let model = try TimedIntersection(Self.leadingLeft(north: north, left: left, south: south), settings: SignalTimingSettings())
        var cycle = 90.0
        let (greens, _) = try model.split(cycle: &cycle)
        let budget = cycle - model.lostTime
        #expect(abs(greens.reduce(0, +) - budget) < 1e-6)
        #expect(zip(greens, model.minimumEffectiveGreens).allSatisfy { $0 >= $1 - 1e-9 })
        func highest(_ e: [Double]) -> Double {
            model.demand.approaches.indices.map { i in
                let run = model.stagesOfApproach[i]
                let g = run.reduce(0) { $0 + e[$1] } + Double(run.count - 1) * model.demand.lostTimePerStage
                return model.flowRatio(i) * cycle / g
            }.max()!
        }
        let found = highest(greens)
        var best = Double.infinity
        let m = model.minimumEffectiveGreens
        for a in stride(from: m[0], through: budget - m[1] - m[2], by: 0.05) {
            for b in stride(from: m[1], through: budget - a - m[2], by: 0.05) {
                best = min(best, highest([a, b, budget - a - b]))
            }
        }
        #expect(found <= best + 1e-6, "split \(greens): x \(found); grid best \(best)")
        #expect(found > best - 0.01, "the grid comes within its step of the split")
    }

    @Test("minimum greens that leave the path above 0.9 lengthen the cycle, as they do without overlaps")
    func minimumsLengthenTheCycle() throws {
        var d = Self.leadingLeft()
        d.stages = [["NL"], ["N", "NL"], ["N", "S"], ["W", "E"]]
        let t = try SignalTiming.webster(d)
        // The minimums alone need 4 × 10 s of green and 4 × 5 s of changes; at 60 s S would get 10 s (x 1.17).
        #expect(t.plan.cycle > 60)
        #expect(t.approaches.allSatisfy { $0.degreeOfSaturation <= 0.9 }, "\(t.approaches.map { ($0.id, $0.degreeOfSaturation) })")
        #expect(t.warnings.contains { $0.code == .minimumGreen })
    }

    @Test("a stage chain without overlaps is timed as before: the path is each stage's largest flow ratio")
    func withoutOverlapsUnchanged() throws {
        var d = Self.leadingLeft()
        d.stages = [["NL"], ["N", "S"], ["W", "E"]]
        let model = try TimedIntersection(d, settings: SignalTimingSettings())
        #expect(!model.overlapping)
        #expect(abs(model.flowRatioSum - model.stageFlowRatios.reduce(0, +)) < 1e-12)
        #expect(model.criticalLostTime == model.lostTime)
    }

    @Test("an approach back in a later stage, not the next, is refused naming the stage")
    func notConsecutive() throws {
        var d = Self.leadingLeft()
        d.stages = [["N", "NL"], ["W", "E"], ["N", "S"]]
        let e = #expect(throws: SignalTimingError.self) { try SignalTiming.webster(d) }
        #expect(e?.field == "stages[2][0]")
        #expect(e?.reason.contains("搭接") == true)
    }

    @Test("evaluating a stored plan gives N the green it keeps through the change; re-timing steps it with the same split")
    func evaluationAndRetiming() throws {
        let demand = Self.leadingLeft()
        let t = try SignalTiming.webster(demand)
        let again = try SignalTiming.evaluate(t.plan, for: demand)
        #expect(again.approaches.map(\.effectiveGreen) == t.approaches.map(\.effectiveGreen))
        // Heavier S: re-timing moves green toward stage 2 within the step limits.
        let step = try AdaptiveRetiming.webster(current: t.plan, demand: Self.leadingLeft(south: 1100))
        #expect(step.plan.stages[1].green > t.plan.stages[1].green)
        #expect(zip(step.plan.stages, t.plan.stages).allSatisfy { abs($0.green - $1.green) <= RetimingLimits().maximumGreenChange + 1e-9 })
    }

    @Test("a corridor reads the green window of an approach through its overlapping stages")
    func corridorWindow() throws {
        let t = try SignalTiming.webster(Self.leadingLeft())
        let w = CorridorTiming.window(of: "N", in: t.plan)
        #expect(w.start == 0)
        #expect(w.green == t.plan.stages[0].duration + t.plan.stages[1].green)
        #expect(CorridorTiming.window(of: "S", in: t.plan) == (t.plan.stages[0].duration, t.plan.stages[1].green))
    }
}
