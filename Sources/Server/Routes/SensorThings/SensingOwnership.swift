import Foundation
import GeoCore
import TwinStore

/// 共建 for the SensorThings API (issue 54 §1): when the governing layer (`iot_devices`) is
/// co-built, a contributing department's editors register their own Things, Locations,
/// Datastreams, Sensors, ObservedProperties and FeaturesOfInterest (stamped with their department
/// in `properties.owner_department`) and write only their own entities and the Observations of
/// their own Datastreams; the owner department's editors and the admin write everything. An
/// entity without the property belongs to the owner. A HistoricalLocation is its Thing's.
/// Writing another department into `owner_department` is a forged ownership: refused (403) and
/// audited in the governing layer's log (kind `refused`); only the owner's editors or the admin
/// transfer an entity. Callers that are no contributor (the traffic-count feed's senders) are left
/// to their own rules.
enum SensingOwnership {
    /// Checks `change` against the co-built rules of `governing` and stamps its new entities;
    /// nothing for a layer that is not co-built.
    /// - Throws: `StoreError` `.forbidden` (field `owner_department` for a forged ownership, audited).
    static func apply(_ change: inout SensingChange, governing layer: LayerDefinition, store: any SensingStore) async throws {
        guard let co = layer.coBuilt else { return }
        let caller = change.caller
        let everything = caller == .admin || caller.departmentName == layer.owner
        guard let writer = everything ? (caller.departmentName ?? layer.owner) : caller.departmentName,
              everything || co.admits(writer, owner: layer.owner) else { return }
        var owners: [Int64: String] = [:]
        func owner(_ kind: SensingKind, _ id: Int64) async throws -> String {
            if id < 0 { return writer }  // new in this change
            if let known = owners[id] { return known }
            var found = layer.owner
            if let e = try await store.sensingEntity(kind, id: id) {
                if kind == .historicalLocation, let thing = e.link("Thing") {
                    found = try await owner(.thing, thing)
                } else {
                    found = department(of: e) ?? layer.owner
                }
            }
            owners[id] = found
            return found
        }
        func refuse(_ what: String, _ why: String, forged: Bool) async throws -> Never {
            let e = StoreError(.forbidden, "\(what) \(why)", layer: layer.id, field: forged ? CoBuilding.property : nil)
            if forged, let journal = store as? any AccessJournal {
                try await journal.recordAccess(layer: change.auditLayer, subject: "refused SensorThings write of \(what): forged \(CoBuilding.property)",
                                               detail: e.message, kind: .refused, by: caller)
            }
            throw e
        }
        for i in change.inserts.indices {
            let e = change.inserts[i]
            guard e.kind != .historicalLocation else { continue }
            let declared = department(of: e)
            if let declared, declared != writer, !everything {
                try await refuse("a new \(e.kind.rawValue)", "would be registered by \(writer) in the name of \(declared)", forged: true)
            }
            if declared == nil { stamp(&change.inserts[i], writer) }
        }
        for i in change.updates.indices {
            let e = change.updates[i]
            let stored = try await owner(e.kind, e.id)
            if !everything && stored != writer {
                try await refuse("\(e.kind.rawValue) \(e.id)", "belongs to \(stored): \(writer)'s editors write only their own", forged: false)
            }
            let declared = department(of: e)
            if let declared, declared != stored, !everything {
                try await refuse("\(e.kind.rawValue) \(e.id)", "belongs to \(stored); only \(layer.owner)'s editors or the admin transfer it", forged: true)
            }
            if declared == nil && e.kind != .historicalLocation && stored != layer.owner { stamp(&change.updates[i], stored) }
        }
        guard !everything else { return }
        for (kind, id) in change.deletes {
            let stored = try await owner(kind, id)
            if stored != writer {
                try await refuse("\(kind.rawValue) \(id)", "belongs to \(stored): \(writer)'s editors delete only their own", forged: false)
            }
        }
        var streams = Set((change.observations + change.observationUpdates).map(\.datastream))
        for id in change.observationDeletes {
            if let o = try await store.observation(id: id) { streams.insert(o.datastream) }
        }
        for id in streams.sorted() {
            let stored = try await owner(.datastream, id)
            if stored != writer {
                try await refuse("Observations of Datastream \(id)", "belong to \(stored): \(writer)'s editors write the readings of their own Datastreams", forged: false)
            }
        }
    }

    /// The department an entity records (`properties.owner_department`), if any.
    static func department(of e: SensingEntity) -> String? {
        e.body["properties"]?.objectValue?[CoBuilding.property]?.stringValue
    }

    private static func stamp(_ e: inout SensingEntity, _ department: String) {
        var properties = e.body["properties"]?.objectValue ?? [:]
        properties[CoBuilding.property] = .string(department)
        e.body["properties"] = .object(properties)
    }
}
