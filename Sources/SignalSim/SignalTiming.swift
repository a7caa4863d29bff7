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

/// An intersection checked and reduced to what timing needs: one lane group per approach, the
/// stage each runs in, flow ratios and minimum greens.
struct TimedIntersection {
    let demand: IntersectionDemand
    let settings: SignalTimingSettings
    /// Saturation flow of each approach (veh/h), in `demand.approaches` order.
    let saturationFlows: [Double]
    static let oppositeArm = ["N": "S", "S": "N", "E": "W", "W": "E"]
    /// The next arm clockwise (seen from above, north up): traffic from it crosses a left turn's path.
    static let clockwiseArm = ["N": "E", "E": "S", "S": "W", "W": "N"]

    /// The arm a movement from `arm` leaves by, driving on the right (the left turn from the south
    /// leaves westward, the right turn eastward).
    static func exitArm(from arm: String, _ movement: String) -> String? {
        switch movement {
        case "through": oppositeArm[arm]
        case "left": clockwiseArm[arm]
        case "right": clockwiseArm.first { $0.value == arm }?.key
        default: nil
        }
    }

    /// Whether movement `a` from arm `armA` and movement `b` from arm `armB` cross, driving on the
    /// right: throughs and lefts of perpendicular arms, and a left with the through from the next arm
    /// clockwise (north's left crosses the westbound through from the east). Opposite arms' lefts and
    /// throughs are permitted (the left yields: `permitted-left`); right turns merge.
    static func cross(_ armA: String, _ a: String, _ armB: String, _ b: String) -> Bool {
        guard armA != armB, oppositeArm[armA] != armB else { return false }
        switch (a, b) {
        case ("through", "through"), ("left", "left"): return true
        case ("left", "through"): return clockwiseArm[armA] == armB
        case ("through", "left"): return clockwiseArm[armB] == armA
        default: return false
        }
    }
    /// The stages each approach runs in, in `demand.approaches` order: one, or several consecutive
    /// ones in running order (搭接: an approach keeping its green from one stage into the next, through
    /// the change between them, also from the last stage into the first: `StageChain.run`); none for a
    /// free right turn.
    let stagesOfApproach: [[Int]]
    /// The stage the chain is read from as a line (the critical path's search, the split's order): the
    /// first whose start no approach keeps its green through, 0 unless a green runs across the chain's end.
    let chainStart: Int
    /// Whether an approach runs in more than one stage.
    var overlapping: Bool { stagesOfApproach.contains { $0.count > 1 } }
    /// The critical path through the stage chain (Akçelik's critical movement search): the
    /// approaches whose stages cover the chain once and need the longest cycle, by stage (`nil`: a
    /// stage no path approach covers); its flow ratio sum Y, its stage changes and its lost time (s).
    let criticalPath: (approaches: [Int?], flowRatioSum: Double, changes: Int, lostTime: Double)
    /// HCM's incremental delay factor k of this intersection.
    let incrementalDelayFactor: Double
    /// Through and right flow (veh/h) from the opposite arm in the same stage that each approach's
    /// left turns cross (0: protected, unopposed or no lefts), in `demand.approaches` order.
    let permittedLeftOpposing: [Double]
    /// For an approach whose lefts are permitted in some of its stages, the stages of its run in
    /// which no opposing traffic runs (protected-permitted, 保护-许可左转; empty: permitted throughout).
    let protectedLeftStages: [[Int]]
    /// The stages in which they are permitted, in running order (empty: no permitted lefts).
    let permittedLeftStages: [[Int]]
    /// For an approach turning left, the approaches of its stage carrying through or right traffic
    /// that it may or may not cross because its arm or theirs is not known (empty: none).
    let unknownOpposing: [[Int]]
    /// Minimum effective green of each stage (s) and why.
    let minimumEffectiveGreens: [Double]
    let minimumReason: [String]

