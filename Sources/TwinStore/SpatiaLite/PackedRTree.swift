import Foundation
import CSpatiaLite
import GRDB

/// SpatiaLite's R*Tree of a geometry column (an SQLite `rtree` virtual table) written in one
/// pass from sorted boxes (Sort-Tile-Recursive packing), instead of one R*Tree insert per row:
/// the node, rowid and parent shadow tables are filled directly in the format SQLite's `rtree`
/// module reads (as GDAL's bulk loader does). Inside the bulk insert's transaction, into an
/// empty tree or as a repack of the whole tree; `rtreecheck()` accepts the result, and later
/// inserts and deletes go through the module as usual.
///
/// Format (sqlite/ext/rtree/rtree.c): every node is one blob of the table's node size: a
/// 16-bit depth (root only; leaves are depth 0), a 16-bit cell count, then per cell a 64-bit
/// rowid (leaf) or child node number, and the box as four 32-bit floats (xmin, xmax, ymin,
/// ymax), all big-endian; node 1 is the root. `_rowid` maps each rowid to its leaf, `_parent`
/// each non-root node to its parent.
struct PackedRTree {
    /// One entry: a row id (or child node) and its box in 32-bit floats, rounded outwards.
    struct Box {
        var id: Int64
        var minX: Float, maxX: Float, minY: Float, maxY: Float

        /// The box of `id` rounded outwards to floats exactly as the `rtree` module rounds
        /// what is inserted into it (`rtreeValueDown` / `rtreeValueUp`), in EPSG:4490 degrees.
        init(id: Int64, minX: Double, maxX: Double, minY: Double, maxY: Double) {
            self.id = id
            self.minX = Self.down(minX)
            self.maxX = Self.up(maxX)
            self.minY = Self.down(minY)
            self.maxY = Self.up(maxY)
        }

        init(id: Int64, covering cells: ArraySlice<Box>) {
            self.id = id
            minX = .infinity; maxX = -.infinity; minY = .infinity; maxY = -.infinity
            for c in cells {
                minX = Swift.min(minX, c.minX); maxX = Swift.max(maxX, c.maxX)
                minY = Swift.min(minY, c.minY); maxY = Swift.max(maxY, c.maxY)
            }
        }

        private static let towards = 1.0 - 1.0 / 8_388_608.0
        private static let away = 1.0 + 1.0 / 8_388_608.0

        static func down(_ d: Double) -> Float {
            var f = Float(d)
            if Double(f) > d { f = Float(d * (d < 0 ? away : towards)) }
            return f
        }

        static func up(_ d: Double) -> Float {
            var f = Float(d)
            if Double(f) < d { f = Float(d * (d < 0 ? towards : away)) }
            return f
        }

        var centerX: Float { (minX + maxX) / 2 }
        var centerY: Float { (minY + maxY) / 2 }
    }

    /// Fills the R*Tree `index` (e.g. `idx_f_buildings_geom`) with `boxes`, replacing every
    /// entry it held.
    static func write(_ db: Database, index: String, boxes: [Box]) throws {
        guard !boxes.isEmpty else { return }
        guard let nodeSize = try Int.fetchOne(db, sql: "SELECT length(data) FROM \"\(index)_node\" WHERE nodeno = 1"),
              nodeSize >= 4 + 2 * 24 else {
            throw StoreError(.backend, "the R*Tree \(index) has no root node")
        }
        let capacity = min((nodeSize - 4) / 24, 51)
        guard let connection = db.sqliteConnection else { throw StoreError(.backend, "SQLite connection is closed") }
        try db.execute(sql: "DELETE FROM \"\(index)_node\"; DELETE FROM \"\(index)_rowid\"; DELETE FROM \"\(index)_parent\"")
        let writer = try ShadowWriter(connection, index: index)
        defer { writer.finalize() }
        var blob = [UInt8](repeating: 0, count: nodeSize)
        var level = boxes
        var height = 0
        var nextNode: Int64 = 2
        // Each row's leaf, written to `_rowid` in row id order once the leaves are out: in
        // ascending keys the rowid table grows at its right edge, where tile order would
        // insert at random places.
        var leafOf = [(row: Int64, node: Int64)]()
        leafOf.reserveCapacity(boxes.count)
        while true {
            if level.count <= capacity {
                try writer.node(1, depth: height, cells: level[...], blob: &blob)
                if height == 0 {
                    leafOf += level.map { ($0.id, 1) }
                } else {
                    try writer.link(level[...], to: 1)
                }
                break
            }
            level = try writer.level(&level, leaves: height == 0, capacity: capacity, next: &nextNode, leafOf: &leafOf, blob: &blob)
            height += 1
        }
        leafOf.sort { $0.row < $1.row }
        try writer.leaves(leafOf)
    }

