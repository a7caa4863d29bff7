import Foundation
import GeoCore
import Hummingbird
import Synchronization
import TwinStore

/// Compares new readings with their Datastream's thresholds (`properties.thresholds`) and keeps
/// the `alerts` collection in step: a reading beyond a threshold raises an alert feature
/// (datastream, thing, level, value, phenomenonTime, raised_at; at the Thing's Location), a
/// reading back by more than the hysteresis clears it (cleared_at, cleared_value). Runs in the
/// request that wrote the readings, after their commit, so an alert is in
/// `/collections/alerts/items` by the time the POST is answered; each change is also pushed to
/// `/alerts/events` subscribers (Server-Sent Events).
///
/// Readings older than the Datastream's newest stored one (a backfill) change no alert.
struct AlertMonitor: Sendable {
    static let layer = "alerts"
    let store: any FeatureStore
    let sensing: any SensingStore
    let feed: AlertFeed

    /// The `alerts` layer: owner and sharing class of the governing layer, whose readings raise them.
    static func definition(like governing: LayerDefinition) throws -> LayerDefinition {
        var sharing: [String: JSONValue] = ["type": .string(governing.sharing.type.rawValue), "method": "api",
                                            "requirements": "预警随传感器数据共享 (alerts are shared as the sensor data is)"]
        if let requirements = governing.json["sharing"]?["requirements"] { sharing["requirements"] = requirements }
        let number: JSONValue = ["type": ["number", "null"]]
        let time: JSONValue = ["type": ["string", "null"], "format": "date-time"]
        return try LayerDefinition(json: [
            "id": .string(layer), "title": ["zh": "预警", "en": "Alerts"], "category": "物联感知",
            "owner": .string(governing.owner), "format": "vector", "updateFrequency": "realtime",
            "sharing": .object(sharing), "negativeList": .bool(governing.negativeList),
            "geometryType": "Point", "storageCRS": "EPSG:4490",
            "schema": ["type": "object", "properties": [
                "datastream_id": ["type": "integer", "description": "SensorThings Datastream @iot.id"],
                "datastream": ["type": "string"], "thing_id": ["type": ["integer", "null"]], "thing": ["type": ["string", "null"]],
                "level": ["type": "string", "description": "threshold level, e.g. warning, danger"],
                "direction": ["type": "string", "enum": ["above", "below"]],
                "threshold": ["type": "number"], "hysteresis": ["type": "number"],
                "value": ["type": "number", "description": "the reading that raised the alert (the Datastream's unit)"],
                "peak": number, "phenomenonTime": ["type": "string", "format": "date-time"],
                "raised_at": ["type": "string", "format": "date-time"], "cleared_at": time,
                "cleared_value": number, "cleared_phenomenonTime": time,
            ], "required": ["datastream_id", "level", "value", "phenomenonTime", "raised_at"]],
            "temporal": ["start": "raised_at", "end": "cleared_at"],
            "style": ["circle-color": "#e4002b", "circle-radius": 7],
        ])
    }

    /// Evaluates the readings `change` wrote (stored ids `ids`, in `change.observations` order).
    func evaluate(_ change: SensingChange, ids: [Int64], governing: LayerDefinition, by caller: Caller) async throws {
        var byStream = [Int64: [SensingObservation]]()
        for (i, o) in change.observations.enumerated() {
            var stored = o
            if i < ids.count { stored.id = ids[i] }
            byStream[o.datastream, default: []].append(stored)
        }
        for o in change.observationUpdates { byStream[o.datastream, default: []].append(o) }
        var written = [Feature]()
        for (ds, readings) in byStream.sorted(by: { $0.key < $1.key }) {
            guard let stream = try await sensing.sensingEntity(.datastream, id: ds) else { continue }
            let thresholds = Thresholds.parse(stream.body["properties"])
            guard !thresholds.isEmpty else { continue }
            let batch = Set(readings.map(\.id))
            // A backfill (the newest stored reading is not of this batch) changes no alert.
            guard let newest = try await sensing.observations(ObservationRange(datastream: ds, order: .phenomenonTime, descending: true, limit: 1)).first,
                  batch.contains(newest.id) else { continue }
            try await ensureLayer(governing)
            written += try await apply(thresholds, stream: stream, readings: readings.sorted { $0.phenomenonStart < $1.phenomenonStart })
        }
        guard !written.isEmpty else { return }
        try await store.upsert(layer: Self.layer, features: written, by: caller, at: nil)
        for f in written { feed.publish(f) }
    }

    private func ensureLayer(_ governing: LayerDefinition) async throws {
        guard try await store.layerDefinition(Self.layer, for: .admin) == nil else { return }
        try await store.createLayer(try Self.definition(like: governing))
    }