    init(_ demand: IntersectionDemand, settings: SignalTimingSettings) throws {
        try settings.validate()
        self.demand = demand
        self.settings = settings
        func nonNegative(_ v: Double, _ field: String) throws {
            guard v.isFinite, v >= 0 else { throw SignalTimingError(field: field, "must be a number ≥ 0 (got \(v))") }
        }
        func interval(_ v: Double, _ field: String) throws {
            try nonNegative(v, field)
            guard v <= SignalTiming.longestInterval else {
                throw SignalTimingError(field: field, "must be at most \(Int(SignalTiming.longestInterval)) s (got \(v); GB 50647 uses 3–4 s of amber and a few seconds of all-red and start-up loss)")
            }
        }
        func flow(_ v: Double, _ field: String) throws {
            try nonNegative(v, field)
            guard v <= SignalTiming.largestFlow else {
                throw SignalTimingError(field: field, "must be at most \(Int(SignalTiming.largestFlow)) veh/h, more than any approach carries (got \(v); flows are vehicles per hour)")
            }
        }
        func saturation(_ v: Double, _ field: String) throws {
            guard v.isFinite, v >= SignalTiming.smallestSaturationPerLane, v <= SignalTiming.largestSaturationPerLane else {
                throw SignalTimingError(field: field, "must be \(Int(SignalTiming.smallestSaturationPerLane)) to \(Int(SignalTiming.largestSaturationPerLane)) veh/h per lane (at most one vehicle a second; got \(v))")
            }
        }
        try interval(demand.amber, "amber_s")
        try interval(demand.allRed, "all_red_s")
        try interval(demand.startupLost, "startup_lost_s")
        var saturationDefaults = settings.saturation
        for (value, field, longest) in [(demand.permittedLeftCriticalGap, "permitted_left_critical_gap_s", SignalTiming.longestCriticalGap),
                                        (demand.permittedLeftFollowUp, "permitted_left_follow_up_s", SignalTiming.longestFollowUp)] {
            if let value, !(value.isFinite && value > 0 && value <= longest) {
                throw SignalTimingError(field: field, "must be a positive number of seconds, at most \(Int(longest)) (got \(value))")
            }
        }
        if let k = demand.incrementalDelayFactor, !(k.isFinite && k > 0 && k <= 1) {
            throw SignalTimingError(field: "incremental_delay_factor", "must be in (0, 1] (HCM's k; got \(k))")
        }
        incrementalDelayFactor = demand.incrementalDelayFactor ?? SignalTiming.hcmPretimedDelayFactor
        if let s = demand.saturationFlow { try saturation(s, "saturation_flow_pcu_h") }
        for (value, field) in [(demand.leftTurnFactor, "left_turn_factor"), (demand.rightTurnFactor, "right_turn_factor")] {
            if let value, !(value.isFinite && value >= SignalTiming.smallestTurnFactor && value <= 1) {
                throw SignalTimingError(field: field, "must be \(SignalTiming.smallestTurnFactor) to 1 (got \(value))")
            }
        }
        saturationDefaults.through = demand.saturationFlow ?? saturationDefaults.through
        saturationDefaults.leftFactor = demand.leftTurnFactor ?? saturationDefaults.leftFactor
        saturationDefaults.rightFactor = demand.rightTurnFactor ?? saturationDefaults.rightFactor
        saturationDefaults.permittedLeftCriticalGap = demand.permittedLeftCriticalGap ?? saturationDefaults.permittedLeftCriticalGap
        saturationDefaults.permittedLeftFollowUp = demand.permittedLeftFollowUp ?? saturationDefaults.permittedLeftFollowUp
        guard !demand.approaches.isEmpty else { throw SignalTimingError(field: "approaches", "an intersection needs at least one approach") }
        guard demand.approaches.count <= SignalTiming.mostApproaches else {
            throw SignalTimingError(field: "approaches", "an intersection has at most \(SignalTiming.mostApproaches) lane groups (got \(demand.approaches.count))")
        }
        guard demand.stages.count <= SignalTiming.mostStages else {
            throw SignalTimingError(field: "stages", "a stage chain has at most \(SignalTiming.mostStages) stages (got \(demand.stages.count))")
        }
        guard demand.crossings.count <= SignalTiming.mostCrossings else {
            throw SignalTimingError(field: "crossings", "an intersection has at most \(SignalTiming.mostCrossings) crossings (got \(demand.crossings.count))")
        }
        var index: [String: Int] = [:]
        for (i, a) in demand.approaches.enumerated() {
            let path = "approaches[\(i)]"
            guard !a.id.isEmpty else { throw SignalTimingError(field: path + ".id", "must not be empty") }
            guard index[a.id] == nil else { throw SignalTimingError(field: path + ".id", "approach '\(a.id)' is listed twice") }
            index[a.id] = i
            guard (1...SignalTiming.mostLanes).contains(a.lanes) else {
                throw SignalTimingError(field: path + ".lanes", "must be 1 to \(SignalTiming.mostLanes) (got \(a.lanes))")
            }
            try flow(a.flows.through, path + ".flows_veh_h.through")
            try flow(a.flows.left, path + ".flows_veh_h.left")
            try flow(a.flows.right, path + ".flows_veh_h.right")
            if let s = a.saturationPerLane { try saturation(s, path + ".saturation_veh_h_lane") }
            if let storage = a.storage, !(storage.isFinite && storage > 0 && storage <= SignalTiming.longestStorage) {
                throw SignalTimingError(field: path + ".storage_m", "must be a length in metres above 0 and at most \(Int(SignalTiming.longestStorage)) (got \(storage))")
            }
            try a.conditions.validate(path)
        }
        guard !demand.stages.isEmpty else { throw SignalTimingError(field: "stages", "a plan needs at least one stage") }
        var member = [[Bool]](repeating: [Bool](repeating: false, count: demand.stages.count), count: demand.approaches.count)
        for (s, stage) in demand.stages.enumerated() {
            // A stage of no approach is a pedestrian-only stage (行人专用相位阶段): a crossing must be walked in it.
            guard !stage.isEmpty || demand.crossings.contains(where: { $0.stage == s }) else {
                throw SignalTimingError(field: "stages[\(s)]", "a stage must name at least one approach, or be a pedestrian-only stage that a crossing is walked in")
            }
            for (k, id) in stage.enumerated() {
                guard let i = index[id] else {
                    throw SignalTimingError(field: "stages[\(s)][\(k)]", "names no approach: '\(id)' (approaches: \(demand.approaches.map(\.id).joined(separator: ", ")))")
                }
                member[i][s] = true
            }
        }
        // Each approach runs in one stage or in consecutive ones (搭接), the chain's last stage running on into its first.
        var stagesOf = [[Int]]()
        for (i, a) in demand.approaches.enumerated() {
            guard let run = StageChain.run(member[i]) else {
                let s = StageChain.comeback(member[i]) ?? 0
                let before = (s + demand.stages.count - 1) % demand.stages.count
                throw SignalTimingError(field: "stages[\(s)][\(demand.stages[s].firstIndex(of: a.id) ?? 0)]", "approach '\(a.id)' is back in stage \(s + 1) after stage \(before + 1) ran without it: an approach may keep its green into the next stage (搭接, across the chain's end into its first stage too), not stop and come back in the same cycle")
            }
            stagesOf.append(run)
        }
        // An approach green in every stage of two or more is never stopped (常绿): like a free right
        // turn its green is the whole cycle and it asks no stage for green; it still opposes the
        // lefts of the stages it runs in and is checked against what runs beside it.
        let timedRuns = demand.approaches.indices.map { StageChain.alwaysGreen(member[$0]) ? [] : stagesOf[$0] }
        // The critical path is searched along the chain from a stage change that no approach keeps its green through.
        guard let start = demand.stages.indices.first(where: { s in !timedRuns.contains { $0.dropFirst().contains(s) } }) else {
            throw SignalTimingError(field: "stages", "every stage change keeps some approach's green (搭接 all round the chain): at least one change must stop every approach, or the stages are one")
        }
        chainStart = start
        // A lane group in no stage is a free right turn (渠化右转, 右转不受控): it turns right without a
        // signal, yielding. Any other movement needs a stage.
        for (i, a) in demand.approaches.enumerated() where stagesOf[i].isEmpty && a.flows.through + a.flows.left > 0 {
            throw SignalTimingError(field: "approaches[\(i)]", "approach '\(a.id)' carries \(a.flows.through + a.flows.left) veh/h of through or left traffic but runs in no stage (only a lane group of right turns alone may, as a free right turn)")
        }
        stagesOfApproach = timedRuns
        // No stage may give green to movements that cross (GB/T 20999's conflict table, 冲突表): a plan
        // for them would read as a confident one of an intersection that cannot run.
        for (s, stage) in demand.stages.enumerated() {
            let members = stage.compactMap { index[$0] }
            for (k, i) in members.enumerated() {
                for j in members[(k + 1)...] {
                    let a = demand.approaches[i], b = demand.approaches[j]
                    guard let armA = a.compassArm, let armB = b.compassArm else { continue }
                    for ma in a.flows.flowing {
                        for mb in b.flows.flowing where Self.cross(armA, ma, armB, mb) {
                            throw SignalTimingError(field: "stages[\(s)]", "\(a.id)'s \(ma) traffic (from \(armA)) and \(b.id)'s \(mb) traffic (from \(armB)) cross: no stage may give both green (a conflict in GB/T 20999's terms); run them in different stages")
                        }
                    }
                }
            }
        }
        // Default saturation flows, left turns permitted where through or right traffic from the
        // opposite arm runs in the same stage (with the intersection's measured gap acceptance
        // where it has one), from the approach's own base saturation flow or the intersection's.
        // Approaches that have green together in some stage.
        func together(_ i: Int, _ j: Int) -> Bool { !Set(stagesOf[i]).isDisjoint(with: stagesOf[j]) }
        // Through and right flow (veh/h) from the opposite arm in a stage it shares that each
        // approach's left turns are permitted against (0: protected, unopposed or no lefts).
        let opposing: [Double] = demand.approaches.indices.map { i in
            let a = demand.approaches[i]
            guard a.flows.left > 0, !stagesOf[i].isEmpty, let arm = a.compassArm, let facing = Self.oppositeArm[arm] else { return 0 }
            return demand.approaches.indices.filter { together($0, i) && $0 != i && demand.approaches[$0].compassArm == facing }
                .reduce(0) { $0 + demand.approaches[$1].flows.through + demand.approaches[$1].flows.right }
        }
        permittedLeftOpposing = opposing
        // The stages in which an approach's permitted lefts have no opposing traffic (protected there) and those they have.
        let leftStages: [(protected: [Int], permitted: [Int])] = demand.approaches.indices.map { i in
            let a = demand.approaches[i]
            guard opposing[i] > 0, let arm = a.compassArm, let facing = Self.oppositeArm[arm] else { return ([], []) }
            let opposed = stagesOf[i].filter { s in
                demand.approaches.indices.contains { j in
                    j != i && stagesOf[j].contains(s) && demand.approaches[j].compassArm == facing
                        && demand.approaches[j].flows.through + demand.approaches[j].flows.right > 0
                }
            }
            return (stagesOf[i].filter { !opposed.contains($0) }, opposed)
        }
        protectedLeftStages = leftStages.map(\.protected)
        permittedLeftStages = leftStages.map(\.permitted)
        unknownOpposing = demand.approaches.indices.map { i in
            let a = demand.approaches[i]
            guard a.flows.left > 0, !stagesOf[i].isEmpty else { return [] }
            return demand.approaches.indices.filter { j in
                let b = demand.approaches[j]
                return j != i && together(i, j) && b.flows.through + b.flows.right > 0
                    && (a.compassArm == nil || b.compassArm == nil)
            }
        }
        saturationFlows = demand.approaches.indices.map { i in
            let a = demand.approaches[i]
            // A group's own saturation flow replaces the intersection's base for its lanes; its turns
            // are discounted from it as from the base (GB 50647 Appendix B, HCM's s₀ and factors).
            var s = saturationDefaults
            s.through = a.saturationPerLane ?? s.through
            // The site's conditions (lane width, grade, heavy vehicles, buses) scale the whole group.
            let site = a.conditions.factor(lanes: a.lanes)
            let group = Double(a.lanes) * s.perLane(for: a.flows, opposingFlow: opposing[i])
            // Turns share the outermost lane of a wider group: its leftmost lane holds all its left
            // turns and its rightmost lane all its right turns, however the other movements spread
            // (HCM's de facto turn lanes); the group saturates when the busier of them does (a left
            // and right group of two lanes is a left lane beside a right lane).
            guard a.lanes > 1 else { return site * group }
            var tightest = group
            if a.flows.left > 0, a.flows.left < a.flows.total {
                tightest = min(tightest, a.flows.total * s.through / (a.flows.left * s.leftEquivalent(opposingFlow: opposing[i])))
            }
            if a.flows.right > 0, a.flows.right < a.flows.total {
                tightest = min(tightest, a.flows.total * s.through * s.rightFactor / a.flows.right)
            }
            return site * tightest
        }
        // Minimum effective greens: g = G + A − Ls for the displayed minimum G.
        // A pedestrian-only stage has no vehicle minimum: its crossings set it.
        var minimum = demand.stages.map { $0.isEmpty ? 0 : settings.minimumGreen }
        var reason = [String](repeating: String(format: "vehicle minimum %.0f s", settings.minimumGreen), count: demand.stages.count)
        for (c, crossing) in demand.crossings.enumerated() {
            guard demand.stages.indices.contains(crossing.stage) else {
                throw SignalTimingError(field: "crossings[\(c)].stage", "names no stage: \(crossing.stage) (stages 0…\(demand.stages.count - 1))")
            }
            guard crossing.length.isFinite, crossing.length > 0 else {
                throw SignalTimingError(field: "crossings[\(c)].length_m", "must be a positive length in metres")
            }
            let walked = crossing.refugeIsland ? crossing.length / 2 : crossing.length
            let needed = settings.pedestrianStartup + walked / settings.walkingSpeed
            if needed > minimum[crossing.stage] {
                minimum[crossing.stage] = needed
                reason[crossing.stage] = String(format: "pedestrian minimum %.1f s for crossing %@ (%.0f m)", needed, crossing.id, walked)
            }
        }
        let effectiveMinimums = minimum.map { max(0, $0 + demand.amber - demand.startupLost) }
        minimumEffectiveGreens = effectiveMinimums
        minimumReason = reason
        let flows = demand.approaches.map(\.flows.total), capacities = saturationFlows
        // A stage in which only approaches that are always green run is lost to the path like a pedestrian-only one.
        criticalPath = Self.criticalPath(runs: timedRuns, flowRatios: zip(flows, capacities).map { $0 / $1 },
                                         stageMembers: demand.stages.indices.map { s in timedRuns.filter { $0.contains(s) }.count },
                                         minimumGreens: effectiveMinimums,
                                         lostTime: demand.lostTimePerStage, from: start)
    }

