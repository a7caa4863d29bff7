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
    /// breaks it, and whether it ends where the store's head (and `expected`, a head recorded
    /// outside the store) says.
    public func checkAuditChain(by caller: Caller, expected: AuditHead? = nil) async throws -> AuditChainCheck {
        guard caller == .admin else { throw StoreError(.forbidden, "verifying the audit chain needs an admin") }
        let (schema, logger) = (schema, logger)
        return try await mapErrors(layer: nil) {
            try await client.withTransaction(logger: logger) { db in
                // One snapshot for the head and the log.
                try await db.query("SET TRANSACTION ISOLATION LEVEL REPEATABLE READ", logger: logger)
                var head: AuditHead?
                for try await r in try await db.query("SELECT entries, last_hash FROM \(unescaped: schema).audit_head WHERE id = 1",
                                                      logger: logger).decode((Int64, String).self) {
                    head = AuditHead(entries: Int(r.0), lastHash: r.1)
                }
                var entries = [AuditEntry]()
                for try await r in try await db.query("""
                    SELECT \(unescaped: JournalSQL.auditColumns) FROM \(unescaped: schema).audit_log ORDER BY seq
                    """, logger: logger).decode((Int64, Int64, String, String?, String, String, String, String, String?, String?, String).self) {
                    entries.append(JournalSQL.auditEntry(sequence: r.0, at: r.1, actor: r.2, department: r.3, role: r.4, layer: r.5,
                                                         featureID: r.6, action: r.7, beforeHash: r.8, afterHash: r.9, entryHash: r.10))
                }
                return AuditChain.check(entries, head: head, expected: expected)
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
