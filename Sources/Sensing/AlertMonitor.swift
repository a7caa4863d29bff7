import Foundation
import GeoCore
import QueryLanguage
import Synchronization
import TwinStore

/// Compares new readings with their Datastream's thresholds (`properties.thresholds`) and keeps
/// the `alerts` collection in step: a reading beyond a threshold raises an alert feature
/// (datastream, thing, level, value, phenomenonTime, raised_at; at the Thing's Location), a
/// reading back by more than the hysteresis clears it (cleared_at, cleared_value). Runs in the
/// request that wrote the readings, after their commit, so an alert is in
/// `/collections/alerts/items` by the time the POST is answered; `/alerts/events` subscribers
/// get it from the store's change feed (`AlertFeed`), as they get a flood nowcast's alerts.
///
/// Readings older than the Datastream's newest stored one (a backfill) change no alert.
public struct AlertMonitor: Sendable {
    static let layer = SensingAlerts.layer
    let store: any FeatureStore
    let sensing: any SensingStore
    /// The hydrants' out-of-service alerts, told when the pressure rule changed a hydrant's status.
    let hydrants: HydrantStatus?

    public init(store: any FeatureStore, sensing: any SensingStore, hydrants: HydrantStatus? = nil) {
        self.store = store
        self.sensing = sensing
        self.hydrants = hydrants
    }

    /// Evaluates the readings `change` wrote (stored ids `ids`, in `change.observations` order).
    ///
    /// Each Datastream's alerts change by a compare-and-set (`FeatureStore.write(_:layer:basedOn:)`):
    /// written only if every alert they were computed from is still stored as read, else read and
    /// computed again. A raised alert is named by the first reading of its excursion (the readings
    /// beyond the threshold back to the last one that is not), so two servers evaluating readings of
    /// one excursion at once name one alert, and one of them writes it while the other finds it open.
    public func evaluate(_ change: SensingChange, ids: [Int64], by caller: Caller) async throws {
        var byStream = [Int64: [SensingObservation]]()
        for (i, o) in change.observations.enumerated() {
            var stored = o
            if i < ids.count { stored.id = ids[i] }
            byStream[o.datastream, default: []].append(stored)
        }
        for o in change.observationUpdates { byStream[o.datastream, default: []].append(o) }
        for (ds, readings) in byStream.sorted(by: { $0.key < $1.key }) {
            guard let stream = try await sensing.sensingEntity(.datastream, id: ds) else { continue }
            let thresholds = try await thresholds(of: stream)
            guard !thresholds.isEmpty else { continue }
            let batch = Set(readings.map(\.id))
            // A backfill (the newest stored reading is not of this batch) changes no alert.
            guard let newest = try await sensing.observations(ObservationRange(datastream: ds, order: .phenomenonTime, descending: true, limit: 1)).first,
                  batch.contains(newest.id) else { continue }
            try await SensingAlerts.ensureLayer(in: store)
            let sorted = readings.sorted { $0.phenomenonStart < $1.phenomenonStart }
            try await StoreError.retryingChangedVersions {
                try await raise(thresholds, stream: stream, readings: sorted, by: caller)
            }
            try await hydrantRule(stream, newest: newest)
        }
    }

    /// The pressure rule (`HydrantStatus.pressure`) after a pressure meter's alerts changed: the
    /// hydrant its device monitors is out of service while its newest reading is below 0.10 MPa
    /// (the status follows the standard's line; the `low-pressure` alert keeps its hysteresis).
    private func hydrantRule(_ stream: SensingEntity, newest: SensingObservation) async throws {
        guard let m = try await monitored(stream), m.symbol == "MPa", m.target.layer == HydrantStatus.layer else { return }
        guard let value = newest.result.doubleValue, value.isFinite else { return }
        let low = Thresholds.hydrantPressure[0].crossed(by: value)
        if let hydrants { try await hydrants.prime() }
        guard try await HydrantStatus.pressure(hydrant: m.target.id, low: low, reading: newest, stream: stream.id, in: store) else { return }
        try await hydrants?.catchUp()
    }