    /// The path of approaches covering each stage of the chain once that needs the longest Webster
    /// cycle (1.5·L + 5)/(1 − Y): an approach covers its run of stages at its flow ratio and one
    /// stage change's lost time; a pedestrian-only stage is lost whole, its minimum green with its
    /// change, and in a chain with overlapping stages a path may pass over a stage (flow ratio 0, its
    /// change lost). By dynamic programming over the chain, the most flow ratio for each lost time.
    /// Without overlapping stages it is each stage's largest flow ratio.
    /// The chain is read as a line from stage `start`, a stage change no run keeps its green through.
    static func criticalPath(runs: [[Int]], flowRatios: [Double], stageMembers: [Int], minimumGreens: [Double], lostTime l: Double,
                             from start: Int = 0)
        -> (approaches: [Int?], flowRatioSum: Double, changes: Int, lostTime: Double) {
        let n = stageMembers.count
        // Position p along the line is stage (start + p) mod n.
        func stage(_ p: Int) -> Int { (start + p) % n }
        let overlapping = runs.contains { $0.count > 1 }
        // best[p][lost]: the most flow ratio covering stages 0..<p with that lost time, and how.
        typealias State = (y: Double, lost: Double, changes: Int, path: [Int?])
        var best = [[Int64: State]](repeating: [:], count: n + 1)
        best[0][0] = (0, 0, 0, [])
        for p in 0..<n {
            // In the keys' order: of two paths as good, the same one is kept on every run.
            for (_, state) in best[p].sorted(by: { $0.key < $1.key }) {
                func offer(_ end: Int, _ y: Double, _ lost: Double, _ cover: [Int?]) {
                    let key = Int64((lost * 1e6).rounded())
                    if best[end][key].map({ $0.y < y }) ?? true { best[end][key] = (y, lost, state.changes + 1, state.path + cover) }
                }
                // A pedestrian-only stage's green is lost to every vehicle; a vehicle stage the path
                // passes over loses its change only (its minimum green is the split's to keep).
                if stageMembers[stage(p)] == 0 { offer(p + 1, state.y, state.lost + l + minimumGreens[stage(p)], [nil]) }
                else if overlapping { offer(p + 1, state.y, state.lost + l, [nil]) }
                for (i, run) in runs.enumerated() where run.first == stage(p) {
                    offer(p + run.count, state.y + flowRatios[i], state.lost + l, Array(repeating: i, count: run.count))
                }
            }
        }
        func cycle(_ s: State) -> Double { s.y < 1 ? (1.5 * s.lost + 5) / (1 - s.y) : .infinity }
        // Every stage has an approach starting in it or may be passed over, so some path covers the chain.
        guard let chosen = best[n].values.max(by: { a, b in
            let (ca, cb) = (cycle(a), cycle(b))
            return ca != cb ? ca < cb : (a.y != b.y ? a.y < b.y : a.lost > b.lost)
        }) else { return ([Int?](repeating: nil, count: n), 0, n, Double(n) * l) }
        // The path by stage, back from positions along the line.
        let byStage = (0..<n).map { chosen.path[($0 - start + n) % n] }
        return (byStage, chosen.y, chosen.changes, chosen.lost)
    }

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

