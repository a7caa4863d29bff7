import Foundation
import GeoCore
import GRDB

extension SpatiaLiteStore: ManagedRasters {
    public func putRaster(_ raster: ManagedRaster, data: Data, replace: Bool, by caller: Caller) async throws {
        try RasterSQL.checkWriter(caller, "import")
        let description = try RasterSQL.encode(raster)
        let time = RFC3339.microseconds(TwinClock.current.now)
        try await mapErrors(layer: nil) {
            try await pool.write { db in
                let exists = try Bool.fetchOne(db, sql: "SELECT count(*) > 0 FROM rasters WHERE id = ?", arguments: [raster.id]) ?? false
                if exists, !replace { throw RasterSQL.duplicate(raster.id) }
                try db.execute(sql: "INSERT OR REPLACE INTO rasters (id, description, data) VALUES (?, ?, ?)",
                               arguments: [raster.id, description, data])
                try self.appendAudit(db, caller: caller, layer: RasterSQL.auditLayer, featureID: RasterSQL.featureID(raster.id),
                                     kind: exists ? .update : .insert, after: raster.sha256, time: time)
            }
        }
    }

    public func managedRasters() async throws -> [ManagedRaster] {
        try await mapErrors(layer: nil) {
            try await pool.read { db in
                try String.fetchAll(db, sql: "SELECT description FROM rasters ORDER BY id").map(RasterSQL.decode)
            }
        }
    }

    public func managedRaster(_ id: String) async throws -> ManagedRaster? {
        try await mapErrors(layer: nil) {
            try await pool.read { db in
                try String.fetchOne(db, sql: "SELECT description FROM rasters WHERE id = ?", arguments: [id]).map(RasterSQL.decode)
            }
        }
    }

    public func managedRasterData(_ id: String) async throws -> Data? {
        try await mapErrors(layer: nil) {
            try await pool.read { db in try Data.fetchOne(db, sql: "SELECT data FROM rasters WHERE id = ?", arguments: [id]) }
        }
    }

    public func deleteRaster(_ id: String, by caller: Caller) async throws -> Bool {
        try RasterSQL.checkWriter(caller, "delete")
        let time = RFC3339.microseconds(TwinClock.current.now)
        return try await mapErrors(layer: nil) {
            try await pool.write { db in
                try db.execute(sql: "DELETE FROM rasters WHERE id = ?", arguments: [id])
                guard db.changesCount == 1 else { return false }
                try self.appendAudit(db, caller: caller, layer: RasterSQL.auditLayer, featureID: RasterSQL.featureID(id), kind: .delete, after: nil, time: time)
                return true
            }
        }
    }

    /// Appends the audit entry of an administrative write that is no feature's (a managed raster,
    /// the city's record) to the chain, inside the write's transaction.
    func appendAudit(_ db: Database, caller: Caller, layer: String, featureID: String, kind: ChangeKind, after: String?,
                     time: Int64) throws {
        let (previous, key) = try Self.chainHead(db, keys: auditKeys)
        let entry = AuditChain.entryHash(previous: previous, at: time, actor: caller.author, department: caller.departmentName,
                                         role: caller.auditRole, layer: layer, featureID: featureID, kind: kind, before: nil, after: after,
                                         key: key)
        try db.execute(sql: """
            INSERT INTO audit_log (at, actor, department, role, layer, fid, action, before_hash, after_hash, entry_hash)
            VALUES (?, ?, ?, ?, ?, ?, ?, NULL, ?, ?)
            """, arguments: [time, caller.author, caller.departmentName, caller.auditRole, layer, featureID, kind.rawValue, after, entry])
    }
}
