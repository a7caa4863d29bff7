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
    /// What complete days before `day` taught: the model and each lot's profiles. The costly part
    /// of a live forecast (a walk through the whole history), the same for every instant of `day`
    /// until a reading before it changes: the live view keeps it.
    public struct Training: Sendable {
        /// The local day index (``LocalClock/dayIndex(_:)``) the training is for.
        public let day: Int
        /// The lots, in the order of `histories`.
        public let lots: [String]
        let model: OccupancyForecastModel
        let histories: [LotHistory]

        /// Whether it answers for `series` on local day `day` (same day, same lots in the same order).
        public func fits(_ series: [LotOccupancySeries], day: Int) -> Bool {
            self.day == day && lots.count == series.count && zip(lots, series).allSatisfy { $0 == $1.lot }
        }
    }

    /// Trains on the complete days of `series` before local day `day`.
    public static func train(_ series: [LotOccupancySeries], before day: Int, model initial: OccupancyForecastModel) -> Training {
        let startOfDay = Double(day) * LocalClock.day
        let past = series.map { s in LotOccupancySeries(lot: s.lot, capacity: s.capacity, readings: s.readings.filter { $0.time < startOfDay }) }
        let (model, histories) = walk(past, model: initial) { _ in }
        return Training(day: day, lots: series.map(\.lot), model: model, histories: histories)
    }

    /// Each lot's availability at `now` and its forecast at `now + horizons[i]`, from the history up to
    /// `now` only: complete days before today teach the model and the profiles (as in the backtest),
    /// today's readings up to `now` are the current state.
    /// - Parameters:
    ///   - freshness: a latest reading older than this (s) makes the lot stale.
    public static func live(_ series: [LotOccupancySeries], at now: Double, horizons: [Double], freshness: Double,
                            model initial: OccupancyForecastModel) -> [LiveOccupancyForecast] {
        live(series, at: now, horizons: horizons, freshness: freshness,
             training: train(series, before: LocalClock.dayIndex(now), model: initial))
    }

    /// The live forecasts with a training of `now`'s day for these series (``Training/fits(_:day:)``).
    public static func live(_ series: [LotOccupancySeries], at now: Double, horizons: [Double], freshness: Double,
                            training: Training) -> [LiveOccupancyForecast] {
        let today = LocalClock.dayIndex(now)
        precondition(training.fits(series, day: today), "a training of another day or other lots")
        let startOfToday = Double(today) * LocalClock.day
        let (model, histories) = (training.model, training.histories)
        return series.enumerated().map { l, s in
            var f = current(s, at: now, freshness: freshness)
            f.predicted = horizons.map { _ in nil }
            guard let lastTime = f.observedAt, let lastRate = f.rate else { return f }
            let stale = f.stale
            // Today's readings up to now, read from the end of the series (the history before today is the training's).
            var first = s.readings.endIndex
            while first > s.readings.startIndex, s.readings[first - 1].time >= startOfToday { first -= 1 }
            let todays = s.readings[first...].prefix { $0.time <= now }.map { DayReading(clock: LocalClock.clock($0.time), rate: $0.rate) }
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