    /// What a plan says of an approach whose lefts turn through opposing traffic in their stage: the
    /// lane-group models serve them from the start of the green, while they leave mostly at its end,
    /// and in a single shared lane a left waiting for a gap holds up everything behind it. The figures
    /// are SUMO's against the plans' delay (Benchmarks/README.md: `random_isolated.py --lefts any`
    /// for wider approaches and left bays, `reference_crossroads.py --left-share 0.15` for one lane).
    static func permittedLeftWarning(_ a: ApproachDemand, opposing: Double, delay: Double) -> String {
        let head = String(format: "approach %@ turns %.0f veh/h left through %.0f veh/h of opposing traffic: its delay (%.0f s) serves those lefts from the start of the green, but they leave mostly at its end", a.id, a.flows.left, opposing, delay)
        if a.lanes == 1, a.flows.left < a.flows.total {
            return head + "; in its one lane a left waiting for a gap holds up the traffic behind it, and on one-lane crossroads SUMO measured 7 s (5 % lefts) to 95-109 s (15 % lefts) more on average, up to 896 s, approaches planned at x 0.6-0.8 queueing as if over capacity (Benchmarks/README.md). Check it with signal evaluate --sumo, or give the lefts a lane and a stage"
        }
        return head + "; SUMO measured 25 s (lefts sharing lanes) to 41 s (left bays) more on average (Benchmarks/README.md). Check it with signal evaluate --sumo, or give the lefts a stage"
    }

