import Foundation
import GeoCore
import ParkingSim
import ProcessRuntime
import TwinStore

/// The occupancy history (`parking_occupancy`) as the forecast reads it, and the two ways readings
/// arrive: one observation at a time (the sensor API) and a bulk CSV/JSON import. Readings are cleaned
/// the same way on both paths: a negative count or an unknown lot is rejected, a count above capacity
/// is clipped to it, and each is counted.
public enum StoreParkingOccupancy {
    public static let layer = "parking_occupancy"

    /// What an import or a recorded observation did.
    public struct ImportReport: Sendable, Hashable, Codable {
        public var cleaning: OccupancyCleaning.Report
        /// Readings written.
        public var written: Int
        /// CSV lines that could not be read (first 20 and the count).
        public var malformed: [String]
        public var malformedCount: Int

        enum CodingKeys: String, CodingKey {
            case cleaning, written, malformed
            case malformedCount = "malformed_count"
        }
    }

    /// Records one occupancy observation (the sensor API's entry point).
    /// - Throws: `ScenarioError` `.invalidArgument` naming `lot` (unknown) or `occupied` (negative).
    public static func record(_ observation: OccupancyObservation, source: String = "传感接口", into store: any FeatureStore,
                              by caller: Caller) async throws -> ImportReport {
        let report = try await write([observation], source: source, into: store, by: caller)
        if report.cleaning.rejectedUnknownLot > 0 {
            throw ScenarioError(.invalidArgument, "no parking lot '\(observation.lot)' in \(StoreParkingLot.layer)", field: "lot")
        }
        if report.cleaning.rejectedNegative > 0 {
            throw ScenarioError(.invalidArgument, "occupancy must not be negative (got \(observation.occupied))", field: "occupied")
        }
        return report
    }

    /// Records readings one feed sent together (the SensorThings bridge): cleaned and counted as an
    /// import is (an unknown lot or a negative count left out, above capacity clipped), none refused.
    /// - Parameter readings: vehicles present in `lot` at the instant `at`.
    public static func record(readings: [(lot: String, at: Date, occupied: Int)], source: String = "传感接口", into store: any FeatureStore,
                              by caller: Caller) async throws -> ImportReport {
        try await write(readings.map { OccupancyObservation(lot: $0.lot, time: ParkingLiveView.localTime($0.at), occupied: $0.occupied) },
                        source: source, into: store, by: caller)
    }

    /// Imports readings in bulk: CSV (header with lot/SystemCodeNumber, occupied/Occupancy, time/LastUpdated)
    /// or JSON (`[{"lot", "occupied", "time"}]`). Nothing is written when the text cannot be read at all;
    /// otherwise every clean reading is written in one insert and the rest counted.
    public static func importReadings(_ text: String, into store: any FeatureStore, by caller: Caller) async throws -> ImportReport {
        var observations: [OccupancyObservation] = []
        var malformed: [String] = [], malformedCount = 0
        if text.drop(while: { $0 == " " || $0 == "\n" || $0 == "\r" || $0 == "\t" || $0 == "\u{FEFF}" }).first == "[" {
            struct Row: Decodable { var lot: String; var occupied: Int; var time: String }
            let rows: [Row]
            do { rows = try JSONDecoder().decode([Row].self, from: Data(text.utf8)) } catch {
                throw ScenarioError(.invalidArgument, "occupancy JSON must be [{\"lot\", \"occupied\", \"time\"}] (\(error))", field: "readings")
            }
            for (i, r) in rows.enumerated() {
                guard let t = LocalClock.parse(r.time) else {
                    malformedCount += 1
                    if malformed.count < 20 { malformed.append("readings[\(i)].time: \"\(r.time)\" is not YYYY-MM-DD HH:MM:SS") }
                    continue
                }
                observations.append(OccupancyObservation(lot: r.lot, time: t, occupied: r.occupied))
            }
        } else {
            let feed: OccupancyFeed
            do { feed = try OccupancyFeed(csv: text) } catch let e as ParkingError {
                throw ScenarioError(.invalidArgument, e.reason, field: e.field)
            }
            observations = feed.observations
            malformed = feed.malformed
            malformedCount = feed.malformedCount
        }
        var report = try await write(observations, source: "导入", into: store, by: caller)
        report.malformed = malformed
        report.malformedCount = malformedCount
        return report
    }

    /// One row per lot and local instant: a reading sent twice replaces itself instead of doubling.
    static func rowID(lot: String, time: Double) -> String {
        "PO-\(lot)-\(LocalClock.format(time).filter(\.isNumber))"
    }

    /// Takes back readings the sensor feed withdrew (deleted, or moved to another instant): their
    /// rows end, so the history, the forecast and the live availability no longer count them.
    /// - Returns: the rows ended (a reading never written, e.g. of an unknown lot, ends none).
    @discardableResult
    public static func withdraw(readings: [(lot: String, at: Date)], from store: any FeatureStore, by caller: Caller) async throws -> Int {
        let rows = Set(readings.map { rowID(lot: $0.lot, time: ParkingLiveView.localTime($0.at)) }).sorted()
        let ids = try await store.currentVersions(layer: layer, ids: rows, by: caller).keys.sorted()
        if !ids.isEmpty { try await store.delete(layer: layer, ids: ids, by: caller, at: nil) }
        return ids.count
    }

