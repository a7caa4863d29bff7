/// One lot's past, organised the way the forecast reads it: readings by local day, and the
/// weekday × 30-minute profile of every complete day seen so far.
///
/// Everything here is causal by construction: a day enters (``add(day:readings:)``) only once it is
/// over, so a forecast issued during day d reads days before d plus d's own readings up to the issue
/// time (passed in by the caller), never anything later.
public struct LotHistory: Sendable {
    /// Profile slot width (s): the reference's 30-minute slots.
    public static let slot: Double = 1800
    static let slotsPerDay = 48

    public let lot: String
    public let capacity: Int
    /// Complete days in order: day index and that day's readings (clock s, rate), clock-ordered.
    private(set) var days: [(index: Int, readings: [DayReading])] = []
    private var dayPosition: [Int: Int] = [:]
    /// Sum and count of rates per weekday × slot.
    private var sum = [Double](repeating: 0, count: 7 * slotsPerDay)
    private var count = [Int](repeating: 0, count: 7 * slotsPerDay)
    /// The same per weekday group (Mon–Fri, Sat, Sun: index 0, 5, 6), the fallback of a weekday not yet seen.
    private var groupSum = [Double](repeating: 0, count: 7 * slotsPerDay)
    private var groupCount = [Int](repeating: 0, count: 7 * slotsPerDay)

    public init(lot: String, capacity: Int) {
        self.lot = lot
        self.capacity = capacity
    }

    /// The first complete day, if any.
    public var firstDay: Int? { days.first?.index }

    /// Adds a complete day (its readings in clock order).
    mutating func add(day: Int, readings: [DayReading]) {
        precondition(days.last.map { $0.index < day } ?? true, "days are added in order")
        dayPosition[day] = days.count
        days.append((day, readings))
        let w = LocalClock.weekday(ofDay: day)
        for r in readings {
            let s = Int((r.clock / Self.slot).rounded())
            guard s >= 0, s < Self.slotsPerDay else { continue }
            sum[w * Self.slotsPerDay + s] += r.rate
            count[w * Self.slotsPerDay + s] += 1
            groupSum[Self.group(w) * Self.slotsPerDay + s] += r.rate
            groupCount[Self.group(w) * Self.slotsPerDay + s] += 1
        }
    }

    /// Mean rate of a weekday's 30-minute slot over the days added so far (of its weekday group with `pooled`).
    func slotMean(weekday w: Int, slot s: Int, pooled: Bool = false) -> Double? {
        guard s >= 0, s < Self.slotsPerDay else { return nil }
        let k = (pooled ? Self.group(w) : w) * Self.slotsPerDay + s
        let n = pooled ? groupCount[k] : count[k]
        return n > 0 ? (pooled ? groupSum[k] : sum[k]) / Double(n) : nil
    }

    /// The weekday profile at a clock time, interpolated between slot centres (so a target at :15
    /// is not read as :00 or :30); the nearer known slot when only one is known. A weekday not seen
    /// yet at that time reads its group's profile (a week-old history has each weekday once at most).
    func profile(weekday w: Int, clock c: Double) -> Double? {
        profile(weekday: w, clock: c, pooled: false) ?? profile(weekday: w, clock: c, pooled: true)
    }

    private func profile(weekday w: Int, clock c: Double, pooled: Bool) -> Double? {
        let x = c / Self.slot
        let lo = Int(x.rounded(.down))
        let f = x - Double(lo)
        switch (slotMean(weekday: w, slot: lo, pooled: pooled), slotMean(weekday: w, slot: lo + 1, pooled: pooled)) {
        case let (a?, b?): return a * (1 - f) + b * f
        case let (a?, nil): return a
        case let (nil, b?): return b
        default: return nil
        }
    }

    /// The readings of a complete day, if it was seen.
    func readings(ofDay d: Int) -> [DayReading]? { dayPosition[d].map { days[$0].readings } }

    /// Complete days before `day` of the same weekday group (Mon–Fri, Sat, Sun), oldest first.
    func sameGroupDays(before day: Int) -> [[DayReading]] {
        let g = Self.group(LocalClock.weekday(ofDay: day))
        return days.filter { $0.index < day && Self.group(LocalClock.weekday(ofDay: $0.index)) == g }.map(\.readings)
    }

    static func group(_ weekday: Int) -> Int { weekday < 5 ? 0 : weekday }
}

/// A reading within its day: seconds since local midnight and the occupancy rate.
public struct DayReading: Sendable, Hashable {
    public var clock: Double
    public var rate: Double

    public init(clock: Double, rate: Double) {
        self.clock = clock
        self.rate = rate
    }
}

extension Array where Element == DayReading {
    /// The rate at a clock time, linear between the two readings around it; nil outside the day's
    /// readings or across a gap longer than `maximumGap` (s) (a feed outage is not interpolated over).
    func rate(at clock: Double, maximumGap: Double = 3600) -> Double? {
        guard let first = first, let last = last, clock >= first.clock, clock <= last.clock else { return nil }
        var lo = 0, hi = count - 1
        while hi - lo > 1 {
            let mid = (lo + hi) / 2
            if self[mid].clock <= clock { lo = mid } else { hi = mid }
        }
        let a = self[lo], b = self[hi]
        if a.clock == clock { return a.rate }
        if b.clock == clock { return b.rate }
        guard b.clock - a.clock <= maximumGap else { return nil }
        let w = (clock - a.clock) / (b.clock - a.clock)
        return a.rate * (1 - w) + b.rate * w
    }

    /// How the rate changed between two clock times of this day, when both are readable.
    func change(from c0: Double, to c1: Double) -> Double? {
        guard let a = rate(at: c0), let b = rate(at: c1) else { return nil }
        return b - a
    }
}

extension LotOccupancySeries {
    /// The readings by local day (day index → readings in clock order).
    var readingsByDay: [Int: [DayReading]] {
        var days: [Int: [DayReading]] = [:]
        for r in readings {
            days[LocalClock.dayIndex(r.time), default: []].append(DayReading(clock: LocalClock.clock(r.time), rate: r.rate))
        }
        return days
    }
}
