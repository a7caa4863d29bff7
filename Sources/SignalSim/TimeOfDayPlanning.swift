/// Vehicles counted at one intersection in one interval (normally 15 minutes), by approach.
public struct IntervalCount: Sendable, Hashable, Codable {
    /// Start of the interval in minutes after midnight (0…1439).
    public var start: Int
    /// Vehicles counted in the interval per approach id (not a rate).
    public var volumes: [String: MovementFlows]

    public init(start: Int, volumes: [String: MovementFlows]) {
        self.start = start
        self.volumes = volumes
    }

    /// All vehicles counted in the interval.
    /// Summed in the approaches' order, so the same counts segment the same way on every run.
    public var total: Double { volumes.sorted { $0.key < $1.key }.reduce(0) { $0 + $1.value.total } }
}

/// A time-of-day period (时段) with the flows its plan is designed for.
public struct TimeOfDayPeriod: Sendable, Hashable, Codable {
    /// `am-peak`, `pm-peak`, `off-peak` or `night`.
    public var name: String
    /// Minutes after midnight; `end` is exclusive.
    public var start: Int
    public var end: Int
    /// Design flows (veh/h per approach): the busiest hour inside the period, or the period's
    /// counts as an hourly rate when it is shorter than an hour.
    public var designFlows: [String: MovementFlows]
    /// Start of that busiest hour (minutes after midnight).
    public var designHourStart: Int

    public init(name: String, start: Int, end: Int, designFlows: [String: MovementFlows], designHourStart: Int) {
        self.name = name
        self.start = start
        self.end = end
        self.designFlows = designFlows
        self.designHourStart = designHourStart
    }

    /// `HH:MM-HH:MM`.
    public var label: String { "\(Self.clock(start))-\(Self.clock(end))" }

    /// `07:15` as minutes after midnight (435); `24:00` (1440) ends the day. Nil unless HH:MM.
    public static func minute(ofClock clock: some StringProtocol) -> Int? {
        let hm = clock.split(separator: ":")
        guard hm.count == 2, hm[0].count == 2, hm[1].count == 2, let h = Int(hm[0]), let m = Int(hm[1]),
              (0...24).contains(h), (0..<60).contains(m), h * 60 + m <= 1440 else { return nil }
        return h * 60 + m
    }

    /// `07:00-09:00` as minutes after midnight (420, 540), end exclusive, `24:00` ending the
    /// day; nil unless both clocks are HH:MM and the start is before the end.
    public static func range(_ text: String) -> (start: Int, end: Int)? {
        let parts = text.split(separator: "-")
        guard parts.count == 2, let start = minute(ofClock: parts[0]), let end = minute(ofClock: parts[1]), start < end else { return nil }
        return (start, end)
    }

    /// `HH:MM` of minutes after midnight (`24:00` for the end of the day).
    public static func clock(_ minutes: Int) -> String {
        let h = minutes / 60, m = minutes % 60
        return (h < 10 ? "0" : "") + "\(h):" + (m < 10 ? "0" : "") + "\(m)"
    }
}

/// A period with its plan.
public struct TimeOfDayPlan: Sendable, Hashable, Codable {
    public var period: TimeOfDayPeriod
    public var timing: IntersectionTiming

    public init(period: TimeOfDayPeriod, timing: IntersectionTiming) {
        self.period = period
        self.timing = timing
    }
}

