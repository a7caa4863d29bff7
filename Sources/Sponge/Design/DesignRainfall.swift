/// `citytwin sponge design-rainfall`'s answer: the design rainfall depth for a target annual
/// runoff volume capture rate by GB/T 51345-2018, the rate–depth curve, what the record covers and
/// the days left out, and why.
public struct DesignRainfall: Sendable, Hashable, Encodable {
    /// One point of the rate–depth curve.
    public struct Point: Sendable, Hashable, Encodable {
        /// Annual runoff volume capture rate, 0…1.
        public var rate: Double
        /// Design rainfall depth, mm.
        public var depthMillimetres: Double
    }

    /// Days of the record left out of the statistics, by reason.
    public struct Dropped: Sendable, Hashable, Encodable {
        /// Days with no rain.
        public var dryDays: Int
        /// Days with rain of at most `DesignRainfall.lightRainMillimetres` (they rarely make
        /// runoff; the standard leaves them out).
        public var lightDays: Int
        public var lightMillimetres: Double
        /// Days the record marks as snow (snowfall is left out).
        public var snowDays: Int
        public var snowMillimetres: Double
    }

    public var method: String
    /// The rate asked for, 0…1.
    public var targetRate: Double
    /// The design rainfall depth for `targetRate`, mm.
    public var designRainfallMillimetres: Double
    /// The rates 0.60…0.90 by 0.05 (and the target), each with its depth.
    public var curve: [Point]
    public var record: DailyRainfall.Coverage
    /// Days that count, and their rain, mm.
    public var countedDays: Int
    public var countedMillimetres: Double
    public var dropped: Dropped
    /// What the reader should know: a record shorter than the 30 years the standard asks for.
    public var warnings: [String]

    /// Rain of at most this depth on a day is left out, mm.
    public static let lightRainMillimetres = 2.0
    /// The standard's record length, years.
    public static let recordYears = 30.0
    /// The curve's rates.
    public static let curveRates: [Double] = [0.60, 0.65, 0.70, 0.75, 0.80, 0.85, 0.90]

    /// The days of `record` that count, by the standard: rain above 2 mm, not snow.
    public static func countedDepths(_ record: DailyRainfall) -> [Double] {
        record.days.filter { !$0.snow && $0.millimetres > lightRainMillimetres }.map(\.millimetres)
    }

    /// Analyses `record` for `rate`.
    /// - Throws: `SpongeInputError` naming `rate` outside (0, 1), or the record when no day of it
    ///   counts.
    public init(record: DailyRainfall, rate: Double, source: String = "daily-rainfall") throws {
        guard rate > 0, rate < 1, rate.isFinite else { throw SpongeInputError("rate", "a capture rate is between 0 and 1 (exclusive), got \(rate)") }
        guard let coverage = record.coverage else { throw SpongeInputError(source, "the record holds no day") }
        var dropped = Dropped(dryDays: 0, lightDays: 0, lightMillimetres: 0, snowDays: 0, snowMillimetres: 0)
        for day in record.days {
            if day.snow {
                dropped.snowDays += 1
                dropped.snowMillimetres += day.millimetres
            } else if day.millimetres == 0 {
                dropped.dryDays += 1
            } else if day.millimetres <= Self.lightRainMillimetres {
                dropped.lightDays += 1
                dropped.lightMillimetres += day.millimetres
            }
        }
        let depths = Self.countedDepths(record)
        guard !depths.isEmpty else {
            throw SpongeInputError(source, "no day of the record (\(coverage.firstDate) to \(coverage.lastDate)) has more than 2 mm of rain that is not snow")
        }
        let curve = CaptureRateCurve(depths: depths)
        method = "GB/T 51345-2018 annual runoff volume capture rate: days above 2 mm of rain, snow left out; α(d) = Σmin(Pᵢ, d)/ΣPᵢ"
        targetRate = rate
        designRainfallMillimetres = curve.depth(forRate: rate)
        let rates = (Self.curveRates + (Self.curveRates.contains(rate) ? [] : [rate])).sorted()
        self.curve = rates.map { Point(rate: $0, depthMillimetres: curve.depth(forRate: $0)) }
        self.record = coverage
        countedDays = depths.count
        countedMillimetres = curve.total
        self.dropped = dropped
        warnings = []
        if coverage.years < Self.recordYears {
            warnings.append("the record covers \(coverage.years) years (\(coverage.firstDate) to \(coverage.lastDate)); GB/T 51345-2018 asks for at least 30 years of daily rainfall")
        }
        if coverage.missingDays > 0 {
            warnings.append("\(coverage.missingDays) of the \(coverage.calendarDays) calendar days between the first and the last are missing from the record")
        }
    }
}
