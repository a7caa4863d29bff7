import Foundation
import GeoCore
import TwinStore

/// One subscriber's walk along the store's change feed: pages of change events after a cursor,
/// each with the feature as the caller may read it now. No event of a layer the caller may not
/// read leaves it (`AccessPolicy.canRead`, the rule the store's `changes(since:limit:by:)` filters
/// by), and features are read through the store's masked read path, so a masked attribute never
/// leaves either.
///
/// The feed is read as the admin and sorted here, once for every subscriber of one access class
/// (`ChangeFeedWatch` reads each change once for all of them, `read(_:for:…)`): so that the stream
/// also knows which of the changes it does not carry it may speak of. A `position` (the stream has
/// passed every change up to it) only ever names a change of a layer the caller may know exists
/// (one it may read, or one whose existence is public); a change of a layer secret to the caller
/// (not shared, or on the negative list, `AccessPolicy.isSecret`) moves no position and sends no
/// event, so neither when nor how often such a layer is written shows in the stream (issue 78 §16).
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

    /// One page: the messages after a cursor, where the next page starts (`cursor`: past every row
    /// read, whatever its layer), the newest change of the page the caller may know of (`position`,
    /// `nil` when there is none), and whether the page was full (`more`: read again at once).
    struct Page: Sendable {
        let messages: [Message]
        let cursor: Int64
        let position: Int64?
        let more: Bool
    }

    /// The page after `cursor`.
    func page(after cursor: Int64) async throws -> Page {
        // Read before the feed: every row up to `latest` is committed (sequences follow commit
        // order), so when the page comes back empty the cursor may move over the rows it skipped.
        let latest = try await store.latestChange()
        let rows = try await store.changes(since: cursor, limit: pageSize, by: .admin)
        guard let last = rows.last else {
            // The first `pageSize` rows after the cursor hold no change of data (sandbox queries),
            // so neither do the rows up to cursor + pageSize (sequences are distinct integers).
            let next = max(cursor, min(cursor + Int64(pageSize), latest))
            return Page(messages: [], cursor: next, position: nil, more: next < latest)
        }
        let read = try await Self.read(rows, for: caller, definitions: try await Self.definitions(of: rows, in: store), store: store)
        let messages = read.messages.filter { layers?.contains($0.event.layer) ?? true }
        return Page(messages: messages, cursor: last.sequence, position: read.position, more: rows.count == pageSize)
    }

    /// The definitions (read as the admin) of the layers `rows` name; a layer dropped since has none.
    static func definitions(of rows: [ChangeEvent], in store: any FeatureStore) async throws -> [String: LayerDefinition] {
        var out = [String: LayerDefinition]()
        for layer in Set(rows.map(\.layer)) {
            if let definition = try await store.layerDefinition(layer, for: .admin) { out[layer] = definition }
        }
        return out
    }

    /// What `caller` gets of `rows` (read as the admin): the events of layers it may read, each with
    /// the feature as it may read it now, and the newest row of a layer it may know exists (readable,
    /// or not secret: `AccessPolicy.isSecret`). A row of a layer dropped since counts as secret.
    static func read(_ rows: [ChangeEvent], for caller: Caller, definitions: [String: LayerDefinition],
                     store: any FeatureStore) async throws -> (messages: [Message], position: Int64?) {
        var readable = [ChangeEvent]()
        var position: Int64?
        for row in rows {
            guard let definition = definitions[row.layer] else { continue }
            let may = AccessPolicy.canRead(definition, caller)
            if may { readable.append(row) }
            if may || !AccessPolicy.isSecret(definition) { position = row.sequence }
        }
        var current = [String: [String: Feature?]]()
        for e in readable where e.kind != .delete && current[e.layer]?[e.featureID] == nil {
            current[e.layer, default: [:]][e.featureID] = .some(try await feature(layer: e.layer, id: e.featureID, caller: caller, store: store))
        }
        let messages = readable.map { e in
            Message(event: e, feature: e.kind == .delete ? nil : current[e.layer]?[e.featureID] ?? nil,
                    conditions: definitions[e.layer]?.conditions)
        }
        return (messages, position)
    }

    private static func feature(layer: String, id: String, caller: Caller, store: any FeatureStore) async throws -> Feature? {
        do {
            return try await store.feature(layer: layer, id: id, by: caller)
        } catch let error as StoreError where error.code == .layerNotFound {
            return nil  // the layer was dropped or hidden since the event
        }
    }

    /// The newest change `caller` may know of: the last change of each layer it may read or whose
    /// existence is public (`LayerInfo.lastChange`, the catalogue's index lookups), where a stream
    /// without `since` or `Last-Event-ID` starts. Not the feed's newest sequence, which a write to
    /// a layer secret to the caller moves too. Never later than the feed's end, so a follower that
    /// starts here and loads the items misses nothing (it may be sent again changes its items
    /// already hold, which leave them as they are).
    static func newestKnown(to caller: Caller, in store: any FeatureStore) async throws -> Int64 {
        try await store.layers(for: .admin)
            .filter { AccessPolicy.canRead($0.definition, caller) || !AccessPolicy.isSecret($0.definition) }
            .map(\.lastChange).max() ?? 0
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
