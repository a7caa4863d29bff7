import Foundation
import GeoCore
import GRDB

extension SpatiaLiteStore {
    public func history(layer: String, featureID: String, by caller: Caller) async throws -> [FeatureVersion] {
        let def = try readableLayer(layer, caller)
        let table = FeatureTable(layer: def)
        let mask = mask(def, caller)
        let audits = AccessPolicy.canAudit(def, caller)
        let geom = def.hasGeometry ? "ST_AsBinary(geom)" : "NULL"
        return try await mapErrors(layer: layer) {
            try await pool.read { db in
                let rows = try Row.fetchAll(db, sql: """
                    SELECT props, \(geom), valid_from, valid_to, author, department, hash
                    FROM \(table.name) WHERE fid = ? ORDER BY valid_from, vid
                    """, arguments: [featureID])
                return try rows.map { row in
                    let props = mask.apply(try CanonicalJSON.parseObject(row[0], layer: layer, feature: featureID))
                    let geometry = try (row[1] as Data?).map { try Geometry(wkb: $0) }
                    let to: Int64? = row[3]
                    return FeatureVersion(
                        feature: Feature(id: .string(featureID), geometry: geometry, properties: props),
                        validFrom: RFC3339.date(microseconds: row[2]), validTo: to.map(RFC3339.date(microseconds:)),
                        author: audits ? row[4] : nil, department: row[5],
                        contentHash: audits || mask.isIdentity ? row[6] : "")
                }
            }
        }
    }

    public func diff(layer: String, from: Date, to: Date, by caller: Caller) async throws -> LayerDiff {
        let def = try readableLayer(layer, caller)
        let table = FeatureTable(layer: def).name
        let mask = mask(def, caller)
        let t1 = RFC3339.microseconds(from)
        let t2 = RFC3339.microseconds(to)
        let geom = def.hasGeometry ? "ST_AsBinary(geom)" : "NULL"
        return try await mapErrors(layer: layer) {
            try await pool.read { db in
                let sql = """
                    WITH a AS (SELECT fid, hash, vid FROM \(table) WHERE valid_from <= ?1 AND (valid_to IS NULL OR valid_to > ?1)),
                         b AS (SELECT fid, hash, vid FROM \(table) WHERE valid_from <= ?2 AND (valid_to IS NULL OR valid_to > ?2))
                    SELECT 'added', b.fid, NULL, NULL FROM b LEFT JOIN a ON a.fid = b.fid WHERE a.fid IS NULL
                    UNION ALL
                    SELECT 'removed', a.fid, NULL, NULL FROM a LEFT JOIN b ON a.fid = b.fid WHERE b.fid IS NULL
                    UNION ALL
                    SELECT 'changed', a.fid, a.vid, b.vid FROM a JOIN b ON a.fid = b.fid WHERE a.hash <> b.hash
                    ORDER BY 2
                    """
                var diff = LayerDiff(added: [], removed: [], changed: [])
                let version = try db.cachedStatement(sql: "SELECT props, \(geom) FROM \(table) WHERE vid = ?")
                // Content the caller may see: masked properties and geometry.
                func visible(_ vid: Int64, _ fid: String) throws -> ([String: JSONValue], Data?) {
                    guard let row = try Row.fetchOne(version, arguments: [vid]) else { return ([:], nil) }
                    return (mask.apply(try CanonicalJSON.parseObject(row[0], layer: layer, feature: fid)), row[1])
                }
                let rows = try Row.fetchCursor(db, sql: sql, arguments: [t1, t2])
                while let row = try rows.next() {
                    let kind: String = row[0]
                    let fid: String = row[1]
                    switch kind {
                    case "added": diff.added.append(fid)
                    case "removed": diff.removed.append(fid)
                    default:
                        if mask.isIdentity {
                            diff.changed.append(fid)
                        } else {
                            let a = try visible(row[2], fid)
                            let b = try visible(row[3], fid)
                            if a.0 != b.0 || a.1 != b.1 { diff.changed.append(fid) }
                        }
                    }
                }
                return diff
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
                    SELECT seq, at, actor, department, role, layer, fid, action, before_hash, after_hash, entry_hash
                    FROM audit_log WHERE layer = ? AND seq > ? ORDER BY seq LIMIT ?
                    """, arguments: [layer, sequence, max(0, limit)]).map(Self.auditEntry)
            }
        }
    }

    /// Recomputes the audit hash chain from the first entry (admin only); `false` when any
    /// entry was edited, removed or reordered.
    public func verifyAuditChain(by caller: Caller) async throws -> Bool {
        guard caller == .admin else { throw StoreError(.forbidden, "verifying the audit chain needs an admin") }
        return try await mapErrors(layer: nil) {
            try await pool.read { db in
                var previous = AuditChain.genesis
                let rows = try Row.fetchCursor(db, sql: """
                    SELECT seq, at, actor, department, role, layer, fid, action, before_hash, after_hash, entry_hash
                    FROM audit_log ORDER BY seq
                    """)
                while let row = try rows.next() {
                    let e = Self.auditEntry(row)
                    let expected = AuditChain.entryHash(previous: previous, at: RFC3339.microseconds(e.at), actor: e.actor,
                                                        department: e.department, role: e.role, layer: e.layer,
                                                        featureID: e.featureID, kind: e.kind, before: e.beforeHash, after: e.afterHash)
                    guard expected == e.entryHash else { return false }
                    previous = e.entryHash
                }
                return true
            }
        }
    }

    private static func auditEntry(_ row: Row) -> AuditEntry {
        AuditEntry(sequence: row[0], at: RFC3339.date(microseconds: row[1]), actor: row[2], department: row[3], role: row[4],
                   layer: row[5], featureID: row[6], kind: ChangeKind(rawValue: row[7]) ?? .update,
                   beforeHash: row[8], afterHash: row[9], entryHash: row[10])
    }

    public func changes(since sequence: Int64, limit: Int, by caller: Caller) async throws -> [ChangeEvent] {
        let readable = Set(try await layers(for: caller).map(\.definition.id))
        return try await mapErrors(layer: nil) {
            try await pool.read { db in
                let rows = try Row.fetchAll(db, sql: """
                    SELECT seq, layer, fid, kind, at, before_minx, before_miny, before_maxx, before_maxy,
                           after_minx, after_miny, after_maxx, after_maxy
                    FROM change_feed WHERE seq > ? ORDER BY seq LIMIT ?
                    """, arguments: [sequence, max(0, limit)])
                func envelope(_ row: Row, _ i: Int) -> Envelope? {
                    guard let a: Double = row[i], let b: Double = row[i + 1], let c: Double = row[i + 2], let d: Double = row[i + 3] else { return nil }
                    return Envelope(minX: a, minY: b, maxX: c, maxY: d)
                }
                return rows.compactMap { row -> ChangeEvent? in
                    let layer: String = row[1]
                    guard readable.contains(layer) else { return nil }
                    return ChangeEvent(sequence: row[0], layer: layer, featureID: row[2],
                                       kind: ChangeKind(rawValue: row[3]) ?? .update, at: RFC3339.date(microseconds: row[4]),
                                       envelopeBefore: envelope(row, 5), envelopeAfter: envelope(row, 9))
                }
            }
        }
    }
}
