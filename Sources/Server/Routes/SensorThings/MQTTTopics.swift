import Foundation
import GeoCore
import TwinStore

/// A SensorThings MQTT topic (STA 1.1 §14, as FROST-Server serves them): the resource path below the
/// service root after `v1.1/`, and for subscriptions the query options `$select` and `$expand`:
/// `v1.1/Datastreams(2)/Observations`, `v1.1/Things?$select=name`, `v1.1/Things(1)`, `v1.1/Things(1)/name`.
struct STATopic: Sendable {
    static let prefix = "v1.1/"
    /// The options a subscription may carry: what shapes the message, not what selects entities.
    static let subscriptionOptions: Set<String> = ["$select", "$expand"]

    let path: STAPath
    let options: STAQueryOptions
    let hasOptions: Bool

    /// - Throws: a `Problem` saying what is wrong with the topic.
    init(_ topic: String, optionsAllowed: Bool) throws {
        guard topic.hasPrefix(Self.prefix) else {
            throw Problem(.notFound, "a SensorThings topic starts with '\(Self.prefix)' (the version), e.g. v1.1/Datastreams(2)/Observations")
        }
        let rest = topic.dropFirst(Self.prefix.count)
        let parts = rest.split(separator: "?", maxSplits: 1, omittingEmptySubsequences: false)
        path = try STAPath(parts[0])
        guard !path.segments.isEmpty else { throw Problem(.notFound, "the topic names no entity set") }
        if path.segments.contains(.ref) || path.segments.contains(.value) {
            throw Problem(.notFound, "$ref and $value are not MQTT topics")
        }
        let query = parts.count > 1 ? try QueryParameters(String(parts[1])) : try QueryParameters(nil)
        hasOptions = !query.pairs.isEmpty
        if hasOptions, !optionsAllowed { throw Problem(.invalidParameter, "this topic takes no query options") }
        for (name, _) in query.pairs where !Self.subscriptionOptions.contains(name) {
            throw Problem(.invalidParameter, "an MQTT subscription takes \(Self.subscriptionOptions.sorted().joined(separator: " and ")) only, not \(name)",
                          parameter: name)
        }
        options = try STAQueryOptions(query: query)
    }
}

/// What one write changed, as subscribers are told of it: created entities (entity-set topics) and
/// updated ones with the properties whose value changed (entity and property topics).
struct STAChangeEvent: Sendable {
    var created: [(SensingKind, Int64)] = []
    var updated: [(SensingKind, Int64, changed: Set<String>)] = []

    var isEmpty: Bool { created.isEmpty && updated.isEmpty }

    /// From a committed change; `observationIDs`: the stored ids of `change.observations`, in order.
    init(_ change: SensingChange, observationIDs: [Int64]) {
        for e in change.inserts { created.append((e.kind, e.id)) }
        // A re-sent reading keeps the id it was first stored under, not the one reserved for it: nothing
        // was created, so nothing is told (a QoS 1 gateway re-sending after a lost PUBACK is not news).
        for (i, o) in change.observations.enumerated() where i >= observationIDs.count || observationIDs[i] == o.id {
            created.append((.observation, o.id))
        }
        for e in change.updates {
            let before = change.basis[e.id]?.body ?? [:]
            let names = Set(before.keys).union(e.body.keys).filter { before[$0] != e.body[$0] }
            updated.append((e.kind, e.id, names))
        }
        for o in change.observationUpdates {
            let before = change.observationBasis[o.id].map { STARow($0).json } ?? [:]
            let after = STARow(o).json
            updated.append((.observation, o.id, Set(before.keys).union(after.keys).filter { before[$0] != after[$0] }))
        }
    }
}