    /// Adds `boxes` (new rows) to a tree that already holds entries by packing them into a subtree
    /// of their own and hanging it from the root, instead of one R*Tree insert per row (each a
    /// descent of the whole tree, with splits and forced reinserts: in a tree of millions of entries
    /// the bulk of a district's load). When the root then holds more than a node's cells, they are
    /// packed into a new level (the tree grows at the top, every leaf stays at the same depth).
    ///
    /// Only where the subtree adds little overlap: the batch's box may cover at most
    /// `graftOverlap` of its area with the root's children (a district beside the districts
    /// already loaded, a new area of a city). A batch over ground the tree already covers goes
    /// in row by row, so repeated loads over one area never stack subtrees that every query
    /// there would descend. Returns whether it grafted; `false` changes nothing.
    static func graft(_ db: Database, index: String, boxes: [Box]) throws -> Bool {
        guard !boxes.isEmpty, let root = try Data.fetchOne(db, sql: "SELECT data FROM \"\(index)_node\" WHERE nodeno = 1"),
              root.count >= 4 + 2 * 24 else { return false }
        let bytes = [UInt8](root)
        let height = Int(bytes[0]) << 8 | Int(bytes[1])
        let count = Int(bytes[2]) << 8 | Int(bytes[3])
        let capacity = min((bytes.count - 4) / 24, 51)
        // A root that is a leaf holds the rows themselves: a batch against so small a tree is
        // repacked with it or inserted row by row.
        guard height >= 1, count <= capacity else { return false }
        var cells = (0..<count).map { i in Self.cell(bytes, at: 4 + 24 * i) }
        let batch = Box(id: 0, covering: boxes[...])
        let area = Double(batch.maxX - batch.minX) * Double(batch.maxY - batch.minY)
        guard area > 0 else { return false }
        let covered = cells.reduce(0.0) { sum, c in
            let w = Double(Swift.min(c.maxX, batch.maxX) - Swift.max(c.minX, batch.minX))
            let h = Double(Swift.min(c.maxY, batch.maxY) - Swift.max(c.minY, batch.minY))
            return sum + (w > 0 && h > 0 ? w * h : 0)
        }
        guard covered <= graftOverlap * area else { return false }

        guard let connection = db.sqliteConnection else { throw StoreError(.backend, "SQLite connection is closed") }
        let writer = try ShadowWriter(connection, index: index)
        defer { writer.finalize() }
        var blob = [UInt8](repeating: 0, count: bytes.count)
        var nextNode = (try Int64.fetchOne(db, sql: "SELECT max(nodeno) FROM \"\(index)_node\"") ?? 1) + 1
        var leafOf = [(row: Int64, node: Int64)]()
        leafOf.reserveCapacity(boxes.count)
        // The batch packed level by level up to the root's children (depth `height` - 1).
        var level = boxes
        for depth in 0..<height {
            level = try writer.level(&level, leaves: depth == 0, capacity: capacity, next: &nextNode, leafOf: &leafOf, blob: &blob)
        }
        cells += level
        // The root's children, old and new; while they overflow a node, one more level.
        var rootHeight = height
        while cells.count > capacity {
            cells = try writer.level(&cells, leaves: false, capacity: capacity, next: &nextNode, leafOf: &leafOf, blob: &blob)
            rootHeight += 1
        }
        try writer.node(1, depth: rootHeight, cells: cells[...], blob: &blob)
        try writer.link(cells[...], to: 1)
        leafOf.sort { $0.row < $1.row }
        try writer.leaves(leafOf)
        return true
    }

    /// The share of a grafted batch's box that the root's children may already cover.
    static let graftOverlap = 0.25

    /// The cell at byte `o` of a node blob.
    private static func cell(_ b: [UInt8], at o: Int) -> Box {
        var id: UInt64 = 0
        for k in 0..<8 { id = id << 8 | UInt64(b[o + k]) }
        func float(_ at: Int) -> Float {
            Float(bitPattern: UInt32(b[at]) << 24 | UInt32(b[at + 1]) << 16 | UInt32(b[at + 2]) << 8 | UInt32(b[at + 3]))
        }
        var box = Box(id: Int64(bitPattern: id), minX: 0, maxX: 0, minY: 0, maxY: 0)
        box.minX = float(o + 8); box.maxX = float(o + 12); box.minY = float(o + 16); box.maxY = float(o + 20)
        return box
    }

    /// Sort-Tile-Recursive: orders `boxes` into vertical slices by centre x, each slice by
    /// centre y, and returns the ranges of consecutive groups of `capacity` (the nodes).
    static func tiles(_ boxes: inout [Box], capacity: Int) -> [Range<Int>] {
        let n = boxes.count
        let nodes = (n + capacity - 1) / capacity
        let slices = Int(Double(nodes).squareRoot().rounded(.up))
        let sliceSize = slices * capacity
        boxes.sort { $0.centerX < $1.centerX }
        var groups = [Range<Int>]()
        groups.reserveCapacity(nodes)
        var start = 0
        while start < n {
            let end = min(start + sliceSize, n)
            boxes[start..<end].sort { $0.centerY < $1.centerY }
            var g = start
            while g < end {
                groups.append(g..<min(g + capacity, end))
                g += capacity
            }
            start = end
        }
        return groups
    }

    /// The three prepared inserts into the shadow tables.
    private final class ShadowWriter {
        let connection: OpaquePointer
        var node: OpaquePointer?
        var rowid: OpaquePointer?
        var parent: OpaquePointer?

