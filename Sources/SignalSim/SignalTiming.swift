import Foundation

/// Fixed-time plans for one intersection from its flows (Webster 1958, RRL TP 39; GB 50647-2011
/// §8.5) and their performance (Webster's delay; HCM 2000 control delay d₁ + d₂; Akçelik's queue
/// and stops). Pure: plain values in, plain values out.
public enum SignalTiming {
    /// Webster's optimum cycle C₀ = (1.5L + 5)/(1 − Y) (s) for lost time `lostTime` (s) and
    /// flow-ratio sum `flowRatioSum`; `nil` when Y ≥ 1 (no cycle serves the flows).
    public static func websterCycle(lostTime: Double, flowRatioSum: Double) -> Double? {
        guard flowRatioSum < 1 else { return nil }
        return (1.5 * lostTime + 5) / (1 - flowRatioSum)
    }

    /// Webster's average delay per vehicle (s/veh) at cycle `cycle` and effective green
    /// `effectiveGreen` (s), arriving flow `flow` and saturation flow `saturationFlow` (veh/h);
    /// `nil` at a degree of saturation ≥ 1, where the formula does not hold.
    public static func websterDelay(cycle: Double, effectiveGreen: Double, flow: Double, saturationFlow: Double) -> Double? {
        let lambda = effectiveGreen / cycle
        let x = flow / (lambda * saturationFlow)
        guard x < 1 else { return nil }
        let uniform = cycle * (1 - lambda) * (1 - lambda) / (2 * (1 - lambda * x))
        guard flow > 0 else { return uniform }
        let q = flow / 3600
        let random = x * x / (2 * q * (1 - x))
        let correction = 0.65 * pow(cycle / (q * q), 1.0 / 3.0) * pow(x, 2 + 5 * lambda)
        // Webster's correction outweighs the rest where the signal hardly stops anyone (a free right
        // turn's whole-cycle green); no delay is negative.
        return max(0, uniform + random - correction)
    }

    /// How much lower (s/veh) a longer cycle's mean delay must be for a search over cycles (a
    /// corridor's range searched for delay, an intersection whose minimum greens set its cycle) to
    /// choose it over a shorter one: below the differences the model tells apart in SUMO (corridor
    /// figures ran within 1.7 s/veh of SUMO's, and 0.1-0.2 s/veh gains it predicted for a longer
    /// cycle were losses there; Benchmarks/signals/corridor_cycle_objective.py). Delay is flat
    /// near its least, and the longer cycle costs pedestrians and side streets what it saves.
    public static let cycleDelayTolerance = 0.5

    /// HCM 2000's incremental delay factor k for pretimed control.
    public static let hcmPretimedDelayFactor = 0.5

    /// What an intersection's input may hold, beyond which it is a mistake (a unit, a digit), not a
    /// site: the longest amber, all-red or start-up loss (s), the most lanes of one lane group, the
    /// largest saturation flow of a lane (veh/h: one vehicle a second) and the largest movement flow
    /// (veh/h). Above them the arithmetic would still run and give a confident plan.
    public static let longestInterval = 10.0
    public static let mostLanes = 12
    /// The most lane groups, stages and crossings of one intersection: six arms of five lane groups
    /// each, a controller's stage chain, a crossing on every arm and its halves.
    public static let mostApproaches = 32, mostStages = 16, mostCrossings = 24
    /// The longest storage a lane group may give (m): no bay is longer than a link.
    public static let longestStorage = 10_000.0
    public static let largestSaturationPerLane = 3600.0
    /// The smallest saturation flow of a lane (veh/h) and turn factor, the longest critical gap and
    /// follow-up time of a permitted left (s): beyond them no lane moves, and the figures ran to
    /// infinity (found by the fuzz-signal harness).
    public static let smallestSaturationPerLane = 100.0, smallestTurnFactor = 0.1
    public static let longestCriticalGap = 15.0, longestFollowUp = 10.0
    public static let largestFlow = 50_000.0