    /// What a plan says of an approach whose lefts are protected in some of its stages and permitted
    /// through opposing traffic in others: they are timed at the permitted saturation flow in all of
    /// them. HCM's protected plus permitted capacity (each stage at its own rate) was tried and not
    /// kept: SUMO's permitted lefts serve less than it counts, its delays ran below SUMO's on every
    /// such bay and the plans it changed ran worse there (Benchmarks/README.md, `overlapping_stages.py
    /// --permitted-lefts`).
    static func protectedPermittedLeftWarning(_ a: ApproachDemand, opposing: Double, protected: [Int], permitted: [Int]) -> String {
        func stages(_ list: [Int]) -> String { (list.count == 1 ? "stage " : "stages ") + list.map { String($0 + 1) }.joined(separator: ", ") }
        let head = String(format: "approach %@ turns %.0f veh/h left, protected in %@ and permitted through %.0f veh/h of opposing traffic in %@: its lefts are timed at the permitted saturation flow throughout (conservative in the protected green); on 26 such left bays SUMO's delay differed from the plans' by 1.4 s on average (7.0 s below to 3.1 s above, 23 within 2.5 s; Benchmarks/README.md)", a.id, a.flows.left, stages(protected), opposing, stages(permitted))
        guard a.flows.through + a.flows.right > 0 else { return head }
        return head + "; in a lane it shares with through or right traffic a left waiting for a gap in the permitted green holds up the traffic behind it, which those bays do not measure: check it with signal evaluate --sumo"
    }

