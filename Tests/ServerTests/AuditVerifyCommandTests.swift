import Foundation
import GeoCore
import Testing
import TestSupport
import TwinStore

/// `citytwin audit verify` on both backends (issue 21 §4): intact after real writes, and a
/// tampered row (edited with SQL behind the store's back) is found and named, exit status 1.
@Suite("citytwin audit verify: the audit hash chain on SpatiaLite and PostGIS", .serialized, .temporaryDirectories)
struct AuditVerifyCommandTests {
    @Test("SpatiaLite: intact after writes; an edited audit row is named")
    func spatiaLite() async throws {
        let directory = try TemporaryDirectory.forTestCase("citytwin-audit")
        let path = directory.appending("city.sqlite").path
        let store = try directory.openStore()
        try await Self.fill(store)
        try await Self.expectIntact(path)
        _ = try await SQLiteShell.run(path, "UPDATE audit_log SET actor = '冒名' WHERE seq = 2")
        try await Self.expectBroken(path, at: 2)
    }

    @Test("PostGIS: intact after writes; an edited audit row is named",
          .enabled(if: OutageHarness.enabled, "needs PostgreSQL (CITYTWIN_TEST_POSTGRES_URL, as Scripts/test.sh sets)"))
    func postGIS() async throws {
        try await PrivatePostgres.with { pg in
            let store = try await PostGISStore.connect(url: pg.url, connectionWait: .seconds(60))
            try await Self.fill(store)
            await store.shutdown()
            try await Self.expectIntact(pg.url)
            _ = try await psqlValue(pg.url, "UPDATE citytwin.audit_log SET fid = 's99' WHERE seq = 3")
            try await Self.expectBroken(pg.url, at: 3)
        }
    }

    @Test("SpatiaLite: entries deleted from the end of the log are found by the store's head, and by a head recorded outside the store")
    func spatiaLiteTruncation() async throws {
        let directory = try TemporaryDirectory.forTestCase("citytwin-audit")
        let path = directory.appending("city.sqlite").path
        let store = try directory.openStore()
        try await Self.fill(store)
        let recorded = try await Self.expectIntact(path)
        _ = try await SQLiteShell.run(path, "DELETE FROM audit_log WHERE seq > (SELECT max(seq) - 2 FROM audit_log)")
        try await Self.expectTruncated(path)
        // Written again after the cut: the chain goes on from the shorter log, the head still counts the lost entries.
        try await store.delete(layer: "shelters", ids: ["s03"], by: ServerFixture.owner, at: nil)
        try await Self.expectTruncated(path)
        // The head rewritten too: only the head recorded earlier, outside the store, tells.
        _ = try await SQLiteShell.run(path, """
            UPDATE audit_head SET entries = (SELECT count(*) FROM audit_log), last_seq = (SELECT max(seq) FROM audit_log),
                last_hash = (SELECT entry_hash FROM audit_log ORDER BY seq DESC LIMIT 1)
            """)
        try await Self.expectIntact(path, ["--log-only"])
        try await Self.expectTruncated(path, expecting: recorded)
        // The stored versions still tell: the versions the cut entries wrote are in no entry now.
        try await Self.expectDataTampered(path, features: ["s01", "s02"])
    }

