import Foundation

/// What the RDII computation needs: the unit hydrograph groups, the sewersheds, the rain of the
/// gauges, and SWMM's clock.
public struct RDIISetup: Sendable, Hashable {
    public var groups: [UnitHydrographGroup]
    public var sewersheds: [RDIISewershed]
    /// Rain of each gauge, mm/h over seconds from the start.
    public var gauges: [Hyetograph]
    /// For each gauge, the first gauge reading the same record (itself if none): SWMM shares one
    /// rain state between such gauges.
    public var sharedGauge: [Int]
    /// The RDII time step, seconds (SWMM's wet runoff step, after the gauges' intervals lowered it).
    public var step: Int
    /// The simulation start as SWMM's date number (days since 30 Dec 1899 plus the day's fraction).
    public var startDate: Double
    /// Simulated time, seconds.
    public var duration: Double

    public init(groups: [UnitHydrographGroup], sewersheds: [RDIISewershed], gauges: [Hyetograph], sharedGauge: [Int]? = nil,
                step: Int, startDate: Double, duration: Double) {
        self.groups = groups
        self.sewersheds = sewersheds
        self.gauges = gauges
        self.sharedGauge = sharedGauge ?? Array(gauges.indices)
        self.step = step
        self.startDate = startDate
        self.duration = duration
    }

    /// SWMM's date number of a calendar date and time of day.
    public static func dateNumber(year: Int, month: Int, day: Int, secondOfDay: Int) -> Double {
        Double(RDIICalendar.dayNumber(year: year, month: month, day: day)) + Double(secondOfDay) / 86_400
    }
}

/// The RDII a run produced: each sewershed node's inflow and SWMM's "Rainfall Dependent I/I" totals.
public struct RDIIResult: Sendable, Hashable {
    /// One inflow per node that has a sewershed, in the order of the nodes' first sewershed.
    public var inflows: [RDIIInflow]
    /// Rain that fell on all sewersheds, m³ (SWMM's "Sewershed Rainfall").
    public var sewershedRainfall: Double
    /// RDII produced, m³ (SWMM's "RDII Produced", which counts whole steps up to and including
    /// the one starting at the end of the run).
    public var produced: Double
    /// The simulated time the inflows cover, seconds.
    public var duration: Double

    /// SWMM's "RDII Ratio".
    public var ratio: Double { sewershedRainfall > 0 ? produced / sewershedRainfall : 0 }
}

/// SWMM 5.2's RDII method (rdii.c): each group's gauge rain is read at the group's rain interval,
/// reduced by the initial abstraction (which recovers while it is dry), kept over the longest
/// hydrograph's base, and convolved with the month's three triangular hydrographs; a node's RDII
/// is the group's response times its sewershed area, written every `step` seconds.
public enum RDIIGeneration {
    /// SWMM's smallest RDII it writes, 0.0001 cfs in m³/s; below it a node's RDII is 0.
    static let zeroFlow = 0.0001 * 0.028316846592

