import Foundation
import GeoCore
import GRDB
import PostgresNIO
import Testing
@testable import TwinStore

/// The catalogue's count and extent of each layer (`LayerStats`, issue 57 §3): kept by every
/// write in its transaction on both backends, so that the layer list reads no layer, and equal
/// to what a scan of the layer finds.
@Suite("The catalogue keeps each layer's count and extent", .dropsTestSchemas)
struct LayerStatsTests {
    /// The count and extent of the current features of `layer` as a scan of every feature finds them.
    static func scanned(_ store: any FeatureStore, _ layer: String = "shelters") async throws -> (Int, Envelope?) {
        let features = try await Fixtures.allPages(store, layer, FeatureQuery(limit: 1000), by: .admin)
        var extent: Envelope?
        for f in features {
            guard let e = f.geometry?.envelope else { continue }
            if extent == nil { extent = e } else { extent?.expand(toInclude: e) }
        }
        return (features.count, extent)
    }

    static func listed(_ store: any FeatureStore, _ layer: String = "shelters") async throws -> LayerInfo {
        try #require(try await store.layers(for: .admin).first { $0.definition.id == layer })
    }

    static func expectMatchesScan(_ store: any FeatureStore, _ what: String, sourceLocation: SourceLocation = #_sourceLocation) async throws {
        let info = try await listed(store)
        let (count, extent) = try await scanned(store)
        #expect(info.count == count, "\(what): count", sourceLocation: sourceLocation)
        #expect(info.extent == extent, "\(what): extent", sourceLocation: sourceLocation)
    }

