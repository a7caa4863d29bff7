import Foundation
import GeoCore
import PostgresNIO

extension PostGISStore {
    public func history(layer: String, featureID: String, by caller: Caller) async throws -> [FeatureVersion] {
        let def = try readableLayer(layer, caller)
        let sql = VersionSQL.history(table(def), dialect)
        let mask = mask(def, caller)
        let audits = AccessPolicy.canAudit(def, caller)
        return try await mapErrors(layer: layer) {
            var out = [FeatureVersion]()
            let rows = try await client.query(PostgresQuery(sql, [.text(featureID)]), logger: logger)
            for try await (props, wkb, from, to, author, department, hash) in rows
                .decode((String, ByteBuffer?, Int64, Int64?, String, String?, String).self) {
                out.append(try historyVersion(def, featureID: featureID, propertiesText: props, wkb: wkb.map { Array($0.readableBytesView) },
                                              validFrom: from, validTo: to, author: author, department: department, hash: hash,
                                              mask: mask, audits: audits))
            }
            return out
        }
    }

    public func diff(layer: String, from: Date, to: Date, by caller: Caller) async throws -> LayerDiff {
        let def = try readableLayer(layer, caller)
        let table = table(def)
        let mask = mask(def, caller)
        let (t1, t2) = (RFC3339.microseconds(from), RFC3339.microseconds(to))
        let sql = VersionSQL.diff(table, dialect)
        let rows = try await mapErrors(layer: layer) {
            var out = [(kind: String, fid: String, from: Int64?, to: Int64?)]()
            for try await r in try await client.query(PostgresQuery(sql, [.integer(t1), .integer(t2)]), logger: logger)
                .decode((String, String, Int64?, Int64?).self) {
                out.append((r.0, r.1, r.2, r.3))
            }
            return out
        }
        let versionSQL = VersionSQL.version(table, dialect)
        return try await VersionSQL.collect(rows, layer: layer, mask: mask) { vid in
            try await mapErrors(layer: layer) {
                for try await (props, wkb) in try await client.query(PostgresQuery(versionSQL, [.integer(vid)]), logger: logger)
                    .decode((String, ByteBuffer?).self) {
                    return (props, wkb.map { Array($0.readableBytesView) })
                }
                return ("{}", nil)
            }
        }
    }

    public func auditLog(layer: String, after sequence: Int64, limit: Int, by caller: Caller) async throws -> [AuditEntry] {
        let def = try readableLayer(layer, caller)
        guard AccessPolicy.canAudit(def, caller) else {
            throw StoreError(.forbidden, "the audit log of \"\(layer)\" is for \(def.owner) and admins", layer: layer)
        }
        return try await mapErrors(layer: layer) {
            try await auditEntries("""
                SELECT \(unescaped: JournalSQL.auditColumns)
                FROM \(unescaped: schema).audit_log WHERE layer = \(layer) AND seq > \(sequence) ORDER BY seq LIMIT \(Int64(max(0, limit)))
                """)
        }
    }

    /// Recomputes the audit hash chain from the first entry (admin only); `false` when any
    /// entry was edited, removed or reordered, or entries were removed from its end.
    public func verifyAuditChain(by caller: Caller) async throws -> Bool {
        try await checkAuditChain(by: caller).isIntact
    }