    /// Readings taken back or corrected (`readings`: each one's Datastream and phenomenonTime as it
    /// was): an open alert one of them raised ends (`cleared_at` now, `cleared_reason`
    /// "reading-withdrawn", no cleared value), and its Datastream's newest reading still held is
    /// evaluated again (with the one before it, for a rate), so the alerts say what the readings held
    /// now say: a corrected reading still beyond the threshold raises its alert again (the same
    /// feature, a new version), and an alert a withdrawn later reading had cleared opens again when
    /// the newest reading left is beyond it. Readings of a Datastream without thresholds, or of one
    /// that was deleted, change no alert.
    public func withdraw(_ readings: [SensingObservation], by caller: Caller) async throws {
        for (ds, taken) in Dictionary(grouping: readings, by: \.datastream).sorted(by: { $0.key < $1.key }) {
            guard let stream = try await sensing.sensingEntity(.datastream, id: ds) else { continue }
            let thresholds = try await thresholds(of: stream)
            guard !thresholds.isEmpty else { continue }
            try await SensingAlerts.ensureLayer(in: store)
            let times = Set(taken.map { SensingTime.format($0.phenomenonStart) })
            try await StoreError.retryingChangedVersions {
                let now = JSONValue.string(SensingTime.format(SensingTime.now))
                var ended = [Feature](), basis = [String: Feature?]()
                for alert in try await openAlerts(of: ds).values {
                    guard let raisedBy = alert.properties["phenomenonTime"]?.stringValue, times.contains(raisedBy), let id = alert.id?.description else { continue }
                    basis[id] = alert
                    var alert = alert
                    alert.properties["cleared_at"] = now
                    alert.properties["cleared_value"] = .null
                    alert.properties["cleared_phenomenonTime"] = .null
                    alert.properties["cleared_reason"] = "reading-withdrawn"
                    ended.append(alert)
                }
                guard !ended.isEmpty else { return }
                try await store.write(FeatureChanges(upserts: ended), layer: Self.layer, basedOn: basis, by: caller)
            }
            guard let newest = try await sensing.observations(ObservationRange(datastream: ds, order: .phenomenonTime, descending: true, limit: 1)).first else { continue }
            try await StoreError.retryingChangedVersions {
                try await raise(thresholds, stream: stream, readings: [newest], by: caller)
            }
            try await hydrantRule(stream, newest: newest)
        }
    }

    /// How many stored readings before a batch are read with it: the one before its first reading
    /// gives that reading's rate, and a raised alert looks back through them for the first reading
    /// of its excursion.
    static let lookBack = 16

    /// One compare-and-set step of a Datastream's alerts for `readings` (in phenomenonTime order,
    /// the newest stored among them): reads the readings before them and the open alerts, computes
    /// what the readings raise, lift and clear, and writes it based on the alerts as read.
    private func raise(_ thresholds: [Threshold], stream: SensingEntity, readings: [SensingObservation], by caller: Caller) async throws {
        let before = try await sensing.observations(ObservationRange(datastream: stream.id, to: readings[0].phenomenonStart, order: .phenomenonTime,
                                                                     descending: true, limit: Self.lookBack))
        let (alerts, basis) = try await apply(thresholds, stream: stream, readings: readings, history: before.reversed())
        guard !alerts.isEmpty else { return }
        try await store.write(FeatureChanges(upserts: alerts), layer: Self.layer, basedOn: basis, by: caller)
    }

    /// The Datastream's thresholds: its own (`properties.thresholds`), or those of the feature its
    /// Thing's device monitors when it has no level threshold of its own.
    private func thresholds(of stream: SensingEntity) async throws -> [Threshold] {
        var thresholds = Thresholds.parse(stream.body["properties"])
        if !thresholds.contains(where: { !$0.isRate }) { thresholds += try await gaugeThresholds(stream) }
        return thresholds
    }

    /// The open alerts of Datastream `ds`, by level.
    private func openAlerts(of ds: Int64) async throws -> [String: Feature] {
        let filter = try CQL2.parseText("datastream_id = \(ds) AND cleared_at IS NULL", queryables: nil)
        var open = [String: Feature]()
        for f in try await store.query(layer: Self.layer, FeatureQuery(filter: filter, limit: 1000), by: .admin).features {
            if let level = f.properties["level"]?.stringValue { open[level] = f }
        }
        return open
    }

    /// The levels of the feature a water-level Datastream (m) measures at, when its Thing names a
    /// device (`properties.iot_device`) monitoring it: a `river_gauges` feature's warning and
    /// guaranteed levels; on a `roads` feature (a ponding-prone road point) the road water depths
    /// of the flood nowcast, 15 cm warning and 30 cm danger. A pressure Datastream (MPa) on a
    /// `hydrants` feature: GB 50974's 0.10 MPa least outlet pressure (`low-pressure`).
    private func gaugeThresholds(_ stream: SensingEntity) async throws -> [Threshold] {
        guard let m = try await monitored(stream) else { return [] }
        let (symbol, target) = (m.symbol, m.target)
        switch (target.layer, symbol) {
        case ("hydrants", "MPa"?):
            return Thresholds.hydrantPressure
        case (_, "MPa"?):
            return []
        case ("river_gauges", _):
            guard let gauge = try await store.feature(layer: target.layer, id: target.id, by: .admin) else { return [] }
            return Thresholds.fromGauge(gauge)
        case ("roads", _):
            return Thresholds.roadDepth
        default:
            return []
        }
    }