    /// Computes the RDII inflows of `setup`.
    public static func run(_ setup: RDIISetup) -> RDIIResult {
        let step = max(1, setup.step)
        var states = setup.groups.map { GroupState(group: $0, wetStep: step) }
        var groupArea = [Double](repeating: 0, count: setup.groups.count)
        var used = [Bool](repeating: false, count: setup.groups.count)
        // Each valid sewershed with the slot of its node in `nodes` (first appearance order).
        var nodes: [Int] = []
        var slotOfNode: [Int: Int] = [:]
        var sheds: [(shed: RDIISewershed, slot: Int)] = []
        for s in setup.sewersheds where s.group >= 0 && s.group < setup.groups.count {
            groupArea[s.group] += s.area
            used[s.group] = true
            let slot: Int
            if let k = slotOfNode[s.node] { slot = k } else { slot = nodes.count; slotOfNode[s.node] = slot; nodes.append(s.node) }
            sheds.append((s, slot))
        }
        let startMonth = RDIICalendar.month(setup.startDate)
        for j in states.indices { states[j].start(date: setup.startDate, month: startMonth) }

        var flows = [[Double]](repeating: [], count: nodes.count)
        var rainVolume = 0.0, produced = 0.0
        var elapsed = 0.0
        while elapsed <= setup.duration {
            let current = setup.startDate + elapsed / 86_400
            let month = RDIICalendar.month(current)
            // Rain at each group's gauge over its intervals up to now (SWMM's getRainfall): a
            // gauge's state is set once per step, at the date of the first group that reads it.
            var gaugeRain: [Int: Double] = [:]
            for j in states.indices {
                let g = setup.sharedGauge.indices.contains(setup.groups[j].gauge) ? setup.sharedGauge[setup.groups[j].gauge] : setup.groups[j].gauge
                while states[j].gaugeDate < current {
                    let date = states[j].gaugeDate
                    let intensity: Double
                    if let r = gaugeRain[g] { intensity = r } else {
                        let t = (date - setup.startDate) * 86_400 + 1
                        intensity = setup.gauges.indices.contains(g) ? setup.gauges[g].intensity(at: t) : 0
                        gaugeRain[g] = intensity
                    }
                    let depth = intensity * Double(states[j].interval) / 3600
                    rainVolume += depth / 1000 * groupArea[j]
                    states[j].addRain(depth, at: date, month: month)
                    states[j].gaugeDate = addSeconds(date, Double(states[j].interval))
                }
            }
            // The convolution of each used group (SWMM's getUnitHydRdii), in mm/h.
            for j in states.indices where used[j] && current >= states[j].lastDate {
                states[j].lastDate = states[j].gaugeDate
                states[j].response = states[j].convolution()
            }
            // Each node's RDII (SWMM's getNodeRdii).
            var any = false
            var nodeFlow = [Double](repeating: 0, count: nodes.count)
            for (s, n) in sheds {
                var q = states[s.group].response * s.area / 3_600_000
                if q < zeroFlow { q = 0 } else { any = true }
                // SWMM keeps one inflow per node (a later [RDII] line replaces an earlier one).
                nodeFlow[n] = q
            }
            for n in nodes.indices {
                // SWMM writes a step only when some node has RDII.
                let q = any ? nodeFlow[n] : 0
                flows[n].append(q)
                if nodeFlow[n] > 0 { produced += nodeFlow[n] * Double(step) }
            }
            elapsed += Double(step)
        }
        let inflows = nodes.indices.map { RDIIInflow(node: nodes[$0], step: Double(step), flows: flows[$0]) }
        return RDIIResult(inflows: inflows, sewershedRainfall: rainVolume, produced: produced, duration: setup.duration)
    }

    /// SWMM's datetime_addSeconds: whole seconds of the day (rounded) plus `seconds`.
    static func addSeconds(_ date: Double, _ seconds: Double) -> Double {
        let d = date.rounded(.down)
        var secs = Int(((date - d) * 86_400 + 0.5).rounded(.down))
        if secs >= 86_400 { secs = 86_399 }
        return d + (Double(secs) + seconds) / 86_400
    }

    /// The processing state of one group (SWMM's TUHGroup).
    struct GroupState {
        let group: UnitHydrographGroup
        /// Rain interval, seconds: the wet step, or a hydrograph's rising or falling limb if shorter.
        let interval: Int
        var gaugeDate = 0.0, lastDate = 0.0
        /// The group's response, mm/h.
        var response = 0.0
        var hydrographs: [HydrographState]

        init(group: UnitHydrographGroup, wetStep: Int) {
            self.group = group
            var ri = wetStep
            for m in group.months {
                for h in m where h.timeToPeak > 0 {
                    ri = min(ri, h.timeToPeak)
                    let fall = h.baseTime - h.timeToPeak
                    if fall > 0 { ri = min(ri, fall) }
                }
            }
            interval = max(1, ri)
            hydrographs = (0..<3).map { k in
                var n = 0
                for m in group.months where k < m.count { n = max(n, m[k].baseTime / max(1, ri) + 1) }
                n = max(n, 1)
                return HydrographState(pastRain: [Double](repeating: 0, count: n), pastMonth: [Int](repeating: 0, count: n))
            }
        }

        mutating func start(date: Double, month: Int) {
            for k in 0..<3 {
                let n = hydrographs[k].pastRain.count
                hydrographs[k].drySeconds = n * interval + 1
                hydrographs[k].period = n + 1
                hydrographs[k].hasPastRain = false
                hydrographs[k].abstractionUsed = hydrograph(month, k).initialAbstractionUsed
            }
            gaugeDate = date
            lastDate = date
            response = 0
        }

