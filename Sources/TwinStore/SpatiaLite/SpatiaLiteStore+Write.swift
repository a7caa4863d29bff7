import Foundation
import GeoCore
import GRDB

extension SpatiaLiteStore {
    public func insert(layer: String, features: [Feature], by caller: Caller, at: Date?) async throws {
        try await write(WriteBatch(layer: definitions[layer], named: layer, mode: .insert(features), by: caller, at: at))
    }

    public func upsert(layer: String, features: [Feature], by caller: Caller, at: Date?) async throws {
        try await write(WriteBatch(layer: definitions[layer], named: layer, mode: .upsert(features), by: caller, at: at))
    }

    public func delete(layer: String, ids: [String], by caller: Caller, at: Date?) async throws {
        try await write(WriteBatch(layer: definitions[layer], named: layer, mode: .delete(ids), by: caller, at: at))
    }

    /// One transaction: reads the current versions the batch touches, plans the batch (shared
    /// with PostGIS), then closes versions, adds versions, audit entries and change events.
    /// Any error rolls all back.
    private func write(_ batch: WriteBatch) async throws {
        let def = batch.layer
        let layer = def.id
        let table = FeatureTable(layer: def)
        let time = batch.time
        let currentSQL = def.hasGeometry
            ? "SELECT vid, hash, valid_from, MbrMinX(geom), MbrMinY(geom), MbrMaxX(geom), MbrMaxY(geom) FROM \(table.name) WHERE fid = ? AND valid_to IS NULL"
            : "SELECT vid, hash, valid_from FROM \(table.name) WHERE fid = ? AND valid_to IS NULL"
        let geomSQL = def.hasZ ? "CastToXYZ(ST_GeomFromWKB(?, 4490))" : "ST_GeomFromWKB(?, 4490)"
        let insertSQL = def.hasGeometry
            ? "INSERT INTO \(table.name) (fid, props, geom, valid_from, valid_to, author, department, hash) VALUES (?, ?, \(geomSQL), ?, ?, ?, ?, ?)"
            : "INSERT INTO \(table.name) (fid, props, valid_from, valid_to, author, department, hash) VALUES (?, ?, ?, ?, ?, ?, ?)"

        try await mapErrors(layer: layer) {
            try await pool.write { db in
                let current = try db.cachedStatement(sql: currentSQL)
                var found = [String: CurrentVersion]()
                for fid in batch.lookupIDs {
                    guard let row = try Row.fetchOne(current, arguments: [fid]) else { continue }
                    var env: Envelope?
                    if row.count > 3, let a: Double = row[3], let b: Double = row[4], let c: Double = row[5], let d: Double = row[6] {
                        env = Envelope(minX: a, minY: b, maxX: c, maxY: d)
                    }
                    found[fid] = CurrentVersion(vid: row[0], hash: row[1], validFrom: row[2], envelope: env)
                }
                let plan = try batch.plan(current: found)
                let previous = try String.fetchOne(db, sql: "SELECT entry_hash FROM audit_log ORDER BY seq DESC LIMIT 1") ?? AuditChain.genesis

                let close = try db.cachedStatement(sql: "UPDATE \(table.name) SET valid_to = ? WHERE vid = ?")
                for vid in plan.closes { try close.execute(arguments: [time, vid]) }

                let addVersion = try db.cachedStatement(sql: insertSQL)
                for v in plan.versions {
                    let f = v.feature
                    do {
                        if def.hasGeometry {
                            try addVersion.execute(arguments: [f.id, f.propertiesText, f.wkb.map { Data($0) }, time, v.validTo,
                                                               batch.actor, batch.department, f.hash])
                        } else {
                            try addVersion.execute(arguments: [f.id, f.propertiesText, time, v.validTo, batch.actor, batch.department, f.hash])
                        }
                    } catch let e as DatabaseError where e.extendedResultCode == .SQLITE_CONSTRAINT_UNIQUE {
                        throw StoreError(.duplicateFeature, "feature \"\(f.id)\" already exists", layer: layer, feature: f.id)
                    }
                }

                let audit = try db.cachedStatement(sql: """
                    INSERT INTO audit_log (at, actor, department, role, layer, fid, action, before_hash, after_hash, entry_hash)
                    VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
                    """)
                let change = try db.cachedStatement(sql: """
                    INSERT INTO change_feed (layer, fid, kind, at, before_minx, before_miny, before_maxx, before_maxy,
                                             after_minx, after_miny, after_maxx, after_maxy)
                    VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
                    """)
                for row in batch.auditRows(plan, previous: previous) {
                    let c = row.change
                    try audit.execute(arguments: [time, batch.actor, batch.department, batch.role, layer, c.featureID, c.kind.rawValue,
                                                  c.before?.hash, c.after?.hash, row.entryHash])
                    let b = c.before?.envelope
                    let a = c.after?.envelope
                    try change.execute(arguments: [layer, c.featureID, c.kind.rawValue, time,
                                                   b?.minX, b?.minY, b?.maxX, b?.maxY, a?.minX, a?.minY, a?.maxX, a?.maxY])
                }
            }
        }
    }
}
