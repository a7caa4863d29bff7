import Foundation
import GeoCore
import SignalSim
import TwinStore

/// Live 15-minute counts (`traffic_counts`) from detectors on the SensorThings API: a Datastream whose
/// `properties.traffic_count` names an intersection, an approach and a movement counts that movement
/// (`{"intersection": "SI-009", "approach": "N", "movement": "left", "detector": "video"}`); each of its
/// Observations is the number of vehicles counted over its phenomenonTime, an interval of whole minutes
/// (normally 15). The readings are recorded as the counts layer's rows, one per intersection, approach
/// and interval, a movement's Datastream setting that movement's count, so the plans, re-timing and
/// the SUMO export read live counts as they read imported ones.
public struct TrafficCountStream: Sendable, Hashable {
    public var intersection: String
    /// Where the counted vehicles come from: N, S, E or W.
    public var approach: String
    /// left, through or right.
    public var movement: String
    /// video, coil or radar (the counts layer's detector types).
    public var detector: String

    /// The Datastream property that binds a Datastream to the counts.
    public static let property = "traffic_count"
    public static let movements = ["left", "through", "right"]
    public static let detectors = ["video", "coil", "radar"]
    public static let approaches = ["N", "S", "E", "W"]
    /// The intervals a count may cover (minutes).
    public static let intervalMinutes = 1...60

    /// The binding a Datastream's `properties` declare, `nil` when they declare none.
    /// - Throws: `SignalTimingError` naming the member under `path` (e.g. `$.properties.traffic_count.movement`).
    public static func declared(in properties: JSONValue?, path: String = "properties") throws -> TrafficCountStream? {
        guard let value = properties?.objectValue?[property] else { return nil }
        let here = "\(path).\(property)"
        guard let o = value.objectValue else {
            throw SignalTimingError(field: here, "must be {\"intersection\", \"approach\", \"movement\", \"detector\"}")
        }
        for key in o.keys.sorted() where !["intersection", "approach", "movement", "detector"].contains(key) {
            throw SignalTimingError(field: "\(here).\(key)", "is not a member of a traffic count binding (intersection, approach, movement, detector)")
        }
        func member(_ key: String, among allowed: [String]? = nil) throws -> String {
            guard let s = o[key]?.stringValue, !s.isEmpty else {
                throw SignalTimingError(field: "\(here).\(key)", allowed.map { "must be one of \($0.joined(separator: ", "))" } ?? "must be a non-empty string")
            }
            if let allowed, !allowed.contains(s) {
                throw SignalTimingError(field: "\(here).\(key)", "'\(s)' is not one of \(allowed.joined(separator: ", "))")
            }
            return s
        }
        return TrafficCountStream(intersection: try member("intersection"), approach: try member("approach", among: approaches),
                                  movement: try member("movement", among: movements), detector: try member("detector", among: detectors))
    }

    /// The binding of a Datastream whose `properties` were checked when it was written (`declared`
    /// refused anything malformed then): `nil` when it declares none.
    public static func bound(by properties: JSONValue?) -> TrafficCountStream? {
        (try? declared(in: properties)) ?? nil
    }

    /// Checks one reading of the stream: a count of vehicles (an integer ≥ 0) over an interval of
    /// whole minutes in `intervalMinutes` starting on a whole minute. Times in microseconds since 1970.
    /// - Returns: the interval's length in minutes.
    /// - Throws: `SignalTimingError` whose field is `result` or `phenomenonTime`.
    public static func checkReading(result: JSONValue, start: Int64, end: Int64?) throws -> Int {
        guard case .integer(let n) = result, n >= 0 else {
            throw SignalTimingError(field: "result", "a traffic count is a whole number of vehicles ≥ 0 (got \(result))")
        }
        guard let end else {
            throw SignalTimingError(field: "phenomenonTime", "a traffic count covers an interval: give start/end, e.g. 2026-11-25T08:00:00+08:00/2026-11-25T08:15:00+08:00")
        }
        let minute: Int64 = 60_000_000
        let length = end - start
        guard start % minute == 0, length % minute == 0, intervalMinutes.contains(Int(length / minute)) else {
            throw SignalTimingError(field: "phenomenonTime", "a traffic count's interval starts on a whole minute and lasts \(intervalMinutes.lowerBound) to \(intervalMinutes.upperBound) whole minutes (normally 15)")
        }
        return Int(length / minute)
    }
}

