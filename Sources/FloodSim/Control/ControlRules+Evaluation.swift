import Foundation

/// The run-time side of `ControlRules`: SWMM 5.2's `controls_evaluate` against a routing state.
/// Rules are evaluated in file order; a rule's premises left to right (an AND after a false
/// result stops, an OR is read only while the result is false); the fired THEN (or ELSE) actions
/// join the action list, where a link already listed keeps its action unless the new rule's
/// priority is strictly higher. Listed actions then set the links' target settings.
struct ControlRuleRunner {
    var rules: ControlRules
    /// The last premise's left and right values (SWMM's ControlValue and SetPoint), which curve
    /// and PID actions read.
    private var controlValue = 0.0, setPoint = 0.0
    /// PID errors one and two evaluations back, per rule and action (THEN then ELSE).
    private var pidErrors: [[(Double, Double)]]
    /// When each link last switched between closed (setting 0) and open, in days (SWMM's timeLastSet).
    var timeLastSet: [Double]
    /// Conduit lengths as given (not the lengthened ones), metres.
    private let lengths: [Double]
    /// Simulated time (s) of the next rule evaluation when a rule step is set.
    var nextRuleTime = 0.0
    /// Every constant action that changed a link, in order.
    var log: [ControlActionRecord] = []
    private let linkNames: [String]
    /// The runoff clock (s) while rules are evaluated: the end of the runoff step SWMM has run to
    /// before the routing step (the first step end at or after the routing step's end).
    private var runoffClock = 0.0

    init(rules: ControlRules, network: HydraulicNetwork) {
        self.rules = rules
        pidErrors = rules.rules.map { Array(repeating: (0, 0), count: $0.thenActions.count + $0.elseActions.count) }
        timeLastSet = Array(repeating: rules.startDay, count: network.links.count)
        lengths = network.links.map { if case .conduit(let c) = $0.kind { return c.length } else { return 0 } }
        linkNames = network.links.map(\.id)
    }

    /// Whether the rules are evaluated at the start of the step beginning at `time` (every step
    /// without a rule step, else when the rule clock is reached).
    func isDue(at time: Double) -> Bool { rules.ruleStep <= 0 || abs(time - nextRuleTime) < 1e-3 }

    /// Shortens `dt` so a step from `time` ends on the next rule time (SWMM's routing_getRoutingStep).
    func limitStep(_ dt: Double, at time: Double) -> Double {
        guard rules.ruleStep > 0 else { return dt }
        let next = nextRuleTime + rules.ruleStep
        return time + dt >= next ? next - time : dt
    }

    /// Advances the rule clock after a step that ended at `time`.
    mutating func stepEnded(at time: Double) {
        if rules.ruleStep > 0 && abs(time - (nextRuleTime + rules.ruleStep)) < 1e-3 { nextRuleTime += rules.ruleStep }
    }

    /// Evaluates every rule at `time` seconds for a routing step of `dt` seconds and sets the
    /// target settings of the links the fired actions name. Returns the number of changed targets.
    @discardableResult
    mutating func evaluate(_ s: inout HydraulicState, time: Double, dt: Double) -> Int {
        // SWMM's getDateTime: the step's start date is one millisecond past the elapsed time, so
        // "SIMULATION TIME > 0.5" already holds on the step that starts at 0:30:00.
        let now = rules.startDay + (time + 0.001) / 86_400
        let halfStep = dt / 86_400 / 2
        let times = rules.runoffTimes
        var lo = 0, hi = times.count
        while lo < hi { let mid = (lo + hi) / 2; if times[mid] < time + dt - 1e-6 { lo = mid + 1 } else { hi = mid } }
        runoffClock = lo < times.count ? times[lo] : (times.last ?? 0)
        var listed: [(link: Int, rule: Int, value: Double, reported: Bool)] = []
        // Rules and premises are read in place, by index: copies of each rule and premise per
        // evaluation (the premise copied twice, the rule's arrays retained) were 7 % of extran10's time.
        for r in rules.rules.indices {
            var result = true
            for k in rules.rules[r].premises.indices {
                if rules.rules[r].premises[k].isOr {
                    if !result { result = premise(r, k, &s, now: now, time: time, halfStep: halfStep) }
                } else {
                    if !result { break }
                    result = premise(r, k, &s, now: now, time: time, halfStep: halfStep)
                }
            }
            let actions = result ? rules.rules[r].thenActions : rules.rules[r].elseActions
            let base = result ? 0 : rules.rules[r].thenActions.count
            for (k, a) in actions.enumerated() {
                let value: Double
                var reported = false
                switch a.source {
                case .constant(let x): value = x; reported = true
                case .curve(let xs, let ys): value = Self.tableLookup(xs, ys, controlValue)
                case .timeSeries(let ts): value = ts.value(at: time)
                case .pid(let kp, let ki, let kd):
                    value = pid(kp: kp, ki: ki, kd: kd, errors: &pidErrors[r][base + k], current: s.targetSetting[a.link],
                                dtMinutes: dt / 60, isPump: s.linkKind[a.link] == .pump)
                }
                if let i = listed.firstIndex(where: { $0.link == a.link }) {
                    if rules.rules[r].priority > rules.rules[listed[i].rule].priority { listed[i] = (a.link, r, value, reported) }
                } else {
                    listed.append((a.link, r, value, reported))
                }
            }
        }
        var changed = 0
        for a in listed where s.targetSetting[a.link] != a.value {
            s.targetSetting[a.link] = a.value
            if a.reported { log.append(ControlActionRecord(time: time, link: linkNames[a.link], setting: a.value, rule: rules.rules[a.rule].name)) }
            changed += 1
        }
        return changed
    }