    /// Recomputes the audit hash chain from the first entry (admin only): the first entry that
    /// breaks it, whether it is keyed as its record says (under this process's audit key), and
    /// whether it ends where the store's head (and `expected`, a head recorded outside the
    /// store) says; with `data`, also every stored feature version, current and historic,
    /// against the entries that describe it (`AuditDataCheck`). One snapshot (repeatable read).
    public func checkAuditChain(by caller: Caller, expected: AuditHead? = nil, data: Bool = false) async throws -> AuditChainCheck {
        guard caller == .admin else { throw StoreError(.forbidden, "verifying the audit chain needs an admin") }
        let (schema, logger, key) = (schema, logger, auditKey)
        return try await mapErrors(layer: nil) {
            try await client.withTransaction(logger: logger) { db in
                // One snapshot for the head, the log and the versions.
                try await db.query("SET TRANSACTION ISOLATION LEVEL REPEATABLE READ", logger: logger)
                var head: AuditHead?
                for try await r in try await db.query("SELECT entries, last_hash FROM \(unescaped: schema).audit_head WHERE id = 1",
                                                      logger: logger).decode((Int64, String).self) {
                    head = AuditHead(entries: Int(r.0), lastHash: r.1)
                }
                let record = try await Self.auditKeyRecord(db, schema: schema, logger: logger)
                var entries = [AuditEntry]()
                for try await r in try await db.query("""
                    SELECT \(unescaped: JournalSQL.auditColumns) FROM \(unescaped: schema).audit_log ORDER BY seq
                    """, logger: logger).decode((Int64, Int64, String, String?, String, String, String, String, String?, String?, String).self) {
                    entries.append(JournalSQL.auditEntry(sequence: r.0, at: r.1, actor: r.2, department: r.3, role: r.4, layer: r.5,
                                                         featureID: r.6, action: r.7, beforeHash: r.8, afterHash: r.9, entryHash: r.10))
                }
                var check = AuditChain.check(entries, head: head, expected: expected, record: record, key: key)
                if data, check.firstBreak == nil, check.keying.isSound {
                    check.data = try await self.checkVersions(db, entries: entries)
                }
                return check
            }
        }
    }

    /// Every stored version of every layer in the catalogue against `entries` (`AuditDataChecker`),
    /// the properties re-canonicalised (jsonb keeps neither the key order nor the spacing hashed).
    private func checkVersions(_ db: PostgresConnection, entries: [AuditEntry]) async throws -> AuditDataCheck {
        var checker = AuditDataChecker(entries: entries)
        var rows: [(id: String, stamp: Int64, text: String)] = []
        for try await r in try await db.query("SELECT id, updated_at, definition FROM \(unescaped: schema).catalog ORDER BY id",
                                              logger: logger).decode((String, Int64, String).self) {
            rows.append((id: r.0, stamp: r.1, text: r.2))
        }
        for definition in try DefinitionCache(rows: rows).all {
            // ISO WKB, little-endian, as written: hashed as it is read (`AuditDataChecker.matches`).
            let geometry = definition.hasGeometry ? "ST_AsBinary(geom, 'NDR')" : "NULL::bytea"
            checker.begin(layer: definition.id)
            var feature: String?
            var versions: [AuditDataChecker.Version] = []
            for try await r in try await db.query(PostgresQuery(unsafeSQL: """
                SELECT fid, valid_from, valid_to, props::text, \(geometry) FROM \(table(definition).name) ORDER BY fid, valid_from, vid
                """), logger: logger).decode((String, Int64, Int64?, String, ByteBuffer?).self) {
                if r.0 != feature {
                    if let feature { checker.check(layer: definition.id, feature: feature, versions: versions, canonical: true) }
                    feature = r.0
                    versions.removeAll(keepingCapacity: true)
                }
                versions.append(AuditDataChecker.Version(validFrom: r.1, validTo: r.2, propertiesText: r.3,
                                                         wkb: r.4.map { Array($0.readableBytesView) }))
            }
            if let feature { checker.check(layer: definition.id, feature: feature, versions: versions, canonical: true) }
        }
        return checker.finish()
    }

