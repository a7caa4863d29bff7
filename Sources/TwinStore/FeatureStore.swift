import Foundation
import GeoCore

/// The one-map store: layers of time-versioned features with a catalogue, access rules, an
/// audit log and a change feed. Two backends implement it with the same behaviour:
/// `SpatiaLiteStore` (embedded, the default) and a PostGIS store.
///
/// Every call names its `Caller`; sharing class, negative list and masking are applied here,
/// so nothing downstream can leak a hidden layer or attribute. Writes are transactions: a
/// batch lands whole or not at all, with one version row, one audit entry and one change
/// event per feature.
public protocol FeatureStore: Sendable {
    /// Creates the tables of a layer (idempotent when the same definition exists; a changed
    /// definition replaces the catalogue entry).
    func createLayer(_ definition: LayerDefinition) async throws

    /// The catalogue entries `caller` may see, with the count and extent the catalogue keeps
    /// (`LayerStats`: no layer is read; after removals at its edge on a layer of more than
    /// 50,000 features the extent may be larger than the features', never smaller).
    func layers(for caller: Caller) async throws -> [LayerInfo]

    /// The definition of one layer if `caller` may read it, else `nil` (a hidden layer is
    /// indistinguishable from a missing one). Cheap: no extent or count scan.
    func layerDefinition(_ id: String, for caller: Caller) async throws -> LayerDefinition?

    /// The current version of one feature as `caller` may see it (masked); `nil` when the
    /// feature does not exist or was deleted. Throws `layerNotFound` for a layer `caller` may not read.
    func feature(layer: String, id: String, by caller: Caller) async throws -> Feature?

    /// Inserts new features (an id is generated for features without one). An existing id fails the batch.
    /// - Parameter at: the instant the versions become valid; `nil` is now.
    func insert(layer: String, features: [Feature], by caller: Caller, at: Date?) async throws

    /// Inserts or replaces features by id; unchanged content writes nothing.
    func upsert(layer: String, features: [Feature], by caller: Caller, at: Date?) async throws

    /// Ends the current versions of the given features. An unknown id fails the batch.
    func delete(layer: String, ids: [String], by caller: Caller, at: Date?) async throws

    /// The current version of each feature of `ids` that has one (ids without one are left
    /// out): the token a conditional `write` expects. Read it *before* the features a write is
    /// computed from, so a version read is never newer than the content read after it
    /// (`update(layer:reading:by:at:_:)` does this). Throws `layerNotFound` for a layer `caller`
    /// may not read.
    func currentVersions(layer: String, ids: [String], by caller: Caller) async throws -> [String: Int64]

    /// A conditional write, the store-level compare-and-set: upserts `features` and ends `ids` in
    /// ONE transaction, provided each feature `expecting` names is still at the version given
    /// when the transaction reads it, under the store's write lock. Otherwise nothing is written and
    /// it throws `versionChanged` naming the feature. It holds across processes: several
    /// `citytwin serve` on one PostGIS database, or a server and the CLI on one SpatiaLite file.
    func write(layer: String, upserting features: [Feature], deleting ids: [String],
               expecting: [String: ExpectedVersion], by caller: Caller, at: Date?) async throws

    /// Makes `features` the layer's current features in ONE transaction at one instant: each is
    /// upserted by id (an unchanged one writes nothing; one without an id is inserted) and every
    /// other current feature is ended. A reader sees the old set or the new one, never an emptied
    /// or half-written layer, and a failure leaves the old set. The one way to rewrite a layer
    /// whole: a flood run's result layers, `citytwin import --mode replace`.
    func replace(layer: String, with features: [Feature], by caller: Caller, at: Date?) async throws

    /// One page of features in a stable order.
    func query(layer: String, _ query: FeatureQuery, by caller: Caller) async throws -> FeaturePage

    /// The exact number of features matching `query` (its `limit`, `after` and `sortBy` are ignored).
    func count(layer: String, _ query: FeatureQuery, by caller: Caller) async throws -> Int

    /// Every feature matching `query`, read in bounded chunks of `query.limit` (never the
    /// whole layer in memory); the stream pulls the next chunk when the consumer asks.
    func stream(layer: String, _ query: FeatureQuery, by caller: Caller) -> AsyncThrowingStream<Feature, any Error>

    /// Every version of one feature, oldest first.
    func history(layer: String, featureID: String, by caller: Caller) async throws -> [FeatureVersion]

    /// Features added, removed and changed between two instants.
    func diff(layer: String, from: Date, to: Date, by caller: Caller) async throws -> LayerDiff