    /// Evaluates the rules when due at the step starting at `time` and notes the links switching
    /// between closed and open: the routing object's one in-place call per step (reading the runner
    /// out of its optional property copied it, a retain and release of each of its arrays).
    mutating func apply(to s: inout HydraulicState, time: Double, dt: Double) {
        if isDue(at: time) { evaluate(&s, time: time, dt: dt) }
        noteSwitches(setting: s.setting, targetSetting: s.targetSetting, time: time)
    }

    /// Notes links switching between closed and open in this step's setting change (before it is applied).
    /// Takes the two arrays rather than the state: passing the routing's whole state copied it
    /// (a retain and release of each of its arrays) every step.
    mutating func noteSwitches(setting: [Double], targetSetting: [Double], time: Double) {
        let now = rules.startDay + time / 86_400
        for j in setting.indices where targetSetting[j] != setting[j] && targetSetting[j] * setting[j] == 0 {
            timeLastSet[j] = now
        }
    }

    // MARK: Premises

    /// Rule r's premise k at the state `s` (lent `inout`, not changed: handed as a value from
    /// `evaluate`'s own inout state it was copied whole, 1 kB, at every premise: 7 % of extran10).
    private mutating func premise(_ r: Int, _ k: Int, _ s: inout HydraulicState, now: Double, time: Double, halfStep: Double) -> Bool {
        let lhs: Double?
        switch rules.rules[r].premises[k].left {
        case .expression(let e): lhs = rules.expressions[e].evaluate { value(rules.variables[$0], &s, now: now, time: time) }
        case .variable(let v): lhs = value(v, &s, now: now, time: time)
        }
        let rhs: Double?
        switch rules.rules[r].premises[k].right {
        case .value(let x): rhs = x
        case .variable(let v): rhs = value(v, &s, now: now, time: time)
        }
        guard let l = lhs, let rv = rhs else { return false }
        let relation = rules.rules[r].premises[k].relation
        switch rules.rules[r].premises[k].attribute {
        case .simulation(.time), .simulation(.clockTime):
            return compareTimes(l, relation, rv, halfStep)
        case .link(.timeOpen), .link(.timeClosed):
            let result = compareTimes(l, relation, rv, halfStep)
            controlValue = l * 24
            return result
        default:
            return compare(l, relation, rv)
        }
    }

    private mutating func compareTimes(_ l: Double, _ relation: ControlRules.Relation, _ r: Double, _ half: Double) -> Bool {
        switch relation {
        case .eq: return l >= r - half && l < r + half
        case .ne: return l < r - half || l >= r + half
        default: return compare(l, relation, r)
        }
    }

    private mutating func compare(_ l: Double, _ relation: ControlRules.Relation, _ r: Double) -> Bool {
        setPoint = r
        controlValue = l
        switch relation {
        case .eq: return l == r
        case .ne: return l != r
        case .lt: return l < r
        case .le: return l <= r
        case .gt: return l > r
        case .ge: return l >= r
        }
    }