    /// HCM 2000 uniform delay d₁ and incremental delay d₂ (s/veh) for an isolated lane group
    /// (I = 1) over `analysisPeriod` hours; `incrementalDelayFactor` is HCM's k (0.5 for pretimed
    /// control, lower where a site's random delay was measured lower).
    public static func hcmDelay(cycle: Double, effectiveGreen: Double, flow: Double, capacity: Double,
                                analysisPeriod: Double, incrementalDelayFactor k: Double = hcmPretimedDelayFactor)
        -> (uniform: Double, incremental: Double) {
        let lambda = effectiveGreen / cycle
        let x = capacity > 0 ? flow / capacity : (flow > 0 ? .infinity : 0)
        let uniform = 0.5 * cycle * (1 - lambda) * (1 - lambda) / (1 - min(1, x) * lambda)
        guard flow > 0, capacity > 0 else { return (uniform, flow > 0 ? .infinity : 0) }
        let t = analysisPeriod
        let incremental = 900 * t * ((x - 1) + ((x - 1) * (x - 1) + 8 * k * 1 * x / (capacity * t)).squareRoot())
        return (uniform, incremental)
    }

    /// The Webster plan for `demand`: the optimum cycle within the settings' bounds, effective
    /// greens in proportion to the stages' critical flow ratios, raised to the vehicle and
    /// pedestrian minimum greens, displayed greens rounded to whole seconds.
    ///
    /// Y > 0.9 comes with GB 50647's redesign warning; Y ≥ 1 gives the plan at the maximum cycle
    /// with greens in proportion to the flow ratios (equal degrees of saturation) and says it is
    /// oversaturated. No green is ever negative.
    /// - Throws: `SignalTimingError` naming the field for input no plan can be made from.
    public static func webster(_ demand: IntersectionDemand, settings: SignalTimingSettings = SignalTimingSettings()) throws
        -> IntersectionTiming {
        let model = try TimedIntersection(demand, settings: settings)
        var warnings: [SignalTimingWarning] = []
        let y = model.flowRatioSum
        let c0 = websterCycle(lostTime: model.optimumLostTime, flowRatioSum: y)
        if y >= 1 {
            warnings.append(.init(.oversaturated, String(format: "Y = %.3f ≥ 1: no cycle serves these flows; the plan runs at the maximum cycle %.0f s", y, settings.maximumCycle)))
        } else if y > settings.redesignFlowRatio {
            warnings.append(.init(.redesign, String(format: "Y = %.3f > %.2f: GB 50647-2011 §8.5.4 asks for the approach lanes or the phasing to be redesigned", y, settings.redesignFlowRatio)))
        }
        var cycle: Double
        if let c0 {
            cycle = c0.rounded(.up)
            if cycle > settings.maximumCycle {
                warnings.append(.init(.cycleAtMaximum, String(format: "Webster's cycle %.1f s is above the maximum; %.0f s is used", c0, settings.maximumCycle)))
                cycle = settings.maximumCycle
            } else if cycle < settings.minimumCycle {
                cycle = settings.minimumCycle
            }
        } else {
            cycle = settings.maximumCycle
        }
        let (greens, raised, byDelay) = try model.split(cycle: &cycle)
        // A pedestrian-only stage runs its crossings' minimum by design, not short of a flow share.
        for s in raised where !demand.stages[s].isEmpty {
            if demand.stages[s].allSatisfy({ StageChain.alwaysGreen($0, in: demand.stages) }) {
                warnings.append(.init(.minimumGreen, "stage \(s + 1) runs only approaches that are green in every stage (\(demand.stages[s].joined(separator: ", "))): it serves no one the other stages do not, yet its minimum green (\(model.minimumReason[s])) and its change lengthen the cycle; leave it out of the chain"))
            } else {
                warnings.append(.init(.minimumGreen, "stage \(s + 1) runs its minimum green (\(model.minimumReason[s])), more than its flow share"))
            }
        }
        if let c0, byDelay {
            warnings.append(.init(.minimumGreen, String(format: "at Webster's cycle (%.0f s) the minimum greens leave an approach above x = 0.9; the cycle is %.0f s, the shortest within %.1f s/veh of the least mean delay (Webster's) under them", c0.rounded(.up), cycle, SignalTiming.cycleDelayTolerance)))
        }
        let plan = model.plan(effectiveGreens: greens)
        return model.timing(of: plan, method: "webster", websterCycle: c0, warnings: warnings)
    }

