import Foundation
import GeoCore
import Testing
import TestSupport
import TwinStore

/// `citytwin audit verify` against the data and with a keyed chain (issue 78 §11): a feature
/// version edited, added or removed with SQL behind the store's back is named by layer and feature
/// (never its data), also against a head recorded outside the store; a log rewritten with its
/// unkeyed SHA-256 hashes recomputed (what anyone who can write the database could do before the
/// chain was keyed) is found; a store from before keys is keyed from its head by `audit key`, and
/// what was written before that point is still held to it.
@Suite("citytwin audit verify: stored versions against the log, and the keyed chain", .serialized, .temporaryDirectories)
struct AuditDataVerifyTests {
    typealias Audit = AuditVerifyCommandTests

    /// A store filled by `AuditVerifyCommandTests.fill`, closed, as a base each case copies
    /// (the store file and its audit key).
    static func base(_ directory: TemporaryDirectory, _ name: String = "base.sqlite",
                     auditKey: AuditKeySource = .automatic) async throws -> String {
        let path = directory.appending(name).path
        let store = try SpatiaLiteStore(path: path, auditKey: auditKey)
        try await Audit.fill(store)
        try store.close()
        return path
    }

    /// A copy of the store at `base` (and of its audit key) named `name`.
    static func copy(_ base: String, _ name: String, in directory: TemporaryDirectory) throws -> String {
        let path = directory.appending(name).path
        try FileManager.default.copyItem(atPath: base, toPath: path)
        if FileManager.default.fileExists(atPath: base + AuditKey.fileSuffix) {
            try FileManager.default.copyItem(atPath: base + AuditKey.fileSuffix, toPath: path + AuditKey.fileSuffix)
        }
        return path
    }

    /// The sqlite3 shell with SpatiaLite loaded (the layer tables' geometry triggers call it).
    static func spatialSQL(_ file: String, _ sql: String) async throws {
        let shell = try await CommandProcess.run("/usr/bin/sqlite3", ["-batch", "-cmd", ".load mod_spatialite", file, sql],
                                                 separateErrors: true, within: 120)
        guard shell.exitStatus == 0 else { throw HarnessFailure("sqlite3 \(sql): exit \(shell.exitStatus): \(shell.errors)") }
    }

    @Test("SpatiaLite: a version edited (current or historic), added, removed or given another validity in the database is named, also with --expect-entries/--expect-hash")
    func spatiaLiteVersions() async throws {
        let directory = try TemporaryDirectory.forTestCase("citytwin-audit-data")
        let base = try await Self.base(directory)
        #expect(FileManager.default.fileExists(atPath: base + AuditKey.fileSuffix), "a new store gets its audit key beside it")
        let recorded = try await Audit.expectIntact(base)
        let cases: [(String, [String], String)] = [
            // The attack of the finding: a current value changed in place (here capacity; residents 4 → 99 there).
            ("UPDATE f_shelters SET props = json_set(props, '$.capacity', 987654) WHERE fid = 's00' AND valid_to IS NULL", ["s00"], "edited"),
            // The hash column kept in step does not help: the content is hashed again.
            ("UPDATE f_shelters SET props = json_set(props, '$.capacity', 987654) WHERE fid = 's03'", ["s03"], "edited"),
            // A historic version: s01 before its rename.
            ("UPDATE f_shelters SET props = json_set(props, '$.name', '避难所 987654') WHERE fid = 's01' AND valid_to IS NOT NULL", ["s01"], "edited"),
            // The geometry moved.
            ("UPDATE f_shelters SET geom = MakePoint(114.5, 30.7, 4490) WHERE fid = 's04'", ["s04"], "edited"),
            // A version added behind the store's back: a copy of s05 under a new id.
            ("""
             INSERT INTO f_shelters (fid, props, geom, valid_from, valid_to, author, department, hash)
             SELECT 's99', props, geom, valid_from, NULL, author, department, hash FROM f_shelters WHERE fid = 's05'
             """, ["s99"], "added"),
            // A deleted feature's version removed, and a current one.
            ("DELETE FROM f_shelters WHERE fid = 's02'", ["s02"], "removed"),
            ("DELETE FROM f_shelters WHERE fid = 's06'", ["s06"], "removed"),
            // A deleted feature brought back.
            ("UPDATE f_shelters SET valid_to = NULL WHERE fid = 's02'", ["s02"], "validity"),
        ]
        for (i, (sql, features, what)) in cases.enumerated() {
            let path = try Self.copy(base, "case\(i).sqlite", in: directory)
            try await Self.spatialSQL(path, sql)
            try await Audit.expectDataTampered(path, features: features)
            // A head recorded outside the store does not make it pass: the log is intact, the data not.
            try await Audit.expectDataTampered(path, features: features, recorded)
            let run = try await Audit.verify(path)
            #expect(run.output.contains(what == "validity" ? "validity was changed" : what), "\(what): \(run.output)")
            // The log alone is intact: it is the data that was changed.
            try await Audit.expectIntact(path, ["--log-only"])
        }
    }

