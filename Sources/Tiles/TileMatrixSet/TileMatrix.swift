/// One level of a tile matrix set: a grid of `matrixWidth` × `matrixHeight` tiles of
/// 256 × 256 pixels whose top-left corner is the set's origin (OGC TMS 2.0 `TileMatrix`).
public struct TileMatrix: Hashable, Sendable {
    /// The level identifier as published: 0-based for the OGC sets, 1-based (1…18) for the
    /// Tianditu-compatible CGCS2000 set.
    public let id: Int
    /// Size of one pixel in CRS units (metres for EPSG:3857, degrees for CRS84 and EPSG:4490).
    /// Everything geometric is derived from this, never from `scaleDenominator`.
    public let cellSize: Double
    /// OGC scale denominator with the standardized 0.28 mm rendering pixel.
    public let scaleDenominator: Double
    /// Tiles per row of the matrix (number of columns).
    public let matrixWidth: Int
    /// Tiles per column of the matrix (number of rows).
    public let matrixHeight: Int
    /// Pixels per tile, horizontally and vertically.
    public static let tileSize = 256

    /// Width (and height) of one tile in CRS units.
    @inlinable public var tileSpan: Double { cellSize * Double(Self.tileSize) }

    /// Whether `row`/`col` name a tile of this matrix.
    @inlinable public func contains(row: Int, col: Int) -> Bool {
        row >= 0 && row < matrixHeight && col >= 0 && col < matrixWidth
    }
}

/// One tile: its matrix (level identifier as the set publishes it), row (from the top) and
/// column (from the left), in OGC order `{tileMatrix}/{tileRow}/{tileCol}`.
public struct TileID: Hashable, Sendable, CustomStringConvertible {
    public var matrix: Int
    public var row: Int
    public var col: Int

    public init(matrix: Int, row: Int, col: Int) {
        self.matrix = matrix
        self.row = row
        self.col = col
    }

    public var description: String { "\(matrix)/\(row)/\(col)" }
}

/// A rectangular block of tiles of one matrix (inclusive row and column ranges), as returned
/// for an envelope: iterate it rather than materialising millions of ids at high zoom.
public struct TileRange: Hashable, Sendable, Sequence {
    public let matrix: Int
    public let rows: ClosedRange<Int>
    public let cols: ClosedRange<Int>

    /// Number of tiles in the block.
    public var count: Int { rows.count * cols.count }

    public func makeIterator() -> AnyIterator<TileID> {
        var row = rows.lowerBound, col = cols.lowerBound
        let matrix = self.matrix, rows = self.rows, cols = self.cols
        return AnyIterator {
            guard row <= rows.upperBound else { return nil }
            let id = TileID(matrix: matrix, row: row, col: col)
            if col < cols.upperBound { col += 1 } else { col = cols.lowerBound; row += 1 }
            return id
        }
    }
}
