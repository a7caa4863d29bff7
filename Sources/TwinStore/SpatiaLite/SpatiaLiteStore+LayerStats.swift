import Foundation
import GeoCore
import GRDB

/// The catalogue's count and extent of each layer (`LayerStats`) on SpatiaLite: kept by every
/// write in its transaction, filled at open for layers without a row (a store from before the
/// table) or with a loose extent.
extension SpatiaLiteStore {
    static let envelopeColumns = ["MbrMinX(geom)", "MbrMinY(geom)", "MbrMaxX(geom)", "MbrMaxY(geom)"]

    /// The exact numbers of the current features of `table` (with `after`: of the versions above that vid only).
    static func exactStats(_ db: Database, _ table: FeatureTable, after vid: Int64? = nil) throws -> LayerStats {
        let sql = LayerStatsSQL.exact(table, envelope: envelopeColumns, SpatiaLiteDialect(), after: vid != nil)
        guard let row = try Row.fetchOne(db, sql: sql, arguments: vid.map { [$0] } ?? []) else { return LayerStats(count: 0) }
        return LayerStatsSQL.stats(count: row[0], row[1], row[2], row[3], row[4])
    }

    static func storedStats(_ db: Database, layer: String) throws -> LayerStats? {
        guard let row = try Row.fetchOne(db, sql: LayerStatsSQL.select(SpatiaLiteDialect()), arguments: [layer]) else { return nil }
        return LayerStatsSQL.stats(count: row[0], row[1], row[2], row[3], row[4], loose: row[5])
    }

    static func storeStats(_ db: Database, layer: String, _ stats: LayerStats) throws {
        try db.execute(sql: LayerStatsSQL.upsert(SpatiaLiteDialect()), arguments: StatementArguments(LayerStatsSQL.upsertValues(layer, stats)))
    }

    /// Applies `change` (already written in this transaction) to the layer's row.
    static func updateStats(_ db: Database, _ table: FeatureTable, _ change: LayerStatsChange) throws {
        let layer = table.layer.id
        let stored = try storedStats(db, layer: layer)
        guard stored == nil || !change.isEmpty else { return }
        try storeStats(db, layer: layer, LayerStatsSQL.next(stored: stored, change: change) ?? exactStats(db, table))
    }

    /// The highest version row id of `table` (0 when empty): where a bulk insert's rows begin.
    static func lastVersion(_ db: Database, _ table: FeatureTable) throws -> Int64 {
        try Int64.fetchOne(db, sql: "SELECT max(vid) FROM \(table.name)") ?? 0
    }

    /// After a bulk insert into `table` of the rows above `vid`: their count and extent added.
    static func updateStats(_ db: Database, _ table: FeatureTable, afterBulkAbove vid: Int64) throws {
        let added = try exactStats(db, table, after: vid)
        try updateStats(db, table, LayerStatsChange(added: added.count, grown: added.extent))
    }

    /// Rows for every layer of `definitions` that has none, or whose extent is loose: a whole-layer
    /// read each, once (at open, in one write transaction).
    static func fillStats(_ db: Database, _ definitions: [LayerDefinition]) throws {
        for def in definitions {
            let stored = try storedStats(db, layer: def.id)
            guard stored == nil || stored?.loose == true else { continue }
            try storeStats(db, layer: def.id, exactStats(db, FeatureTable(layer: def)))
        }
    }

    /// The stored numbers of `layers`; a layer without a row (created by a process from before the
    /// table, since this one opened the store) is counted.
    static func stats(_ db: Database, of layers: [LayerDefinition]) throws -> [LayerStats] {
        try layers.map { try storedStats(db, layer: $0.id) ?? exactStats(db, FeatureTable(layer: $0)) }
    }
}