    /// A turn bay whose entry the queue beside it blocks: on the bay's arm, a lane group whose lanes
    /// run farther back (no storage, or a longer one) queues past where the bay opens, so the bay's
    /// vehicles wait behind that queue in its lanes. One warning per bay, about the longest such queue.
    func bayEntryWarnings(_ performance: [ApproachPerformance]) -> [SignalTimingWarning] {
        var warnings: [SignalTimingWarning] = []
        for (i, bay) in demand.approaches.enumerated() {
            guard let storage = bay.storage, bay.flows.total > 0 else { continue }
            let beside = lanesBeside(bay: i)
            let held = Int((storage / SignalTiming.queuedVehicleSpacing).rounded(.down))
            let over = beside.filter { performance[$0].degreeOfSaturation >= 1 }
            if let j = over.first {
                warnings.append(.init(.bayBlocked, String(format: "lane group %@ runs over capacity (x = %.2f): its queue grows past where lane group %@'s %.0f m bay opens, and %@'s vehicles wait behind it", demand.approaches[j].id, performance[j].degreeOfSaturation, bay.id, storage, bay.id), approach: bay.id, affects: [demand.approaches[j].id]))
                continue
            }
            let longest = beside.compactMap { j in performance[j].backOfQueue95.map { (j, $0) } }.max { $0.1 < $1.1 }
            guard let (j, queue) = longest, queue * SignalTiming.queuedVehicleSpacing > storage else { continue }
            let share = performance[j].backOfQueueExceedance(held) ?? 1
            warnings.append(.init(.bayBlocked, String(format: "lane group %@'s 95th-percentile queue (%.0f vehicles a lane, %.0f m) reaches past where lane group %@'s %.0f m bay opens: in about %.0f %% of cycles %@'s vehicles cannot reach their bay and wait in %@'s lanes; lengthen the bay", demand.approaches[j].id, queue, queue * SignalTiming.queuedVehicleSpacing, bay.id, storage, share * 100, bay.id, demand.approaches[j].id), approach: bay.id, affects: [demand.approaches[j].id]))
        }
        return warnings
    }

    /// Movements that leave by the arm the traffic of an approach green in every stage (常绿) leaves
    /// by: they merge into a stream the signal never stops and yield to it, which their delay leaves
    /// out. One warning per approach that merges, naming the streams it joins.
    func mergeWarnings(_ performance: [ApproachPerformance]) -> [SignalTimingWarning] {
        let always = demand.approaches.indices.filter { StageChain.alwaysGreen(demand.approaches[$0].id, in: demand.stages) }
        guard !always.isEmpty else { return [] }
        var warnings: [SignalTimingWarning] = []
        for (i, a) in demand.approaches.enumerated() where !stagesOfApproach[i].isEmpty {
            guard let arm = a.compassArm else { continue }
            var merging: [(movement: String, flow: Double)] = []
            var joined: [Int] = []
            for (movement, flow) in [("left", a.flows.left), ("through", a.flows.through), ("right", a.flows.right)] where flow > 0 {
                let exit = Self.exitArm(from: arm, movement)
                let into = always.filter { j in
                    let b = demand.approaches[j]
                    guard let other = b.compassArm, other != arm else { return false }
                    return b.flows.flowing.contains { Self.exitArm(from: other, $0) == exit }
                }
                if !into.isEmpty { merging.append((movement, flow)); joined += into.filter { !joined.contains($0) } }
            }
            guard !merging.isEmpty else { continue }
            let what = merging.map { String(format: "%.0f veh/h of %@", $0.flow, $0.movement == "through" ? "through traffic" : $0.movement + " turns") }.joined(separator: " and ")
            let streams = joined.map { String(format: "%@ (%.0f veh/h)", demand.approaches[$0].id, demand.approaches[$0].flows.total) }.joined(separator: ", ")
            warnings.append(.init(.mergesIntoAlwaysGreen, String(format: "approach %@'s %@ leave by the arm that %@ leaves by, which is green in every stage and never stops: unless they have a receiving lane of their own, they merge into that traffic and yield to it, a wait their delay (%.0f s) leaves out; check it with signal evaluate --sumo, whose network merges them", a.id, what, streams, performance[i].controlDelay), approach: a.id))
        }
        return warnings
    }

    /// The lane groups with flow on a turn bay's arm whose lanes run farther back than the bay (no
    /// storage, or a longer one): the lanes its overflowing queue blocks, and whose queue can block
    /// its entry. Empty when the bay has no storage or no compass arm.
    func lanesBeside(bay i: Int) -> [Int] {
        let bay = demand.approaches[i]
        guard let storage = bay.storage, let arm = bay.compassArm else { return [] }
        return demand.approaches.indices.filter { j in
            let other = demand.approaches[j]
            return j != i && other.compassArm == arm && other.flows.total > 0 && (other.storage ?? .infinity) > storage
        }
    }