        func hydrograph(_ month: Int, _ k: Int) -> RTKUnitHydrograph {
            let m = group.months.indices.contains(month - 1) ? group.months[month - 1] : []
            return k < m.count ? m[k] : RTKUnitHydrograph()
        }

        /// Adds the rain of one interval starting at `date` (SWMM's applyIA, updateDryPeriod and
        /// the past-rain ring); `month` is the month of the step being computed.
        mutating func addRain(_ depth: Double, at date: Double, month: Int) {
            let rainMonth = RDIICalendar.month(date)
            for k in 0..<3 {
                let uh = hydrograph(rainMonth, k)
                var h = hydrographs[k]
                // Initial abstraction.
                var excess = 0.0
                if depth > 0 {
                    let room = max(uh.maxAbstraction - h.abstractionUsed, 0)
                    excess = max(depth - room, 0)
                    h.abstractionUsed += depth - excess
                } else {
                    h.abstractionUsed = max(h.abstractionUsed - Double(interval) / 86_400 * uh.recoveryRate, 0)
                }
                // Dry period: a new event starts after a dry spell as long as the longest base.
                let n = h.pastRain.count
                if excess > 0 {
                    if h.drySeconds >= interval * n {
                        for i in 0..<n { h.pastRain[i] = 0 }
                        h.period = 0
                    }
                    h.drySeconds = 0
                    h.hasPastRain = true
                } else {
                    h.drySeconds += interval
                    h.hasPastRain = h.drySeconds < interval * n
                }
                var i = h.period
                if i >= n { i = 0 }
                h.pastRain[i] = excess
                h.pastMonth[i] = month
                h.period = i + 1
                hydrographs[k] = h
            }
        }

        /// The convolution of the past excess rain with the three hydrographs, mm/h.
        func convolution() -> Double {
            var total = 0.0
            for k in 0..<3 where hydrographs[k].hasPastRain {
                let h = hydrographs[k]
                let n = h.pastRain.count
                var i = h.period - 1
                if i < 0 { i = n - 1 }
                var p = 1
                while p < n {
                    let v = h.pastRain[i]
                    if v > 0 {
                        let uh = hydrograph(h.pastMonth[i], k)
                        let t = (Double(p) - 0.5) * Double(interval)
                        total += uh.ordinate(at: t) * uh.responseRatio * v
                    }
                    p += 1
                    i -= 1
                    if i < 0 { i = n - 1 }
                }
            }
            return total
        }
    }

    struct HydrographState {
        var pastRain: [Double]
        /// Month (1–12) of the step each past rain was added in.
        var pastMonth: [Int]
        var period = 0
        var hasPastRain = false
        var drySeconds = 0
        /// Initial abstraction used, mm.
        var abstractionUsed = 0.0
    }
}

/// SWMM's calendar (datetime.c): day numbers counted from 30 December 1899.
enum RDIICalendar {
    static let daysPerMonth = [[31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31], [31, 29, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31]]

    static func isLeap(_ y: Int) -> Bool { (y % 4 == 0 && y % 100 != 0) || y % 400 == 0 }

    static func dayNumber(year: Int, month: Int, day: Int) -> Int {
        let leap = isLeap(year) ? 1 : 0
        var d = day
        for j in 0..<max(0, min(12, month) - 1) { d += daysPerMonth[leap][j] }
        let i = year - 1
        return i * 365 + i / 4 - i / 100 + i / 400 + d - 693_594
    }

    /// The month (1–12) of a date number.
    static func month(_ date: Double) -> Int {
        var t = Int(date.rounded(.down)) + 693_594
        guard t > 0 else { return 1 }
        t -= 1
        var y = 1
        while t >= 146_097 { t -= 146_097; y += 400 }
        var i = t / 36_524, d = t % 36_524
        if i == 4 { i -= 1; d += 36_524 }
        y += i * 100
        i = d / 1461; d %= 1461
        y += i * 4
        i = d / 365; d %= 365
        if i == 4 { i -= 1; d += 365 }
        y += i
        let leap = isLeap(y) ? 1 : 0
        var m = 1
        while m < 12 && d >= daysPerMonth[leap][m - 1] { d -= daysPerMonth[leap][m - 1]; m += 1 }
        return m
    }
}
