import GeoCore

/// The quadtree of terrain tiles over a DEM (CIM1's 地表模型): every tile is a regular grid of the
/// DEM's cell-centre nodes, the leaves (level 0) every node, a tile of level `k` every `2^k`-th
/// node (regular grid subsampling), so a tile of any level has at most `leafCells + 1` nodes a side.
///
/// Tiles are counted in node space: tile (level `k`, column `i`, row `j`) spans node columns
/// `i·E … min((i + 1)·E, width − 1)` with `E = leafCells · 2^k` (rows likewise, row 0 the
/// northern edge), and always keeps its last node, so two tiles of one level share their edge
/// nodes exactly (no cracks along them); a tile and a neighbour of another level meet under
/// skirts (`TerrainMesher`). Each quad of nodes is split along its north-west–south-east diagonal.
///
/// The error of a tile is measured, not estimated: the largest difference between a DEM node
/// inside the tile and the tile's surface above it (`maximumError`).
public struct TerrainPyramid: Sendable {
    /// A tile: its level (0 = leaves, full resolution) and its column and row at that level.
    public struct TileID: Hashable, Sendable, Comparable, CustomStringConvertible {
        public var level: Int
        public var column: Int
        public var row: Int
        public init(level: Int, column: Int, row: Int) { self.level = level; self.column = column; self.row = row }
        public static func < (a: TileID, b: TileID) -> Bool { (a.level, a.row, a.column) < (b.level, b.row, b.column) }
        /// `level_column_row`, the content file's name without `.glb`.
        public var description: String { "\(level)_\(column)_\(row)" }

        /// Reads `level_column_row` (`nil` for anything else).
        public init?(_ text: some StringProtocol) {
            let parts = text.split(separator: "_", omittingEmptySubsequences: false)
            guard parts.count == 3, let l = Int(parts[0]), let c = Int(parts[1]), let r = Int(parts[2]),
                  l >= 0, c >= 0, r >= 0 else { return nil }
            self.init(level: l, column: c, row: r)
        }
    }

    public let grid: Grid
    /// Cells a leaf spans on each side.
    public let leafCells: Int
    /// The number of levels; the root is the one tile of level `levels − 1`.
    public let levels: Int

    /// The pyramid over `grid`.
    /// - Throws: `Tiles3DError` `.noTerrain` for a grid with fewer than two cells a side (no surface).
    public init(grid: Grid, leafCells: Int = 64) throws {
        guard grid.width >= 2, grid.height >= 2 else {
            throw Tiles3DError(.noTerrain, "a DEM of \(grid.width) × \(grid.height) cells has no surface to mesh (at least 2 × 2 are needed)")
        }
        guard leafCells >= 1 else { throw Tiles3DError(.invalidArgument, "a terrain leaf spans at least one cell, not \(leafCells)") }
        self.grid = grid
        self.leafCells = leafCells
        var level = 0
        while Self.count(grid.width, leafCells << level) > 1 || Self.count(grid.height, leafCells << level) > 1 { level += 1 }
        levels = level + 1
    }

    /// Tiles along an axis of `nodes` nodes when each spans `span` intervals.
    private static func count(_ nodes: Int, _ span: Int) -> Int { max(1, (nodes - 1 + span - 1) / span) }

    /// The tiles of `level`, sorted.
    public func tiles(level: Int) -> [TileID] {
        let span = leafCells << level
        let columns = Self.count(grid.width, span), rows = Self.count(grid.height, span)
        return (0..<rows).flatMap { r in (0..<columns).map { TileID(level: level, column: $0, row: r) } }
    }

    /// The tiles one level finer that refine `tile` (none for a leaf).
    public func children(of tile: TileID) -> [TileID] {
        guard tile.level > 0 else { return [] }
        let span = leafCells << (tile.level - 1)
        let columns = Self.count(grid.width, span), rows = Self.count(grid.height, span)
        var out: [TileID] = []
        for r in [2 * tile.row, 2 * tile.row + 1] where r < rows {
            for c in [2 * tile.column, 2 * tile.column + 1] where c < columns {
                out.append(TileID(level: tile.level - 1, column: c, row: r))
            }
        }
        return out
    }

    /// Whether `tile` is one of the pyramid's.
    public func contains(_ tile: TileID) -> Bool {
        guard tile.level < levels else { return false }
        let span = leafCells << tile.level
        return tile.column < Self.count(grid.width, span) && tile.row < Self.count(grid.height, span)
    }

    /// The node columns and rows of `tile`: every `2^level`-th node of its span and its last one.
    public func nodes(of tile: TileID) -> (columns: [Int], rows: [Int]) {
        func axis(_ index: Int, _ nodes: Int) -> [Int] {
            let span = leafCells << tile.level, step = 1 << tile.level
            let start = index * span, end = min(start + span, nodes - 1)
            var out = Array(stride(from: start, to: end, by: step))
            out.append(end)
            return out
        }
        return (axis(tile.column, grid.width), axis(tile.row, grid.height))
    }

    /// The DEM height of node (`column`, `row`), `nil` on no-data.
    public func height(column: Int, row: Int) -> Double? {
        let v = grid[column: column, row: row]
        return grid.isValid(v) ? Double(v) : nil
    }

    /// The largest vertical distance (metres) between a DEM node in `tile`'s span and the tile's
    /// surface above or below it (quads with a no-data corner are not drawn and not measured);
    /// 0 for a leaf, whose vertices are the nodes themselves.
    public func maximumError(of tile: TileID) -> Double {
        guard tile.level > 0 else { return 0 }
        let (columns, rows) = nodes(of: tile)
        var worst = 0.0
        for y in rows.indices.dropLast() {
            for x in columns.indices.dropLast() {
                let c0 = columns[x], c1 = columns[x + 1], r0 = rows[y], r1 = rows[y + 1]
                guard let nw = height(column: c0, row: r0), let ne = height(column: c1, row: r0),
                      let sw = height(column: c0, row: r1), let se = height(column: c1, row: r1) else { continue }
                for r in r0...r1 {
                    let v = Double(r - r0) / Double(r1 - r0)
                    for c in c0...c1 {
                        guard let h = height(column: c, row: r) else { continue }
                        let u = Double(c - c0) / Double(c1 - c0)
                        // The triangle (nw, sw, se) below the diagonal (v ≥ u), (nw, se, ne) above it.
                        let surface = v >= u ? nw + v * (sw - nw) + u * (se - sw) : nw + u * (ne - nw) + v * (se - ne)
                        worst = max(worst, abs(surface - h))
                    }
                }
            }
        }
        return worst
    }
}