    /// Performance of every approach under `plan` (its stages in `demand.stages` order).
    func timing(of plan: SignalPlan, method: String, websterCycle: Double?, warnings: [SignalTimingWarning]) -> IntersectionTiming {
        let cycle = plan.cycle
        var warnings = warnings
        var performance: [ApproachPerformance] = []
        for (i, a) in demand.approaches.enumerated() {
            let s = saturationFlows[i]
            let q = a.flows.total
            // A free right turn (in no stage) is never stopped by the signal: its green is the whole cycle.
            let g = effectiveGreen(i, in: plan)
            performance.append(Self.performance(id: a.id, flow: q, saturationFlow: s, effectiveGreen: g, cycle: cycle,
                                                analysisPeriod: settings.analysisPeriod, incrementalDelayFactor: incrementalDelayFactor,
                                                lanes: a.lanes))
            if stagesOfApproach[i].isEmpty { performance[i].uncontrolled = true }
            performance[i].storage = a.storage
            let factors = a.conditions.factors(lanes: a.lanes)
            if !factors.isEmpty { performance[i].saturationFactors = factors }
            if q > 0, performance[i].degreeOfSaturation > 1 {
                let growth = (q - performance[i].capacity) * settings.analysisPeriod
                warnings.append(.init(.overCapacity, String(format: "approach %@ runs at x = %.2f: its queue grows through the period, by about %.0f vehicles in %.0f minutes ((q − c)·T, %.0f − %.0f veh/h)", a.id, performance[i].degreeOfSaturation, growth, settings.analysisPeriod * 60, q, performance[i].capacity), approach: a.id))
            }
            if let storage = a.storage, q > 0, performance[i].degreeOfSaturation >= 1 {
                warnings.append(.init(.queueStorage, String(format: "lane group %@ runs over capacity (x = %.2f): its queue grows past the end of its %.0f m bay and blocks the lanes beside it", a.id, performance[i].degreeOfSaturation, storage), approach: a.id, affects: lanesBeside(bay: i).map { demand.approaches[$0].id }))
            } else if let storage = a.storage, let queue = performance[i].backOfQueue95, queue * SignalTiming.queuedVehicleSpacing > storage {
                let held = Int((storage / SignalTiming.queuedVehicleSpacing).rounded(.down))
                let share = performance[i].backOfQueueExceedance(held) ?? 1
                warnings.append(.init(.queueStorage, String(format: "lane group %@: its 95th-percentile queue (%.0f vehicles a lane, %.0f m) is longer than its %.0f m of storage (%d vehicles): the queue reaches back past where its lanes begin in about %.0f %% of cycles and blocks the lanes beside them; lengthen the bay or give it more green", a.id, queue, queue * SignalTiming.queuedVehicleSpacing, storage, held, share * 100), approach: a.id, affects: lanesBeside(bay: i).map { demand.approaches[$0].id }))
            }
            if !unknownOpposing[i].isEmpty {
                let others = unknownOpposing[i].map { demand.approaches[$0] }
                let flow = others.reduce(0) { $0 + $1.flows.through + $1.flows.right }
                let unknown = ([a] + others).filter { $0.compassArm == nil }.map(\.id)
                let whose = unknown.count == 1 ? "the arm of \(unknown[0]) is" : "the arms of \(unknown.joined(separator: ", ")) are"
                warnings.append(.init(.armUnknown, String(format: "approach %@ turns %.0f veh/h left in the stage it shares with %@ (%.0f veh/h of through and right traffic), but %@ not known (an id that is not N, S, E or W and no arm given), so its lefts are timed as turning unopposed; if they cross that traffic they wait for gaps and their delay is higher (see permitted-left). Give each approach its arm", a.id, a.flows.left, others.map(\.id).joined(separator: ", "), flow, whose), approach: a.id))
            }
            if permittedLeftOpposing[i] > 0 {
                let permitted = permittedLeftStages[i]
                let text = protectedLeftStages[i].isEmpty
                    ? Self.permittedLeftWarning(a, opposing: permittedLeftOpposing[i], delay: performance[i].controlDelay)
                    : Self.protectedPermittedLeftWarning(a, opposing: permittedLeftOpposing[i], protected: protectedLeftStages[i], permitted: permitted)
                warnings.append(.init(.permittedLeft, text, approach: a.id))
            }
        }
        warnings += bayEntryWarnings(performance)
        warnings += mergeWarnings(performance)
        let crossings = demand.crossings.map { crossing in
            let green = plan.stages.indices.contains(crossing.stage) ? max(0, plan.stages[crossing.stage].green) : 0
            let red = max(0, cycle - green)
            let delay = red * red / (2 * cycle)
            let whole = settings.pedestrianStartup + crossing.length / settings.walkingSpeed
            return CrossingPerformance(id: crossing.id, stage: crossing.stage, green: green, delay: delay, longestWait: red,
                                       islandWait: crossing.refugeIsland && green < whole ? red : nil,
                                       levelOfService: LevelOfService(pedestrianDelay: delay))
        }
        return IntersectionTiming(intersection: demand.id, method: method, plan: plan, lostTime: criticalLostTime,
                                  flowRatioSum: flowRatioSum, websterCycle: websterCycle,
                                  criticalApproaches: criticalApproaches, approaches: performance, crossings: crossings,
                                  warnings: warnings)
    }

