/// A forecast backtest over a test period: every forecast the walk issues in the period, scored
/// against the occupancy actually read at its target (linear between readings at most an hour apart),
/// beside persistence and the reference's baseline (training-period mean per lot × weekday × 30-min
/// slot plus the last observed deviation from it). All three are scored on the same (issue, target)
/// pairs: those where each can forecast and the target is readable.
public struct ForecastBacktest: Sendable {
    public var trainUntil: Double
    public var testFrom: Double
    public var testUntil: Double
    public var model: OccupancyForecastModel

    /// - Parameters:
    ///   - trainUntil: end of the baseline's training period (local time, exclusive).
    ///   - testFrom, testUntil: issue times scored (local, `testUntil` exclusive).
    public init(trainUntil: Double, testFrom: Double, testUntil: Double, model: OccupancyForecastModel) {
        self.trainUntil = trainUntil
        self.testFrom = testFrom
        self.testUntil = testUntil
        self.model = model
    }

    /// Error of one predictor at one horizon.
    public struct Score: Sendable, Hashable, Codable {
        /// Mean absolute error of the occupancy rate.
        public var maeRate: Double
        public var rmseRate: Double
        /// The same in vehicles (rate error × capacity), i.e. free spaces.
        public var maeVehicles: Double
        public var rmseVehicles: Double

        enum CodingKeys: String, CodingKey {
            case maeRate = "mae_rate", rmseRate = "rmse_rate", maeVehicles = "mae_vehicles", rmseVehicles = "rmse_vehicles"
        }
    }

    /// Scores at one horizon.
    public struct HorizonScores: Sendable, Hashable, Codable {
        public var horizonMinutes: Double
        /// Pairs scored.
        public var pairs: Int
        public var forecast: Score
        public var persistence: Score
        public var baseline: Score
        /// forecast MAE ÷ baseline MAE and ÷ persistence MAE (rates).
        public var ratioToBaseline: Double
        public var ratioToPersistence: Double

        enum CodingKeys: String, CodingKey {
            case pairs, forecast, persistence, baseline
            case horizonMinutes = "horizon_min", ratioToBaseline = "mae_ratio_to_baseline"
            case ratioToPersistence = "mae_ratio_to_persistence"
        }
    }

    public struct Report: Sendable, Hashable, Codable {
        public var horizons: [HorizonScores]
        /// Forecasts issued in the test period at the chosen horizon (all of them, scored or not).
        public var predictions: [Prediction]
    }

    /// One forecast of the predictions file: `lot,issued_at,target_at,rate`.
    public struct Prediction: Sendable, Hashable, Codable {
        public var lot: String
        public var issuedAt: Double
        public var targetAt: Double
        public var rate: Double
    }

    /// Runs the walk over the whole history and scores the test period.
    /// - Parameter predictionHorizon: the horizon (s) whose forecasts are returned as predictions.
    public func run(_ series: [LotOccupancySeries], predictionHorizon: Double?) throws -> Report {
        guard testFrom < testUntil else { throw ParkingError(field: "test_until", "must be after test_from") }
        guard trainUntil <= testFrom else { throw ParkingError(field: "train_until", "must not be after test_from") }
        if let p = predictionHorizon, !model.horizons.contains(p) {
            throw ParkingError(field: "horizon", "must be one of the scored horizons (\(model.horizons.map { Int($0 / 60) }) min)")
        }
        // The baseline's profile: training-period mean per lot × weekday × slot.
        let baseline: [[Int: Double]] = series.map { s in
            var sum: [Int: Double] = [:], n: [Int: Int] = [:]
            for r in s.readings where r.time < trainUntil {
                let k = Self.slotKey(r.time)
                sum[k, default: 0] += r.rate
                n[k, default: 0] += 1
            }
            return sum.mapValues { $0 }.reduce(into: [:]) { $0[$1.key] = $1.value / Double(n[$1.key]!) }
        }
        let dayReadings = series.map(\.readingsByDay)
        let horizons = model.horizons
        var errors = Array(repeating: [[Double]](repeating: [], count: 6), count: horizons.count)
        var predictions: [Prediction] = []
        OccupancyForecaster.walk(series, model: model) { f in
            guard f.issuedAt >= testFrom, f.issuedAt < testUntil else { return }
            let s = series[f.lotIndex]
            if horizons[f.horizonIndex] == predictionHorizon {
                predictions.append(Prediction(lot: s.lot, issuedAt: f.issuedAt, targetAt: f.targetAt, rate: f.rate))
            }
            let day = LocalClock.dayIndex(f.issuedAt)
            guard LocalClock.dayIndex(f.targetAt) == day,
                  let actual = dayReadings[f.lotIndex][day]?.rate(at: LocalClock.clock(f.targetAt)),
                  let bNow = baseline[f.lotIndex][Self.slotKey(f.issuedAt)],
                  let bTarget = baseline[f.lotIndex][Self.slotKey(f.targetAt)] else { return }
            let cap = Double(s.capacity)
            let e = [f.rate - actual, f.currentRate - actual, bTarget + (f.currentRate - bNow) - actual]
            for (k, v) in e.enumerated() {
                errors[f.horizonIndex][2 * k].append(v)
                errors[f.horizonIndex][2 * k + 1].append(v * cap)
            }
        }
        func score(_ rate: [Double], _ vehicles: [Double]) -> Score {
            func mae(_ v: [Double]) -> Double { v.isEmpty ? .nan : v.reduce(0) { $0 + abs($1) } / Double(v.count) }
            func rmse(_ v: [Double]) -> Double { v.isEmpty ? .nan : (v.reduce(0) { $0 + $1 * $1 } / Double(v.count)).squareRoot() }
            return Score(maeRate: mae(rate), rmseRate: rmse(rate), maeVehicles: mae(vehicles), rmseVehicles: rmse(vehicles))
        }
        let scores = horizons.indices.map { h in
            let e = errors[h]
            let f = score(e[0], e[1]), p = score(e[2], e[3]), b = score(e[4], e[5])
            return HorizonScores(horizonMinutes: horizons[h] / 60, pairs: e[0].count, forecast: f, persistence: p, baseline: b,
                                 ratioToBaseline: f.maeRate / b.maeRate, ratioToPersistence: f.maeRate / p.maeRate)
        }
        return Report(horizons: scores, predictions: predictions.sorted { ($0.lot, $0.issuedAt) < ($1.lot, $1.issuedAt) })
    }

    /// Weekday × 30-minute slot (the nearest slot centre) of a local time.
    static func slotKey(_ t: Double) -> Int {
        let day = LocalClock.dayIndex(t)
        return LocalClock.weekday(ofDay: day) * 100 + Int((LocalClock.clock(t) / LotHistory.slot).rounded())
    }
}