    static func write(_ observations: [OccupancyObservation], source: String, into store: any FeatureStore,
                      by caller: Caller) async throws -> ImportReport {
        let lots = try await StoreParkingLot.load(from: store, by: caller)
        let capacities = Dictionary(uniqueKeysWithValues: lots.map { ($0.id, $0.capacity) })
        let (series, cleaning) = OccupancyCleaning(maximumRate: 1).series(observations, capacities: capacities)
        var features: [Feature] = []
        for s in series {
            for r in s.readings {
                features.append(Feature(id: .string(rowID(lot: s.lot, time: r.time)), geometry: nil, properties: [
                    "lot": .string(s.lot), "observed_at": .string(ParkingLiveView.iso(r.time)),
                    "occupied": .integer(Int64((r.rate * Double(s.capacity)).rounded())), "capacity": .integer(Int64(s.capacity)),
                    "source": .string(source),
                ]))
            }
        }
        if !features.isEmpty { try await store.upsert(layer: layer, features: features, by: caller, at: nil) }
        return ImportReport(cleaning: cleaning, written: features.count, malformed: [], malformedCount: 0)
    }

    /// Every lot's history as the caller reads it (lots without readings have empty series).
    public static func history(lots: [StoreParkingLot], from store: any FeatureStore, by caller: Caller) async throws -> [LotOccupancySeries] {
        try await read(lots: lots, from: store, by: caller).series
    }

    /// The history read from the store, cleaned as every reading path cleans (above capacity clipped,
    /// negative and unknown-lot readings left out), with what the cleaning did.
    public struct History: Sendable {
        /// One series per lot, in the lots' order.
        public var series: [LotOccupancySeries]
        public var cleaning: OccupancyCleaning.Report
        /// (lot, local time) of the readings above capacity.
        var above: Set<String>

        /// Lots whose latest reading at or before `now` was above capacity.
        public func latestAboveCapacity(at now: Double) -> Set<String> {
            Set(series.compactMap { s in
                guard let last = s.readings.last(where: { $0.time <= now }) else { return nil }
                return above.contains("\(s.lot)@\(last.time)") ? s.lot : nil
            })
        }
    }

    /// Every lot's history with the cleaning report (see ``History``).
    public static func read(lots: [StoreParkingLot], from store: any FeatureStore, by caller: Caller) async throws -> History {
        guard try await store.layerDefinition(layer, for: caller) != nil else {
            return History(series: lots.map { LotOccupancySeries(lot: $0.id, capacity: $0.capacity, readings: []) }, cleaning: .init(), above: [])
        }
        let capacities = Dictionary(uniqueKeysWithValues: lots.map { ($0.id, $0.capacity) })
        var observations: [OccupancyObservation] = []
        var above = Set<String>()
        for try await f in store.stream(layer: layer, FeatureQuery(properties: ["lot", "observed_at", "occupied"], limit: 10_000), by: caller) {
            guard let lot = f.properties["lot"]?.stringValue, let at = f.properties["observed_at"]?.stringValue, let t = localTime(iso: at),
                  let occupied = f.properties["occupied"]?.integerValue else { continue }
            if let c = capacities[lot], occupied > c { above.insert("\(lot)@\(t)") }
            observations.append(OccupancyObservation(lot: lot, time: t, occupied: Int(occupied)))
        }
        let (series, cleaning) = OccupancyCleaning(maximumRate: 1).series(observations, capacities: capacities)
        let byLot = Dictionary(uniqueKeysWithValues: series.map { ($0.lot, $0) })
        return History(series: lots.map { byLot[$0.id] ?? LotOccupancySeries(lot: $0.id, capacity: $0.capacity, readings: []) },
                       cleaning: cleaning, above: above)
    }

    /// The district's local time (UTC+8) of an ISO 8601 time: `YYYY-MM-DDTHH:MM[:SS][.fff]` read as
    /// local, followed by an optional `Z` or `±HH:MM` offset that moves it to UTC+8. Nil when malformed.
    public static func localTime(iso text: String) -> Double? {
        guard let t = LocalClock.parse(text) else { return nil }
        var rest = Substring(text.dropFirst(min(text.count, 19)))
        if rest.first == "." { rest = rest.drop(while: { $0 == "." || $0.isNumber }) }
        if rest.isEmpty { return t }
        if rest == "Z" || rest == "z" { return t + 8 * 3600 }
        let sign: Double = rest.first == "+" ? 1 : (rest.first == "-" ? -1 : 0)
        let parts = rest.dropFirst().split(separator: ":")
        guard sign != 0, (1...2).contains(parts.count), let h = Int(parts[0].prefix(2)), h < 24 else { return nil }
        let m = parts.count == 2 ? Int(parts[1]) ?? 99 : (parts[0].count == 4 ? Int(parts[0].suffix(2)) ?? 99 : 0)
        guard m < 60 else { return nil }
        return t - sign * Double(h * 3600 + m * 60) + 8 * 3600
    }
}
