import Foundation
import GeoCore
import GRDB

extension SpatiaLiteStore: LayerRemoval {
    public func dropLayer(_ id: String, by caller: Caller) async throws -> Bool {
        guard let definition = try await currentDefinition(id, caller) else { return false }
        try AccessPolicy.requireWrite(definition, caller)
        let table = table(definition).name
        let time = RFC3339.microseconds(TwinClock.current.now)
        let dropped = try await mapErrors(layer: id) {
            try await pool.write { db -> Bool in
                guard try Bool.fetchOne(db, sql: "SELECT count(*) > 0 FROM catalog WHERE id = ?", arguments: [id]) ?? false else { return false }
                if definition.hasGeometry {
                    // The spatial index (a virtual table) and the geometry column's metadata go first.
                    _ = try Int.fetchOne(db, sql: "SELECT DisableSpatialIndex(?, 'geom')", arguments: [table])
                    try db.execute(sql: "DROP TABLE IF EXISTS \"idx_\(table)_geom\"")
                    _ = try Int.fetchOne(db, sql: "SELECT DiscardGeometryColumn(?, 'geom')", arguments: [table])
                }
                try db.execute(sql: "DROP TABLE IF EXISTS \"\(table)\"")
                try db.execute(sql: "DELETE FROM catalog WHERE id = ?", arguments: [id])
                try db.execute(sql: LayerStatsSQL.delete(SpatiaLiteDialect()), arguments: [id])
                let (previous, key) = try Self.chainHead(db, keys: auditKeys)
                try db.execute(sql: """
                    INSERT INTO audit_log (at, actor, department, role, layer, fid, action, before_hash, after_hash, entry_hash)
                    VALUES (?, ?, ?, ?, ?, ?, ?, NULL, NULL, ?)
                    """, arguments: [time, caller.author, caller.departmentName, caller.auditRole, id, LayerRemovalSQL.featureID,
                                     ChangeKind.delete.rawValue, LayerRemovalSQL.auditHash(previous: previous, at: time, caller: caller, layer: id, key: key)])
                return true
            }
        }
        definitions.remove(id)
        return dropped
    }
}