        init(_ connection: OpaquePointer, index: String) throws {
            self.connection = connection
            do {
                node = try prepare("INSERT OR REPLACE INTO \"\(index)_node\" (nodeno, data) VALUES (?1, ?2)")
                rowid = try prepare("INSERT INTO \"\(index)_rowid\" (rowid, nodeno) VALUES (?1, ?2)")
                parent = try prepare("INSERT OR REPLACE INTO \"\(index)_parent\" (nodeno, parentnode) VALUES (?1, ?2)")
            } catch {
                finalize()
                throw error
            }
        }

        func finalize() {
            for s in [node, rowid, parent] { sqlite3_finalize(s) }
            node = nil
            rowid = nil
            parent = nil
        }

        private func prepare(_ sql: String) throws -> OpaquePointer? {
            var s: OpaquePointer?
            let rc = sqlite3_prepare_v2(connection, sql, -1, &s, nil)
            guard rc == SQLITE_OK else { throw error(sql) }
            return s
        }

        private func error(_ sql: String?) -> DatabaseError {
            DatabaseError(resultCode: ResultCode(rawValue: sqlite3_extended_errcode(connection)),
                          message: String(cString: sqlite3_errmsg(connection)), sql: sql)
        }

        private func step(_ s: OpaquePointer?) throws {
            let rc = sqlite3_step(s)
            sqlite3_reset(s)
            guard rc == SQLITE_DONE else { throw error(s.map { String(cString: sqlite3_sql($0)) }) }
        }

        /// Writes node `number` holding `cells`.
        func node(_ number: Int64, depth: Int, cells: ArraySlice<Box>, blob: inout [UInt8]) throws {
            for i in blob.indices { blob[i] = 0 }
            put16(&blob, 0, number == 1 ? depth : 0)
            put16(&blob, 2, cells.count)
            var o = 4
            for c in cells {
                let id = UInt64(bitPattern: c.id)
                for k in 0..<8 { blob[o + k] = UInt8(truncatingIfNeeded: id >> (56 - 8 * k)) }
                o += 8
                put32(&blob, o, c.minX); put32(&blob, o + 4, c.maxX)
                put32(&blob, o + 8, c.minY); put32(&blob, o + 12, c.maxY)
                o += 16
            }
            sqlite3_bind_int64(node, 1, number)
            try blob.withUnsafeBytes { b in
                sqlite3_bind_blob(node, 2, b.baseAddress, Int32(b.count), nil)
                try step(node)
            }
        }

        /// Packs `entries` (rows when `leaves`, else child nodes) into new non-root nodes numbered
        /// from `next`, and returns the nodes' own entries for the level above. Leaves' rows go to
        /// `leafOf`, written to `_rowid` at the end; child nodes are linked to their parents now.
        func level(_ entries: inout [Box], leaves: Bool, capacity: Int, next: inout Int64,
                   leafOf: inout [(row: Int64, node: Int64)], blob: inout [UInt8]) throws -> [Box] {
            var up = [Box]()
            up.reserveCapacity(entries.count / capacity + 1)
            for group in PackedRTree.tiles(&entries, capacity: capacity) {
                let node = next
                next += 1
                let cells = entries[group]
                try self.node(node, depth: 0, cells: cells, blob: &blob)
                if leaves {
                    for c in cells { leafOf.append((c.id, node)) }
                } else {
                    try link(cells, to: node)
                }
                up.append(Box(id: node, covering: cells))
            }
            return up
        }

        /// Records that the child nodes `cells` live in node `number`.
        func link(_ cells: ArraySlice<Box>, to number: Int64) throws {
            for c in cells {
                sqlite3_bind_int64(parent, 1, c.id)
                sqlite3_bind_int64(parent, 2, number)
                try step(parent)
            }
        }

        /// Records the leaf node of each row.
        func leaves(_ rows: [(row: Int64, node: Int64)]) throws {
            for r in rows {
                sqlite3_bind_int64(rowid, 1, r.row)
                sqlite3_bind_int64(rowid, 2, r.node)
                try step(rowid)
            }
        }

        private func put32(_ b: inout [UInt8], _ at: Int, _ v: Float) {
            let bits = v.bitPattern
            for k in 0..<4 { b[at + k] = UInt8(truncatingIfNeeded: bits >> (24 - 8 * k)) }
        }

        private func put16(_ b: inout [UInt8], _ at: Int, _ v: Int) {
            b[at] = UInt8(truncatingIfNeeded: v >> 8)
            b[at + 1] = UInt8(truncatingIfNeeded: v)
        }
    }
}

extension SpatiaLiteStore {
    /// SQLite's own consistency check of a layer's R*Tree (`rtreecheck`): "ok", or what is wrong.
    func spatialIndexCheck(layer: String) async throws -> String {
        let table = FeatureTable(layer: try readableLayer(layer, .admin)).name
        return try await pool.read { db in
            try String.fetchOne(db, sql: "SELECT rtreecheck('idx_\(table)_geom')") ?? ""
        }
    }
}
