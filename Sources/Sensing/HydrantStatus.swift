import Foundation
import GeoCore
import QueryLanguage
import TwinStore

/// Hydrants live (issue 54 §3): a hydrant's stored `status` follows its pressure meter, and a
/// hydrant out of service, by whatever path, is an open alert.
///
/// - The pressure rule (`pressure(hydrant:…)`, run by `AlertMonitor` in the request that wrote the
///   reading, after its `low-pressure` alert was raised or cleared): when the meter's newest reading
///   is below GB 50974 §7.2.8's 0.10 MPa, a hydrant 完好 is set 待维修 with
///   `status_source` "pressure-rule", `status_reason` (the reading, its time, the standard) and
///   `status_observation` (the Observation's `@iot.id`); a reading at or above 0.10 MPa makes a hydrant whose
///   status the rule set 完好 again (`status_source` and the rest null). A hydrant a person set
///   待维修 (any other `status_source`) is never revived by a reading. The write is the store's
///   ordinary versioned, audited write, by the layer's owner department with the user
///   `system:hydrant-pressure-rule Observation(n)`, so the audit log names the rule and the reading.
/// - The out-of-service alerts (`catchUp`): the hydrants' journal is followed; a hydrant whose
///   status is not 完好 has one open alert (`source` hydrant-status, `level` hydrant-out-of-service,
///   at the hydrant, `resource_id`, `status`, `reason`), named by the journal entry that took it
///   out of service, so two servers following one store write one alert; back to 完好 (or
///   deleted) ends it (`cleared_at`, `cleared_reason` returned-to-service or hydrant-deleted).
///   Runs after every write to the hydrants layer through the API and after the pressure rule,
///   and every second while the server runs (writes of other processes: imports, a second server).
public actor HydrantStatus {
    public static let layer = "hydrants"
    public static let working = "完好"
    public static let notWorking = "待维修"
    /// `status_source` of a status the pressure rule set.
    public static let pressureRule = "pressure-rule"
    public static let alertLevel = "hydrant-out-of-service"
    public static let alertSource = "hydrant-status"

    public nonisolated let store: any FeatureStore
    /// The last journal sequence of the hydrants layer whose changes were followed (nil: not yet primed).
    private var seen: Int64?

    public init(store: any FeatureStore) {
        self.store = store
    }

    /// The caller of a system write: the owner department of `layer`, the user naming the rule.
    static func system(_ owner: String, _ what: String) -> Caller {
        .department(name: owner, role: .editor, user: "system:\(what)")
    }

    /// Starts following the journal from now, if not yet following: call it before a write whose
    /// changes must be followed (the first write a process sees).
    public func prime() async throws {
        if seen == nil { seen = try await store.latestChange() }
    }

    /// Follows the hydrants' journal since the last call, raising and ending out-of-service alerts
    /// of every hydrant changed; the number of hydrants looked at. Without a hydrants layer, or
    /// without the IoT register the alerts follow, nothing happens.
    @discardableResult
    public func catchUp() async throws -> Int {
        guard let since = seen else { try await prime(); return 0 }
        guard try await store.layerDefinition(Self.layer, for: .admin) != nil,
              try await store.layerDefinition(SensingAlerts.governingLayer, for: .admin) != nil else { return 0 }
        var cursor = since, looked = 0
        while true {
            let entries = try await store.auditLog(layer: Self.layer, after: cursor, limit: 1000, by: .admin)
            guard let last = entries.last else { break }
            var newest = [String: Int64]()
            for e in entries { newest[e.featureID] = e.sequence }
            try await reconcile(newest.sorted(by: { $0.value < $1.value }).map { ($0.key, $0.value) })
            looked += newest.count
            cursor = last.sequence
        }
        seen = cursor
        return looked
    }

    /// Follows the journal every `poll` until cancelled (the server's background follower); a
    /// failing store is asked again at the next poll.
    public func follow(poll: Duration = .seconds(1)) async {
        while !Task.isCancelled {
            _ = try? await catchUp()
            try? await Task.sleep(for: poll)
        }
    }

    /// The open out-of-service alert of hydrant `fid`, if any.
    nonisolated func openAlert(_ fid: String) async throws -> Feature? {
        let quoted = fid.replacingOccurrences(of: "'", with: "''")
        let filter = try CQL2.parseText("level = '\(Self.alertLevel)' AND resource_id = '\(quoted)' AND cleared_at IS NULL", queryables: nil)
        return try await store.query(layer: SensingAlerts.layer, FeatureQuery(filter: filter, limit: 10), by: .admin).features.first
    }

    /// Each hydrant (id, its newest journal entry) reconciled, again while another writer got there first.
    private nonisolated func reconcile(_ hydrants: [(String, Int64)]) async throws {
        for (fid, seq) in hydrants {
            try await StoreError.retryingChangedVersions { try await reconcile(fid, sequence: seq) }
        }
    }

    /// One compare-and-set step for hydrant `fid` as stored now, its newest journal entry `sequence`.
    private nonisolated func reconcile(_ fid: String, sequence: Int64) async throws {
        let hydrant = try await store.feature(layer: Self.layer, id: fid, by: .admin)
        let status = hydrant?.properties["status"]?.stringValue
        let alerts = try await store.layerDefinition(SensingAlerts.layer, for: .admin)
        let open = alerts == nil ? nil : try await openAlert(fid)
        let now = JSONValue.string(SensingTime.format(SensingTime.now))
        var write: Feature, basis: Feature?
        if let hydrant, status != Self.working {
            let reason = hydrant.properties["status_reason"]?.stringValue ?? "status \(status ?? "unknown") set by a person"
            if var open {
                // Still out: the reason follows the feature (a person confirming what the rule set).
                guard open.properties["reason"]?.stringValue != reason || open.properties["status"]?.stringValue != status else { return }
                basis = open
                open.properties["reason"] = .string(reason)
                open.properties["status"] = status.map(JSONValue.string) ?? .null
                write = open
            } else {
                if alerts == nil { try await SensingAlerts.ensureLayer(in: store) }  // the first alert of this store
                let id = "\(Self.layer)-\(fid)-out-of-service-\(sequence)"
                basis = try await store.feature(layer: SensingAlerts.layer, id: id, by: .admin)
                guard basis == nil else { return }  // raised already (another server), perhaps ended since
                write = Feature(id: .string(id), geometry: hydrant.geometry, properties: [
                    "source": .string(Self.alertSource), "level": .string(Self.alertLevel),
                    "resource_layer": .string(Self.layer), "resource_id": .string(fid), "name": hydrant.properties["road"] ?? .null,
                    "status": status.map(JSONValue.string) ?? .null, "status_source": hydrant.properties["status_source"] ?? .null,
                    "reason": .string(reason), "phenomenonTime": .null, "value": .null,
                    // No reading raised it; the members clients index threshold alerts by are there, null.
                    "datastream_id": .null, "datastream": .null, "thing_id": .null, "thing": .null,
                    "raised_at": now, "cleared_at": .null, "cleared_reason": .null,
                ])
            }
        } else if var open {
            basis = open
            open.properties["cleared_at"] = now
            open.properties["cleared_reason"] = .string(hydrant == nil ? "hydrant-deleted" : "returned-to-service")
            write = open
        } else {
            return
        }
        try await SensingAlerts.ensureLayer(in: store)
        let owner = try await store.layerDefinition(SensingAlerts.layer, for: .admin)?.owner ?? ""
        try await store.write(FeatureChanges(upserts: [write]), layer: SensingAlerts.layer, basedOn: [write.id!.description: basis],
                              by: Self.system(owner, "hydrant-out-of-service-alerts"))
    }

    /// The pressure rule for hydrant `fid` after its meter's reading `reading` (Datastream `stream`):
    /// `low` says whether the reading is below the standard's minimum. True when the status changed.
    @discardableResult
    public static func pressure(hydrant fid: String, low: Bool, reading: SensingObservation, stream: Int64,
                                in store: any FeatureStore) async throws -> Bool {
        guard let def = try await store.layerDefinition(layer, for: .admin) else { return false }
        return try await StoreError.retryingChangedVersions {
            guard let hydrant = try await store.feature(layer: layer, id: fid, by: .admin) else { return false }
            var changed = hydrant
            let status = hydrant.properties["status"]?.stringValue
            let bySensor = hydrant.properties["status_source"]?.stringValue == pressureRule
            if low, status == working {
                let value = reading.result.doubleValue.map { "\($0)" } ?? "\(reading.result)"
                changed.properties["status"] = .string(notWorking)
                changed.properties["status_source"] = .string(pressureRule)
                changed.properties["status_reason"] = .string(
                    "pressure \(value) MPa at \(SensingTime.format(reading.phenomenonStart)), below GB 50974's 0.10 MPa (Datastream \(stream), Observation \(reading.id))")
                changed.properties["status_observation"] = .integer(reading.id)
            } else if !low, bySensor, status != working {
                changed.properties["status"] = .string(working)
                changed.properties["status_source"] = .null
                changed.properties["status_reason"] = .null
                changed.properties["status_observation"] = .null
            } else {
                return false
            }
            try await store.write(FeatureChanges(upserts: [changed]), layer: layer, basedOn: [fid: hydrant],
                                  by: system(def.owner, "hydrant-pressure-rule Observation(\(reading.id))"))
            return true
        }
    }
}
