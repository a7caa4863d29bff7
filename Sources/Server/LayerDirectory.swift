import Foundation
import TwinStore

/// The layer definitions the server validates parameters against (schema, temporal property,
/// geometry), refreshed from the store on a miss and on every `/collections` read, so a layer
/// created while the server runs is served without a restart. Access is still decided per
/// caller with `AccessPolicy`, and the store re-checks it on every read.
final class LayerDirectory: @unchecked Sendable {
    private let store: any FeatureStore
    private let lock = NSLock()
    private var infos: [String: LayerInfo] = [:]

    init(store: any FeatureStore) { self.store = store }

    /// Replaces the cached entries with `infos` (read by an admin caller: every layer).
    func remember(_ list: [LayerInfo]) {
        lock.lock(); defer { lock.unlock() }
        for info in list { infos[info.definition.id] = info }
    }

    /// The layer `caller` may read; `collection-not-found` for a missing or secret layer (a
    /// secret layer looks missing), and for a layer whose existence is public but which the
    /// caller may not read, the refusal saying who may (`AccessPolicy.readRefusal`: 401 for an
    /// anonymous caller, who needs a token).
    func layer(_ id: String, for caller: Caller) async throws -> LayerInfo {
        var info = cached(id)
        // On a miss, the cheap definition lookup first: only a layer that exists (created while
        // the server runs) is worth the catalogue refresh, which computes every extent and count.
        if info == nil, try await store.layerDefinition(id, for: .admin) != nil {
            remember(try await store.layers(for: .admin))
            info = cached(id)
        }
        guard let info else { throw Problem(.collectionNotFound, "no collection '\(id)'") }
        if let refusal = AccessPolicy.readRefusal(info.definition, caller, reading: "this collection") { throw refusal }
        return info
    }

    /// The definition of a layer `caller` may read, straight from the store (no extent or count
    /// scan); else the refusal or `collection-not-found`, as `layer(_:for:)`.
    func definition(_ id: String, for caller: Caller) async throws -> LayerDefinition {
        if let definition = try await store.layerDefinition(id, for: caller) { return definition }
        if let hidden = try await store.layerDefinition(id, for: .admin),
           let refusal = AccessPolicy.readRefusal(hidden, caller, reading: "this collection") {
            throw refusal
        }
        throw Problem(.collectionNotFound, "no collection '\(id)'")
    }

    private func cached(_ id: String) -> LayerInfo? {
        lock.lock(); defer { lock.unlock() }
        return infos[id]
    }
}
