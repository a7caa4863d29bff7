/// Occupancy forecasts per lot at 15/30/60/120 minutes (or any horizons), from the lot's own history.
///
/// The forecast is the current rate plus a predicted change. The change blends estimates a parking
/// operator would recognise, each read at the exact target clock time (profiles interpolated between
/// 30-minute slots):
///  - the weekday profile's change from now to the target (the reference's baseline is this plus the
///    last deviation);
///  - the change on the same weekday-group days (Mon–Fri, Sat, Sun) over all history and over the last
///    five such days (recency: December's build-up shows in recent days first);
///  - the change a week ago and yesterday at the same times;
///  - the deviation from the profile now, its trend over the last reading, and the profile change scaled
///    to today's level.
/// The blend weights are a ridge regression per horizon, shrunk toward a fixed prior blend
/// (0.4 profile + 0.2 all group days + 0.4 recent group days + 0.2 × deviation trend), pooled across
/// lots and refitted after every complete day from the forecasts whose targets have passed (online, so
/// a test period keeps learning as its days pass; never from anything after the issue time).
public struct OccupancyForecastModel: Sendable {
    /// Horizons (s), each with its own weights.
    public let horizons: [Double]
    /// Ridge strength toward the prior (in rate² units of the normal equations).
    public var ridge: Double
    /// Days a lot must have been observed before its forecasts teach the model (its early profiles are thin).
    public var learningWarmUpDays: Int
    /// Highest rate a forecast may give (the cleaning's clip).
    public var maximumRate: Double

    static let featureCount = 9
    static let prior: [Double] = [1, 0, 0.2, 0, 0, 0, 0.2, 0.4, 0]

    private var gram: [[Double]]
    private var moment: [[Double]]
    /// Samples learnt per horizon.
    public private(set) var samples: [Int]
    /// Current weights per horizon.
    public private(set) var weights: [[Double]]

    public init(horizons: [Double], ridge: Double = 100, learningWarmUpDays: Int = 14, maximumRate: Double = 1.0) {
        self.horizons = horizons
        self.ridge = ridge
        self.learningWarmUpDays = learningWarmUpDays
        self.maximumRate = maximumRate
        let n = Self.featureCount
        gram = Array(repeating: Array(repeating: 0, count: n * n), count: horizons.count)
        moment = Array(repeating: Array(repeating: 0, count: n), count: horizons.count)
        samples = Array(repeating: 0, count: horizons.count)
        weights = Array(repeating: Self.prior, count: horizons.count)
    }

    /// The forecast rate for features computed at a reading of rate `rate`.
    func predict(horizon h: Int, features x: [Double], rate: Double) -> Double {
        var change = 0.0
        for k in 0..<Self.featureCount { change += weights[h][k] * x[k] }
        return min(max(rate + change, 0), maximumRate)
    }

    /// Adds one realised forecast: features at issue and the change that happened.
    mutating func learn(horizon h: Int, features x: [Double], change y: Double) {
        let n = Self.featureCount
        for i in 0..<n {
            moment[h][i] += x[i] * y
            for j in 0..<n { gram[h][i * n + j] += x[i] * x[j] }
        }
        samples[h] += 1
    }

    /// Re-solves every horizon's weights: (XᵀX + λI) w = Xᵀy + λ w₀.
    mutating func refit() {
        let n = Self.featureCount
        for h in horizons.indices {
            var a = gram[h]
            var b = moment[h]
            for i in 0..<n { a[i * n + i] += ridge; b[i] += ridge * Self.prior[i] }
            if let w = Self.solve(a, b, n) { weights[h] = w }
        }
    }

    /// Gaussian elimination with partial pivoting; nil when singular.
    static func solve(_ a0: [Double], _ b0: [Double], _ n: Int) -> [Double]? {
        var a = a0, b = b0
        for col in 0..<n {
            var p = col
            for r in (col + 1)..<n where abs(a[r * n + col]) > abs(a[p * n + col]) { p = r }
            guard abs(a[p * n + col]) > 1e-12 else { return nil }
            if p != col {
                for k in 0..<n { a.swapAt(p * n + k, col * n + k) }
                b.swapAt(p, col)
            }
            for r in (col + 1)..<n {
                let f = a[r * n + col] / a[col * n + col]
                if f == 0 { continue }
                for k in col..<n { a[r * n + k] -= f * a[col * n + k] }
                b[r] -= f * b[col]
            }
        }
        var x = [Double](repeating: 0, count: n)
        for r in stride(from: n - 1, through: 0, by: -1) {
            var s = b[r]
            for k in (r + 1)..<n { s -= a[r * n + k] * x[k] }
            x[r] = s / a[r * n + r]
        }
        return x
    }

