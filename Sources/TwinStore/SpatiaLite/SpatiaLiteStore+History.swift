import Foundation
import GeoCore
import GRDB

extension SpatiaLiteStore {
    public func history(layer: String, featureID: String, by caller: Caller) async throws -> [FeatureVersion] {
        let def = try readableLayer(layer, caller)
        let sql = VersionSQL.history(FeatureTable(layer: def), dialect)
        let mask = mask(def, caller)
        let audits = AccessPolicy.canAudit(def, caller)
        return try await mapErrors(layer: layer) {
            try await pool.read { db in
                try Row.fetchAll(db, sql: sql, arguments: [featureID]).map { row in
                    try historyVersion(def, featureID: featureID, propertiesText: row[0], wkb: (row[1] as Data?).map { [UInt8]($0) },
                                       validFrom: row[2], validTo: row[3], author: row[4], department: row[5], hash: row[6],
                                       mask: mask, audits: audits)
                }
            }
        }
    }

    public func diff(layer: String, from: Date, to: Date, by caller: Caller) async throws -> LayerDiff {
        let def = try readableLayer(layer, caller)
        let table = FeatureTable(layer: def)
        let mask = mask(def, caller)
        let (t1, t2) = (RFC3339.microseconds(from), RFC3339.microseconds(to))
        let rows = try await mapErrors(layer: layer) {
            try await pool.read { db in
                try Row.fetchAll(db, sql: VersionSQL.diff(table, dialect), arguments: [t1, t2]).map {
                    (kind: $0[0] as String, fid: $0[1] as String, from: $0[2] as Int64?, to: $0[3] as Int64?)
                }
            }
        }
        let versionSQL = VersionSQL.version(table, dialect)
        return try await VersionSQL.collect(rows, layer: layer, mask: mask) { vid in
            try await mapErrors(layer: layer) {
                try await pool.read { db in
                    guard let row = try Row.fetchOne(db.cachedStatement(sql: versionSQL), arguments: [vid]) else { return ("{}", nil) }
                    return (row[0] as String, (row[1] as Data?).map { [UInt8]($0) })
                }
            }
        }
    }