    /// Recomputes the whole log's unkeyed chain (SHA-256 over the fields, each followed by 0x1F, as
    /// entries were hashed before the chain was keyed) after changing entry 2's actor, and the
    /// store's head: what anyone who can write the database could do to an unkeyed log.
    static let rewriteSQLite = """
        import hashlib, sqlite3, sys
        db = sqlite3.connect(sys.argv[1])
        db.execute("UPDATE audit_log SET actor = '冒名' WHERE seq = 2")
        previous = '0' * 64
        rows = db.execute("SELECT seq, at, actor, department, role, layer, fid, action, before_hash, after_hash FROM audit_log ORDER BY seq").fetchall()
        for seq, at, actor, department, role, layer, fid, action, before, after in rows:
            fields = [previous, str(at), actor, department or '', role, layer, fid, action, before or '', after or '']
            previous = hashlib.sha256(''.join(f + '\\x1f' for f in fields).encode('utf-8')).hexdigest()
            db.execute("UPDATE audit_log SET entry_hash = ? WHERE seq = ?", (previous, seq))
        db.execute("UPDATE audit_head SET last_hash = ?", (previous,))
        db.commit()
        """

    static func rewrite(_ path: String) async throws {
        let python = try await CommandProcess.run("/usr/bin/python3", ["-c", rewriteSQLite, path], separateErrors: true, within: 60)
        guard python.exitStatus == 0 else { throw HarnessFailure("python3: exit \(python.exitStatus): \(python.errors)") }
    }

    @Test("SpatiaLite: a log rewritten with its SHA-256 hashes recomputed passes an unkeyed chain and fails a keyed one")
    func spatiaLiteRewrittenLog() async throws {
        let directory = try TemporaryDirectory.forTestCase("citytwin-audit-rewrite")
        // An unkeyed chain (a store from before keys, never keyed): the rewrite goes unnoticed. This is
        // what every store was open to, and proves the rewrite recomputes the chain as it was hashed.
        let unkeyed = try await Self.base(directory, "unkeyed.sqlite", auditKey: .none)
        #expect(!FileManager.default.fileExists(atPath: unkeyed + AuditKey.fileSuffix))
        try await Self.rewrite(unkeyed)
        let run = try await Audit.verify(unkeyed)
        #expect(run.exitStatus == 0 && run.output.contains("audit log intact") && run.output.contains("not keyed"), "\(run.output)")
        // A keyed chain (every new store's): found at the first rewritten entry.
        let keyed = try await Self.base(directory, "keyed.sqlite")
        try await Self.rewrite(keyed)
        try await Audit.expectBroken(keyed, at: 1)
        // The key record removed as well: still found (no record, and entries the key does not explain).
        _ = try await SQLiteShell.run(keyed, "DELETE FROM audit_key")
        let removed = try await Audit.verify(keyed)
        #expect(removed.exitStatus == 1 && removed.output.contains("not keyed"), "\(removed.output)")
    }