    /// The shortest displayed green of each stage of `stages` (s): the vehicle minimum, or the
    /// time to walk the stage's longest crossing (GB 50647 G_p ≥ t + L/v), whichever is longer.
    /// - Throws: `SignalTimingError` for stages that do not match the intersection.
    public static func minimumGreens(_ demand: IntersectionDemand, stages: [[String]],
                                     settings: SignalTimingSettings = SignalTimingSettings()) throws -> [Double] {
        var staged = demand
        staged.stages = stages
        let model = try TimedIntersection(staged, settings: settings)
        return model.minimumEffectiveGreens.map { $0 - demand.amber + demand.startupLost }
    }

    /// How `plan` performs for `demand` (delay, queue, stops, level of service per approach).
    /// The plan's stages say which approach runs when.
    /// - Throws: `SignalTimingError` for a plan whose stages do not match the intersection.
    public static func evaluate(_ plan: SignalPlan, for demand: IntersectionDemand,
                                settings: SignalTimingSettings = SignalTimingSettings(),
                                method: String = "evaluated") throws -> IntersectionTiming {
        var staged = demand
        staged.stages = plan.stages.map(\.approaches)
        let model = try TimedIntersection(staged, settings: settings)
        for (i, stage) in plan.stages.enumerated() {
            guard stage.green >= 0, stage.amber >= 0, stage.allRed >= 0, stage.green.isFinite else {
                throw SignalTimingError(field: "stages[\(i)].green_s", "greens, ambers and all-reds must be ≥ 0")
            }
        }
        guard plan.cycle > 0 else { throw SignalTimingError(field: "stages", "the plan's cycle is 0 s") }
        for (i, a) in demand.approaches.enumerated() where a.flows.total > 0 {
            guard let stage = model.stagesOfApproach[i].first else { continue }
            guard model.effectiveGreen(i, in: plan) > 0 else {
                throw SignalTimingError(field: "stages[\(stage)].green_s", "approach '\(a.id)' carries \(a.flows.total) veh/h but its stage has no effective green")
            }
        }
        return model.timing(of: plan, method: method,
                            websterCycle: websterCycle(lostTime: model.optimumLostTime, flowRatioSum: model.flowRatioSum),
                            warnings: [])
    }

    /// The degree of saturation the critical stages run at under Webster's optimum cycle with greens
    /// in proportion to their flow ratios, Y·C₀/(C₀ − L); 0 where there is no such cycle (Y ≥ 1).
    static func websterSaturation(lostTime: Double, flowRatioSum: Double) -> Double {
        websterCycle(lostTime: lostTime, flowRatioSum: flowRatioSum).map { c0 in
            c0 > lostTime ? flowRatioSum * c0 / (c0 - lostTime) : 0
        } ?? 0
    }

    /// Raises `cycle` to what the minimum effective greens and the lost time need (whole seconds).
    /// - Throws: `SignalTimingError` (`max_cycle_s`) when that is above `maximumCycle`.
    static func raiseToMinimums(cycle: inout Double, lostTime: Double, minimums: [Double], maximumCycle: Double) throws {
        let floors = minimums.reduce(0, +)
        guard cycle - lostTime < floors else { return }
        let needed = (lostTime + floors).rounded(.up)
        guard needed <= maximumCycle else {
            throw SignalTimingError(field: "max_cycle_s",
                                    String(format: "the minimum greens and lost time need a %.0f s cycle, above the maximum %.0f s", needed, maximumCycle))
        }
        cycle = needed
    }

    /// Effective greens (s) of `budget` seconds in proportion to `ratios`, each at least its
    /// minimum (a stage below it is held there and the rest share what is left), and the stages
    /// held at their minimum.
    static func proportionalGreens(budget: Double, ratios: [Double], minimums: [Double]) -> ([Double], [Int]) {
        var fixed = Set<Int>()
        var greens = [Double](repeating: 0, count: ratios.count)
        while true {
            let free = ratios.indices.filter { !fixed.contains($0) }
            let left = budget - fixed.reduce(0) { $0 + minimums[$1] }
            let weight = free.reduce(0) { $0 + ratios[$1] }
            for i in fixed { greens[i] = minimums[i] }
            for i in free { greens[i] = weight > 0 ? left * ratios[i] / weight : left / Double(free.count) }
            let below = free.filter { greens[$0] < minimums[$0] - 1e-9 }
            if below.isEmpty { return (greens, fixed.sorted()) }
            fixed.formUnion(below)
        }
    }
}
