import Foundation
import GeoCore
import TwinStore

extension DailyRainfall {
    /// The longest interval an intensity reading (mm/h) is held to the next one, seconds: a gauge
    /// that stops reporting does not go on raining (as a flood nowcast reads its gauges).
    public static let maximumHeldInterval: Double = 3600

    /// A rain gauge's record from its SensorThings Datastream: the readings whose phenomenon time
    /// starts in [`from`, `to`) summed into the city's calendar days (`zone`), every day of the
    /// window listed (a day without a reading is dry: the gauge reported around it).
    ///
    /// The Datastream measures depth (`unitOfMeasurement.symbol` `mm`: the rain of the reading's
    /// phenomenon interval, or of the span since the previous reading for an instant), counted on
    /// the day the interval ends; or intensity (`mm/h`: held from one reading to the next, at most
    /// `maximumHeldInterval`), counted on the day the reading starts.
    /// - Parameters:
    ///   - from, to: microseconds since 1970 UTC.
    /// - Throws: `SpongeInputError` naming `datastream` (none with that id, one that does not
    ///   measure rain, no reading in the window) or the Observation whose result is no depth.
    public init(datastream id: Int64, from: Int64, to: Int64, sensing: any SensingStore, zone: TimeZone = CityTime.current) async throws {
        let field = "datastream \(id)"
        guard to > from else { throw SpongeInputError(field, "the window must end after it starts") }
        guard let stream = try await sensing.sensingEntity(.datastream, id: id) else { throw SpongeInputError(field, "no Datastream with @iot.id \(id)") }
        let symbol = (stream.body["unitOfMeasurement"]?["symbol"]?.stringValue ?? "").lowercased().replacingOccurrences(of: " ", with: "")
        let isDepth: Bool
        switch symbol {
        case "mm": isDepth = true
        case "mm/h", "mm/hr", "mmh-1", "mm.h-1": isDepth = false
        default: throw SpongeInputError(field, "Datastream \(id) measures '\(symbol)', not rain (unitOfMeasurement.symbol mm per reading or mm/h)")
        }
        var readings: [SensingObservation] = []
        while true {
            let page = try await sensing.observations(ObservationRange(datastream: id, from: from, to: to, order: .phenomenonTime,
                                                                       limit: 10_000, offset: readings.count))
            readings += page
            if page.count < 10_000 { break }
        }
        guard !readings.isEmpty else {
            throw SpongeInputError(field, "no reading between \(SensingTime.format(from)) and \(SensingTime.format(to))")
        }
        func cityDay(_ micros: Int64) -> Int {
            let instant = Date(timeIntervalSince1970: Double(micros) / 1e6)
            let local = instant.timeIntervalSince1970 + Double(zone.secondsFromGMT(for: instant))
            return Int((local / 86_400).rounded(.down))
        }
        let firstDay = cityDay(from), lastDay = cityDay(to - 1)
        var depths = [Double](repeating: 0, count: lastDay - firstDay + 1)
        for (k, o) in readings.enumerated() {
            guard let v = o.result.doubleValue, v.isFinite, v >= 0 else {
                throw SpongeInputError("\(field) Observation \(o.id)", "the result is not a depth or an intensity ≥ 0")
            }
            let depth: Double, day: Int
            if isDepth {
                depth = v
                day = cityDay(max(o.phenomenonStart, (o.phenomenonEnd ?? o.phenomenonStart) - 1))
            } else {
                let end = o.phenomenonEnd.map { Double($0 - o.phenomenonStart) / 1e6 }
                let next = k + 1 < readings.count ? Double(readings[k + 1].phenomenonStart - o.phenomenonStart) / 1e6 : Self.maximumHeldInterval
                depth = v * min(end ?? next, Self.maximumHeldInterval) / 3600
                day = cityDay(o.phenomenonStart)
            }
            let index = day - firstDay
            if depths.indices.contains(index) { depths[index] += depth }
        }
        self.init(days: depths.enumerated().map { Day(day: firstDay + $0, millimetres: $1) }, readings: readings.count, subDaily: true)
    }
}