    @Test(arguments: StoreBackend.available)
    func everyKindOfWriteKeepsTheNumbers(backend: StoreBackend) async throws {
        let store = try await backend.makeStore()
        try await store.insert(layer: "shelters", features: [
            Fixtures.shelter("a", 114.30, 30.50, name: "a"), Fixtures.shelter("b", 114.40, 30.60, name: "b"),
            Fixtures.shelter("c", 114.35, 30.55, name: "c"),
        ], by: Fixtures.emergency, at: Fixtures.t0)
        try await Self.expectMatchesScan(store, "insert")
        #expect(try await Self.listed(store).count == 3)
        // A move outwards grows the extent; a move of the edge feature inwards shrinks it.
        try await store.upsert(layer: "shelters", features: [Fixtures.shelter("c", 114.50, 30.55, name: "c")], by: Fixtures.emergency, at: Fixtures.t1)
        try await Self.expectMatchesScan(store, "an update moving a feature out")
        try await store.upsert(layer: "shelters", features: [Fixtures.shelter("c", 114.35, 30.52, name: "c")], by: Fixtures.emergency, at: Fixtures.t1)
        try await Self.expectMatchesScan(store, "an update moving the edge feature in")
        #expect(try await Self.listed(store).extent == Envelope(minX: 114.30, minY: 30.50, maxX: 114.40, maxY: 30.60))
        // Deleting the feature at the edge; a conditional write; a batch naming a feature twice.
        try await store.delete(layer: "shelters", ids: ["b"], by: Fixtures.emergency, at: Fixtures.t1)
        try await Self.expectMatchesScan(store, "a delete at the edge")
        try await store.write(layer: "shelters", upserting: [Fixtures.shelter("d", 114.20, 30.40, name: "d")], deleting: ["a"],
                              expecting: ["a": .version(try #require(try await store.currentVersions(layer: "shelters", ids: ["a"], by: .admin)["a"]))],
                              by: Fixtures.emergency, at: Fixtures.t1)
        try await Self.expectMatchesScan(store, "a conditional write")
        try await store.upsert(layer: "shelters", features: [Fixtures.shelter("e", 114.6, 30.7, name: "e"), Fixtures.shelter("e", 114.1, 30.7, name: "e2")],
                               by: Fixtures.emergency, at: Fixtures.t2)
        try await Self.expectMatchesScan(store, "a batch writing one feature twice")
        #expect(try await Self.listed(store).count == 3)
        // A failed batch changes nothing.
        await #expect(throws: StoreError.self) {
            try await store.insert(layer: "shelters", features: [Fixtures.shelter("f", 120, 40, name: "f"), Fixtures.shelter("d", 114, 30, name: "d")],
                                   by: Fixtures.emergency, at: Fixtures.t2)
        }
        try await Self.expectMatchesScan(store, "a failed insert")
        // Replace, then a bulk insert, then everything deleted.
        try await store.replace(layer: "shelters", with: [Fixtures.shelter("r", 114.45, 30.45, name: "r")], by: Fixtures.emergency, at: Fixtures.t2)
        try await Self.expectMatchesScan(store, "replace")
        let bulk = try #require(store as? any BulkFeatureLoading)
        let n = try await bulk.insert(layer: "shelters", chunks: BulkInsertTests.reader(BulkInsertTests.shelters(0..<25), size: 7),
                                      by: Fixtures.emergency, at: Fixtures.t2)
        #expect(n == 25)
        try await Self.expectMatchesScan(store, "a bulk insert")
        #expect(try await Self.listed(store).count == 26)
        let all = Fixtures.ids(try await Fixtures.allPages(store, "shelters", FeatureQuery(limit: 1000), by: .admin))
        try await store.delete(layer: "shelters", ids: all, by: Fixtures.emergency, at: Fixtures.t2)
        let empty = try await Self.listed(store)
        #expect(empty.count == 0 && empty.extent == nil)
    }

    @Test(arguments: StoreBackend.available)
    func aDroppedAndRecreatedLayerStartsEmpty(backend: StoreBackend) async throws {
        let store = try await backend.makeStore()
        try await store.insert(layer: "shelters", features: [Fixtures.shelter("a", 114.30, 30.50, name: "a")], by: Fixtures.emergency, at: Fixtures.t0)
        let removal = try #require(store as? any LayerRemoval)
        #expect(try await removal.dropLayer("shelters", by: .admin))
        try await store.createLayer(try Fixtures.shelters)
        let info = try await Self.listed(store)
        #expect(info.count == 0 && info.extent == nil)
    }

    /// A store written before the catalogue kept the numbers (no rows, or a loose extent) gets
    /// them when it is opened.
    @Test("after a bulk load the planner's statistics are refreshed: every table of the store analysed (PostGIS), nothing to do on SpatiaLite",
          arguments: StoreBackend.available)
    func statisticsAfterABulkLoad(backend: StoreBackend) async throws {
        let store = try await backend.makeStore()
        try await store.insert(layer: "shelters", features: BulkInsertTests.shelters(0..<300), by: Fixtures.emergency, at: Fixtures.t0)
        try await store.refreshStatistics()
        guard let s = store as? PostGISStore else { return }
        var unanalysed: [String] = []
        for try await t in try await s.client.query("SELECT relname FROM pg_stat_user_tables WHERE schemaname = \(s.schema) AND last_analyze IS NULL")
            .decode(String.self) { unanalysed.append(t) }
        #expect(unanalysed.isEmpty, "tables never analysed: \(unanalysed)")
        var audited = 0.0
        for try await n in try await s.client.query("SELECT reltuples::float8 FROM pg_class WHERE oid = to_regclass(\(s.schema + ".audit_log"))")
            .decode(Double.self) { audited = n }
        #expect(audited >= 300, "the audit log's planner estimate is \(audited) rows")
    }

    @Test(arguments: StoreBackend.available)
    func aStoreFromBeforeGetsItsNumbersAtOpen(backend: StoreBackend) async throws {
        let store = try await backend.makeStore()
        try await store.insert(layer: "shelters", features: BulkInsertTests.shelters(0..<30), by: Fixtures.emergency, at: Fixtures.t0)
        let reopened: any FeatureStore
        switch store {
        case let s as SpatiaLiteStore:
            let path = s.pool.path
            try await s.pool.write { db in
                try db.execute(sql: "DELETE FROM layer_stats WHERE layer = 'shelters'")
                try db.execute(sql: "UPDATE layer_stats SET features = 99, min_x = 0, loose = 1")
            }
            try s.close()
            reopened = try SpatiaLiteStore(path: path, auditKey: .key(StoreBackend.auditKey))
        case let s as PostGISStore:
            _ = try await s.client.query(PostgresQuery(unsafeSQL: "DELETE FROM \(s.schema).layer_stats WHERE layer = 'shelters'"))
            _ = try await s.client.query(PostgresQuery(unsafeSQL: "UPDATE \(s.schema).layer_stats SET features = 99, min_x = 0, loose = 1"))
            reopened = try await s.store(inSchema: s.schema)
        default:
            throw StoreError(.backend, "not a SQL store")
        }
        #expect(try await Self.listed(reopened).count == 30)
        try await Self.expectMatchesScan(reopened, "a store from before")
        // The loose rows were tightened too: every other layer is empty again.
        for other in try await reopened.layers(for: .admin) where other.definition.id != "shelters" {
            #expect(other.count == 0 && other.extent == nil, "\(other.definition.id)")
        }
    }

    @Test func aRemovalAtTheEdgeOfALargeLayerLeavesTheExtentLooseNeverTooSmall() {
        let stored = LayerStats(count: LayerStats.exactLimit + 10, extent: Envelope(minX: 0, minY: 0, maxX: 10, maxY: 10))
        var change = LayerStatsChange(added: -1, grown: nil)
        change.removed = [Envelope(minX: 10, minY: 5, maxX: 10, maxY: 5)]
        let next = LayerStatsSQL.next(stored: stored, change: change)
        #expect(next == LayerStats(count: LayerStats.exactLimit + 9, extent: stored.extent, loose: true))
        // On a small layer the extent is computed again (nil: from the layer).
        #expect(LayerStatsSQL.next(stored: LayerStats(count: 10, extent: stored.extent), change: change) == nil)
        // Inside the extent, nothing to compute; growing keeps the rest.
        change.removed = [Envelope(minX: 5, minY: 5, maxX: 5, maxY: 5)]
        change.grown = Envelope(minX: -1, minY: 2, maxX: 3, maxY: 4)
        #expect(LayerStatsSQL.next(stored: LayerStats(count: 10, extent: stored.extent), change: change)
                == LayerStats(count: 9, extent: Envelope(minX: -1, minY: 0, maxX: 10, maxY: 10)))
        // The last feature gone: empty, whatever the size.
        #expect(LayerStatsSQL.next(stored: LayerStats(count: 1, extent: stored.extent), change: LayerStatsChange(added: -1, grown: nil))
                == LayerStats(count: 0, extent: nil))
    }
}