    public func auditLog(layer: String, after sequence: Int64, limit: Int, by caller: Caller) async throws -> [AuditEntry] {
        let def = try readableLayer(layer, caller)
        guard AccessPolicy.canAudit(def, caller) else {
            throw StoreError(.forbidden, "the audit log of \"\(layer)\" is for \(def.owner) and admins", layer: layer)
        }
        return try await mapErrors(layer: layer) {
            try await pool.read { db in
                try Row.fetchAll(db, sql: """
                    SELECT \(JournalSQL.auditColumns) FROM audit_log WHERE layer = ? AND seq > ? ORDER BY seq LIMIT ?
                    """, arguments: [layer, sequence, max(0, limit)]).map(Self.auditEntry)
            }
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
    /// against the entries that describe it (`AuditDataCheck`). One snapshot of the store.
    public func checkAuditChain(by caller: Caller, expected: AuditHead? = nil, data: Bool = false) async throws -> AuditChainCheck {
        guard caller == .admin else { throw StoreError(.forbidden, "verifying the audit chain needs an admin") }
        let key = try auditKeys.current()
        return try await mapErrors(layer: nil) {
            try await pool.read { db in
                let head = try Row.fetchOne(db, sql: "SELECT entries, last_hash FROM audit_head WHERE id = 1")
                    .map { AuditHead(entries: $0[0], lastHash: $0[1]) }
                let record = try Self.auditKeyRecord(db)
                let entries = try Row.fetchAll(db, sql: "SELECT \(JournalSQL.auditColumns) FROM audit_log ORDER BY seq").map(Self.auditEntry)
                var check = AuditChain.check(entries, head: head, expected: expected, record: record, key: key)
                if data, check.firstBreak == nil, check.keying.isSound {
                    check.data = try Self.checkVersions(db, entries: entries)
                }
                return check
            }
        }
    }

    /// Every stored version of every layer in the catalogue against `entries` (`AuditDataChecker`).
    private static func checkVersions(_ db: Database, entries: [AuditEntry]) throws -> AuditDataCheck {
        var checker = AuditDataChecker(entries: entries)
        for definition in try DefinitionCache(rows: try Self.catalogueRows(db)).all {
            let table = FeatureTable(layer: definition)
            let geometry = definition.hasGeometry ? "ST_AsBinary(geom)" : "NULL"
            checker.begin(layer: definition.id)
            let rows = try Row.fetchCursor(db, sql: """
                SELECT fid, valid_from, valid_to, props, \(geometry) FROM \(table.name) ORDER BY fid, valid_from, vid
                """)
            var feature: String?
            var versions: [AuditDataChecker.Version] = []
            while let row = try rows.next() {
                let fid: String = row[0]
                if fid != feature {
                    if let feature { checker.check(layer: definition.id, feature: feature, versions: versions, canonical: false) }
                    feature = fid
                    versions.removeAll(keepingCapacity: true)
                }
                versions.append(AuditDataChecker.Version(validFrom: row[1], validTo: row[2], propertiesText: row[3],
                                                         wkb: (row[4] as Data?).map { [UInt8]($0) }))
            }
            if let feature { checker.check(layer: definition.id, feature: feature, versions: versions, canonical: false) }
        }
        return checker.finish()
    }

    /// Keys the audit chain from its current head (admin only; `citytwin audit key`): the entries
    /// written so far stay plain SHA-256, every later one is an HMAC under this process's audit
    /// key, made beside the store (`<store>.audit-key`) when there is none. The record of where
    /// the chain became keyed is sealed with the key.
    /// - Returns: where the chain is keyed from (nothing new when it already was, with this key).
    /// - Throws: `StoreError` `.backend` when it is keyed with another key.
    public func keyAuditChain(by caller: Caller) async throws -> AuditKeying {
        guard caller == .admin else { throw StoreError(.forbidden, "keying the audit chain needs an admin") }
        let key: AuditKey
        if let held = try auditKeys.current() {
            key = held
        } else {
            // A key file is made only for a chain not keyed yet: a keyed store without its key stays so.
            if let r = try await mapErrors(layer: nil, { try await pool.read { db in try Self.auditKeyRecord(db) } }) {
                throw StoreError(.backend, "the audit chain is keyed (key \(r.keyID)) and this process has no audit key: set \(AuditKey.variable), or keep the store's \(AuditKey.fileSuffix) file beside it")
            }
            guard let made = try AuditKey.forStore(path: path, create: true) else { throw StoreError(.backend, "no audit key: set \(AuditKey.variable)") }
            key = made
        }
        return try await mapErrors(layer: nil) {
            try await pool.write { db in
                if let r = try Self.auditKeyRecord(db) { return try AuditKeying(already: r, key: key) }
                let row = try Row.fetchOne(db, sql: "SELECT seq, entry_hash FROM audit_log ORDER BY seq DESC LIMIT 1")
                let record = AuditKeyRecord(key: key, seq: row?[0] ?? 0, hash: row?[1] ?? AuditChain.genesis)
                try db.execute(sql: "INSERT INTO audit_key (id, key_id, from_seq, from_hash, seal) VALUES (1, ?, ?, ?, ?)",
                               arguments: [record.keyID, record.seq, record.hash, record.seal])
                return AuditKeying(sequence: record.seq, hash: record.hash, keyID: record.keyID, isNew: true)
            }
        }
    }

    private static func auditEntry(_ row: Row) -> AuditEntry {
        JournalSQL.auditEntry(sequence: row[0], at: row[1], actor: row[2], department: row[3], role: row[4], layer: row[5],
                              featureID: row[6], action: row[7], beforeHash: row[8], afterHash: row[9], entryHash: row[10])
    }

    public func latestChange() async throws -> Int64 {
        try await mapErrors(layer: nil) {
            try await pool.read { db in try Int64.fetchOne(db, sql: "SELECT max(seq) FROM audit_log") ?? 0 }
        }
    }

    public func changes(since sequence: Int64, limit: Int, by caller: Caller) async throws -> [ChangeEvent] {
        let events = try await mapErrors(layer: nil) {
            try await pool.read { db in
                let rows = try Row.fetchAll(db, sql: "SELECT \(JournalSQL.changeColumns) FROM audit_log WHERE seq > ? AND \(JournalSQL.changedData) ORDER BY seq LIMIT ?",
                                            arguments: [sequence, max(0, limit)])
                func envelope(_ row: Row, _ i: Int) -> Envelope? {
                    JournalSQL.envelope(row[i], row[i + 1], row[i + 2], row[i + 3])
                }
                return rows.map { row in
                    JournalSQL.changeEvent(sequence: row[0], layer: row[1], featureID: row[2], kind: row[3], at: row[4],
                                           before: envelope(row, 5), after: envelope(row, 9))
                }
            }
        }
        // An event on a layer this process has not seen: another process created it.
        if events.contains(where: { definitions[$0.layer] == nil }) { try await refreshDefinitions() }
        // The definitions say who may read a layer; no extent or count scan is needed here.
        let readable = Set(definitions.all.filter { AccessPolicy.canRead($0, caller) }.map(\.id))
        return events.filter { readable.contains($0.layer) }
    }
}