    private func apply(_ thresholds: [Threshold], stream: SensingEntity, readings: [SensingObservation]) async throws -> [Feature] {
        let ds = stream.id
        let filter = try CQL2.parseText("datastream_id = \(ds) AND cleared_at IS NULL", queryables: nil)
        var open = [String: Feature]()
        for f in try await store.query(layer: Self.layer, FeatureQuery(filter: filter, limit: 1000), by: .admin).features {
            if let level = f.properties["level"]?.stringValue { open[level] = f }
        }
        let thing = try await stream.link("Thing").asyncMap { try await sensing.sensingEntity(.thing, id: $0) } ?? nil
        let place = try await placeOf(thing)
        let now = JSONValue.string(SensingTime.format(SensingTime.now))
        var changed = [String: Feature]()
        for reading in readings {
            guard let value = reading.result.doubleValue, value.isFinite else { continue }
            let when = JSONValue.string(SensingTime.format(reading.phenomenonStart))
            for t in thresholds {
                if var alert = open[t.level] {
                    if t.cleared(by: value) {
                        alert.properties["cleared_at"] = now
                        alert.properties["cleared_value"] = .number(value)
                        alert.properties["cleared_phenomenonTime"] = when
                        open[t.level] = nil
                    } else if let peak = alert.properties["peak"]?.doubleValue, t.direction == .above ? value > peak : value < peak {
                        alert.properties["peak"] = .number(value)
                        open[t.level] = alert
                    } else {
                        continue
                    }
                    changed[alert.id!.description] = alert
                } else if t.crossed(by: value) {
                    let id = "\(ds)-\(t.level)-\(reading.phenomenonStart / 1_000_000)"
                    let alert = Feature(id: .string(id), geometry: place, properties: [
                        "datastream_id": .integer(ds), "datastream": stream.body["name"] ?? .null,
                        "thing_id": thing.map { .integer($0.id) } ?? .null, "thing": thing?.body["name"] ?? .null,
                        "level": .string(t.level), "direction": .string(t.direction.rawValue), "threshold": .number(t.value),
                        "hysteresis": .number(t.hysteresis), "value": .number(value), "peak": .number(value), "phenomenonTime": when,
                        "raised_at": now, "cleared_at": .null, "cleared_value": .null, "cleared_phenomenonTime": .null,
                    ])
                    open[t.level] = alert
                    changed[id] = alert
                }
            }
        }
        return changed.keys.sorted().map { changed[$0]! }
    }

    /// The point of the Thing's newest Location, if it has one.
    private func placeOf(_ thing: SensingEntity?) async throws -> Geometry? {
        guard let location = thing?.links["Locations"]?.max(),
              let l = try await sensing.sensingEntity(.location, id: location),
              let o = l.body["location"]?.objectValue,
              let g = SensingFilterEvaluator.geometry(o) else { return nil }
        if case .point = g { return g }
        return nil
    }
}

extension Optional {
    fileprivate func asyncMap<T>(_ transform: (Wrapped) async throws -> T) async rethrows -> T? {
        guard let self else { return nil }
        return try await transform(self)
    }
}

/// Subscribers of alert changes: each gets every alert feature written after it subscribed, and
/// a heartbeat (`nil`) every `heartbeat` while anyone listens, so a subscriber whose connection
/// went away is noticed at the next write and dropped even when no alert comes.
final class AlertFeed: Sendable {
    private struct State {
        var subscribers = [UUID: AsyncStream<Feature?>.Continuation]()
        var beating: Task<Void, Never>?
    }

    private let state = Mutex(State())
    let heartbeat: Duration

    init(heartbeat: Duration = .seconds(15)) { self.heartbeat = heartbeat }

    func publish(_ alert: Feature) {
        state.withLock { for c in $0.subscribers.values { c.yield(alert) } }
    }

    /// A stream of alert changes and heartbeats, ended when the consumer stops (the connection closes).
    func subscribe() -> AsyncStream<Feature?> {
        let id = UUID()
        let (stream, continuation) = AsyncStream<Feature?>.makeStream(bufferingPolicy: .bufferingNewest(1000))
        continuation.onTermination = { [weak self] _ in self?.unsubscribe(id) }
        state.withLock { s in
            s.subscribers[id] = continuation
            if s.beating == nil {
                let period = heartbeat
                s.beating = Task { [weak self] in
                    while !Task.isCancelled {
                        try? await Task.sleep(for: period)
                        guard let self else { return }
                        self.state.withLock { for c in $0.subscribers.values { c.yield(nil) } }
                    }
                }
            }
        }
        return stream
    }

    private func unsubscribe(_ id: UUID) {
        state.withLock { s in
            s.subscribers[id] = nil
            if s.subscribers.isEmpty {
                s.beating?.cancel()
                s.beating = nil
            }
        }
    }

    var subscriberCount: Int { state.withLock { $0.subscribers.count } }
}
