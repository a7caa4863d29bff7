import Foundation
import GeoCore
import GRDB

extension SpatiaLiteStore {
    public func insert(layer: String, features: [Feature], by caller: Caller, at: Date?) async throws {
        try await write(layer: layer, by: caller, at: at, mode: .insert(features))
    }

    public func upsert(layer: String, features: [Feature], by caller: Caller, at: Date?) async throws {
        try await write(layer: layer, by: caller, at: at, mode: .upsert(features))
    }

    public func delete(layer: String, ids: [String], by caller: Caller, at: Date?) async throws {
        try await write(layer: layer, by: caller, at: at, mode: .delete(ids))
    }

    enum WriteMode: Sendable {
        case insert([Feature]), upsert([Feature]), delete([String])
    }

    /// One transaction: every feature is validated first, then each write closes the current
    /// version, adds the new one, an audit entry and a change event. Any error rolls all back.
    private func write(layer: String, by caller: Caller, at: Date?, mode: WriteMode) async throws {
        guard let def = definitionForWrite(layer) else {
            throw StoreError(.layerNotFound, "no layer \"\(layer)\"", layer: layer)
        }
        try AccessPolicy.requireWrite(def, caller)
        let table = FeatureTable(layer: def)
        let time = RFC3339.microseconds(at ?? Date())
        let prepared: [PreparedFeature]
        let deletions: [String]
        switch mode {
        case .insert(let fs), .upsert(let fs):
            prepared = try fs.enumerated().map { try PreparedFeature($0.element, layer: def, index: $0.offset) }
            deletions = []
        case .delete(let ids):
            prepared = []
            deletions = ids
        }
        let isInsert: Bool
        if case .insert = mode { isInsert = true } else { isInsert = false }
        let geomSQL = def.hasZ ? "CastToXYZ(ST_GeomFromWKB(?, 4490))" : "ST_GeomFromWKB(?, 4490)"
        let currentSQL = def.hasGeometry
            ? "SELECT vid, hash, valid_from, MbrMinX(geom), MbrMinY(geom), MbrMaxX(geom), MbrMaxY(geom) FROM \(table.name) WHERE fid = ? AND valid_to IS NULL"
            : "SELECT vid, hash, valid_from FROM \(table.name) WHERE fid = ? AND valid_to IS NULL"
        let insertSQL = def.hasGeometry
            ? "INSERT INTO \(table.name) (fid, props, geom, valid_from, author, department, hash) VALUES (?, ?, \(geomSQL), ?, ?, ?, ?)"
            : "INSERT INTO \(table.name) (fid, props, valid_from, author, department, hash) VALUES (?, ?, ?, ?, ?, ?)"
        let actor = caller.author
        let department = caller.departmentName
        let role = caller.auditRole

        try await mapErrors(layer: layer) {
            try await pool.write { db in
                let current = try db.cachedStatement(sql: currentSQL)
                let close = try db.cachedStatement(sql: "UPDATE \(table.name) SET valid_to = ? WHERE vid = ?")
                let addVersion = try db.cachedStatement(sql: insertSQL)
                let audit = try db.cachedStatement(sql: """
                    INSERT INTO audit_log (at, actor, department, role, layer, fid, action, before_hash, after_hash, entry_hash)
                    VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
                    """)
                let change = try db.cachedStatement(sql: """
                    INSERT INTO change_feed (layer, fid, kind, at, before_minx, before_miny, before_maxx, before_maxy,
                                             after_minx, after_miny, after_maxx, after_maxy)
                    VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
                    """)
                var chain = try String.fetchOne(db, sql: "SELECT entry_hash FROM audit_log ORDER BY seq DESC LIMIT 1") ?? AuditChain.genesis

                func record(_ fid: String, _ kind: ChangeKind, before: (hash: String, env: Envelope?)?, after: PreparedFeature?) throws {
                    chain = AuditChain.entryHash(previous: chain, at: time, actor: actor, department: department, role: role,
                                                 layer: layer, featureID: fid, kind: kind, before: before?.hash, after: after?.hash)
                    try audit.execute(arguments: [time, actor, department, role, layer, fid, kind.rawValue,
                                                  before?.hash, after?.hash, chain])
                    let b = before?.env
                    let a = after?.envelope
                    try change.execute(arguments: [layer, fid, kind.rawValue, time,
                                                   b?.minX, b?.minY, b?.maxX, b?.maxY, a?.minX, a?.minY, a?.maxX, a?.maxY])
                }

                func currentVersion(_ fid: String) throws -> (vid: Int64, hash: String, env: Envelope?)? {
                    guard let row = try Row.fetchOne(current, arguments: [fid]) else { return nil }
                    let validFrom: Int64 = row[2]
                    guard validFrom <= time else {
                        throw StoreError(.invalidFeature, "the write time is before the current version's start (\(RFC3339.format(RFC3339.date(microseconds: validFrom))))",
                                         layer: layer, feature: fid, field: "at")
                    }
                    var env: Envelope?
                    if row.count > 3, let a: Double = row[3], let b: Double = row[4], let c: Double = row[5], let d: Double = row[6] {
                        env = Envelope(minX: a, minY: b, maxX: c, maxY: d)
                    }
                    return (row[0], row[1], env)
                }

                func add(_ f: PreparedFeature) throws {
                    if def.hasGeometry {
                        try addVersion.execute(arguments: [f.id, f.propertiesText, f.wkb.map { Data($0) }, time, actor, department, f.hash])
                    } else {
                        try addVersion.execute(arguments: [f.id, f.propertiesText, time, actor, department, f.hash])
                    }
                }

                for f in prepared {
                    if isInsert {
                        // The unique index on current fids finds duplicates: no lookup per feature.
                        do {
                            try add(f)
                        } catch let e as DatabaseError where e.extendedResultCode == .SQLITE_CONSTRAINT_UNIQUE {
                            throw StoreError(.duplicateFeature, "feature \"\(f.id)\" already exists", layer: layer, feature: f.id)
                        }
                        try record(f.id, .insert, before: nil, after: f)
                        continue
                    }
                    if let cur = try currentVersion(f.id) {
                        if cur.hash == f.hash { continue }
                        try close.execute(arguments: [time, cur.vid])
                        try add(f)
                        try record(f.id, .update, before: (cur.hash, cur.env), after: f)
                    } else {
                        try add(f)
                        try record(f.id, .insert, before: nil, after: f)
                    }
                }
                for fid in deletions {
                    guard let cur = try currentVersion(fid) else {
                        throw StoreError(.featureNotFound, "no current feature \"\(fid)\" to delete", layer: layer, feature: fid)
                    }
                    try close.execute(arguments: [time, cur.vid])
                    try record(fid, .delete, before: (cur.hash, cur.env), after: nil)
                }
            }
        }
    }

    /// Every layer, visible or not: access is checked by the caller of this.
    func definitionForWrite(_ layer: String) -> LayerDefinition? {
        definitionsSnapshot(layer)
    }
}