    /// Delay, queue and stops of one lane group (flows veh/h, times s, period h) of `lanes` lanes.
    static func performance(id: String, flow q: Double, saturationFlow s: Double, effectiveGreen g: Double, cycle: Double,
                            analysisPeriod t: Double, incrementalDelayFactor k: Double = SignalTiming.hcmPretimedDelayFactor,
                            lanes: Int = 1)
        -> ApproachPerformance {
        let lambda = g / cycle
        let capacity = s * lambda
        let x = capacity > 0 ? q / capacity : (q > 0 ? .infinity : 0)
        let (d1, d2) = SignalTiming.hcmDelay(cycle: cycle, effectiveGreen: g, flow: q, capacity: capacity, analysisPeriod: t,
                                             incrementalDelayFactor: k)
        let webster = capacity > 0 ? SignalTiming.websterDelay(cycle: cycle, effectiveGreen: g, flow: q, saturationFlow: s) : nil
        // Akçelik (ARR 123): overflow queue for x above x₀ = 0.67 + s·g/600 (s in veh/s).
        let x0 = 0.67 + (s / 3600) * g / 600
        var overflow = 0.0
        if x > x0, capacity > 0 {
            let ct = capacity * t
            overflow = x.isFinite ? ct / 4 * ((x - 1) + ((x - 1) * (x - 1) + 12 * (x - x0) / ct).squareRoot()) : q * t
        }
        let red = cycle - g
        let queue = q / 3600 * red + overflow
        let y = q / s
        var stops: Double?
        if q == 0 { stops = 0 } else if y < 1 {
            stops = 0.9 * ((1 - lambda) / (1 - y) + overflow / (q * cycle / 3600))
        }
        let control = d1 + d2
        return ApproachPerformance(id: id, flow: q, saturationFlow: s, flowRatio: y, effectiveGreen: g, capacity: capacity,
                                   degreeOfSaturation: x, websterDelay: webster, uniformDelay: d1, incrementalDelay: d2,
                                   controlDelay: control, queue: queue, lanes: lanes, stopsPerVehicle: stops,
                                   levelOfService: LevelOfService(controlDelay: control, degreeOfSaturation: x))
    }
}

extension SignalTiming {
    /// The length a queued vehicle takes up in its lane (m): a car and its gap, to read a queue in metres.
    public static let queuedVehicleSpacing = 7.5

    /// A percentile of a cycle's back of queue in one lane (veh): the vehicles that stop before the
    /// queue clears. With Poisson arrivals and departures one saturation headway apart, a green that
    /// starts with a Poisson number of vehicles waiting (mean `startingQueue`: the red's arrivals and the
    /// overflow) serves, until the queue first clears, a number of vehicles that follows Consul's
    /// generalised Poisson distribution, P(n) = θ(θ + nρ)ⁿ⁻¹e^(−θ−nρ)/n! with θ the starting queue and
    /// ρ = y the flow ratio (the busy period of that queue, Borel–Tanner for each starting count). Its mean
    /// θ/(1 − y) is the vehicles a deterministic queue stops, q·r/(1 − y) (HCM 2000's uniform back of queue
    /// below capacity, as recalled: the text was not at hand), plus the overflow's share; the percentile is
    /// the smallest n whose cumulative probability reaches `p`. The queue is a point queue at the stop
    /// line: vehicles that join it while it discharges count, as in HCM's back of queue. `nil` for y ≥ 1.
    public static func backOfQueuePercentile(_ p: Double, startingQueue theta: Double, flowRatio rho: Double) -> Double? {
        guard p > 0, p < 1 else { return nil }
        var reached: Int?
        guard backOfQueueCumulative(startingQueue: theta, flowRatio: rho, until: { n, cumulative in
            if cumulative >= p { reached = n }
            return reached != nil
        }) else { return nil }
        return reached.map(Double.init)
    }

    /// The probability that a cycle's back of queue in one lane exceeds `vehicles` (the same
    /// distribution as `backOfQueuePercentile`); `nil` for y ≥ 1.
    public static func backOfQueueExceedance(_ vehicles: Int, startingQueue theta: Double, flowRatio rho: Double) -> Double? {
        var below = 0.0
        guard backOfQueueCumulative(startingQueue: theta, flowRatio: rho, until: { n, cumulative in
            below = cumulative
            return n >= vehicles
        }) else { return nil }
        return max(0, 1 - below)
    }

    /// Walks the back of queue's cumulative distribution P(B ≤ n), n = 0, 1, …, until `stop` says so;
    /// false when the distribution is undefined (y ≥ 1, a bad starting queue) or the walk runs away.
    static func backOfQueueCumulative(startingQueue theta: Double, flowRatio rho: Double,
                                      until stop: (Int, Double) -> Bool) -> Bool {
        guard rho >= 0, rho < 1, theta.isFinite, theta >= 0 else { return false }
        var cumulative = exp(-theta)
        var n = 0
        while !stop(n, cumulative) {
            n += 1
            if n > 100_000 { return false }
            let m = Double(n)
            cumulative += exp(log(theta) + (m - 1) * log(theta + m * rho) - theta - m * rho - lgamma(m + 1))
        }
        return true
    }
}
