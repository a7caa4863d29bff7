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
        let (greens, _, _) = try model.split(cycle: &cycle)
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

    @Test("an approach that stops and comes back in the same cycle is refused naming the stage it comes back in")
    func notConsecutive() throws {
        var d = Self.leadingLeft()
        d.stages = [["N", "NL"], ["W"], ["N", "S"], ["E"]]
        let e = #expect(throws: SignalTimingError.self) { try SignalTiming.webster(d) }
        #expect(e?.field == "stages[2][0]")
        #expect(e?.reason.contains("搭接") == true)
    }

    @Test("a chain whose every change keeps some approach's green has no change to stop at: refused naming the stages")
    func noStageChangeStopsAll() throws {
        let d = IntersectionDemand(id: "IX-ROUND", approaches: [
            ApproachDemand(id: "A", lanes: 1, flows: MovementFlows(through: 300)),
            ApproachDemand(id: "B", lanes: 1, flows: MovementFlows(through: 300)),
            ApproachDemand(id: "C", lanes: 1, flows: MovementFlows(through: 300)),
        ], stages: [["A", "C"], ["A", "B"], ["B", "C"]])
        let e = #expect(throws: SignalTimingError.self) { try SignalTiming.webster(d) }
        #expect(e?.field == "stages")
    }

    /// The leading left's chain started at another stage: N's through now runs from the last stage
    /// (with NL, a lagging left as the chain is written) across the chain's end into the first (beside S).
    static func acrossTheEnd(_ demand: IntersectionDemand = leadingLeft()) -> IntersectionDemand {
        var d = demand
        d.stages = [["N", "S"], ["W", "E"], ["N", "NL"]]
        return d
    }

    @Test("a green across the chain's end is timed as the same chain started at another stage: cycle, path, greens and every approach's figures",
          arguments: [(900.0, 250.0, 700.0), (2400, 80, 300), (1200, 400, 1100), (600, 500, 900)])
    func acrossTheChainsEnd(north: Double, left: Double, south: Double) throws {
        let linear = try SignalTiming.webster(Self.leadingLeft(north: north, left: left, south: south))
        let wrapped = try SignalTiming.webster(Self.acrossTheEnd(Self.leadingLeft(north: north, left: left, south: south)))
        #expect(wrapped.plan.cycle == linear.plan.cycle)
        #expect(abs(wrapped.flowRatioSum - linear.flowRatioSum) < 1e-12)
        #expect(wrapped.lostTime == linear.lostTime)
        // Stage k of the wrapped chain is stage (k + 1) mod 3 of the linear one.
        let order = [1, 2, 0]
        #expect(wrapped.plan.stages.map(\.green) == order.map { linear.plan.stages[$0].green })
        #expect(wrapped.criticalApproaches == order.map { linear.criticalApproaches[$0] })
        for a in linear.approaches {
            let b = try #require(wrapped.approaches.first { $0.id == a.id })
            #expect(b.effectiveGreen == a.effectiveGreen, "\(a.id)")
            #expect(abs(b.degreeOfSaturation - a.degreeOfSaturation) < 1e-12, "\(a.id)")
            #expect(abs(b.controlDelay - a.controlDelay) < 1e-9, "\(a.id)")
        }
        // N's green runs from stage 3 through its change into stage 1: both greens, the change between, its amber, less Ls.
        let n = try #require(wrapped.approaches.first { $0.id == "N" })
        #expect(n.effectiveGreen == wrapped.plan.stages[2].green + 5 + wrapped.plan.stages[0].green + 3 - 3)
        // Evaluated as stored, the plan gives each approach the green it was timed with; a re-timing step keeps the chain.
        let demand = Self.acrossTheEnd(Self.leadingLeft(north: north, left: left, south: south))
        let again = try SignalTiming.evaluate(wrapped.plan, for: demand)
        #expect(again.approaches.map(\.effectiveGreen) == wrapped.approaches.map(\.effectiveGreen))
        let step = try AdaptiveRetiming.webster(current: wrapped.plan, demand: demand)
        #expect(step.plan.stages.map(\.approaches) == wrapped.plan.stages.map(\.approaches))
    }

    @Test("the green window of an approach across the chain's end starts in the last stage and runs past the cycle's end")
    func windowAcrossTheEnd() throws {
        let t = try SignalTiming.webster(Self.acrossTheEnd())
        let stages = t.plan.stages
        let w = t.plan.greenWindow(of: "N")
        #expect(w.start == stages[0].duration + stages[1].duration)
        #expect(w.green == stages[2].duration + stages[0].green)
        #expect(w.start + w.green > t.plan.cycle)
        #expect(t.plan.greenWindow(of: "NL") == (w.start, stages[2].green))
        #expect(StageChain.keepsGreen("N", after: 2, in: stages.map(\.approaches)))
        #expect(!StageChain.keepsGreen("N", after: 0, in: stages.map(\.approaches)))
        #expect(!StageChain.keepsGreen("NL", after: 2, in: stages.map(\.approaches)))
    }

    /// A T junction: the main road W–E, a side road from the south. E's through traffic (the far side)
    /// runs in every stage; EL turns left into the side road in a stage of its own; S's lefts join E's traffic.
    static func tJunction(east: Double = 650) -> IntersectionDemand {
        IntersectionDemand(id: "IX-TJ", approaches: [
            ApproachDemand(id: "W", lanes: 2, flows: MovementFlows(through: 620, right: 100)),
            ApproachDemand(id: "E", lanes: 2, flows: MovementFlows(through: east)),
            ApproachDemand(id: "EL", lanes: 1, flows: MovementFlows(left: 220), arm: "E"),
            ApproachDemand(id: "S", lanes: 2, flows: MovementFlows(left: 260, right: 160)),
        ], stages: [["W", "E"], ["E", "EL"], ["S", "E"]])
    }

    @Test("an approach in every stage (常绿, the far side's through at a T junction) is never stopped: its green is the whole cycle, it asks no stage for green, the chain keeps it green through every change, and what merges into it is marked")
    func alwaysGreen() throws {
        let t = try SignalTiming.webster(Self.tJunction())
        let e = try #require(t.approaches.first { $0.id == "E" })
        #expect(e.uncontrolled == true)
        #expect(e.effectiveGreen == t.plan.cycle)
        #expect(e.uniformDelay == 0)
        // It sets no green: however heavy, the plan is the same.
        #expect(try SignalTiming.webster(Self.tJunction(east: 2400)).plan == t.plan)
        #expect(!t.criticalApproaches.contains("E"))
        let chain = t.plan.stages.map(\.approaches)
        #expect(StageChain.alwaysGreen("E", in: chain) && !StageChain.alwaysGreen("W", in: chain))
        for s in chain.indices { #expect(StageChain.keepsGreen("E", after: s, in: chain)) }
        #expect(!StageChain.keepsGreen("W", after: 0, in: chain))
        #expect(t.plan.greenWindow(of: "E") == (0, t.plan.cycle))
        // A one-stage chain still changes and stops what runs in it.
        #expect(!StageChain.alwaysGreen("A", in: [["A"]]) && !StageChain.keepsGreen("A", after: 0, in: [["A"]]))
        // S's lefts leave westward, as E's through traffic does: marked. W's rights and EL's lefts both
        // leave southward, but neither is always green: not marked.
        let merging = t.warnings.filter { $0.code == .mergesIntoAlwaysGreen }
        #expect(merging.map(\.approach) == ["S"])
        #expect(merging.first?.message.hasPrefix("approach S's 260 veh/h of left turns leave by the arm that E (650 veh/h) leaves by") == true)
        // A stage of nothing but E serves no one: the warning says to leave it out.
        var idle = Self.tJunction()
        idle.stages.insert(["E"], at: 1)
        let warned = try SignalTiming.webster(idle).warnings.filter { $0.code == .minimumGreen }
        #expect(warned.contains { $0.message.hasPrefix("stage 2 runs only approaches that are green in every stage (E)") })
        // Evaluated as stored, the same figures.
        let again = try SignalTiming.evaluate(t.plan, for: Self.tJunction())
        #expect(again.approaches.map(\.effectiveGreen) == t.approaches.map(\.effectiveGreen))
    }

    @Test("runs of the chain: consecutive stages in running order, across the end; every stage from the first; none; not consecutive")
    func runs() {
        let chain = [["N", "S"], ["W", "E"], ["N", "NL"], ["X"]]
        #expect(StageChain.run(of: "W", in: chain) == [1])
        #expect(StageChain.run(of: "N", in: chain) == nil)  // stages 1 and 3 of 4: it stops in between
        #expect(StageChain.run(of: "Z", in: chain) == [])
        #expect(StageChain.run(of: "N", in: [["N", "S"], ["W"], ["N"]]) == [2, 0])
        #expect(StageChain.run(of: "A", in: [["A"], ["A", "B"]]) == [0, 1])
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
        let w = t.plan.greenWindow(of: "N")
        #expect(w.start == 0)
        #expect(w.green == t.plan.stages[0].duration + t.plan.stages[1].green)
        #expect(t.plan.greenWindow(of: "S") == (t.plan.stages[0].duration, t.plan.stages[1].green))
    }
}