    /// The features of a forecast issued at the last of `today`'s readings for `horizon` seconds ahead;
    /// nil when the lot's weekday profile does not cover now or the target (no history to forecast from).
    /// `today` holds the issue day's readings up to the issue time only; `group` the lot's complete
    /// same-weekday-group days before it (oldest first).
    static func features(history: LotHistory, day: Int, today: ArraySlice<DayReading>, group: [[DayReading]],
                         horizon: Double) -> [Double]? {
        guard let now = today.last else { return nil }
        let w = LocalClock.weekday(ofDay: day)
        let c = now.clock, target = now.clock + horizon
        guard let pn = history.profile(weekday: w, clock: c), let pt = history.profile(weekday: w, clock: target) else { return nil }
        let f0 = pt - pn
        let deviation = now.rate - pn
        var trend = 0.0
        if today.count >= 2 {
            let prev = today[today.endIndex - 2]
            if c - prev.clock <= 3000, let pp = history.profile(weekday: w, clock: prev.clock) {
                trend = deviation - (prev.rate - pp)
            }
        }
        func relative(_ change: Double?) -> Double { change.map { $0 - f0 } ?? 0 }
        let lastWeek = history.readings(ofDay: day - 7)?.change(from: c, to: target)
        let yesterday = history.readings(ofDay: day - 1)?.change(from: c, to: target)
        func meanChange(_ days: ArraySlice<[DayReading]>) -> Double? {
            var s = 0.0, n = 0
            for d in days { if let v = d.change(from: c, to: target) { s += v; n += 1 } }
            return n > 0 ? s / Double(n) : nil
        }
        let scaled = pn > 0.02 ? now.rate * (pt / pn) - now.rate - f0 : 0
        return [f0, deviation, trend, relative(lastWeek), scaled, relative(yesterday),
                relative(meanChange(group[...])), relative(meanChange(group.suffix(5))), 1]
    }
}

/// A forecast as the walk through history issues it.
public struct OccupancyForecast: Sendable, Hashable {
    /// Index of the lot in the series passed in.
    public var lotIndex: Int
    /// Local time of the reading the forecast was issued at (s).
    public var issuedAt: Double
    /// Index into the model's horizons.
    public var horizonIndex: Int
    /// Local target time (s).
    public var targetAt: Double
    /// Forecast occupancy rate at the target.
    public var rate: Double
    /// The rate read at the issue time (persistence's forecast).
    public var currentRate: Double
}

public enum OccupancyForecaster {
    /// Walks every lot's history day by day, issuing a forecast at every reading for every horizon
    /// (handed to `issue` as soon as it is made) and learning from each day once it is over.
    /// - Returns: the model as it stands after the last day (to forecast beyond the history).
    @discardableResult
    public static func walk(_ series: [LotOccupancySeries], model initial: OccupancyForecastModel,
                            issue: (OccupancyForecast) -> Void) -> (model: OccupancyForecastModel, histories: [LotHistory]) {
        var model = initial
        var histories = series.map { LotHistory(lot: $0.lot, capacity: $0.capacity) }
        var byDay = series.map(\.readingsByDay)
        let allDays = Set(byDay.flatMap(\.keys)).sorted()
        for day in allDays {
            var realised: [(Int, [Double], Double)] = []
            for (l, history) in histories.enumerated() {
                guard let today = byDay[l][day] else { continue }
                let group = history.sameGroupDays(before: day)
                let teaches = history.firstDay.map { day - $0 >= model.learningWarmUpDays } ?? false
                for i in today.indices {
                    let seen = today[...i]
                    let now = today[i]
                    for (h, horizon) in model.horizons.enumerated() {
                        guard let x = OccupancyForecastModel.features(history: history, day: day, today: seen, group: group,
                                                                     horizon: horizon) else { continue }
                        let t = Double(day) * LocalClock.day + now.clock
                        issue(OccupancyForecast(lotIndex: l, issuedAt: t, horizonIndex: h, targetAt: t + horizon,
                                                rate: model.predict(horizon: h, features: x, rate: now.rate),
                                                currentRate: now.rate))
                        if teaches, let actual = today.rate(at: now.clock + horizon) {
                            realised.append((h, x, actual - now.rate))
                        }
                    }
                }
            }
            // The day is over: its targets have passed, so it may now teach and enter the profiles.
            for (h, x, y) in realised { model.learn(horizon: h, features: x, change: y) }
            model.refit()
            for l in histories.indices {
                if let today = byDay[l][day] { histories[l].add(day: day, readings: today) }
            }
            for l in byDay.indices { byDay[l][day] = nil }
        }
        return (model, histories)
    }
}
