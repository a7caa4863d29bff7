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

    /// The catalogue entries `caller` may see, with computed extent and count.
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
}
