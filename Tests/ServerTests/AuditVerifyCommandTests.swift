import Foundation
import GeoCore
import Testing
import TwinStore

/// `citytwin audit verify` on both backends (issue 21 §4): intact after real writes, and a
/// tampered row (edited with SQL behind the store's back) is found and named, exit status 1.
@Suite("citytwin audit verify: the audit hash chain on SpatiaLite and PostGIS", .serialized)
struct AuditVerifyCommandTests {
    @Test("SpatiaLite: intact after writes; an edited audit row is named")
    func spatiaLite() async throws {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("citytwin-audit-\(UUID().uuidString).sqlite").path
        defer { for suffix in ["", "-wal", "-shm", ".token-secret"] { try? FileManager.default.removeItem(atPath: path + suffix) } }
        let store = try SpatiaLiteStore(path: path)
        try await Self.fill(store)
        try await Self.expectIntact(path)
        try Self.sqlite(path, "UPDATE audit_log SET actor = '冒名' WHERE seq = 2")
        try await Self.expectBroken(path, at: 2)
    }

    @Test("PostGIS: intact after writes; an edited audit row is named",
          .enabled(if: OutageHarness.enabled, "needs PostgreSQL (CITYTWIN_TEST_POSTGRES_URL, as Scripts/test.sh sets)"))
    func postGIS() async throws {
        let pg = try await PrivatePostgres.start()
        defer { pg.remove() }
        let store = try await PostGISStore.connect(url: pg.url)
        try await Self.fill(store)
        await store.shutdown()
        try await Self.expectIntact(pg.url)
        _ = try psqlValue(pg.url, "UPDATE citytwin.audit_log SET fid = 's99' WHERE seq = 3")
        try await Self.expectBroken(pg.url, at: 3)
    }

    /// The fixture's shelters inserted, one updated, one deleted: audit entries of every kind.
    static func fill(_ store: any FeatureStore) async throws {
        try await store.createLayer(try JSONDecoder().decode(LayerDefinition.self, from: Data(ServerFixture.sheltersJSON.utf8)))
        try await store.insert(layer: "shelters", features: ServerFixture.shelters, by: ServerFixture.owner, at: nil)
        try await store.upsert(layer: "shelters", features: [Feature(id: .string("s01"), geometry: .point(x: 114.311, y: 30.6),
                                                                     properties: ["name": "改名", "capacity": 120])],
                               by: ServerFixture.owner, at: nil)
        try await store.delete(layer: "shelters", ids: ["s02"], by: ServerFixture.owner, at: nil)
    }

    static func expectIntact(_ store: String) async throws {
        let run = try await verify(store)
        #expect(run.exitStatus == 0, "\(run.output)")
        #expect(run.output.contains("audit log intact"), "\(run.output)")
    }

    static func expectBroken(_ store: String, at seq: Int) async throws {
        let run = try await verify(store)
        #expect(run.exitStatus == 1, "a tampered audit log passed: \(run.output)")
        #expect(run.output.contains("entry \(seq) does not follow"), "\(run.output)")
    }

    static func verify(_ store: String) async throws -> CommandProcess {
        let run = try CommandProcess(try OutageHarness.binary(), ["audit", "verify", "--store", store], baseURL: nil)
        guard await run.waitForExit(within: 60) else {
            run.kill()
            throw HarnessFailure("citytwin audit verify did not finish")
        }
        return run
    }

    static func sqlite(_ path: String, _ sql: String) throws {
        let p = Process()
        p.executableURL = URL(fileURLWithPath: "/usr/bin/sqlite3")
        p.arguments = [path, sql]
        try p.run()
        p.waitUntilExit()
        guard p.terminationStatus == 0 else { throw HarnessFailure("sqlite3 \(sql): exit \(p.terminationStatus)") }
    }
}
