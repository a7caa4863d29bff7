import GeoCore

/// A value that varies in time, given at breakpoints `times` (seconds from the start of the
/// run, strictly increasing) and linearly interpolated between them; before the first
/// breakpoint it holds the first value and after the last one the last value.
///
/// Used for inflow hydrographs (m³/s) and river stages (m above datum) on the surface grid.
public struct SurfaceTimeSeries: Sendable, Equatable {
    /// Breakpoint times in seconds, strictly increasing.
    public let times: [Double]
    /// The value at each breakpoint, in the units of the series' use.
    public let values: [Double]

    /// A series that is `value` at every time.
    public init(constant value: Double) {
        times = [0]
        values = [value]
    }

    /// - Throws: `GeometryError` `.invalidArgument` when the arrays are empty or of different
    ///   lengths, a value is not finite, or the times do not increase strictly.
    public init(times: [Double], values: [Double]) throws {
        guard !times.isEmpty, times.count == values.count else {
            throw GeometryError(.invalidArgument,
                                "a time series needs as many values as times (at least one), got \(times.count) times and \(values.count) values")
        }
        for i in times.indices {
            guard times[i].isFinite, values[i].isFinite else {
                throw GeometryError(.invalidArgument, "time series breakpoint is not finite", position: "breakpoint \(i)")
            }
            if i > 0, times[i] <= times[i - 1] {
                throw GeometryError(.invalidArgument, "time series times must increase strictly",
                                    position: "breakpoint \(i) (t = \(times[i]) s)")
            }
        }
        self.times = times
        self.values = values
    }

    /// The interpolated value at `time` (seconds).
    public func value(at time: Double) -> Double {
        if time <= times[0] { return values[0] }
        let last = times.count - 1
        if time >= times[last] { return values[last] }
        var lo = 0, hi = last
        while hi - lo > 1 {
            let mid = (lo + hi) / 2
            if times[mid] <= time { lo = mid } else { hi = mid }
        }
        let w = (time - times[lo]) / (times[hi] - times[lo])
        return values[lo] + w * (values[hi] - values[lo])
    }
}
