import Foundation
import GeoCore
import TwinStore

/// One subscriber's walk along the store's change feed: pages of change events after a cursor,
/// each with the feature as the caller may read it now. The store filters the feed by the
/// caller's access (no event of a layer the caller may not read leaves it), and features are read
/// through the store's masked read path, so a masked attribute never leaves either.
///
/// An insert or update event carries the feature as it is when the event is read, not as it was
/// at the change: a follower applying the events in order may skip intermediate states, but holds
/// exactly the store's features once it has caught up (every change is followed by an event read
/// after it). When the feature has been deleted since, `feature` is null and a delete follows.
struct ChangeSubscription: Sendable {
    let store: any FeatureStore
    let caller: Caller
    /// The layers followed; `nil`: every layer the caller may read.
    let layers: Set<String>?
    /// Change-feed rows read per page.
    var pageSize = 500

    /// One change as it is sent.
    struct Message: Sendable, Equatable {
        let event: ChangeEvent
        /// The feature (CRS84, GeoJSON) for insert and update; `nil` for delete and for a
        /// feature deleted since.
        let feature: Feature?
        /// The layer's conditions when it holds a what-if's results (a scenario's): the event says so.
        var conditions: LayerConditions? = nil
    }

    /// One page: the messages after `cursor` and where the next page starts. `more` says the
    /// page was full (read again at once).
    func page(after cursor: Int64) async throws -> (messages: [Message], cursor: Int64, more: Bool) {
        // Read before the feed: every row up to `latest` is committed (sequences follow commit
        // order), so when the page comes back empty the cursor may move over the rows it skipped.
        let latest = try await store.latestChange()
        let events = try await store.changes(since: cursor, limit: pageSize, by: caller)
        guard let last = events.last else {
            // The first `pageSize` rows after the cursor hold no event the caller may read, so
            // neither do the rows up to cursor + pageSize (sequences are distinct integers).
            let next = max(cursor, min(cursor + Int64(pageSize), latest))
            return ([], next, next < latest)
        }
        let followed = layers.map { wanted in events.filter { wanted.contains($0.layer) } } ?? events
        var current = [String: [String: Feature?]]()
        for e in followed where e.kind != .delete && current[e.layer]?[e.featureID] == nil {
            current[e.layer, default: [:]][e.featureID] = .some(try await feature(layer: e.layer, id: e.featureID))
        }
        var conditions = [String: LayerConditions?]()
        for layer in Set(followed.map(\.layer)) {
            conditions[layer] = .some(try await store.layerDefinition(layer, for: caller)?.conditions)
        }
        let messages = followed.map { e in
            Message(event: e, feature: e.kind == .delete ? nil : current[e.layer]?[e.featureID] ?? nil, conditions: conditions[e.layer] ?? nil)
        }
        return (messages, last.sequence, events.count == pageSize)
    }

    private func feature(layer: String, id: String) async throws -> Feature? {
        do {
            return try await store.feature(layer: layer, id: id, by: caller)
        } catch let error as StoreError where error.code == .layerNotFound {
            return nil  // the layer was dropped or hidden since the event
        }
    }

    /// The Server-Sent Events message of one change: `id` the sequence (what a client resumes
    /// after with `Last-Event-ID`), `event` the kind, `data` one line of JSON.
    static func eventText(_ m: Message) -> String {
        let e = m.event
        var fields: [String: JSONValue] = [
            "sequence": .integer(e.sequence), "collection": .string(e.layer), "id": .string(e.featureID),
            "kind": .string(e.kind.rawValue), "at": .string(e.at.formatted(HistoryRoutes.instantFormat)),
        ]
        if let conditions = m.conditions {  // a what-if's results: never a change to the city as it stands
            fields["whatIf"] = .bool(conditions.isWhatIf)
            fields["conditions"] = conditions.document
        }
        // The feature written as the collection's items are in CRS84 (7 decimals), so a
        // follower's copy compares equal to what /items answers.
        let feature = m.feature.map { GeoJSON.encodeBytes(.feature($0), options: GeoJSONWriteOptions(precision: 7, rightHandRule: true)) } ?? Array("null".utf8)
        let text = "{" + String(decoding: JSONText.members(fields), as: UTF8.self) + ",\"feature\":" + String(decoding: feature, as: UTF8.self) + "}"
        return "id: \(e.sequence)\nevent: \(e.kind.rawValue)\ndata: \(text)\n\n"
    }

    /// A `position` message: the stream has passed every change up to `sequence`.
    static func positionText(_ sequence: Int64) -> String {
        "id: \(sequence)\nevent: position\ndata: {\"sequence\":\(sequence)}\n\n"
    }
}