    @Test("SpatiaLite: audit key keys a store from before keys at its head; what was before is held to it, and a moved or removed key record is found")
    func spatiaLiteUpgrade() async throws {
        let directory = try TemporaryDirectory.forTestCase("citytwin-audit-upgrade")
        let path = try await Self.base(directory, auditKey: .none)
        let entries = try await SQLiteShell.scalar(path, "SELECT count(*) FROM audit_log")
        let key = try await CommandProcess.run(try OutageHarness.binary(), ["audit", "key", "--store", path], within: 60)
        #expect(key.exitStatus == 0 && key.output.contains("from entry \((Int(entries) ?? 0) + 1)"), "\(key.output)")
        #expect(FileManager.default.fileExists(atPath: path + AuditKey.fileSuffix))
        let again = try await CommandProcess.run(try OutageHarness.binary(), ["audit", "key", "--store", path], within: 60)
        #expect(again.exitStatus == 0 && again.output.contains("already keyed") && again.output.contains("nothing to do"), "\(again.output)")
        // Written after the key: keyed entries, by a process that reads the key file beside the store.
        let store = try SpatiaLiteStore(path: path)
        try await store.delete(layer: "shelters", ids: ["s03"], by: ServerFixture.owner, at: nil)
        try store.close()
        let run = try await Audit.verify(path)
        #expect(run.exitStatus == 0 && run.output.contains("keyed from entry \((Int(entries) ?? 0) + 1)"), "\(run.output)")
        // The entries from before the key rewritten with their SHA-256 recomputed: they no longer end where the key began.
        let rewritten = try Self.copy(path, "rewritten.sqlite", in: directory)
        try await Self.rewrite(rewritten)
        let broken = try await Audit.verify(rewritten)
        #expect(broken.exitStatus == 1 && broken.output.contains("audit log tampered"), "\(broken.output)")
        // The record moved past the rewritten entries: its seal does not hold.
        let moved = try Self.copy(path, "moved.sqlite", in: directory)
        _ = try await SQLiteShell.run(moved, "UPDATE audit_key SET from_seq = from_seq + 1, from_hash = (SELECT entry_hash FROM audit_log ORDER BY seq DESC LIMIT 1)")
        let forged = try await Audit.verify(moved)
        #expect(forged.exitStatus == 1 && forged.output.contains("not sealed by the key"), "\(forged.output)")
        // Without the key file, a keyed store can be read but not written, and not verified.
        let keyless = directory.appending("keyless.sqlite").path
        try FileManager.default.copyItem(atPath: path, toPath: keyless)
        let blind = try await Audit.verify(keyless)
        #expect(blind.exitStatus == 1 && blind.output.contains("no audit key was given"), "\(blind.output)")
        let reader = try SpatiaLiteStore(path: keyless)
        #expect(try await reader.query(layer: "shelters", FeatureQuery(limit: 1), by: .admin).features.count == 1)
        await #expect(throws: StoreError.self) { try await reader.delete(layer: "shelters", ids: ["s04"], by: ServerFixture.owner, at: nil) }
        try reader.close()
        #expect(!FileManager.default.fileExists(atPath: keyless + AuditKey.fileSuffix), "a keyed store without its key got a new one")
    }

    static let postgresKey = "audit-key-of-the-test-deployment-0123456789abcdef"

    /// The unkeyed chain's rewrite in PL/pgSQL (PostgreSQL's `sha256`), as `rewriteSQLite`.
    static let rewritePostgres = """
        DO $$
        DECLARE r record; previous text := repeat('0', 64);
        BEGIN
            UPDATE citytwin.audit_log SET actor = '冒名' WHERE seq = 2;
            FOR r IN SELECT * FROM citytwin.audit_log ORDER BY seq LOOP
                previous := encode(sha256(convert_to(previous || chr(31) || r.at::text || chr(31) || r.actor || chr(31)
                    || coalesce(r.department, '') || chr(31) || r.role || chr(31) || r.layer || chr(31) || r.fid || chr(31)
                    || r.action || chr(31) || coalesce(r.before_hash, '') || chr(31) || coalesce(r.after_hash, '') || chr(31), 'UTF8')), 'hex');
                UPDATE citytwin.audit_log SET entry_hash = previous WHERE seq = r.seq;
            END LOOP;
            UPDATE citytwin.audit_head SET last_hash = previous;
        END $$
        """

