import GeoCore

/// One tile as a drawing surface: maps longitude/latitude to tile units (origin top-left,
/// y down, `extent` units across) through the set's CRS, and knows its clip rectangle.
public struct TileFrame: Sendable {
    public let tileMatrixSet: TileMatrixSet
    public let tile: TileID
    /// The tile's rectangle in the set's CRS (internal x, y order).
    public let bounds: Envelope
    /// Tile units across the tile (MVT `extent`, 4096 by default).
    public let extent: Int
    /// Tile units kept beyond each edge (64 by default, as martin; PostGIS uses 256).
    public let buffer: Int
    private let transformer: CoordinateTransformer

    /// - Throws: `TileError.outsideMatrix` for a tile not in the set; `.invalidArgument` for
    ///   a non-positive extent or a negative buffer.
    public init(_ tileMatrixSet: TileMatrixSet, _ tile: TileID, extent: Int = 4096, buffer: Int = 64) throws {
        guard extent > 0, buffer >= 0 else {
            throw TileError(.invalidArgument, "extent must be > 0 and buffer >= 0, got extent \(extent), buffer \(buffer)")
        }
        self.tileMatrixSet = tileMatrixSet
        self.tile = tile
        self.bounds = try tileMatrixSet.bounds(of: tile)
        self.extent = extent
        self.buffer = buffer
        self.transformer = try tileMatrixSet.lonLatTransformer()
    }

    /// Tile units per CRS unit.
    public var scale: Double { Double(extent) / bounds.width }

    /// The clip rectangle in tile units: the tile plus `buffer` on every side.
    public var clipRectangle: Envelope {
        let b = Double(buffer)
        return Envelope(minX: -b, minY: -b, maxX: Double(extent) + b, maxY: Double(extent) + b)
    }

    /// The tile rectangle grown by the buffer, in longitude/latitude degrees: the box to query
    /// the store with so features just outside the tile still draw into its buffer.
    public func lonLatQueryEnvelope() throws -> Envelope {
        let margin = bounds.width * Double(buffer) / Double(extent)
        return try tileMatrixSet.lonLatEnvelope(of: clip(bounds.expanded(by: margin)))
    }

    /// The grown rectangle kept inside the set's domain (Web Mercator cannot invert beyond it).
    private func clip(_ e: Envelope) -> Envelope {
        let d = tileMatrixSet.domain
        return Envelope(minX: max(e.minX, d.minX), minY: max(e.minY, d.minY), maxX: min(e.maxX, d.maxX), maxY: min(e.maxY, d.maxY))
    }

    /// The geometry in tile units (not rounded): one batched PROJ call for all its positions,
    /// then the affine map to the tile. Latitudes are clamped to ±85.0511° for Web Mercator.
    public func toTileSpace(_ lonLat: Geometry) throws -> Geometry {
        var g = lonLat
        if tileMatrixSet.isMercator { g = g.mapPositions { tileMatrixSet.clamped($0) } }
        g = try transformer.transform(g)
        let s = scale, minX = bounds.minX, maxY = bounds.maxY
        return g.mapPositions { Position(x: ($0.x - minX) * s, y: (maxY - $0.y) * s) }
    }

    /// A lon/lat position in tile units (not rounded).
    public func toTileSpace(_ lonLat: Position) throws -> Position {
        let p = try transformer.transform(tileMatrixSet.clamped(lonLat))
        return Position(x: (p.x - bounds.minX) * scale, y: (bounds.maxY - p.y) * scale)
    }
}