    /// The unit (m or MPa) of a Datastream and the feature its Thing's device monitors, if both.
    private func monitored(_ stream: SensingEntity) async throws -> (symbol: String?, target: (layer: String, id: String))? {
        let symbol = stream.body["unitOfMeasurement"]?["symbol"]?.stringValue
        guard symbol == "m" || symbol == "MPa",
              let thingID = stream.link("Thing"), let thing = try await sensing.sensingEntity(.thing, id: thingID),
              let device = SensorFeatureLinks.device(of: thing),
              let target = try await SensorFeatureLinks(store: store, sensing: sensing).target(ofDevice: device) else { return nil }
        return (symbol, target)
    }

    /// The alerts `readings` (after `history`, the stored readings before them, both in
    /// phenomenonTime order) raise, lift or clear, each with the alert it was computed from as read
    /// (`nil`: none stored under its id).
    private func apply(_ thresholds: [Threshold], stream: SensingEntity, readings: [SensingObservation],
                       history: [SensingObservation]) async throws -> (alerts: [Feature], basis: [String: Feature?]) {
        let ds = stream.id
        let read = try await openAlerts(of: ds)
        var open = read
        let thing = try await stream.link("Thing").asyncMap { try await sensing.sensingEntity(.thing, id: $0) } ?? nil
        let place = try await placeOf(thing)
        let now = JSONValue.string(SensingTime.format(SensingTime.now))
        var changed = [String: Feature]()
        // Each reading's level and its change per hour since the reading before it.
        var series = [(time: Int64, level: Double, rate: Double?)]()
        for reading in history + readings {
            guard let level = reading.result.doubleValue, level.isFinite else { continue }
            let rate = series.last.flatMap { p in reading.phenomenonStart > p.time ? (level - p.level) / (Double(reading.phenomenonStart - p.time) / 3.6e9) : nil }
            series.append((reading.phenomenonStart, level, rate))
        }
        let first = series.firstIndex { $0.time >= readings[0].phenomenonStart } ?? series.count
        for index in first..<series.count {
            let when = JSONValue.string(SensingTime.format(series[index].time))
            for t in thresholds {
                func measured(_ i: Int) -> Double? { t.isRate ? series[i].rate : series[i].level }
                guard let value = measured(index) else { continue }
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
                    // Raised by the first reading of the excursion: back through the readings
                    // beyond the threshold to the last one that is not.
                    var start = index, peak = value
                    while start > 0, let earlier = measured(start - 1), t.crossed(by: earlier) {
                        start -= 1
                        if t.direction == .above ? earlier > peak : earlier < peak { peak = earlier }
                    }
                    let id = "\(ds)-\(t.level)-\(series[start].time / 1_000_000)"
                    let alert = Feature(id: .string(id), geometry: place, properties: [
                        "source": "threshold", "datastream_id": .integer(ds), "datastream": stream.body["name"] ?? .null,
                        "thing_id": thing.map { .integer($0.id) } ?? .null, "thing": thing?.body["name"] ?? .null,
                        "level": .string(t.level), "direction": .string(t.direction.rawValue), "threshold": .number(t.value),
                        "rate": .bool(t.isRate), "hysteresis": .number(t.hysteresis), "value": .number(measured(start)!), "peak": .number(peak),
                        "phenomenonTime": .string(SensingTime.format(series[start].time)),
                        "raised_at": now, "cleared_at": .null, "cleared_value": .null, "cleared_phenomenonTime": .null,
                    ])
                    open[t.level] = alert
                    changed[id] = alert
                }
            }
        }
        // What each change was computed from: the open alert as read, or what is stored under a new
        // alert's id (nothing, or the alert a withdrawn reading ended, raised again).
        let readByID = Dictionary(read.values.compactMap { f in f.id.map { ($0.description, f) } }, uniquingKeysWith: { a, _ in a })
        var basis = [String: Feature?]()
        for id in changed.keys {
            if let f = readByID[id] { basis[id] = f; continue }
            let stored = try await store.feature(layer: Self.layer, id: id, by: .admin)
            // Open now but not among the open alerts read: another server raised it meanwhile (its peak
            // may be past this one's). Compute again from it rather than write over it.
            if let stored, stored.properties["cleared_at"] ?? .null == .null {
                throw StoreError(.versionChanged, "alert \"\(id)\" was raised by another writer after the open alerts were read", layer: Self.layer, feature: id)
            }
            basis[id] = stored
        }
        return (changed.keys.sorted().map { changed[$0]! }, basis)
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

/// Subscribers of alert changes (`/alerts/events`). While anyone listens, one task follows the
/// store's journal of the `alerts` layer every `poll` and hands each subscriber every feature of `alerts` written
/// after it subscribed, whoever wrote it: the server's threshold monitor, or a flood nowcast run
/// by a job worker in another process. A heartbeat (`nil`) goes out every `heartbeat`, so a
/// subscriber whose connection went away is noticed and dropped even when no alert comes.
public final class AlertFeed: Sendable {
    private struct Subscriber {
        var continuation: AsyncStream<Feature?>.Continuation
        /// The change feed's sequence when it subscribed: it gets changes after it.
        var since: Int64
    }

