import FloodSim
import Foundation
import GeoCore
import ProcessRuntime
import TwinStore

/// The rainfall of a flood nowcast: what rain gauges (SensorThings Datastreams) observed over a
/// window, then an optional forecast hyetograph after it — instead of a design storm.
///
/// JSON (a scenario's `rainfall`): `{"datastreams": [12, 13], "from": "2026-07-01T08:00:00Z",
/// "to": "2026-07-01T10:00:00Z", "forecast": {"interval_min": 10, "depths_mm": [4, 6, 3]}}`.
///
/// A gauge's Datastream measures depth (`unitOfMeasurement.symbol` `mm`: the rain over the
/// reading's phenomenon interval, or for an instant since the previous reading ended) or intensity (`mm/h`: held from
/// the reading to the next one, as a SWMM rain gage reads its series). An interval the data do
/// not bound (the first depth reading, the last intensity reading) lasts as long as the spacing
/// of its neighbour, at most `maximumInferredInterval`, so a gauge that stops reporting does not
/// go on raining. Each gauge's rain is binned into the scenario's `time_step_min` from `from` to
/// `to`; the coupled model takes one areal rainfall over the district, the mean of the gauges
/// that reported in the window (one that did not is left out and named in the summary, as a
/// silent gauge is no evidence of a dry sky).
public struct ObservedRainfall: Sendable, Equatable {
    /// Rain expected after `to`: depths in equal intervals.
    public struct Forecast: Sendable, Equatable {
        /// Interval length, minutes.
        public var interval: Double
        /// Depth in each interval, mm.
        public var depths: [Double]
    }

    /// Datastream `@iot.id`s of the rain gauges.
    public var datastreams: [Int64]
    /// Window start and end, microseconds since 1970 UTC.
    public var from: Int64
    public var to: Int64
    public var forecast: Forecast?

    /// The longest interval a reading is taken to cover when the data do not bound it, seconds.
    public static let maximumInferredInterval: Double = 3600

    public init(datastreams: [Int64], from: Int64, to: Int64, forecast: Forecast? = nil) {
        self.datastreams = datastreams
        self.from = from
        self.to = to
        self.forecast = forecast
    }

    /// Reads a scenario's `rainfall` member.
    /// - Throws: `ScenarioError` `.invalidScenario` naming the field (`rainfall.from`, …).
    public init(json value: JSONValue) throws {
        func fail(_ field: String, _ why: String) -> ScenarioError {
            ScenarioError(.invalidScenario, "rainfall\(field.isEmpty ? "" : ".")\(field): \(why)", field: "rainfall" + (field.isEmpty ? "" : ".\(field)"))
        }
        guard let o = value.objectValue else { throw fail("", "must be an object {datastreams, from, to, forecast?}") }
        for key in o.keys.sorted() where !["datastreams", "from", "to", "forecast"].contains(key) {
            throw fail(key, "not a member of rainfall (datastreams, from, to, forecast)")
        }
        guard let list = o["datastreams"]?.arrayValue, !list.isEmpty else {
            throw fail("datastreams", "must be a non-empty array of Datastream @iot.ids")
        }
        datastreams = try list.enumerated().map { i, v in
            guard let id = v.integerValue ?? v["@iot.id"]?.integerValue else {
                throw fail("datastreams[\(i)]", "must be a Datastream @iot.id (an integer)")
            }
            return id
        }
        guard Set(datastreams).count == datastreams.count else { throw fail("datastreams", "names a Datastream twice") }
        func instant(_ key: String) throws -> Int64 {
            guard let text = o[key]?.stringValue, let t = SensingTime.instant(text) else {
                throw fail(key, "must be an RFC 3339 date-time, e.g. 2026-07-01T08:00:00Z")
            }
            return t
        }
        from = try instant("from")
        to = try instant("to")
        guard to > from else { throw fail("to", "must be after from") }
        guard to - from <= 24 * 3_600_000_000 else { throw fail("to", "the observed window is at most 24 h") }
        if let f = o["forecast"], !f.isNull {
            guard let fo = f.objectValue else { throw fail("forecast", "must be an object {interval_min, depths_mm}") }
            for key in fo.keys.sorted() where !["interval_min", "depths_mm"].contains(key) {
                throw fail("forecast.\(key)", "not a member of forecast (interval_min, depths_mm)")
            }
            guard let interval = fo["interval_min"]?.doubleValue, interval > 0, interval <= 360 else {
                throw fail("forecast.interval_min", "must be a number of minutes in (0, 360]")
            }
            guard let items = fo["depths_mm"]?.arrayValue, !items.isEmpty else {
                throw fail("forecast.depths_mm", "must be a non-empty array of depths in mm")
            }
            let depths = try items.enumerated().map { i, v -> Double in
                guard let d = v.doubleValue, d.isFinite, d >= 0, d < 500 else {
                    throw fail("forecast.depths_mm[\(i)]", "must be a depth in mm, 0 ≤ d < 500")
                }
                return d
            }
            guard interval * Double(depths.count) <= 24 * 60 else { throw fail("forecast", "covers at most 24 h") }
            forecast = Forecast(interval: interval, depths: depths)
        }
    }