/// Splits a day of interval counts into time-of-day periods and times each (多时段配时).
///
/// The periods are the contiguous segmentation that minimises the squared deviation of each
/// interval's per-approach flow rates from its period's mean (exact dynamic programming), with
/// every period at least `minimumLength` minutes long; so a period boundary falls where the
/// pattern of flows changes, not only their sum.
public enum TimeOfDayPlanning {
    /// - Parameters:
    ///   - counts: the day's intervals in any order, each `intervalMinutes` long.
    ///   - periods: how many periods to make (at most; fewer when the day is short). Seven covers a
    ///     weekday's night, AM peak, PM peak and the off-peak spans between them.
    /// - Throws: `SignalTimingError` for empty, overlapping or negative counts.
    public static func periods(from counts: [IntervalCount], intervalMinutes: Int = 15, periods: Int = 7,
                               minimumLength: Int = 60) throws -> [TimeOfDayPeriod] {
        guard !counts.isEmpty else { throw SignalTimingError(field: "counts", "no counts to segment") }
        guard intervalMinutes > 0 else { throw SignalTimingError(field: "interval_min", "must be positive") }
        guard periods >= 1 else { throw SignalTimingError(field: "periods", "must be at least 1") }
        let sorted = counts.sorted { $0.start < $1.start }
        for (i, c) in sorted.enumerated() {
            guard (0..<1440).contains(c.start) else { throw SignalTimingError(field: "counts[\(i)].start", "must be minutes after midnight, 0…1439 (got \(c.start))") }
            if i > 0, c.start < sorted[i - 1].start + intervalMinutes {
                throw SignalTimingError(field: "counts[\(i)].start", "interval at \(TimeOfDayPeriod.clock(c.start)) overlaps the one at \(TimeOfDayPeriod.clock(sorted[i - 1].start))")
            }
            for (id, v) in c.volumes where !(v.through >= 0 && v.left >= 0 && v.right >= 0 && v.total.isFinite) {
                throw SignalTimingError(field: "counts[\(i)].volumes.\(id)", "counts must be numbers ≥ 0")
            }
        }
        let approaches = Array(Set(sorted.flatMap(\.volumes.keys))).sorted()
        let totals = sorted.map(\.total)  // each interval's, once
        let rate = 60.0 / Double(intervalMinutes)
        let vectors = sorted.map { c in approaches.map { (c.volumes[$0]?.total ?? 0) * rate } }
        let n = vectors.count, d = approaches.count
        // Prefix sums of the vectors and their squares: a segment's cost in O(d).
        var sum = [[Double]](repeating: [Double](repeating: 0, count: d), count: n + 1)
        var square = [Double](repeating: 0, count: n + 1)
        for t in 0..<n {
            for j in 0..<d { sum[t + 1][j] = sum[t][j] + vectors[t][j] }
            square[t + 1] = square[t] + vectors[t].reduce(0) { $0 + $1 * $1 }
        }
        func cost(_ i: Int, _ j: Int) -> Double {  // intervals i..<j
            let len = Double(j - i)
            var c = square[j] - square[i]
            for k in 0..<d { let s = sum[j][k] - sum[i][k]; c -= s * s / len }
            return c
        }
        let minimum = max(1, (minimumLength + intervalMinutes - 1) / intervalMinutes)
        let k = max(1, min(periods, n / minimum))
        // best[p][j]: the cheapest split of intervals 0..<j into p periods.
        var best = [[Double]](repeating: [Double](repeating: .infinity, count: n + 1), count: k + 1)
        var cut = [[Int]](repeating: [Int](repeating: 0, count: n + 1), count: k + 1)
        best[0][0] = 0
        for p in 1...k {
            for j in stride(from: p * minimum, through: n, by: 1) {
                for i in stride(from: (p - 1) * minimum, through: j - minimum, by: 1) where best[p - 1][i].isFinite {
                    let c = best[p - 1][i] + cost(i, j)
                    if c < best[p][j] { best[p][j] = c; cut[p][j] = i }
                }
            }
        }
        var bounds: [Int] = [n]
        var j = n
        for p in stride(from: k, to: 0, by: -1) { j = cut[p][j]; bounds.insert(j, at: 0) }
        var result: [TimeOfDayPeriod] = []
        for p in 0..<k {
            let slice = Array(sorted[bounds[p]..<bounds[p + 1]])
            let start = slice.first!.start
            let end = slice.last!.start + intervalMinutes
            let perHour = max(1, 60 / intervalMinutes)
            var designStart = 0, designTotal = -1.0
            let window = min(perHour, slice.count)
            for w in 0...(slice.count - window) {
                let total = totals[(bounds[p] + w)..<(bounds[p] + w + window)].reduce(0, +)
                if total > designTotal { designTotal = total; designStart = w }
            }
            let scale = 60.0 / Double(window * intervalMinutes)
            var flows: [String: MovementFlows] = [:]
            for c in slice[designStart..<(designStart + window)] {
                for (id, v) in c.volumes { flows[id] = (flows[id] ?? MovementFlows()) + v.scaled(by: scale) }
            }
            result.append(TimeOfDayPeriod(name: "off-peak", start: start, end: end, designFlows: flows,
                                          designHourStart: slice[designStart].start))
        }
        name(&result, counts: sorted, totals: totals)
        return result
    }

    /// Names periods: the busiest starting before noon `am-peak`, the busiest starting at or after
    /// noon `pm-peak`, quiet ones at either end of the day (mean flow under 40 % of the busiest
    /// period's) `night`, the rest `off-peak`.
    /// `totals` are the counts' totals, in their order.
    static func name(_ periods: inout [TimeOfDayPeriod], counts: [IntervalCount], totals: [Double]) {
        let means = periods.map { p -> Double in
            let inside = counts.indices.filter { counts[$0].start >= p.start && counts[$0].start < p.end }
            return inside.reduce(0) { $0 + totals[$1] } / Double(max(1, inside.count))
        }
        guard let top = means.max(), top > 0 else { return }
        for i in periods.indices where (i == 0 || i == periods.count - 1) && means[i] < 0.4 * top {
            periods[i].name = "night"
        }
        let morning = periods.indices.filter { periods[$0].start < 720 && periods[$0].name != "night" }
        let afternoon = periods.indices.filter { periods[$0].start >= 720 && periods[$0].name != "night" }
        if let am = morning.max(by: { means[$0] < means[$1] }) { periods[am].name = "am-peak" }
        if let pm = afternoon.max(by: { means[$0] < means[$1] }) { periods[pm].name = "pm-peak" }
    }

    /// One Webster plan per period of `counts`, for the intersection `demand` describes (its
    /// approaches, stages and intergreens; its own flows are replaced by each period's design flows).
    public static func plans(for demand: IntersectionDemand, counts: [IntervalCount], intervalMinutes: Int = 15,
                             periods: Int = 7, settings: SignalTimingSettings = SignalTimingSettings()) throws -> [TimeOfDayPlan] {
        let known = Set(demand.approaches.map(\.id))
        for (i, c) in counts.enumerated() {
            for id in c.volumes.keys.sorted() where !known.contains(id) {
                throw SignalTimingError(field: "counts[\(i)].volumes.\(id)", "names no approach of intersection \(demand.id) (approaches: \(known.sorted().joined(separator: ", ")))")
            }
        }
        return try self.periods(from: counts, intervalMinutes: intervalMinutes, periods: periods).map { period in
            var flows = period.designFlows
            for id in known where flows[id] == nil { flows[id] = MovementFlows() }
            return TimeOfDayPlan(period: period, timing: try SignalTiming.webster(demand.with(flows: flows), settings: settings))
        }
    }
}