    @Test("PostGIS: entries deleted from the end of the log are found by the store's head, and by a head recorded outside the store",
          .enabled(if: OutageHarness.enabled, "needs PostgreSQL (CITYTWIN_TEST_POSTGRES_URL, as Scripts/test.sh sets)"))
    func postGISTruncation() async throws {
        try await PrivatePostgres.with { pg in
            let store = try await PostGISStore.connect(url: pg.url, connectionWait: .seconds(60))
            try await Self.fill(store)
            let recorded = try await Self.expectIntact(pg.url)
            _ = try await psqlValue(pg.url, "DELETE FROM citytwin.audit_log WHERE seq > (SELECT max(seq) - 2 FROM citytwin.audit_log)")
            try await Self.expectTruncated(pg.url)
            try await store.delete(layer: "shelters", ids: ["s03"], by: ServerFixture.owner, at: nil)
            await store.shutdown()
            try await Self.expectTruncated(pg.url)
            _ = try await psqlValue(pg.url, """
                UPDATE citytwin.audit_head SET entries = (SELECT count(*) FROM citytwin.audit_log),
                    last_seq = (SELECT max(seq) FROM citytwin.audit_log),
                    last_hash = (SELECT entry_hash FROM citytwin.audit_log ORDER BY seq DESC LIMIT 1)
                """)
            try await Self.expectIntact(pg.url, ["--log-only"])
            try await Self.expectTruncated(pg.url, expecting: recorded)
            try await Self.expectDataTampered(pg.url, features: ["s01", "s02"])
        }
    }

    static func expectTruncated(_ store: String, expecting head: [String] = []) async throws {
        let run = try await verify(store, head)
        #expect(run.exitStatus == 1, "an audit log cut short passed: \(run.output)")
        #expect(run.output.contains("audit log truncated"), "\(run.output)")
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

    /// Expects an intact log; the head it printed, as arguments for a later verify.
    @discardableResult
    static func expectIntact(_ store: String, _ arguments: [String] = [], environment: [String: String?] = [:],
                             sourceLocation: SourceLocation = #_sourceLocation) async throws -> [String] {
        let run = try await verify(store, arguments, environment: environment)
        #expect(run.exitStatus == 0, "\(run.output)", sourceLocation: sourceLocation)
        #expect(run.output.contains("audit log intact"), "\(run.output)", sourceLocation: sourceLocation)
        if !arguments.contains("--log-only") {
            #expect(run.output.contains("stored data intact"), "\(run.output)", sourceLocation: sourceLocation)
        }
        let line = try #require(run.output.split(separator: "\n").first { $0.hasPrefix("head: ") }, sourceLocation: sourceLocation)
        return line.dropFirst("head: ".count).split(separator: " ").map(String.init)
    }

    /// Expects `audit verify` to name each of `features` of `layer` as not what the log records, without a
    /// trace of the stored data.
    static func expectDataTampered(_ store: String, layer: String = "shelters", features: [String], _ arguments: [String] = [],
                                   environment: [String: String?] = [:], sourceLocation: SourceLocation = #_sourceLocation) async throws {
        let run = try await verify(store, arguments, environment: environment)
        #expect(run.exitStatus == 1, "tampered versions passed: \(run.output)", sourceLocation: sourceLocation)
        #expect(run.output.contains("stored data tampered"), "\(run.output)", sourceLocation: sourceLocation)
        for feature in features {
            #expect(run.output.contains("layer \(layer), feature \(feature):"), "\(feature) not named: \(run.output)", sourceLocation: sourceLocation)
        }
        for data in ["987654", "避难所", "13812345678", "张三", "冒名"] {
            #expect(!run.output.contains(data), "the verify printed stored data '\(data)': \(run.output)", sourceLocation: sourceLocation)
        }
    }

    static func expectBroken(_ store: String, at seq: Int, environment: [String: String?] = [:],
                             sourceLocation: SourceLocation = #_sourceLocation) async throws {
        let run = try await verify(store, environment: environment)
        #expect(run.exitStatus == 1, "a tampered audit log passed: \(run.output)", sourceLocation: sourceLocation)
        #expect(run.output.contains("entry \(seq) does not follow"), "\(run.output)", sourceLocation: sourceLocation)
    }

    static func verify(_ store: String, _ arguments: [String] = [], environment: [String: String?] = [:]) async throws -> CommandProcess {
        try await CommandProcess.run(try OutageHarness.binary(), ["audit", "verify", "--store", store] + arguments,
                                     environment: environment, within: 120)
    }
}
