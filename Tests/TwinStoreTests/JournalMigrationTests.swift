import Foundation
import GeoCore
import GRDB
import PostgresNIO
import Testing
@testable import TwinStore

/// Stores written before the audit log carried the change boxes had a separate `change_feed`
/// table. Opening one moves the boxes into the audit entries and drops the table: the change
/// feed, the audit log and its hash chain read the same as before.
@Suite("Journal: audit entries and change events in one row, older stores migrated", .dropsTestSchemas)
struct JournalMigrationTests {
    /// A new store with a history (an insert, an update that moves a point, a second insert,
    /// a delete), and its change feed and audit log as they read then.
    static func storeWithHistory(_ backend: StoreBackend) async throws
        -> (store: any FeatureStore, events: [ChangeEvent], audit: [AuditEntry]) {
        let store = try await backend.makeStore()
        try await store.insert(layer: "shelters", features: [Fixtures.shelter("s1", 114.3, 30.5, name: "a")],
                               by: Fixtures.emergency, at: Fixtures.t0)
        try await store.upsert(layer: "shelters", features: [Fixtures.shelter("s1", 114.35, 30.5, name: "b")],
                               by: Fixtures.emergency, at: Fixtures.t1)
        try await store.insert(layer: "shelters", features: [Fixtures.shelter("s2", 114.4, 30.6, name: "c")],
                               by: Fixtures.emergency, at: Fixtures.t1)
        try await store.delete(layer: "shelters", ids: ["s1"], by: Fixtures.emergency, at: Fixtures.t2)
        return (store, try await store.changes(since: 0, limit: 100, by: .admin),
                try await store.auditLog(layer: "shelters", after: 0, limit: 100, by: .admin))
    }

    /// Rewrites a store's journal in the older layout: the boxes in `change_feed` (its own
    /// sequence, as an older store numbered its events), dropped from `audit_log`.
    static let boxes = JournalSQL.boxColumns.joined(separator: ", ")
    static let olderLayout = [
        "CREATE TABLE change_feed AS SELECT seq + 1000 AS seq, layer, fid, action AS kind, at, \(boxes) FROM audit_log",
    ] + JournalSQL.boxColumns.map { "ALTER TABLE audit_log DROP COLUMN \($0)" }

    static func chainIsIntact(_ store: any FeatureStore) async throws -> Bool {
        switch store {
        case let s as SpatiaLiteStore: try await s.verifyAuditChain(by: .admin)
        case let s as PostGISStore: try await s.verifyAuditChain(by: .admin)
        default: false
        }
    }

    @Test(arguments: StoreBackend.available)
    func openingAnOlderStoreKeepsItsChangesAuditLogAndChain(backend: StoreBackend) async throws {
        let (store, events, audit) = try await Self.storeWithHistory(backend)
        #expect(events.count == 4 && audit.count == 4)
        #expect(events.map(\.sequence) == audit.map(\.sequence))
        #expect(events[1].envelopeBefore == Envelope(minX: 114.3, minY: 30.5, maxX: 114.3, maxY: 30.5))

        let reopened: any FeatureStore
        switch backend {
        case .spatiaLite:
            let sqlite = try #require(store as? SpatiaLiteStore)
            try await sqlite.pool.writeWithoutTransaction { db in
                for statement in Self.olderLayout { try db.execute(sql: statement) }
                #expect(try db.tableExists("change_feed"))
            }
            let path = sqlite.pool.path
            // Two processes (here: two pools) opening the older store at once: one merges, the
            // other waits and finds nothing left to merge.
            async let first = Task.detached { try SpatiaLiteStore(path: path, auditKey: .key(StoreBackend.auditKey)) }.value
            async let second = Task.detached { try SpatiaLiteStore(path: path, auditKey: .key(StoreBackend.auditKey)) }.value
            reopened = try await first
            _ = try await second
            let tables = try await (reopened as! SpatiaLiteStore).pool.read { db in try db.tableExists("change_feed") }
            #expect(!tables)
        case .postGIS:
            let pg = try #require(store as? PostGISStore)
            for statement in Self.olderLayout {
                let qualified = statement.replacingOccurrences(of: "TABLE change_feed", with: "TABLE \(pg.schema).change_feed")
                    .replacingOccurrences(of: "FROM audit_log", with: "FROM \(pg.schema).audit_log")
                    .replacingOccurrences(of: "TABLE audit_log", with: "TABLE \(pg.schema).audit_log")
                try await pg.client.query(PostgresQuery(unsafeSQL: qualified))
            }
            reopened = try await pg.store(inSchema: pg.schema)
            var exists = true
            for try await e in try await pg.client.query("SELECT to_regclass(\(pg.schema + ".change_feed")) IS NOT NULL").decode(Bool.self) {
                exists = e
            }
            #expect(!exists)
        }
        #expect(try await reopened.changes(since: 0, limit: 100, by: .admin) == events)
        #expect(try await reopened.auditLog(layer: "shelters", after: 0, limit: 100, by: .admin) == audit)
        #expect(try await Self.chainIsIntact(reopened))
        #expect(try await reopened.latestChange() == events.last?.sequence)
        // Writes after the migration continue the sequence and the chain.
        try await reopened.insert(layer: "shelters", features: [Fixtures.shelter("s3", 114.5, 30.5, name: "d")],
                                  by: Fixtures.emergency, at: Fixtures.t3)
        let next = try await reopened.changes(since: events.last?.sequence ?? 0, limit: 100, by: .admin)
        #expect(next.map(\.featureID) == ["s3"])
        #expect(next.first?.envelopeAfter == Envelope(minX: 114.5, minY: 30.5, maxX: 114.5, maxY: 30.5))
        #expect(try await Self.chainIsIntact(reopened))
    }

    @Test(arguments: StoreBackend.available)
    func oneJournalRowPerChangeServesBothViews(backend: StoreBackend) async throws {
        let (_, events, audit) = try await Self.storeWithHistory(backend)
        #expect(events.map(\.sequence) == audit.map(\.sequence))
        #expect(events.map(\.featureID) == audit.map(\.featureID))
        #expect(events.map(\.kind) == audit.map(\.kind))
        #expect(events.map(\.at) == audit.map(\.at))
        // A delete has no box after; an insert none before.
        #expect(events[0].envelopeBefore == nil && events[0].envelopeAfter != nil)
        #expect(events[3].envelopeBefore != nil && events[3].envelopeAfter == nil)
    }
}