    /// Keys the audit chain from its current head (admin only; `citytwin audit key`), under the
    /// write lock: the entries written so far stay plain SHA-256, every later one is an HMAC under
    /// this process's audit key (`CITYTWIN_AUDIT_KEY`, which every process on the store then needs).
    /// - Returns: where the chain is keyed from (nothing new when it already was, with this key).
    /// - Throws: `StoreError` `.backend` without a key, or when the chain is keyed with another one.
    public func keyAuditChain(by caller: Caller) async throws -> AuditKeying {
        guard caller == .admin else { throw StoreError(.forbidden, "keying the audit chain needs an admin") }
        guard let key = auditKey else {
            throw StoreError(.backend, "no audit key: a PostGIS store's key is \(AuditKey.variable), which every process on the store needs")
        }
        let (s, logger) = (schema, logger)
        return try await mapErrors(layer: nil) {
            try await client.withTransaction(logger: logger) { db in
                try await db.query("SELECT pg_advisory_xact_lock(hashtext(\(s + ".write")))", logger: logger)
                if let r = try await Self.auditKeyRecord(db, schema: s, logger: logger) { return try AuditKeying(already: r, key: key) }
                var seq: Int64 = 0, hash = AuditChain.genesis
                for try await r in try await db.query("SELECT seq, entry_hash FROM \(unescaped: s).audit_log ORDER BY seq DESC LIMIT 1",
                                                      logger: logger).decode((Int64, String).self) { (seq, hash) = r }
                let record = AuditKeyRecord(key: key, seq: seq, hash: hash)
                try await db.query("""
                    INSERT INTO \(unescaped: s).audit_key (id, key_id, from_seq, from_hash, seal)
                    VALUES (1, \(record.keyID), \(record.seq), \(record.hash), \(record.seal))
                    """, logger: logger)
                return AuditKeying(sequence: record.seq, hash: record.hash, keyID: record.keyID, isNew: true)
            }
        }
    }

    private func auditEntries(_ query: PostgresQuery) async throws -> [AuditEntry] {
        var out = [AuditEntry]()
        for try await r in try await client.query(query, logger: logger)
            .decode((Int64, Int64, String, String?, String, String, String, String, String?, String?, String).self) {
            out.append(JournalSQL.auditEntry(sequence: r.0, at: r.1, actor: r.2, department: r.3, role: r.4, layer: r.5,
                                             featureID: r.6, action: r.7, beforeHash: r.8, afterHash: r.9, entryHash: r.10))
        }
        return out
    }

    public func latestChange() async throws -> Int64 {
        try await mapErrors(layer: nil) {
            // Prepared: every cached graph, resource layer and address index asks it per request.
            var latest: Int64 = 0
            for try await row in try await client.rows("SELECT max(seq) FROM \(schema).audit_log", [], prepare: true, logger: logger) {
                latest = try row.decode(Int64?.self) ?? 0
            }
            return latest
        }
    }

    public func refreshStatistics() async throws {
        try await mapErrors(layer: nil) {
            var tables: [String] = []
            for try await t in try await client.query("SELECT tablename FROM pg_tables WHERE schemaname = \(schema) ORDER BY tablename",
                                                      logger: logger).decode(String.self) { tables.append(t) }
            for t in tables {
                let name = "\"" + t.replacingOccurrences(of: "\"", with: "\"\"") + "\""
                _ = try await client.query(PostgresQuery(unsafeSQL: "ANALYZE \(schema).\(name)"), logger: logger).collect()
            }
        }
    }

    public func changes(since sequence: Int64, limit: Int, by caller: Caller) async throws -> [ChangeEvent] {
        let events = try await mapErrors(layer: nil) {
            var out = [ChangeEvent]()
            let rows = try await client.query("""
                SELECT \(unescaped: JournalSQL.changeColumns)
                FROM \(unescaped: schema).audit_log WHERE seq > \(sequence) AND \(unescaped: JournalSQL.changedData) ORDER BY seq LIMIT \(Int64(max(0, limit)))
                """, logger: logger)
            for try await r in rows.decode((Int64, String, String, String, Int64, Double?, Double?, Double?, Double?,
                                            Double?, Double?, Double?, Double?).self) {
                out.append(JournalSQL.changeEvent(sequence: r.0, layer: r.1, featureID: r.2, kind: r.3, at: r.4,
                                                  before: JournalSQL.envelope(r.5, r.6, r.7, r.8),
                                                  after: JournalSQL.envelope(r.9, r.10, r.11, r.12)))
            }
            return out
        }
        // An event on a layer this process has not seen: another process created it.
        if events.contains(where: { definitions[$0.layer] == nil }) { try await refreshDefinitions() }
        let readable = Set(definitions.all.filter { AccessPolicy.canRead($0, caller) }.map(\.id))
        return events.filter { readable.contains($0.layer) }
    }
}
