import GRDB

/// SpatiaLite's per-row insert triggers of a layer's geometry column, set aside for one bulk
/// insert and replayed over the new rows as set-based statements, all inside the bulk insert's
/// transaction (a rollback or crash restores the triggers with everything else):
///
/// - `ggi_<table>_geom` (geometry type and SRID constraint): checked once over the new rows
///   with the same `GeometryConstraints` call;
/// - `gii_<table>_geom` (R*Tree entry): the new rows' boxes in one `INSERT … SELECT`, instead
///   of a trigger program (and an `RTreeAlign` statement) per row; into an empty R*Tree, or
///   when the batch is large against the tree, all boxes are packed into nodes and written at
///   once (`PackedRTree`); a smaller batch over ground the tree does not cover yet is packed
///   into a subtree of its own hung from the root (`PackedRTree.graft`);
/// - `tmi_<table>_geom` (last-insert time of `geometry_columns_time`): set once.
///
/// Reads see no difference: other connections only ever see the committed state, in which the
/// triggers are back and every new row has its R*Tree entry.
struct DeferredGeometryTriggers {
    let table: String
    let layer: String
    /// (name, CREATE TRIGGER text) as SpatiaLite wrote them.
    private let triggers: [(String, String)]
    /// The largest `vid` before the bulk insert: newer rows are the bulk insert's.
    private let lastVid: Int64
    /// Whether the R*Tree held no entry before the bulk insert.
    private let rtreeWasEmpty: Bool
    /// At least the entries the R*Tree held before the bulk insert: one per version with a
    /// geometry, and versions are numbered from 1, so `lastVid`. Counting the entries instead
    /// walked the whole tree on every bulk insert, which made loading a city district by
    /// district grow with the square of the districts.
    private var rtreeEntriesBound: Int { Int(lastVid) }

    /// `nil` when the table lacks any of the three triggers (then they simply run per row).
    init?(_ db: Database, table: String, layer: String) throws {
        let names = ["ggi", "gii", "tmi"].map { "\($0)_\(table)_geom" }
        var found = [(String, String)]()
        for name in names {
            guard let sql = try String.fetchOne(db, sql: "SELECT sql FROM sqlite_master WHERE type = 'trigger' AND name = ?",
                                                arguments: [name]) else { return nil }
            found.append((name, sql))
        }
        self.table = table
        self.layer = layer
        self.triggers = found
        self.lastVid = try Int64.fetchOne(db, sql: "SELECT max(vid) FROM \(table)") ?? 0
        self.rtreeWasEmpty = try Int.fetchOne(db, sql: "SELECT 1 FROM \"idx_\(table)_geom_rowid\" LIMIT 1") == nil
    }

    /// Drops the triggers (inside the current transaction).
    func suspend(_ db: Database) throws {
        for (name, _) in triggers { try db.execute(sql: "DROP TRIGGER \"\(name)\"") }
    }

    /// Does for the rows added since `init` what the triggers would have done, then recreates them.
    /// `boxes`: the new rows' R*Tree entries, given when the bulk writer made every new row's
    /// BLOB itself and checked it against the column's type (`BulkRowWriter.boxes`); without
    /// them, the rows are read back for both.
    /// - Throws: `StoreError(.invalidFeature)` naming the first feature whose geometry breaks the
    ///   column's type or SRID constraint.
    func resume(_ db: Database, boxes written: [PackedRTree.Box]?) throws {
        if written == nil, let fid = try String.fetchOne(db, sql: """
            SELECT t.fid FROM \(table) AS t, geometry_columns AS g
            WHERE t.vid > ? AND t.geom IS NOT NULL
              AND Lower(g.f_table_name) = Lower(?) AND Lower(g.f_geometry_column) = 'geom'
              AND GeometryConstraints(t.geom, g.geometry_type, g.srid) IS NOT 1
            ORDER BY t.vid LIMIT 1
            """, arguments: [lastVid, table]) {
            throw StoreError(.invalidFeature, "the geometry violates the layer's geometry type or SRID (EPSG:4490)",
                             layer: layer, feature: fid, field: "geometry")
        }
        if let written, rtreeWasEmpty || written.count >= rtreeEntriesBound / Self.repackFraction {
            // Into an empty tree, or a batch large against the tree: every entry packed anew
            // (the tree's own entries are already its 32-bit boxes), instead of one R*Tree
            // insert per new row.
            let boxes = rtreeWasEmpty ? written : try existingBoxes(db) + written
            try PackedRTree.write(db, index: "idx_\(table)_geom", boxes: boxes)
        } else if let written, try PackedRTree.graft(db, index: "idx_\(table)_geom", boxes: written) {
            // A batch beside what the tree holds (a city's next district): packed on its own
            // and hung from the root.
        } else if rtreeWasEmpty {
            // The new rows' boxes as the trigger would read them, packed into the empty tree.
            var boxes = [PackedRTree.Box]()
            let rows = try Row.fetchCursor(db, sql: """
                SELECT vid, MbrMinX(geom), MbrMaxX(geom), MbrMinY(geom), MbrMaxY(geom) FROM \(table)
                WHERE vid > ? AND geom IS NOT NULL
                """, arguments: [lastVid])
            while let r = try rows.next() {
                guard let a: Double = r[1], let b: Double = r[2], let c: Double = r[3], let d: Double = r[4] else { continue }
                boxes.append(PackedRTree.Box(id: r[0], minX: a, maxX: b, minY: c, maxY: d))
            }
            try PackedRTree.write(db, index: "idx_\(table)_geom", boxes: boxes)
        } else {
            try alignRTree(db)
        }
        try db.execute(sql: """
            UPDATE geometry_columns_time SET last_insert = strftime('%Y-%m-%dT%H:%M:%fZ', 'now')
            WHERE Lower(f_table_name) = Lower(?) AND Lower(f_geometry_column) = 'geom'
            """, arguments: [table])
        for (_, sql) in triggers { try db.execute(sql: sql) }
    }

    /// A batch of at least 1/`repackFraction` of the tree's entries repacks the whole tree:
    /// packing costs about a microsecond per entry, an R*Tree insert several per new row.
    static let repackFraction = 4

    /// The entries the R*Tree holds, as stored (32-bit boxes).
    private func existingBoxes(_ db: Database) throws -> [PackedRTree.Box] {
        var boxes = [PackedRTree.Box]()
        let rows = try Row.fetchCursor(db, sql: "SELECT pkid, xmin, xmax, ymin, ymax FROM \"idx_\(table)_geom\"")
        while let r = try rows.next() {
            boxes.append(PackedRTree.Box(id: r[0], minX: r[1], maxX: r[2], minY: r[3], maxY: r[4]))
        }
        return boxes
    }

    /// The new rows' R*Tree entries added one by one (into a tree that already holds entries).
    private func alignRTree(_ db: Database) throws {
        try db.execute(sql: "DELETE FROM \"idx_\(table)_geom\" WHERE pkid > ?", arguments: [lastVid])
        // What `RTreeAlign` writes, in one statement (SQLite's R*Tree rounds each box outwards
        // to its 32-bit floats itself); `RTreeAlign` would prepare an INSERT per row.
        try db.execute(sql: """
            INSERT INTO "idx_\(table)_geom" (pkid, xmin, xmax, ymin, ymax)
            SELECT vid, MbrMinX(geom), MbrMaxX(geom), MbrMinY(geom), MbrMaxY(geom) FROM \(table)
            WHERE vid > ? AND geom IS NOT NULL
            """, arguments: [lastVid])
    }
}
