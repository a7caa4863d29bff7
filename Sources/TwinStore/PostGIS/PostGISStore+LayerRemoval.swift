import Foundation
import GeoCore
import PostgresNIO

extension PostGISStore: LayerRemoval {
    public func dropLayer(_ id: String, by caller: Caller) async throws -> Bool {
        guard let definition = try await currentDefinition(id, caller) else { return false }
        try AccessPolicy.requireWrite(definition, caller)
        let table = table(definition).name
        let s = schema
        let log = logger
        let time = RFC3339.microseconds(TwinClock.current.now)
        let dropped = try await mapErrors(layer: id) {
            try await client.withTransaction(logger: log) { db -> Bool in
                // The catalogue's lock (as createLayer takes it) and the write lock (one audit chain).
                try await db.query("SELECT pg_advisory_xact_lock(hashtext(\(s)))", logger: log)
                try await db.query("SELECT pg_advisory_xact_lock(hashtext(\(s + ".write")))", logger: log)
                let exists = try await db.query("SELECT count(*) FROM \(unescaped: s).catalog WHERE id = \(id)", logger: log)
                    .decode(Int64.self).reduce(0, +) > 0
                guard exists else { return false }
                try await db.query(PostgresQuery(unsafeSQL: "DROP TABLE IF EXISTS \(table) CASCADE"), logger: log)
                try await db.query("DELETE FROM \(unescaped: s).catalog WHERE id = \(id)", logger: log)
                try await db.query("DELETE FROM \(unescaped: s).layer_stats WHERE layer = \(id)", logger: log)
                let (previous, key) = try await self.chainHead(db)
                let entry = LayerRemovalSQL.auditHash(previous: previous, at: time, caller: caller, layer: id, key: key)
                try await db.query("""
                    INSERT INTO \(unescaped: s).audit_log (at, actor, department, role, layer, fid, action, before_hash, after_hash, entry_hash)
                    VALUES (\(time), \(caller.author), \(caller.departmentName), \(caller.auditRole), \(id), \(LayerRemovalSQL.featureID),
                            \(ChangeKind.delete.rawValue), NULL, NULL, \(entry))
                    """, logger: log)
                return true
            }
        }
        definitions.remove(id)
        return dropped
    }
}
