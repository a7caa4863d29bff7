import GeoCore

/// A value that varies in time, given at breakpoints `times` (seconds from the start of the
/// run, strictly increasing) and linearly interpolated between them; before the first
/// breakpoint it holds the first value and after the last one the last value.
///
/// Used for inflow hydrographs (m³/s) and river stages (m above datum) on the surface grid. The
/// interpolation is the hydraulics' `TimeSeries` (the one time-series lookup), holding its last value.
public struct SurfaceTimeSeries: Sendable, Equatable {
    private let series: TimeSeries
    /// Breakpoint times in seconds, strictly increasing.
    public var times: [Double] { series.times }
    /// The value at each breakpoint, in the units of the series' use.
    public var values: [Double] { series.values }

    /// A series that is `value` at every time.
    public init(constant value: Double) {
        series = TimeSeries(times: [0], values: [value], holdsLastValue: true)
    }

    /// - Throws: `FloodInputError` when the arrays are empty or of different
    ///   lengths, a value is not finite, or the times do not increase strictly.
    public init(times: [Double], values: [Double]) throws {
        guard !times.isEmpty, times.count == values.count else {
            throw FloodInputError(
                                "a time series needs as many values as times (at least one), got \(times.count) times and \(values.count) values")
        }
        for i in times.indices {
            guard times[i].isFinite, values[i].isFinite else {
                throw FloodInputError("time series breakpoint is not finite", field: "breakpoint \(i)")
            }
            if i > 0, times[i] <= times[i - 1] {
                throw FloodInputError("time series times must increase strictly",
                                    field: "breakpoint \(i) (t = \(times[i]) s)")
            }
        }
        series = TimeSeries(times: times, values: values, holdsLastValue: true)
    }

    /// The interpolated value at `time` (seconds).
    public func value(at time: Double) -> Double {
        series.value(at: time)
    }
}
