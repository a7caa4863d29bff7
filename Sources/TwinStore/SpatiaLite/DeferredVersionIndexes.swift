import GRDB

/// The B-tree indexes of an EMPTY layer table (current ids, versions by feature, versions by
/// time, the declared attribute indexes), set aside for one bulk insert and rebuilt once the rows are in, all inside the bulk
/// insert's transaction: SQLite builds an index over existing rows by sorting them once, which
/// costs a fraction of keeping three B-trees ordered row by row under random feature ids.
///
/// Only for a table without any row: then no stored version can collide with the batch, and the
/// rebuild touches exactly the new rows. The unique index on current ids is rebuilt last; when
/// the batch repeats a feature id it fails, and the error names the first repeat in input order
/// (what the row-by-row unique index reports). A rollback or crash restores the indexes with
/// everything else, since SQLite's schema changes are part of the transaction.
struct DeferredVersionIndexes {
    let table: String
    let layer: String
    /// (name, CREATE INDEX text) as `createLayer` wrote them, the unique index last.
    private let indexes: [(String, String)]

    /// `nil` when the table holds rows or lacks one of the three indexes (then they are kept).
    init?(_ db: Database, table: String, layer: String) throws {
        let hasRows = try Bool.fetchOne(db, sql: "SELECT EXISTS (SELECT 1 FROM \(table))") ?? true
        if hasRows { return nil }
        // The layer's attribute indexes (AttributeIndex) first; the unique index stays last.
        var found = try Row.fetchAll(db, sql: """
            SELECT name, sql FROM sqlite_master WHERE type = 'index' AND tbl_name = ? AND substr(name, 1, ?) = ? ORDER BY name
            """, arguments: [table, (table + AttributeIndex.infix).utf8.count, table + AttributeIndex.infix])
            .map { (row: Row) -> (String, String) in (row[0], row[1]) }
        for suffix in ["versions", "time", "current"] {
            let name = "\(table)_\(suffix)"
            guard let sql = try String.fetchOne(db, sql: "SELECT sql FROM sqlite_master WHERE type = 'index' AND name = ?",
                                                arguments: [name]) else { return nil }
            found.append((name, sql))
        }
        self.table = table
        self.layer = layer
        self.indexes = found
    }

    /// Drops the indexes (inside the current transaction).
    func suspend(_ db: Database) throws {
        for (name, _) in indexes { try db.execute(sql: "DROP INDEX \"\(name)\"") }
    }

    /// Recreates the indexes over the rows now in the table.
    /// - Throws: `StoreError(.duplicateFeature)` naming the first feature the batch repeats.
    func resume(_ db: Database) throws {
        for (name, sql) in indexes {
            do {
                try db.execute(sql: sql)
            } catch let e as DatabaseError where e.extendedResultCode == .SQLITE_CONSTRAINT_UNIQUE && name.hasSuffix("_current") {
                throw try firstRepeat(db) ?? StoreError(.duplicateFeature, "a feature of the batch is repeated", layer: layer)
            }
        }
    }

    /// The first row (in input order) whose feature id an earlier row already holds, as the
    /// error an insert gives for it; uses the versions index built just before.
    private func firstRepeat(_ db: Database) throws -> StoreError? {
        guard let fid = try String.fetchOne(db, sql: """
            SELECT a.fid FROM \(table) AS a
            WHERE a.valid_to IS NULL
              AND EXISTS (SELECT 1 FROM \(table) AS b WHERE b.fid = a.fid AND b.vid < a.vid AND b.valid_to IS NULL)
            ORDER BY a.vid LIMIT 1
            """) else { return nil }
        return StoreError(.duplicateFeature, "feature \"\(fid)\" already exists", layer: layer, feature: fid)
    }
}