    /// Observed window plus forecast, minutes.
    public var minutes: Double {
        Double(to - from) / 60_000_000 + (forecast.map { $0.interval * Double($0.depths.count) } ?? 0)
    }

    /// One gauge's contribution, for the run's summary.
    public struct Gauge: Sendable, Encodable, Equatable {
        public var datastream: Int64
        public var name: String
        /// `mm` or `mm/h`.
        public var unit: String
        /// Readings that fell in the window.
        public var observations: Int
        /// Rain it observed in the window, mm.
        public var millimetres: Double
    }

    /// What the nowcast's rain was made of, for the run's summary.
    public struct Summary: Sendable, Encodable, Equatable {
        public var from: String
        public var to: String
        public var gauges: [Gauge]
        /// Gauges left out of the areal mean: no reading in the window.
        public var silentDatastreams: [Int64]
        /// Areal mean rain observed in the window, mm.
        public var observedMillimetres: Double
        /// Forecast rain after the window, mm.
        public var forecastMillimetres: Double
    }

    /// The areal rainfall as a hyetograph from `from` (time 0): the window in intervals of `step`
    /// minutes, then the forecast's intervals.
    /// - Throws: `ScenarioError` `.invalidScenario` naming `rainfall.datastreams[i]` for an
    ///   unknown Datastream, one that does not measure rain, or a reading that is no depth; naming
    ///   `rainfall` when no gauge reported in the window.
    public func hyetograph(step: Double, sensing: any SensingStore) async throws -> (Hyetograph, Summary) {
        let width = step * 60
        let window = Double(to - from) / 1e6
        let bins = Swift.max(1, Int((window / width).rounded(.up)))
        var sums = [Double](repeating: 0, count: bins)
        var gauges: [Gauge] = []
        var silent: [Int64] = []
        for (i, id) in datastreams.enumerated() {
            let field = "rainfall.datastreams[\(i)]"
            func fail(_ why: String) -> ScenarioError { ScenarioError(.invalidScenario, "\(field): \(why)", field: field) }
            guard let stream = try await sensing.sensingEntity(.datastream, id: id) else { throw fail("no Datastream with @iot.id \(id)") }
            let symbol = (stream.body["unitOfMeasurement"]?["symbol"]?.stringValue ?? "").lowercased().replacingOccurrences(of: " ", with: "")
            let isDepth: Bool
            switch symbol {
            case "mm": isDepth = true
            case "mm/h", "mm/hr", "mmh-1", "mm.h-1": isDepth = false
            default: throw fail("Datastream \(id) measures '\(symbol)', not rain (unitOfMeasurement.symbol mm per reading or mm/h)")
            }
            // The reading before the window bounds the first depth interval and holds its intensity into it.
            let before = try await sensing.observations(ObservationRange(datastream: id, to: from, order: .phenomenonTime, descending: true, limit: 1))
            var inside: [SensingObservation] = []
            var offset = 0
            while true {
                let page = try await sensing.observations(ObservationRange(datastream: id, from: from, to: to, order: .phenomenonTime,
                                                                           limit: 10_000, offset: offset))
                inside += page
                offset += page.count
                if page.count < 10_000 { break }
            }
            guard !inside.isEmpty else {
                silent.append(id)
                continue
            }
            let readings = before + inside
            var values: [Double] = []
            for o in readings {
                guard let v = o.result.doubleValue, v.isFinite, v >= 0 else {
                    let text = (try? JSONOutput.data(o.result)).map { String(decoding: $0, as: UTF8.self) } ?? "?"
                    throw fail("Observation \(o.id) has result \(text), not a depth or intensity ≥ 0")
                }
                values.append(v)
            }
            let t = readings.map { Double($0.phenomenonStart - from) / 1e6 }
            let ends = readings.map { Double(($0.phenomenonEnd ?? $0.phenomenonStart) - from) / 1e6 }
            var own = [Double](repeating: 0, count: bins)
            for k in readings.indices {
                let a: Double, b: Double, depth: Double
                if let end = readings[k].phenomenonEnd, end > readings[k].phenomenonStart {
                    (a, b) = (t[k], Double(end - from) / 1e6)
                } else if isDepth {
                    // The rain since the previous reading ended.
                    let spacing = k > 0 ? t[k] - ends[k - 1] : (k + 1 < t.count ? t[k + 1] - t[k] : width)
                    (a, b) = (t[k] - Swift.min(spacing, Self.maximumInferredInterval), t[k])
                } else {
                    let spacing = k + 1 < t.count ? t[k + 1] - t[k] : (k > 0 ? t[k] - t[k - 1] : width)
                    (a, b) = (t[k], t[k] + Swift.min(spacing, Self.maximumInferredInterval))
                }
                guard b > a else { continue }
                depth = isDepth ? values[k] : values[k] * (b - a) / 3600
                // Spread the depth over the bins it overlaps, in proportion; what lies outside the window is not counted.
                let first = Swift.max(0, Int((a / width).rounded(.down))), last = Swift.min(bins - 1, Int((b / width).rounded(.up)) - 1)
                guard first <= last else { continue }
                for bin in first...last {
                    let lo = Swift.max(a, Double(bin) * width, 0), hi = Swift.min(b, Double(bin + 1) * width, window)
                    if hi > lo { own[bin] += depth * (hi - lo) / (b - a) }
                }
            }
            for bin in 0..<bins { sums[bin] += own[bin] }
            gauges.append(Gauge(datastream: id, name: stream.body["name"]?.stringValue ?? "", unit: isDepth ? "mm" : "mm/h",
                                observations: inside.count, millimetres: (own.reduce(0, +) * 100).rounded() / 100))
        }
        guard !gauges.isEmpty else {
            throw ScenarioError(.invalidScenario, "rainfall: no reading of the rain gauges \(datastreams.map(String.init).joined(separator: ", ")) between \(SensingTime.format(from)) and \(SensingTime.format(to))",
                                field: "rainfall")
        }
        let observed = sums.map { $0 / Double(gauges.count) }
        var starts = (0..<bins).map { Double($0) * width }
        var intensities = (0..<bins).map { bin in observed[bin] / (Swift.min(window, Double(bin + 1) * width) - Double(bin) * width) * 3600 }
        var last = window - Double(bins - 1) * width
        if let forecast {
            let w = forecast.interval * 60
            for (k, d) in forecast.depths.enumerated() {
                starts.append(window + Double(k) * w)
                intensities.append(d / w * 3600)
            }
            last = w
        }
        let summary = Summary(from: SensingTime.format(from), to: SensingTime.format(to), gauges: gauges, silentDatastreams: silent,
                              observedMillimetres: (observed.reduce(0, +) * 100).rounded() / 100,
                              forecastMillimetres: forecast.map { $0.depths.reduce(0, +) } ?? 0)
        return (Hyetograph(starts: starts, intensities: intensities, lastInterval: last), summary)
    }
}