    /// Audit entries of a layer after `sequence` (owner department and admin only).
    func auditLog(layer: String, after sequence: Int64, limit: Int, by caller: Caller) async throws -> [AuditEntry]

    /// Change events after `sequence` on layers `caller` may read, in sequence order.
    func changes(since sequence: Int64, limit: Int, by caller: Caller) async throws -> [ChangeEvent]

    /// The sequence number of the newest change event of any layer (0 when there is none):
    /// where a subscriber that starts with nothing cached begins following the feed. Reveals
    /// no layer, feature or time, so it needs no caller.
    func latestChange() async throws -> Int64

    /// Brings the database's planner statistics up to date after a bulk load (PostgreSQL's
    /// `ANALYZE` of every table of the store), so the queries right after it are planned on the
    /// tables' real sizes. Without it, PostgreSQL plans on no statistics until autovacuum gets
    /// there: on a city of 6 M features the layer list took 15 s a call for the first minutes, and
    /// requests waiting for a connection answered 503. Does nothing where the store keeps none.
    func refreshStatistics() async throws
}

/// What a conditional write (`FeatureStore.write(layer:upserting:deleting:expecting:by:at:)`)
/// expects of a feature when its transaction reads it.
public enum ExpectedVersion: Sendable, Hashable {
    /// No current version: never written, or ended.
    case absent
    /// This current version (from `currentVersions`).
    case version(Int64)
}

/// The upserts and deletions one read-modify-write computes (`FeatureStore.update`).
public struct FeatureChanges: Sendable {
    public var upserts: [Feature]
    public var deletions: [String]

    public init(upserts: [Feature] = [], deletions: [String] = []) {
        self.upserts = upserts
        self.deletions = deletions
    }

    public var isEmpty: Bool { upserts.isEmpty && deletions.isEmpty }
}

extension FeatureStore {
    /// SQLite's planner here reads no statistics the store would have to keep (its index choice is the store's own).
    public func refreshStatistics() async throws {}

    /// A read-modify-write of features `ids` of `layer` that no other writer of the store can
    /// interleave with, in this process or another: reads their current versions, then lets
    /// `change` read whatever it needs and compute the write, and writes it expecting those
    /// versions (an id without one: still absent). When another writer changed one of them in
    /// between, nothing is written and the whole step runs again on what is stored now (so a
    /// merge keeps the other writer's change), up to `attempts` times; then `versionChanged`.
    /// A `change` that computes nothing writes nothing. Returns what `change` returns with the write.
    public func update<T: Sendable>(layer: String, reading ids: [String], by caller: Caller, at: Date? = nil, attempts: Int = 8,
                                    _ change: () async throws -> (changes: FeatureChanges, result: T)) async throws -> T {
        try await StoreError.retryingChangedVersions(attempts: attempts) {
            let versions = try await currentVersions(layer: layer, ids: ids, by: caller)
            let (changes, result) = try await change()
            guard !changes.isEmpty else { return result }
            var expecting: [String: ExpectedVersion] = [:]
            for id in ids { expecting[id] = versions[id].map(ExpectedVersion.version) ?? .absent }
            try await write(layer: layer, upserting: changes.upserts, deleting: changes.deletions,
                            expecting: expecting, by: caller, at: at)
            return result
        }
    }

    /// Writes `changes` computed earlier from `basis` (each feature as it was read then; `nil`: it
    /// was absent), provided each is still stored as read: its current version is read, then its
    /// content compared with the basis, and the write expects that version. Otherwise nothing is
    /// written and it throws `versionChanged` (compute again from what is stored now). For a
    /// computation whose reads do not fit `update`.
    public func write(_ changes: FeatureChanges, layer: String, basedOn basis: [String: Feature?], by caller: Caller, at: Date? = nil) async throws {
        let ids = basis.keys.sorted()
        let versions = try await currentVersions(layer: layer, ids: ids, by: caller)
        var expecting: [String: ExpectedVersion] = [:]
        for id in ids {
            guard try await feature(layer: layer, id: id, by: caller) == basis[id] ?? nil else {
                throw StoreError(.versionChanged, "feature \"\(id)\" was written by another writer after it was read", layer: layer, feature: id)
            }
            expecting[id] = versions[id].map(ExpectedVersion.version) ?? .absent
        }
        try await write(layer: layer, upserting: changes.upserts, deleting: changes.deletions, expecting: expecting, by: caller, at: at)
    }
}
