import Foundation

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
}
