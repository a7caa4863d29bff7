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

    /// Replaces the cached entries with `infos` (read by an admin caller: every layer), so a
    /// layer removed from the store leaves the cache too.
    func remember(_ list: [LayerInfo]) {
        lock.lock(); defer { lock.unlock() }
        infos = Dictionary(list.map { ($0.definition.id, $0) }, uniquingKeysWith: { _, last in last })
    }

    /// The layer `caller` may read; `collection-not-found` for a missing or secret layer (a
    /// secret layer looks missing), and for a layer whose existence is public but which the
    /// caller may not read, the refusal saying who may (`AccessPolicy.readRefusal`: 401 for an
    /// anonymous caller, who needs a token).
    func layer(_ id: String, for caller: Caller) async throws -> LayerInfo {
        // The store's definition decides (a layer dropped, or its sharing changed, while the server
        // runs: a published or archived flood run); the cheap lookup first, and the catalogue
        // refresh (every layer's stored count and extent) only when the cache misses or is stale.
        guard let current = try await store.layerDefinition(id, for: .admin) else {
            throw Problem(.collectionNotFound, "no collection '\(id)'")
        }
        var info = cached(id)
        if info?.definition != current {
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

    /// The definition of layer `id` if `caller` may read it; else the refusal that says why
    /// (`AccessPolicy.readRefusal`), or collection-not-found for a layer the store lacks.
    func readable(_ id: String, caller: Caller, reading what: String) async throws -> LayerDefinition {
        guard let definition = try await store.layerDefinition(id, for: .admin) else {
            throw Problem(.collectionNotFound, "no collection '\(id)'")
        }
        if let refusal = AccessPolicy.readRefusal(definition, caller, reading: what) { throw refusal }
        return definition
    }

    private func cached(_ id: String) -> LayerInfo? {
        lock.lock(); defer { lock.unlock() }
        return infos[id]
    }
}
