/// Time series read step by step, forward in time (the routing's inflow series, the water
/// quality's mass series): all their times and values in one pair of buffers, each lookup
/// starting from the interval the series' previous lookup used.
///
/// A `TimeSeries` read from an array of inflows is a copy holding its own two arrays: each lookup
/// retained and released them (about 1 % of Example1's run, in the routing's and the quality's
/// inflows alike, whether read in place, inlined or through unsafe buffers). A lookup here reads
/// elements of the table's own arrays, lent with the state that holds it.
struct SeriesTable {
    /// Every series' times and values, one series after the other.
    private var times: [Double] = [], values: [Double] = []
    /// Where entry k's series starts in `times` and `values`; `start[k + 1]` is one past its end.
    private var start: [Int] = [0]
    /// Whether entry k has a series at all, and whether its last value continues after its last time.
    private var hasSeries: [Bool] = [], holdsLastValue: [Bool] = []
    /// Each series' interval at its last lookup, counted from its start (-1: its times are not
    /// strictly increasing, so it is searched each time).
    private(set) var cursor: [Int] = []

    /// A table of `series` in order (nil: an entry without a series).
    init(_ series: [TimeSeries?]) {
        for s in series {
            times += s?.times ?? []
            values += s?.values ?? []
            start.append(times.count)
            hasSeries.append(s != nil)
            holdsLastValue.append(s?.holdsLastValue ?? false)
            cursor.append(s?.isStrictlyIncreasing == true ? 0 : -1)
        }
    }

    /// Entry k's series at `time`, at or after its previous lookup's time (nil without a series),
    /// as `TimeSeries.value(at:)` gives it: the interval is found by walking on from the one last
    /// used instead of a binary search. For strictly increasing times both find the one interval
    /// with times[lo] ≤ time < times[lo + 1], so the value is the same. (One lookup shared with
    /// `TimeSeries`, taking the arrays and a range, gave the same answers on all 17 EPA models but
    /// ran Example1 2 % slower, 5 alternating rounds: this hot loop keeps its own form.)
    mutating func value(_ k: Int, at time: Double) -> Double? {
        guard hasSeries[k] else { return nil }
        let first = start[k], n = start[k + 1] - first
        guard n > 0 else { return 0 }
        let last = first + n - 1
        if time <= times[first] { return values[first] }
        if time > times[last] { return holdsLastValue[k] ? values[last] : 0 }
        if time == times[last] { return values[last] }
        var lo: Int, hi: Int
        if cursor[k] >= 0, cursor[k] < n - 1, times[first + cursor[k]] <= time {
            lo = first + cursor[k]
            while times[lo + 1] <= time { lo += 1 }
            hi = lo + 1
            cursor[k] = lo - first
        } else {
            lo = first; hi = last
            while hi - lo > 1 {
                let mid = (lo + hi) / 2
                if times[mid] <= time { lo = mid } else { hi = mid }
            }
        }
        let t0 = times[lo], t1 = times[hi]
        let f = t1 > t0 ? (time - t0) / (t1 - t0) : 0
        return values[lo] + f * (values[hi] - values[lo])
    }
}