    /// A variable's current value in the model's units, or nil where SWMM reads MISSING (the state lent, not changed).
    private func value(_ v: ControlRules.Variable, _ s: inout HydraulicState, now: Double, time: Double) -> Double? {
        let L = rules.lengthUnit, Q = rules.flowUnit
        switch v {
        case .gageIntensity(let g): return rules.gages[g].intensity(at: time)
        case .gagePastRain(let g, let hours): return Self.pastRain(rules.gages[g], hours: hours, clock: runoffClock)
        case .simulation(let a):
            let day = now.rounded(.down)
            switch a {
            case .time: return now - rules.startDay
            case .date: return day
            case .clockTime: return now - day
            case .day: return Double((Int(day) % 7 + 11) % 7 + 1)   // 1 = Sunday; day 0 (1 Jan 1970) was a Thursday
            case .month, .dayOfYear:
                var cal = Calendar(identifier: .gregorian)
                cal.timeZone = TimeZone(identifier: "UTC") ?? .current
                let date = Date(timeIntervalSince1970: day * 86_400)
                return Double(a == .month ? cal.component(.month, from: date) : (cal.ordinality(of: .day, in: .year, for: date) ?? 1))
            }
        case .node(let i, let a):
            switch a {
            case .depth: return s.newDepth[i] / L
            case .maxDepth: return s.fullDepth[i] / L
            case .head: return (s.newDepth[i] + s.invert[i]) / L
            case .volume: return s.newVolume[i] / rules.volumeUnit
            case .inflow: return s.newLatFlow[i] / Q
            }
        case .link(let j, let kind, let a):
            switch a {
            case .flow: return s.direction[j] * s.newFlow[j] / Q
            case .depth: return s.linkNewDepth[j] / L
            case .status: return kind == .conduit || kind == .pump ? s.setting[j] : nil
            case .setting: return kind == .pump || kind == .orifice || kind == .weir ? s.setting[j] : nil
            case .timeOpen: return s.setting[j] <= 0 ? nil : now - timeLastSet[j]
            case .timeClosed: return s.setting[j] > 0 ? nil : now - timeLastSet[j]
            case .fullFlow, .fullDepth, .velocity, .length, .slope:
                guard kind == .conduit else { return nil }
                switch a {
                case .fullFlow: return s.qFull[j] / Q
                case .fullDepth: return s.xsect[j].yFull / L
                case .length: return lengths[j] / L
                case .slope: return s.slope[j]
                default:
                    let y = s.linkNewDepth[j]
                    if y <= 0.01 * 0.3048 { return 0 }
                    let area = s.xsect[j].area(y)
                    return area > SWMMConstant.fudgeArea ? s.newFlow[j] / s.barrels[j] / area / L : 0
                }
            }
        }
    }

    // MARK: Modulated actions

    /// SWMM's `table_lookup`: linear between points, the end values held beyond them.
    /// SWMM's gage_getPastRain: the rain (intensity unit × hours) in the `hours` whole hours
    /// completed before the runoff clock, hours counted from the simulation start; the hour under
    /// way is not counted, nor one the clock has only just reached (SWMM moves its hourly totals
    /// on when a runoff step runs past the hour).
    static func pastRain(_ gage: Hyetograph, hours: Int, clock: Double) -> Double {
        guard clock > 0 else { return 0 }
        let completed = Int((clock / 3600).rounded(.up)) - 1
        let first = max(0, completed - hours)
        guard completed > first else { return 0 }
        return gage.depth(from: Double(first) * 3600, to: Double(completed) * 3600)
    }

    static func tableLookup(_ xs: [Double], _ ys: [Double], _ x: Double) -> Double {
        guard let x0 = xs.first else { return 0 }
        if x <= x0 { return ys[0] }
        for k in 1..<xs.count where x <= xs[k] {
            let dx = xs[k] - xs[k - 1]
            return dx == 0 ? ys[k - 1] : ys[k - 1] + (x - xs[k - 1]) * (ys[k] - ys[k - 1]) / dx
        }
        return ys[ys.count - 1]
    }

    /// SWMM's recursive PID controller on the relative set-point error.
    private func pid(kp: Double, ki: Double, kd: Double, errors: inout (Double, Double), current: Double,
                     dtMinutes dt: Double, isPump: Bool) -> Double {
        let tolerance = 0.0001
        var e0 = setPoint - controlValue
        if abs(e0) > 1e-6 { e0 = setPoint != 0 ? e0 / setPoint : e0 / controlValue }
        if abs(e0 - errors.0) < tolerance { errors = (0, 0) }
        let p = e0 - errors.0
        let i = ki == 0 ? 0 : e0 * dt / ki
        let d = kd * (e0 - 2 * errors.0 + errors.1) / dt
        var update = kp * (p + i + d)
        if abs(update) < tolerance { update = 0 }
        var setting = current + update
        errors = (e0, errors.0)
        if setting < 0 { setting = 0 }
        if !isPump && setting > 1 { setting = 1 }
        return setting
    }
}