/// Writes readings of `TrafficCountStream`s into the counts layer.
public enum TrafficCountFeed {
    /// One reading: `count` vehicles of the stream's movement in the interval from `start` (µs since 1970).
    public struct Reading: Sendable, Hashable {
        public var stream: TrafficCountStream
        public var start: Int64
        public var minutes: Int
        public var count: Int

        public init(stream: TrafficCountStream, start: Int64, minutes: Int, count: Int) {
            self.stream = stream
            self.start = start
            self.minutes = minutes
            self.count = count
        }
    }

    /// `2026-11-25T08:00:00+08:00` of an instant in µs since 1970, on the city's clock
    /// (`CityTime`; the sample district's is UTC+8), as the counts layer writes its starts.
    public static func localStart(_ microseconds: Int64) -> String {
        RFC3339.localDateTime(RFC3339.date(microseconds: microseconds), in: CityTime.current)
    }

    /// The row of an intersection's approach over one interval: one per interval, whatever sent it.
    static func rowID(_ stream: TrafficCountStream, start: Int64, minutes: Int) -> String {
        let stamp = localStart(start).prefix(16).filter(\.isNumber)
        return "TC-\(stream.intersection)-\(stream.approach)-\(stamp)-\(minutes)"
    }

    /// Whether `caller` may write the counts layer, which readings of a bound Datastream are recorded
    /// in under the caller's name (`nil` when the store has no counts layer).
    public static func mayRecord(in store: any FeatureStore, by caller: Caller) async throws -> Bool? {
        try await countsLayer(in: store).map { AccessPolicy.canWrite($0, caller) }
    }

    static func countsLayer(in store: any FeatureStore) async throws -> LayerDefinition? {
        try await store.layerDefinition(SignalizedIntersection.countsLayer, for: .admin)
    }

    /// Checks, before anything is written, that `caller` may record readings in the counts layer.
    /// - Throws: `StoreError(.forbidden)` naming the layer's owner, `.notFound` without the layer.
    public static func checkRecorder(_ caller: Caller, store: any FeatureStore) async throws {
        guard let layer = try await countsLayer(in: store) else {
            throw StoreError(.layerNotFound, "this store has no \(SignalizedIntersection.countsLayer) layer to record traffic counts in", layer: SignalizedIntersection.countsLayer)
        }
        guard AccessPolicy.canWrite(layer, caller) else {
            throw StoreError(.forbidden, "readings of a Datastream with properties.\(TrafficCountStream.property) are recorded in \(layer.id), which only editors of \(layer.owner) (or an admin) write", layer: layer.id)
        }
    }

    /// Checks each binding names a signalised intersection with a lane group on its approach.
    /// - Throws: `SignalTimingError` naming `properties.traffic_count.intersection` or `.approach`.
    public static func checkBindings(_ streams: [TrafficCountStream], store: any FeatureStore) async throws {
        var seen = Set<String>()
        for s in streams where seen.insert(s.intersection + "/" + s.approach).inserted {
            guard let intersection = try await SignalizedIntersection.load(id: s.intersection, from: store, by: .admin) else {
                throw SignalTimingError(field: "properties.\(TrafficCountStream.property).intersection", "no signalised intersection '\(s.intersection)' in \(SignalizedIntersection.layer)")
            }
            guard intersection.laneGroups.contains(where: { $0.approach == s.approach }) else {
                throw SignalTimingError(field: "properties.\(TrafficCountStream.property).approach", "\(s.intersection) has no lane group on approach \(s.approach)")
            }
        }
    }