    @Test("PostGIS: a version edited with psql (a current value, the geometry, a historic version, a removal) is named; a log rewritten with recomputed SHA-256 passes unkeyed, fails keyed",
          .enabled(if: OutageHarness.enabled, "needs PostgreSQL (CITYTWIN_TEST_POSTGRES_URL, as Scripts/test.sh sets)"))
    func postGIS() async throws {
        let key = try AuditKey(text: Self.postgresKey)
        let environment: [String: String?] = [AuditKey.variable: Self.postgresKey]
        // Unkeyed (no CITYTWIN_AUDIT_KEY): the rewrite passes, which is why the chain is keyed.
        try await PrivatePostgres.with { pg in
            let store = try await PostGISStore.connect(url: pg.url, connectionWait: .seconds(60), auditKey: .none)
            try await Audit.fill(store)
            await store.shutdown()
            _ = try await psqlValue(pg.url, Self.rewritePostgres)
            let run = try await Audit.verify(pg.url, environment: [AuditKey.variable: nil])
            #expect(run.exitStatus == 0 && run.output.contains("audit log intact"), "\(run.output)")
        }
        try await PrivatePostgres.with { pg in
            let store = try await PostGISStore.connect(url: pg.url, connectionWait: .seconds(60), auditKey: .key(key))
            try await Audit.fill(store)
            await store.shutdown()
            let recorded = try await Audit.expectIntact(pg.url, environment: environment)
            // Without the key the keyed chain cannot be checked, nor written.
            let blind = try await Audit.verify(pg.url, environment: [AuditKey.variable: nil])
            #expect(blind.exitStatus == 1 && blind.output.contains("no audit key was given"), "\(blind.output)")
            _ = try await psqlValue(pg.url, "UPDATE citytwin.f_shelters SET props = jsonb_set(props, '{capacity}', '987654') WHERE fid = 's00' AND valid_to IS NULL")
            try await Audit.expectDataTampered(pg.url, features: ["s00"], environment: environment)
            try await Audit.expectDataTampered(pg.url, features: ["s00"], recorded, environment: environment)
            _ = try await psqlValue(pg.url, "UPDATE citytwin.f_shelters SET props = jsonb_set(props, '{capacity}', '100') WHERE fid = 's00' AND valid_to IS NULL")
            try await Audit.expectIntact(pg.url, environment: environment)
            // The geometry moved (read back as ISO WKB, as it was hashed at write), then put back as it was: intact again.
            _ = try await psqlValue(pg.url, "CREATE TABLE citytwin.kept AS SELECT geom FROM citytwin.f_shelters WHERE fid = 's04' AND valid_to IS NULL")
            _ = try await psqlValue(pg.url, "UPDATE citytwin.f_shelters SET geom = ST_SetSRID(ST_MakePoint(114.5, 30.7), 4490) WHERE fid = 's04' AND valid_to IS NULL")
            try await Audit.expectDataTampered(pg.url, features: ["s04"], environment: environment)
            _ = try await psqlValue(pg.url, "UPDATE citytwin.f_shelters SET geom = (SELECT geom FROM citytwin.kept) WHERE fid = 's04' AND valid_to IS NULL")
            try await Audit.expectIntact(pg.url, environment: environment)
            // A historic version: s01 before its rename.
            _ = try await psqlValue(pg.url, "UPDATE citytwin.f_shelters SET props = jsonb_set(props, '{name}', '\"避难所 987654\"') WHERE fid = 's01' AND valid_to IS NOT NULL")
            try await Audit.expectDataTampered(pg.url, features: ["s01"], environment: environment)
            _ = try await psqlValue(pg.url, "DELETE FROM citytwin.f_shelters WHERE fid = 's02'")
            try await Audit.expectDataTampered(pg.url, features: ["s02"], environment: environment)
        }
        try await PrivatePostgres.with { pg in
            let store = try await PostGISStore.connect(url: pg.url, connectionWait: .seconds(60), auditKey: .key(key))
            try await Audit.fill(store)
            await store.shutdown()
            _ = try await psqlValue(pg.url, Self.rewritePostgres)
            try await Audit.expectBroken(pg.url, at: 1, environment: environment)
            _ = try await psqlValue(pg.url, "DELETE FROM citytwin.audit_key")
            let removed = try await Audit.verify(pg.url, environment: environment)
            #expect(removed.exitStatus == 1 && removed.output.contains("not keyed"), "\(removed.output)")
        }
    }
}
