import Foundation

/// Greens and cycles: flow ratios, the split of a cycle among stages (by ratio, then minimums),
/// the least-delay cycle, overlapping greens, and the displayed plan in whole seconds.
extension TimedIntersection {
    /// L = n·(Ls + all-red) (s).
    var lostTime: Double { Double(demand.stages.count) * demand.lostTimePerStage }

    func flowRatio(_ i: Int) -> Double { demand.approaches[i].flows.total / saturationFlows[i] }

    /// The critical path's lost time (s): one stage change's for each of its approaches (n·(Ls +
    /// all-red) without overlapping stages: `lostTime`).
    var criticalLostTime: Double { Double(criticalPath.changes) * demand.lostTimePerStage }

    /// The critical flow ratio of each stage: the largest y among its approaches.
    var stageFlowRatios: [Double] {
        demand.stages.indices.map { s in
            demand.approaches.indices.filter { stagesOfApproach[$0].contains(s) }.map(flowRatio).max() ?? 0
        }
    }

    /// The approach that sets each stage's green: its largest flow ratio; with overlapping stages,
    /// the critical path's approach through it (or, where the path leaves it to none, its largest).
    var criticalApproaches: [String] {
        demand.stages.indices.map { s in
            if overlapping, let i = criticalPath.approaches[s] { return demand.approaches[i].id }
            let members = demand.approaches.indices.filter { stagesOfApproach[$0].contains(s) }
            return members.max { flowRatio($0) < flowRatio($1) }.map { demand.approaches[$0].id } ?? ""
        }
    }

    /// Y: the critical path's flow ratio sum (each stage's largest flow ratio, summed, without
    /// overlapping stages).
    var flowRatioSum: Double { criticalPath.flowRatioSum }

    /// The lost time Webster's optimum cycle is taken with (s): the critical path's, and the whole of
    /// each pedestrian-only stage, no vehicle moving in it (its effective green at its crossings' minimum).
    var optimumLostTime: Double { criticalPath.lostTime }

    /// The effective green (s) `plan` gives approach `i`: its stages' displayed greens, the stage
    /// changes it keeps its green through, and its amber, less the start-up loss; the whole cycle
    /// for a free right turn.
    func effectiveGreen(_ i: Int, in plan: SignalPlan) -> Double {
        let run = stagesOfApproach[i]
        guard !run.isEmpty else { return plan.cycle }
        let kept = run.dropLast().reduce(0) { $0 + plan.stages[$1].amber + plan.stages[$1].allRed }
        return max(0, run.reduce(0) { $0 + plan.stages[$1].green } + kept + demand.amber - demand.startupLost)
    }

    /// Effective greens of the stages at `cycle` (s) with Webster's split (equal degrees of
    /// saturation, at least the minimums), and the stages held at their minimum: by flow ratio, or
    /// with overlapping stages by `overlappingGreens`. The cycle is first raised to what the minimum
    /// greens and the lost time need. When stages held at their minimums leave an approach above a
    /// degree of saturation of 0.9 (or above the one Webster's optimum cycle gives the critical
    /// path, if higher), C₀ no longer minimises delay, as it does for the split it assumes: the
    /// cycle becomes `leastDelayCycle` between it and the maximum (or `growthLimit`), and `byDelay` says so.
    func split(cycle: inout Double, growthLimit: Double? = nil) throws -> (greens: [Double], raised: [Int], byDelay: Bool) {
        try SignalTiming.raiseToMinimums(cycle: &cycle, lostTime: lostTime, minimums: minimumEffectiveGreens, maximumCycle: settings.maximumCycle)
        var (greens, raised) = greens(at: cycle)
        let target = SignalTiming.websterSaturation(lostTime: optimumLostTime, flowRatioSum: flowRatioSum)
        let cap = min(settings.maximumCycle, growthLimit ?? settings.maximumCycle)
        if !raised.isEmpty, target > 0, target < 1, cycle < cap, highestSaturation(greens, cycle: cycle) > max(0.9, target) + 1e-6 {
            cycle = leastDelayCycle(from: cycle, to: cap)
            (greens, raised) = self.greens(at: cycle)
            return (greens, raised, true)
        }
        return (greens, raised, false)
    }

    /// Webster's split at `cycle` (no cycle change): the stages' effective greens and those held at their minimum.
    func greens(at cycle: Double) -> ([Double], [Int]) {
        if overlapping {
            let split = overlappingGreens(at: cycle)
            return (split.greens, split.raised)
        }
        return SignalTiming.proportionalGreens(budget: cycle - lostTime, ratios: stageFlowRatios, minimums: minimumEffectiveGreens)
    }

    /// Approach `i`'s effective green (s) under stage effective greens `stageGreens`: its stages'
    /// and the changes it keeps its green through; the whole cycle for a free right turn.
    func effectiveGreen(_ i: Int, stageGreens: [Double], cycle: Double) -> Double {
        let run = stagesOfApproach[i]
        guard !run.isEmpty else { return cycle }
        return run.reduce(0) { $0 + stageGreens[$1] } + Double(run.count - 1) * demand.lostTimePerStage
    }

    /// The highest degree of saturation of any approach under stage effective greens `stageGreens`.
    func highestSaturation(_ stageGreens: [Double], cycle: Double) -> Double {
        demand.approaches.indices.reduce(0.0) { highest, i in
            let q = demand.approaches[i].flows.total
            guard q > 0 else { return highest }
            let g = effectiveGreen(i, stageGreens: stageGreens, cycle: cycle)
            return max(highest, g > 0 ? q * cycle / (g * saturationFlows[i]) : .infinity)
        }
    }

