// MARK: - Inflows

/// An external inflow at a node (SWMM `[INFLOWS]` FLOW and `[DWF]` FLOW), m³/s.
///
/// Flow at time t = scale·series(t) + baseline·baselinePattern(t) + dryWeather(t), where a
/// patterned baseline (`patternedBaseline`) is the baseline times its time pattern's factor, as
/// SWMM's `inflow_getExtInflow`.
public struct NodeInflow: Sendable, Hashable {
    /// Index of the receiving node.
    public var node: Int
    /// The inflow time series in its own units (nil = none).
    public var series: TimeSeries?
    /// Multiplier turning `series` values into m³/s (SWMM's Mfactor × Sfactor × unit conversion).
    public var scale: Double
    /// A constant baseline flow, m³/s.
    public var baseline: Double
    /// Dry-weather flow at the node.
    public var dryWeather: DryWeatherFlow?
    /// A baseline flow scaled by a monthly, daily, hourly or weekend time pattern (SWMM `[INFLOWS]`
    /// baseline with a pattern): its `average` is the baseline, m³/s, with the one pattern set.
    public var patternedBaseline: DryWeatherFlow?

    public init(node: Int, series: TimeSeries? = nil, scale: Double = 1, baseline: Double = 0,
                dryWeather: DryWeatherFlow? = nil, patternedBaseline: DryWeatherFlow? = nil) {
        self.node = node
        self.series = series
        self.scale = scale
        self.baseline = baseline
        self.dryWeather = dryWeather
        self.patternedBaseline = patternedBaseline
    }

    /// The inflow at simulation time `time` (seconds) with `start` the calendar position of time 0.
    public func flow(at time: Double, start: SimulationClock = SimulationClock()) -> Double {
        var q = baseline
        if let series { q += scale * series.value(at: time) }
        if let dryWeather { q += dryWeather.flow(at: time, start: start) }
        if let patternedBaseline { q += patternedBaseline.flow(at: time, start: start) }
        return q
    }
}

/// Dry-weather (sanitary) flow: an average multiplied by monthly, daily and hourly patterns.
public struct DryWeatherFlow: Sendable, Hashable {
    /// Average flow, m³/s.
    public var average: Double
    /// 12 monthly multipliers (January first), or empty.
    public var monthly: [Double]
    /// 7 daily multipliers (Sunday first), or empty.
    public var daily: [Double]
    /// 24 hourly multipliers (midnight first), or empty.
    public var hourly: [Double]
    /// 24 weekend hourly multipliers, or empty (then `hourly` is used).
    public var weekendHourly: [Double]

    public init(average: Double, monthly: [Double] = [], daily: [Double] = [], hourly: [Double] = [],
                weekendHourly: [Double] = []) {
        self.average = average
        self.monthly = monthly
        self.daily = daily
        self.hourly = hourly
        self.weekendHourly = weekendHourly
    }

    /// The dry-weather flow at `time` seconds after `start`, m³/s.
    public func flow(at time: Double, start: SimulationClock) -> Double {
        flow(at: start.advanced(by: time))
    }

    /// The dry-weather flow at calendar position `position`, m³/s.
    func flow(at position: SimulationClock) -> Double {
        var q = average
        if monthly.count == 12 { q *= monthly[position.month - 1] }
        if daily.count == 7 { q *= daily[position.weekday] }
        let weekend = position.weekday == 0 || position.weekday == 6
        if weekend, weekendHourly.count == 24 {
            q *= weekendHourly[position.hour]
        } else if hourly.count == 24 {
            q *= hourly[position.hour]
        }
        return q
    }
}

/// The calendar position of simulation time 0, for patterns that depend on month, weekday and hour.
public struct SimulationClock: Sendable, Hashable {
    /// Month 1–12.
    public var month: Int
    /// Weekday 0–6 (0 = Sunday).
    public var weekday: Int
    /// Seconds after midnight.
    public var secondOfDay: Double
    /// Day of month 1–31 (used to roll months over).
    public var day: Int
    /// Year (for month lengths).
    public var year: Int

    public init(year: Int = 2000, month: Int = 1, day: Int = 1, secondOfDay: Double = 0) {
        self.year = year
        self.month = month
        self.day = day
        self.secondOfDay = secondOfDay
        // Zeller-style day of week (0 = Sunday) for the Gregorian calendar.
        var y = year, m = month
        if m < 3 { m += 12; y -= 1 }
        let h = (day + (13 * (m + 1)) / 5 + y + y / 4 - y / 100 + y / 400) % 7 // 0 = Saturday
        self.weekday = (h + 6) % 7
    }

    /// The hour of day 0–23.
    public var hour: Int { min(23, max(0, Int(secondOfDay / 3600))) }

    /// This clock moved forward by `seconds`.
    public func advanced(by seconds: Double) -> SimulationClock {
        var total = secondOfDay + seconds
        var days = Int((total / 86_400).rounded(.down))
        total -= Double(days) * 86_400
        var y = year, m = month, d = day
        while days > 0 {
            let length = SimulationClock.daysIn(month: m, year: y)
            if d + days <= length { d += days; days = 0 } else {
                days -= length - d + 1
                d = 1
                m += 1
                if m > 12 { m = 1; y += 1 }
            }
        }
        return SimulationClock(year: y, month: m, day: d, secondOfDay: total)
    }

    static func daysIn(month: Int, year: Int) -> Int {
        switch month {
        case 2: return (year % 4 == 0 && year % 100 != 0) || year % 400 == 0 ? 29 : 28
        case 4, 6, 9, 11: return 30
        default: return 31
        }
    }
}
