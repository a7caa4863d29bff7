/// A lot's availability now and ahead, as screens and apps show it.
public struct LiveOccupancyForecast: Sendable, Hashable, Codable {
    public var lot: String
    public var capacity: Int
    /// The latest reading at or before now (rate, local time), nil when the lot has none.
    public var rate: Double?
    public var observedAt: Double?
    /// True when the latest reading is older than the freshness limit: availability unknown, never free.
    public var stale: Bool
    /// Change of the rate per hour over the last readings (≤ 50 min apart), nil when not readable.
    public var trendPerHour: Double?
    /// Forecast rate at now + each horizon, nil when stale, unknown or without a weekday profile.
    public var predicted: [Double?]

    enum CodingKeys: String, CodingKey {
        case lot, capacity, rate, stale, predicted
        case observedAt = "observed_at", trendPerHour = "trend_per_hour"
    }
}

extension OccupancyForecaster {
    /// Each lot's availability at `now` and its forecast at `now + horizons[i]`, from the history up to
    /// `now` only: complete days before today teach the model and the profiles (as in the backtest),
    /// today's readings up to `now` are the current state.
    /// - Parameters:
    ///   - freshness: a latest reading older than this (s) makes the lot stale.
    public static func live(_ series: [LotOccupancySeries], at now: Double, horizons: [Double], freshness: Double,
                            model initial: OccupancyForecastModel) -> [LiveOccupancyForecast] {
        let today = LocalClock.dayIndex(now)
        let startOfToday = Double(today) * LocalClock.day
        let past = series.map { s in LotOccupancySeries(lot: s.lot, capacity: s.capacity, readings: s.readings.filter { $0.time < startOfToday }) }
        let (model, histories) = walk(past, model: initial) { _ in }
        return series.enumerated().map { l, s in
            var f = current(s, at: now, freshness: freshness)
            f.predicted = horizons.map { _ in nil }
            guard let lastTime = f.observedAt, let lastRate = f.rate else { return f }
            let seen = s.readings.filter { $0.time <= now }
            let stale = f.stale
            let todays = seen.filter { $0.time >= startOfToday }.map { DayReading(clock: LocalClock.clock($0.time), rate: $0.rate) }
            let group = histories[l].sameGroupDays(before: today)
            let predicted: [Double?] = horizons.map { h in
                guard !stale, !todays.isEmpty else { return nil }
                let effective = now + h - lastTime
                guard let x = OccupancyForecastModel.features(history: histories[l], day: today, today: todays[...], group: group,
                                                              horizon: effective) else { return nil }
                let k = model.horizons.indices.min { abs(model.horizons[$0] - effective) < abs(model.horizons[$1] - effective) } ?? 0
                return model.predict(horizon: k, features: x, rate: lastRate)
            }
            f.predicted = predicted
            return f
        }
    }

    /// A lot's availability at `now` from its readings up to `now`, without forecasts (`predicted`
    /// empty): the latest reading, whether it is stale, the trend. What a sign shows, at no model cost.
    public static func current(_ s: LotOccupancySeries, at now: Double, freshness: Double) -> LiveOccupancyForecast {
        guard let i = s.readings.lastIndex(where: { $0.time <= now }) else {
            return LiveOccupancyForecast(lot: s.lot, capacity: s.capacity, rate: nil, observedAt: nil, stale: true, trendPerHour: nil, predicted: [])
        }
        let last = s.readings[i]
        var trend: Double?
        if i >= 1 {
            let prev = s.readings[i - 1]
            if last.time - prev.time <= 3000, last.time > prev.time { trend = (last.rate - prev.rate) / (last.time - prev.time) * 3600 }
        }
        return LiveOccupancyForecast(lot: s.lot, capacity: s.capacity, rate: last.rate, observedAt: last.time, stale: now - last.time > freshness,
                                     trendPerHour: trend, predicted: [])
    }
}