    /// The shortest whole-second cycle from `low` to `high` (s) whose plan (Webster's split,
    /// `greens(at:)`, in whole seconds as `plan(effectiveGreens:)` displays it) comes within
    /// `SignalTiming.cycleDelayTolerance` of the least mean delay over those cycles, with Webster's
    /// delay, the objective his optimum cycle minimises; `high` when every cycle leaves some
    /// approach at x ≥ 1.
    func leastDelayCycle(from low: Double, to high: Double) -> Double {
        let flow = demand.approaches.reduce(0) { $0 + $1.flows.total }
        var candidates: [(cycle: Double, delay: Double)] = []
        var cycle = low.rounded(.up)
        while cycle <= high {
            let candidate = plan(effectiveGreens: greens(at: cycle).0)
            var total = 0.0
            for (i, a) in demand.approaches.enumerated() where a.flows.total > 0 {
                guard let d = SignalTiming.websterDelay(cycle: candidate.cycle, effectiveGreen: effectiveGreen(i, in: candidate),
                                                        flow: a.flows.total, saturationFlow: saturationFlows[i]) else { total = .infinity; break }
                total += a.flows.total * d
            }
            candidates.append((cycle, flow > 0 ? total / flow : total))
            cycle += 1
        }
        guard let least = candidates.map(\.delay).min(), least.isFinite else { return high }
        return candidates.first { $0.delay <= least + SignalTiming.cycleDelayTolerance }?.cycle ?? high
    }

    /// The stage greens at `cycle` (at least their minimums, summing to the cycle less n lost times)
    /// that give every approach the lowest common degree of saturation x = y·C/g, its g running
    /// through all its stages; that x, and the stages their minimum holds above what the flows ask.
    /// For a given x each approach needs y·C/x − (its stage changes)·(Ls + all-red) of its stages'
    /// greens; the least total meeting every need puts each shortfall in the approach's last stage,
    /// taking approaches by last stage along the chain read from `chainStart` (the greedy cover of
    /// consecutive runs, which is optimal), and
    /// x is bisected until that total fits. What the cycle has left goes to the stages in proportion
    /// to their greens.
    func overlappingGreens(at cycle: Double) -> (greens: [Double], x: Double, raised: [Int]) {
        let budget = cycle - lostTime
        // Where a stage stands along the chain read from `chainStart`, so no run wraps past its end.
        func position(_ stage: Int) -> Int { (stage - chainStart + demand.stages.count) % demand.stages.count }
        let flowing = demand.approaches.indices.filter { !stagesOfApproach[$0].isEmpty && flowRatio($0) > 0 }
            .sorted { (position(stagesOfApproach[$0].last!), $0) < (position(stagesOfApproach[$1].last!), $1) }
        func green(of i: Int, _ e: [Double]) -> Double { effectiveGreen(i, stageGreens: e, cycle: cycle) }
        // λ = 1/x.
        func greens(_ lambda: Double, from minimums: [Double]) -> [Double] {
            var e = minimums
            for i in flowing {
                let shortfall = lambda * flowRatio(i) * cycle - green(of: i, e)
                if shortfall > 0 { e[stagesOfApproach[i].last!] += shortfall }
            }
            return e
        }
        func total(_ lambda: Double) -> Double { greens(lambda, from: minimumEffectiveGreens).reduce(0, +) }
        var (low, high) = (0.0, 1.0)
        while total(high) <= budget, high < 1e6 { (low, high) = (high, high * 2) }
        for _ in 0..<100 where high - low > 1e-12 * high {
            let mid = (low + high) / 2
            if total(mid) <= budget { low = mid } else { high = mid }
        }
        var e = greens(low, from: minimumEffectiveGreens)
        let left = budget - e.reduce(0, +)
        let weight = e.reduce(0, +)
        for s in e.indices { e[s] += weight > 0 ? left * e[s] / weight : left / Double(e.count) }
        let x = flowing.reduce(0.0) { max($0, flowRatio($1) * cycle / green(of: $1, e)) }
        let wanted = greens(low, from: [Double](repeating: 0, count: e.count))
        let raised = e.indices.filter { !demand.stages[$0].isEmpty && minimumEffectiveGreens[$0] > 0 && wanted[$0] < minimumEffectiveGreens[$0] - 1e-9 }
        return (e, x, raised)
    }

    /// The plan for effective greens `greens` (s): displayed greens G = g − A + Ls rounded to
    /// whole seconds by largest remainder, so the cycle stays a whole number of seconds.
    func plan(effectiveGreens greens: [Double]) -> SignalPlan {
        let displayed = greens.map { max(0, $0 - demand.amber + demand.startupLost) }
        let target = displayed.reduce(0, +).rounded()
        var whole = displayed.map { $0.rounded(.down) }
        var missing = Int(target - whole.reduce(0, +))
        for i in displayed.indices.sorted(by: { displayed[$0] - whole[$0] > displayed[$1] - whole[$1] }) where missing > 0 {
            whole[i] += 1
            missing -= 1
        }
        return SignalPlan(stages: demand.stages.indices.map {
            StageTiming(approaches: demand.stages[$0], green: whole[$0], amber: demand.amber, allRed: demand.allRed)
        })
    }
}
