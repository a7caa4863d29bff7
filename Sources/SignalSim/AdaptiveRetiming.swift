/// How far one re-timing step may move a running plan, and the saturation targets of
/// degree-of-saturation balancing.
public struct RetimingLimits: Sendable, Hashable, Codable {
    /// Largest change of the cycle per step (s).
    public var maximumCycleChange: Double
    /// Largest change of any stage's green per step (s).
    public var maximumGreenChange: Double
    /// Balancing lengthens the cycle while the highest stage degree of saturation is above this…
    public var targetSaturation: Double
    /// …and shortens it while the highest is below this.
    public var lowSaturation: Double

    public init(maximumCycleChange: Double = 10, maximumGreenChange: Double = 5, targetSaturation: Double = 0.9,
                lowSaturation: Double = 0.7) {
        self.maximumCycleChange = maximumCycleChange
        self.maximumGreenChange = maximumGreenChange
        self.targetSaturation = targetSaturation
        self.lowSaturation = lowSaturation
    }

    func validate() throws {
        guard maximumCycleChange.isFinite, maximumCycleChange >= 0 else { throw SignalTimingError(field: "max_cycle_change_s", "must be ≥ 0") }
        guard maximumGreenChange.isFinite, maximumGreenChange >= 0 else { throw SignalTimingError(field: "max_green_change_s", "must be ≥ 0") }
        guard lowSaturation > 0, targetSaturation > lowSaturation, targetSaturation.isFinite else {
            throw SignalTimingError(field: "target_saturation", "needs 0 < low_saturation < target_saturation")
        }
    }
}

/// Adaptive re-timing (自适应配时) from the latest counts, one bounded step at a time:
/// - `webster`: periodic Webster re-timing on the measured flows (what SUMO's
///   `tlsCycleAdaptation` does once), moved toward by at most the limits per step;
/// - `balanceSaturation`: SCATS-style degree-of-saturation balancing — the cycle grows while the
///   highest stage degree of saturation is above target and shrinks while it is low; greens move
///   toward equal degrees of saturation.
/// Both keep minimum greens and the cycle bounds.
public enum AdaptiveRetiming {
    public static func webster(current: SignalPlan, demand: IntersectionDemand,
                               settings: SignalTimingSettings = SignalTimingSettings(),
                               limits: RetimingLimits = RetimingLimits()) throws -> IntersectionTiming {
        let model = try model(current, demand, settings, limits)
        let target: Double
        if let c0 = SignalTiming.websterCycle(lostTime: model.optimumLostTime, flowRatioSum: model.flowRatioSum) {
            target = min(settings.maximumCycle, max(settings.minimumCycle, c0.rounded(.up)))
        } else {
            target = settings.maximumCycle
        }
        return try step(current, toward: target, model: model, limits: limits, method: "webster-retiming")
    }

    public static func balanceSaturation(current: SignalPlan, demand: IntersectionDemand,
                                         settings: SignalTimingSettings = SignalTimingSettings(),
                                         limits: RetimingLimits = RetimingLimits()) throws -> IntersectionTiming {
        let model = try model(current, demand, settings, limits)
        let now = model.timing(of: current, method: "evaluated", websterCycle: nil, warnings: [])
        let highest = now.approaches.filter { $0.flow > 0 }.map(\.degreeOfSaturation).max() ?? 0
        var target = current.cycle
        if highest > limits.targetSaturation { target += limits.maximumCycleChange }
        else if highest < limits.lowSaturation { target -= limits.maximumCycleChange }
        target = min(settings.maximumCycle, max(settings.minimumCycle, target))
        return try step(current, toward: target, model: model, limits: limits, method: "saturation-balancing")
    }

    static func model(_ current: SignalPlan, _ demand: IntersectionDemand, _ settings: SignalTimingSettings,
                      _ limits: RetimingLimits) throws -> TimedIntersection {
        try limits.validate()
        var staged = demand
        staged.stages = current.stages.map(\.approaches)
        return try TimedIntersection(staged, settings: settings)
    }

    /// Moves `current` toward the cycle `target` with greens split by flow ratio (equal degrees
    /// of saturation), each change within the limits.
    static func step(_ current: SignalPlan, toward target: Double, model: TimedIntersection, limits: RetimingLimits,
                     method: String) throws -> IntersectionTiming {
        let demand = model.demand
        var cycle = min(current.cycle + limits.maximumCycleChange, max(current.cycle - limits.maximumCycleChange, target))
        let (effective, _, _) = try model.split(cycle: &cycle, growthLimit: current.cycle + limits.maximumCycleChange)
        let wanted = effective.map { $0 - demand.amber + demand.startupLost }
        let minimum = model.minimumEffectiveGreens.map { $0 - demand.amber + demand.startupLost }
        let budget = wanted.reduce(0, +)
        // Each green within ±maximumGreenChange of its current value and not below its minimum…
        let low = current.stages.indices.map { max(minimum[$0], current.stages[$0].green - limits.maximumGreenChange) }
        let high = current.stages.indices.map { max(low[$0], current.stages[$0].green + limits.maximumGreenChange) }
        var greens = current.stages.indices.map { min(high[$0], max(low[$0], wanted[$0])) }
        // …then the difference to the cycle's budget spread over the stages that still have room.
        for _ in 0..<greens.count {
            let gap = budget - greens.reduce(0, +)
            if abs(gap) < 1e-9 { break }
            let room = greens.indices.filter { gap > 0 ? greens[$0] < high[$0] - 1e-9 : greens[$0] > low[$0] + 1e-9 }
            if room.isEmpty { break }
            let share = gap / Double(room.count)
            for i in room { greens[i] = min(high[i], max(low[i], greens[i] + share)) }
        }
        let plan = model.plan(effectiveGreens: greens.map { $0 + demand.amber - demand.startupLost })
        var result = model.timing(of: SignalPlan(stages: plan.stages, offset: current.offset), method: method,
                                  websterCycle: SignalTiming.websterCycle(lostTime: model.optimumLostTime, flowRatioSum: model.flowRatioSum),
                                  warnings: [])
        if model.flowRatioSum >= 1 {
            result.warnings.insert(.init(.oversaturated, "Y ≥ 1: the flows exceed what any cycle serves"), at: 0)
        }
        // Minimum greens come before smooth steps: a running plan below them is raised at once.
        for (i, stage) in current.stages.enumerated() where minimum[i] > stage.green + limits.maximumGreenChange + 1e-9 {
            result.warnings.append(.init(.minimumGreen, String(format: "stage %d raised from %.0f s to its minimum green %.0f s in one step (more than the %.0f s step limit)",
                                                               i + 1, stage.green, minimum[i], limits.maximumGreenChange)))
        }
        return result
    }
}
