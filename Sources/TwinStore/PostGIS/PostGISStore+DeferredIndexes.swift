import Foundation
import PostgresNIO

/// The indexes of an EMPTY layer table (current ids, versions by feature, versions by time,
/// GiST on the geometry, the declared attribute indexes), set aside for one bulk insert and rebuilt once the rows are in, all
/// inside the bulk insert's transaction: PostgreSQL builds a B-tree by sorting the table once
/// and PostGIS builds the GiST by sorting the boxes, a fraction of keeping four indexes ordered
/// row by row. Readers of the layer wait for the commit while the indexes are dropped (the
/// table is empty until then anyway); a rollback or crash restores the indexes with everything
/// else, since PostgreSQL's schema changes are transactional.
///
/// The unique index on current ids is rebuilt last, under a savepoint: when the batch repeats a
/// feature id it fails, and the error names the first repeat in input order (what the row-by-row
/// unique index reports).
struct DeferredLayerIndexes {
    let table: String
    let layer: String
    /// (name, CREATE INDEX text) as PostgreSQL reports them, the unique index last.
    let indexes: [(name: String, definition: String)]
}

extension PostGISStore {
    /// The layer's secondary indexes when `table` holds no row; `nil` otherwise (they stay).
    func deferredIndexes(table: String, layer: String, bare: String, on db: PostgresConnection) async throws -> DeferredLayerIndexes? {
        var hasRows = true
        for try await e in try await db.query(PostgresQuery(unsafeSQL: "SELECT EXISTS (SELECT 1 FROM \(table))"), logger: logger)
            .decode(Bool.self) { hasRows = e }
        if hasRows { return nil }
        var found = [String: String]()
        for try await (name, definition) in try await db.query("""
            SELECT indexname::text, indexdef FROM pg_indexes WHERE schemaname = \(schema) AND tablename = \(bare)
            """, logger: logger).decode((String, String).self) { found[name] = definition }
        var ordered = [(name: String, definition: String)]()
        // The layer's attribute indexes (AttributeIndex) go before the unique index too.
        for (name, d) in found.sorted(by: { $0.key < $1.key }) where name.hasPrefix(bare + AttributeIndex.infix) {
            ordered.append((name, d))
        }
        for suffix in ["versions", "time", "geom_gist", "current"] {
            let name = "\(bare)_\(suffix)"
            if let d = found[name] {
                ordered.append((name, d))
            } else if suffix != "geom_gist" {
                return nil
            }
        }
        return DeferredLayerIndexes(table: table, layer: layer, indexes: ordered)
    }

    /// Drops the indexes (inside the current transaction).
    func suspend(_ deferred: DeferredLayerIndexes, on db: PostgresConnection) async throws {
        for i in deferred.indexes {
            try await db.query(PostgresQuery(unsafeSQL: "DROP INDEX \(schema).\(i.name)"), logger: logger)
        }
    }

    /// Recreates the indexes over the rows now in the table.
    /// - Throws: `StoreError(.duplicateFeature)` naming the first feature the batch repeats.
    func resume(_ deferred: DeferredLayerIndexes, on db: PostgresConnection) async throws {
        // Sorts in memory for tables of a few million rows; local to the transaction.
        try await db.query("SET LOCAL maintenance_work_mem = '256MB'", logger: logger)
        for i in deferred.indexes {
            let unique = i.name.hasSuffix("_current")
            if unique { try await db.query("SAVEPOINT citytwin_unique_current", logger: logger) }
            do {
                try await db.query(PostgresQuery(unsafeSQL: i.definition), logger: logger)
            } catch where unique && Self.sqlState(error) == "23505" {
                try await db.query("ROLLBACK TO SAVEPOINT citytwin_unique_current", logger: logger)
                throw try await firstRepeat(deferred, on: db)
            }
            if unique { try await db.query("RELEASE SAVEPOINT citytwin_unique_current", logger: logger) }
        }
    }

    /// The first row (in input order) whose feature id an earlier row already holds, as the
    /// error an insert gives for it; uses the versions index built just before.
    private func firstRepeat(_ deferred: DeferredLayerIndexes, on db: PostgresConnection) async throws -> StoreError {
        let t = deferred.table
        var fid: String?
        for try await f in try await db.query(PostgresQuery(unsafeSQL: """
            SELECT a.fid::text FROM \(t) AS a
            WHERE a.valid_to IS NULL
              AND EXISTS (SELECT 1 FROM \(t) AS b WHERE b.fid = a.fid AND b.vid < a.vid AND b.valid_to IS NULL)
            ORDER BY a.vid LIMIT 1
            """), logger: logger).decode(String.self) { fid = f }
        guard let fid else {
            return StoreError(.duplicateFeature, "a feature of the batch is repeated", layer: deferred.layer)
        }
        return StoreError(.duplicateFeature, "feature \"\(fid)\" already exists", layer: deferred.layer, feature: fid)
    }
}
