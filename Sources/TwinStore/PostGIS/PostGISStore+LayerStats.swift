import Foundation
import GeoCore
import Logging
import PostgresNIO

/// The catalogue's count and extent of each layer (`LayerStats`) on PostGIS: kept by every write
/// in its transaction (under the schema's write lock), filled at open for layers without a row (a
/// store from before the table) or with a loose extent.
extension PostGISStore {
    static let envelopeColumns = ["ST_XMin(geom)", "ST_YMin(geom)", "ST_XMax(geom)", "ST_YMax(geom)"]

    /// The exact numbers of the current features of `table` (with `after`: of the versions above that vid only).
    static func exactStats(_ db: PostgresConnection, _ table: FeatureTable, after vid: Int64? = nil, logger: Logger) async throws -> LayerStats {
        let sql = LayerStatsSQL.exact(table, envelope: envelopeColumns, noReal: "NULL::float8", PostGISDialect(), after: vid != nil)
        var b = PostgresBindings(capacity: 1)
        if let vid { b.append(vid) }
        var stats = LayerStats(count: 0)
        for try await r in try await db.query(PostgresQuery(unsafeSQL: sql, binds: b), logger: logger)
            .decode((Int64, Double?, Double?, Double?, Double?).self) {
            stats = LayerStatsSQL.stats(count: r.0, r.1, r.2, r.3, r.4)
        }
        return stats
    }

    static func storedStats(_ db: PostgresConnection, schema: String, layer: String, logger: Logger) async throws -> LayerStats? {
        var b = PostgresBindings(capacity: 1)
        b.append(layer)
        var stats: LayerStats?
        for try await r in try await db.query(PostgresQuery(unsafeSQL: LayerStatsSQL.select(prefix: schema + ".", PostGISDialect()), binds: b),
                                              logger: logger).decode((Int64, Double?, Double?, Double?, Double?, Int32).self) {
            stats = LayerStatsSQL.stats(count: r.0, r.1, r.2, r.3, r.4, loose: Int64(r.5))
        }
        return stats
    }

    static func storeStats(_ db: PostgresConnection, schema: String, layer: String, _ stats: LayerStats, logger: Logger) async throws {
        try await db.query(PostgresQuery(LayerStatsSQL.upsert(prefix: schema + ".", PostGISDialect()), LayerStatsSQL.upsertValues(layer, stats)),
                           logger: logger)
    }

    /// Applies `change` (already written in this transaction) to the layer's row.
    func updateStats(_ db: PostgresConnection, _ layer: LayerDefinition, _ change: LayerStatsChange) async throws {
        let stored = try await Self.storedStats(db, schema: schema, layer: layer.id, logger: logger)
        guard stored == nil || !change.isEmpty else { return }
        let next: LayerStats
        if let s = LayerStatsSQL.next(stored: stored, change: change) {
            next = s
        } else {
            next = try await Self.exactStats(db, table(layer), logger: logger)
        }
        try await Self.storeStats(db, schema: schema, layer: layer.id, next, logger: logger)
    }

    /// The highest version row id of `layer`'s table (0 when empty): where a bulk insert's rows begin.
    func lastVersion(_ db: PostgresConnection, _ layer: LayerDefinition) async throws -> Int64 {
        var last: Int64 = 0
        for try await v in try await db.query(PostgresQuery(unsafeSQL: "SELECT coalesce(max(vid), 0)::int8 FROM \(table(layer).name)"),
                                              logger: logger).decode(Int64.self) { last = v }
        return last
    }

    /// After a bulk insert into `layer` of the rows above `vid`: their count and extent added.
    func updateStats(_ db: PostgresConnection, _ layer: LayerDefinition, afterBulkAbove vid: Int64) async throws {
        let added = try await Self.exactStats(db, table(layer), after: vid, logger: logger)
        try await updateStats(db, layer, LayerStatsChange(added: added.count, grown: added.extent))
    }

    /// Rows for every layer that has none, or whose extent is loose: a whole-layer read each, once,
    /// under the write lock (so no write of another process slips between the read and the row).
    static func fillStats(_ client: PostGISPool, schema s: String, definitions: [LayerDefinition], logger: Logger) async throws {
        var missing = Set(definitions.map(\.id))
        for try await (layer, loose) in try await client.query("SELECT layer, loose FROM \(unescaped: s).layer_stats", logger: logger)
            .decode((String, Int32).self) where loose == 0 { missing.remove(layer) }
        guard !missing.isEmpty else { return }
        let fill = definitions.filter { missing.contains($0.id) }
        try await client.withTransaction(logger: logger) { db in
            try await db.query("SELECT pg_advisory_xact_lock(hashtext(\(s + ".write")))", logger: logger)
            for def in fill {
                let stored = try await storedStats(db, schema: s, layer: def.id, logger: logger)
                guard stored == nil || stored?.loose == true else { continue }
                var t = FeatureTable(layer: def)
                t.name = s + "." + t.name
                try await storeStats(db, schema: s, layer: def.id, try await exactStats(db, t, logger: logger), logger: logger)
            }
        }
    }
}