    /// Takes `withdrawn` readings back out of their rows (deleted Observations, or the old interval of
    /// a corrected one). `remaining`: the readings still held over those rows' intervals, by any
    /// Datastream bound to the same intersection and approach. A withdrawn movement's count becomes that
    /// of a remaining reading of it, else 0, as for a movement not yet counted; a row left with no
    /// reading at all is deleted, so an interval no detector counts is no longer whole for the plans.
    /// - Returns: the rows rewritten and deleted.
    @discardableResult
    public static func withdraw(_ withdrawn: [Reading], remaining: [Reading], from store: any FeatureStore,
                                by caller: Caller) async throws -> (rewritten: Int, deleted: Int) {
        guard !withdrawn.isEmpty else { return (0, 0) }
        let held = Dictionary(grouping: remaining) { rowID($0.stream, start: $0.start, minutes: $0.minutes) }
        let taken = Dictionary(grouping: withdrawn) { rowID($0.stream, start: $0.start, minutes: $0.minutes) }
        let ids = taken.keys.sorted()
        // One conditional write: a row another writer changed after it was read here is read again.
        return try await store.update(layer: SignalizedIntersection.countsLayer, reading: ids, by: caller) {
            var rewritten: [Feature] = [], deleted: [String] = []
            for id in ids {
                guard var row = try await store.feature(layer: SignalizedIntersection.countsLayer, id: id, by: caller) else { continue }
                let rest = held[id] ?? []
                guard !rest.isEmpty else {
                    deleted.append(id)
                    continue
                }
                for movement in Set(taken[id, default: []].map(\.stream.movement)) {
                    row.properties[movement] = .integer(Int64(rest.last { $0.stream.movement == movement }?.count ?? 0))
                }
                rewritten.append(row)
            }
            return (FeatureChanges(upserts: rewritten, deletions: deleted), (rewritten.count, deleted.count))
        }
    }

    /// Records readings as counts rows (one read of the rows there per intersection, one write, audited
    /// under `caller`): each sets its movement's
    /// count in its interval's row, keeping the other movements' counts already there (0 where none
    /// was counted yet). A reading sent again sets the same count again.
    /// - Returns: the rows written.
    @discardableResult
    public static func record(_ readings: [Reading], into store: any FeatureStore, by caller: Caller) async throws -> Int {
        guard !readings.isEmpty else { return 0 }
        var order: [String] = [], seen: Set<String> = []
        for r in readings {
            let id = rowID(r.stream, start: r.start, minutes: r.minutes)
            if seen.insert(id).inserted { order.append(id) }
        }
        // One conditional write: a row another writer (another server process on the store) changed
        // after it was read here is read again, so the movements it counted are kept.
        return try await store.update(layer: SignalizedIntersection.countsLayer, reading: order, by: caller) {
            // The rows already there: one read per intersection over the batch's time span.
            var stored: [String: Feature] = [:]
            for (intersection, its) in Dictionary(grouping: readings, by: \.stream.intersection) {
                let first = its.map(\.start).min()!, last = its.map(\.start).max()!
                let span = TemporalValue.interval(start: Date(timeIntervalSince1970: Double(first) / 1e6), end: Date(timeIntervalSince1970: Double(last) / 1e6))
                let query = FeatureQuery(filter: .comparison(.equal, "intersection", .literal(.string(intersection))), datetime: span, limit: 5000)
                for try await f in store.stream(layer: SignalizedIntersection.countsLayer, query, by: caller) {
                    if let id = f.id?.description { stored[id] = f }
                }
            }
            var rows: [String: Feature] = [:]
            for r in readings {
                let id = rowID(r.stream, start: r.start, minutes: r.minutes)
                if rows[id] == nil {
                    rows[id] = stored[id] ?? Feature(
                        id: .string(id), geometry: nil, properties: [
                            "intersection": .string(r.stream.intersection), "approach": .string(r.stream.approach),
                            "start": .string(localStart(r.start)), "minutes": .integer(Int64(r.minutes)),
                            "left": 0, "through": 0, "right": 0,
                        ])
                }
                rows[id]?.properties[r.stream.movement] = .integer(Int64(r.count))
                rows[id]?.properties["detector"] = .string(r.stream.detector)
            }
            return (FeatureChanges(upserts: order.compactMap { rows[$0] }), order.count)
        }
    }
}