    private struct State {
        var subscribers = [UUID: Subscriber]()
        var following: Task<Void, Never>?
    }

    private let state = Mutex(State())
    let store: any FeatureStore
    let heartbeat: Duration
    let poll: Duration

    public init(store: any FeatureStore, heartbeat: Duration = .seconds(15), poll: Duration = .milliseconds(200)) {
        self.store = store
        self.heartbeat = heartbeat
        self.poll = poll
    }

    /// Hands `alert`, written at change `sequence`, to those who subscribed before it.
    private func publish(_ alert: Feature, sequence: Int64) {
        state.withLock { for s in $0.subscribers.values where s.since < sequence { s.continuation.yield(alert) } }
    }

    private func beat() {
        state.withLock { for s in $0.subscribers.values { s.continuation.yield(nil) } }
    }

    /// A stream of alert changes and heartbeats from now on, ended when the consumer stops (the
    /// connection closes).
    public func subscribe() async throws -> AsyncStream<Feature?> {
        let start = try await store.latestChange()
        let id = UUID()
        let (stream, continuation) = AsyncStream<Feature?>.makeStream(bufferingPolicy: .bufferingNewest(1000))
        continuation.onTermination = { [weak self] _ in self?.unsubscribe(id) }
        state.withLock { s in
            s.subscribers[id] = Subscriber(continuation: continuation, since: start)
            if s.following == nil {
                s.following = Task { [weak self] in await self?.follow(from: start) }
            }
        }
        return stream
    }

    /// Walks the change feed from `sequence` until cancelled, publishing every alert written.
    private func follow(from sequence: Int64) async {
        var since = sequence
        var next = ContinuousClock.now + heartbeat
        while !Task.isCancelled {
            try? await Task.sleep(for: poll)
            do {
                // The alerts layer's own entries: a page of other layers' changes (a flood run's
                // result layers, written by a worker this process has not seen create them) must
                // not hold the cursor back.
                while true {
                    let entries = try await store.auditLog(layer: SensingAlerts.layer, after: since, limit: 1000, by: .admin)
                    guard let last = entries.last else { break }
                    // The newest change of each alert in this page: its current version is what is sent.
                    var newest = [String: Int64]()
                    for e in entries where e.kind != .delete { newest[e.featureID] = e.sequence }
                    for (fid, seq) in newest.sorted(by: { $0.value < $1.value }) {
                        if let f = try await store.feature(layer: SensingAlerts.layer, id: fid, by: .admin) { publish(f, sequence: seq) }
                    }
                    since = last.sequence
                }
            } catch let e as StoreError where e.code == .layerNotFound {
                // The alerts layer was made by another process (a job worker): learn its definition.
                try? await SensingAlerts.ensureLayer(in: store)
            } catch {
                // A store that fails now is asked again at the next poll, from the same place.
            }
            if ContinuousClock.now >= next {
                next = ContinuousClock.now + heartbeat
                beat()
            }
        }
    }

    private func unsubscribe(_ id: UUID) {
        state.withLock { s in
            s.subscribers[id] = nil
            if s.subscribers.isEmpty {
                s.following?.cancel()
                s.following = nil
            }
        }
    }

    public var subscriberCount: Int { state.withLock { $0.subscribers.count } }
}
