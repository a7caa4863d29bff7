import Foundation
import GeoCore
import NIOCore
import PostgresNIO

extension PostGISStore: ManagedRasters {
    public func putRaster(_ raster: ManagedRaster, data: Data, replace: Bool, by caller: Caller) async throws {
        try RasterSQL.checkWriter(caller, "import")
        let description = try RasterSQL.encode(raster)
        try await writeAudited(layer: RasterSQL.auditLayer, featureID: RasterSQL.featureID(raster.id), caller: caller) { db, s, log in
            var exists = false
            for try await n in try await db.query("SELECT count(*) FROM \(unescaped: s).rasters WHERE id = \(raster.id)", logger: log)
                .decode(Int64.self) { exists = n > 0 }
            if exists, !replace { throw RasterSQL.duplicate(raster.id) }
            try await db.query("""
                INSERT INTO \(unescaped: s).rasters (id, description, data) VALUES (\(raster.id), \(description), \(ByteBuffer(data: data)))
                ON CONFLICT (id) DO UPDATE SET description = EXCLUDED.description, data = EXCLUDED.data
                """, logger: log)
            return (exists ? .update : .insert, raster.sha256)
        }
    }

    public func managedRasters() async throws -> [ManagedRaster] {
        try await mapErrors(layer: nil) {
            var out = [ManagedRaster]()
            for try await text in try await client.query("SELECT description FROM \(unescaped: schema).rasters ORDER BY id", logger: logger)
                .decode(String.self) { out.append(try RasterSQL.decode(text)) }
            return out
        }
    }

    public func managedRaster(_ id: String) async throws -> ManagedRaster? {
        try await mapErrors(layer: nil) {
            var out: ManagedRaster?
            for try await text in try await client.query("SELECT description FROM \(unescaped: schema).rasters WHERE id = \(id)", logger: logger)
                .decode(String.self) { out = try RasterSQL.decode(text) }
            return out
        }
    }

    public func managedRasterData(_ id: String) async throws -> Data? {
        try await mapErrors(layer: nil) {
            var out: Data?
            for try await buffer in try await client.query("SELECT data FROM \(unescaped: schema).rasters WHERE id = \(id)", logger: logger)
                .decode(ByteBuffer.self) { out = Data(buffer.readableBytesView) }
            return out
        }
    }

    public func deleteRaster(_ id: String, by caller: Caller) async throws -> Bool {
        try RasterSQL.checkWriter(caller, "delete")
        return try await writeAudited(layer: RasterSQL.auditLayer, featureID: RasterSQL.featureID(id), caller: caller) { db, s, log in
            let rows = try await db.query("DELETE FROM \(unescaped: s).rasters WHERE id = \(id) RETURNING id", logger: log)
                .decode(String.self).reduce(0) { n, _ in n + 1 }
            return rows > 0 ? (.delete, nil) : nil
        }
    }

    /// Runs `body` in a transaction holding the schema's write lock (so the audit chain stays one
    /// chain) and appends the audit entry of the change it reports (none when it reports nil): an
    /// administrative write that is no feature's (a managed raster, the city's record).
    /// - Returns: whether a change was made.
    @discardableResult
    func writeAudited(layer: String, featureID: String, caller: Caller,
                             _ body: @escaping @Sendable (PostgresConnection, String, Logger) async throws -> (ChangeKind, String?)?) async throws -> Bool {
        let s = schema
        let log = logger
        let time = RFC3339.microseconds(TwinClock.current.now)
        do {
            return try await client.withTransaction(logger: log) { db in
                try await db.query("SELECT pg_advisory_xact_lock(hashtext(\(s + ".write")))", logger: log)
                guard let (kind, after) = try await body(db, s, log) else { return false }
                let (previous, key) = try await self.chainHead(db)
                let entry = AuditChain.entryHash(previous: previous, at: time, actor: caller.author, department: caller.departmentName,
                                                 role: caller.auditRole, layer: layer, featureID: featureID, kind: kind, before: nil, after: after,
                                                 key: key)
                try await db.query("""
                    INSERT INTO \(unescaped: s).audit_log (at, actor, department, role, layer, fid, action, before_hash, after_hash, entry_hash)
                    VALUES (\(time), \(caller.author), \(caller.departmentName), \(caller.auditRole), \(layer),
                            \(featureID), \(kind.rawValue), NULL, \(after), \(entry))
                    """, logger: log)
                return true
            }
        } catch {
            if let e = error as? PostgresTransactionError, let inner = e.closureError as? StoreError { throw inner }
            return try await mapErrors(layer: nil) { throw error }
        }
    }
}
