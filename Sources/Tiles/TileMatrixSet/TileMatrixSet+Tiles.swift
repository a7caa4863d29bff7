import GeoCore

// Tile arithmetic: bounds of a tile, the tile under a position, the tiles under an envelope.
// Inputs in longitude/latitude are CGCS2000 degrees (the storage CRS; the same numbers as
// CRS84 and WGS 84 at tile precision).

extension TileMatrixSet {
    /// Largest latitude Web Mercator tiles reach (degrees): where the square world ends.
    public static let webMercatorMaxLatitude = 85.0511287798066

    /// The transformer from storage lon/lat (EPSG:4490) to this set's CRS (cached by GeoCore;
    /// the identity for the geographic sets).
    public func lonLatTransformer() throws -> CoordinateTransformer {
        try CoordinateTransformer.shared(from: .cgcs2000, to: crs)
    }

    /// Whether this set's CRS is Web Mercator (latitudes must be clamped before projecting).
    var isMercator: Bool { crs == .webMercator }

    /// Checks that `tile` lies in the set.
    /// - Throws: `TileError.outsideMatrix` naming the level, row or column.
    public func validate(_ tile: TileID) throws {
        let m = try matrix(tile.matrix)
        guard tile.row >= 0, tile.row < m.matrixHeight else {
            throw TileError(.outsideMatrix, "tile row \(tile.row) is outside 0…\(m.matrixHeight - 1) of \(id) level \(tile.matrix)")
        }
        guard tile.col >= 0, tile.col < m.matrixWidth else {
            throw TileError(.outsideMatrix, "tile column \(tile.col) is outside 0…\(m.matrixWidth - 1) of \(id) level \(tile.matrix)")
        }
    }

    /// The tile's rectangle in this set's CRS (internal x, y order; metres or degrees).
    /// - Throws: `TileError.outsideMatrix` for a tile not in the set.
    public func bounds(of tile: TileID) throws -> Envelope {
        try validate(tile)
        let span = try matrix(tile.matrix).tileSpan
        let minX = origin.x + Double(tile.col) * span
        let maxY = origin.y - Double(tile.row) * span
        return Envelope(minX: minX, minY: maxY - span, maxX: minX + span, maxY: maxY)
    }

    /// The tile's rectangle in longitude/latitude degrees (exact: every built-in CRS maps
    /// meridians and parallels to straight lines).
    public func lonLatBounds(of tile: TileID) throws -> Envelope {
        let b = try bounds(of: tile)
        return try lonLatEnvelope(of: b)
    }

    /// A rectangle of this CRS in longitude/latitude degrees.
    func lonLatEnvelope(of b: Envelope) throws -> Envelope {
        let t = try lonLatTransformer()
        if t.isIdentity { return b }
        let inverse = t.inverse
        let low = try inverse.transform(Position(x: b.minX, y: b.minY))
        let high = try inverse.transform(Position(x: b.maxX, y: b.maxY))
        return Envelope(minX: low.x, minY: low.y, maxX: high.x, maxY: high.y)
    }

    /// A longitude/latitude position in this set's CRS, latitude clamped to the Web Mercator
    /// square for `webMercatorQuad`.
    public func project(_ lonLat: Position) throws -> Position {
        let t = try lonLatTransformer()
        return try t.transform(clamped(lonLat))
    }

    @inline(__always) func clamped(_ p: Position) -> Position {
        guard isMercator else { return p }
        let limit = Self.webMercatorMaxLatitude
        return Position(x: p.x, y: min(max(p.y, -limit), limit), z: p.z)
    }

    /// The tile of level `level` that contains the lon/lat position. A position on the
    /// shared edge of two tiles belongs to the tile to its right/below; on the east or south
    /// edge of the world, to the last column/row.
    /// - Throws: `TileError.invalidArgument` for a non-finite position or one outside the
    ///   set's domain (|lat| > 85.0511° for Web Mercator); `.outsideMatrix` for an unknown level.
    public func tile(containing lonLat: Position, level: Int) throws -> TileID {
        let m = try matrix(level)
        guard lonLat.x.isFinite, lonLat.y.isFinite else {
            throw TileError(.invalidArgument, "position (\(lonLat.x), \(lonLat.y)) is not finite")
        }
        guard lonLat.x >= -180, lonLat.x <= 180, lonLat.y >= -90, lonLat.y <= 90,
              !isMercator || abs(lonLat.y) <= Self.webMercatorMaxLatitude else {
            throw TileError(.invalidArgument, "position (\(lonLat.x), \(lonLat.y)) is outside the domain of \(id)")
        }
        let p = try project(lonLat)
        let span = m.tileSpan
        let col = min(max(Int(((p.x - origin.x) / span).rounded(.down)), 0), m.matrixWidth - 1)
        let row = min(max(Int(((origin.y - p.y) / span).rounded(.down)), 0), m.matrixHeight - 1)
        return TileID(matrix: level, row: row, col: col)
    }

    /// The tiles of level `level` whose rectangles intersect the lon/lat envelope (clipped to
    /// the set's domain), or `nil` when the envelope lies wholly outside it.
    /// - Throws: `TileError.invalidArgument` for a non-finite or inverted envelope;
    ///   `.outsideMatrix` for an unknown level.
    public func tiles(covering lonLat: Envelope, level: Int) throws -> TileRange? {
        let m = try matrix(level)
        guard lonLat.minX.isFinite, lonLat.minY.isFinite, lonLat.maxX.isFinite, lonLat.maxY.isFinite,
              lonLat.minX <= lonLat.maxX, lonLat.minY <= lonLat.maxY else {
            throw TileError(.invalidArgument, "envelope \(lonLat) is not finite or is inverted")
        }
        let limitY = isMercator ? Self.webMercatorMaxLatitude : 90
        guard lonLat.maxX >= -180, lonLat.minX <= 180, lonLat.maxY >= -limitY, lonLat.minY <= limitY else { return nil }
        let low = try project(Position(x: max(lonLat.minX, -180), y: max(lonLat.minY, -limitY)))
        let high = try project(Position(x: min(lonLat.maxX, 180), y: min(lonLat.maxY, limitY)))
        let span = m.tileSpan
        func index(_ v: Double, _ count: Int) -> Int { min(max(Int(v.rounded(.down)), 0), count - 1) }
        let cols = index((low.x - origin.x) / span, m.matrixWidth)...index((high.x - origin.x) / span, m.matrixWidth)
        let rows = index((origin.y - high.y) / span, m.matrixHeight)...index((origin.y - low.y) / span, m.matrixHeight)
        return TileRange(matrix: level, rows: rows, cols: cols)
    }
}
