/// How much detail a tile keeps at its zoom, in tile units (1/16 of a screen pixel at
/// extent 4096 and 256-pixel tiles): simplification, tiny-polygon removal, point thinning and
/// the caps that keep tiles under about 500 KB (tippecanoe's and PostGIS's advice).
public struct TileGeneralization: Hashable, Sendable {
    /// Douglas–Peucker tolerance for lines and polygon rings (topology-preserving for
    /// polygons), in tile units; 0 turns it off.
    public var simplifyTolerance: Double
    /// Polygons (and polygon parts) with a smaller area, in square tile units, are dropped.
    public var minimumPolygonArea: Double
    /// Side of the grid cell, in tile units, that keeps at most one point; 0 keeps every point.
    public var pointCellSize: Double
    /// Features read per layer of a tile, in the store's order; later ones are dropped (this
    /// also bounds a tile's memory, whatever the zoom).
    public var maximumFeatures: Int
    /// Encoded tile size (bytes, before gzip) above which the tile is rebuilt coarser.
    public var maximumTileBytes: Int

    public init(simplifyTolerance: Double, minimumPolygonArea: Double, pointCellSize: Double,
                maximumFeatures: Int = 50_000, maximumTileBytes: Int = 500_000) {
        self.simplifyTolerance = simplifyTolerance
        self.minimumPolygonArea = minimumPolygonArea
        self.pointCellSize = pointCellSize
        self.maximumFeatures = maximumFeatures
        self.maximumTileBytes = maximumTileBytes
    }

    /// Keeps every vertex and feature the integer grid allows (for tests and exports).
    public static let none = TileGeneralization(simplifyTolerance: 0, minimumPolygonArea: 0, pointCellSize: 0,
                                                maximumFeatures: .max, maximumTileBytes: .max)

    /// The default for a tile `extent` units across: simplify by one screen pixel, drop
    /// polygons under one square pixel, and below `fullPointLevel` keep one point per screen
    /// pixel (so a city's 100,000 sensors do not make a 2.5 MB tile at low zoom).
    /// - Parameters:
    ///   - level: the tile's zoom as a 0-based Web-Mercator-like level (`TileMatrixSet.zoom(of:)`).
    ///   - fullPointLevel: from this zoom on every point is kept (14 by default, street level).
    public static func standard(level: Int, extent: Int = 4096, fullPointLevel: Int = 14) -> TileGeneralization {
        let pixel = Double(extent) / Double(TileMatrix.tileSize)
        return TileGeneralization(simplifyTolerance: pixel, minimumPolygonArea: pixel * pixel,
                                  pointCellSize: level < fullPointLevel ? pixel : 0)
    }

    /// A coarser generalization for a tile that came out too large: twice the tolerance,
    /// four times the minimum area, a point cell twice as wide (at least one pixel).
    func coarser(extent: Int) -> TileGeneralization {
        let pixel = Double(extent) / Double(TileMatrix.tileSize)
        var g = self
        g.simplifyTolerance = max(simplifyTolerance * 2, pixel)
        g.minimumPolygonArea = max(minimumPolygonArea * 4, pixel * pixel)
        g.pointCellSize = max(pointCellSize * 2, pixel)
        g.maximumFeatures = max(maximumFeatures / 2, 1)
        return g
    }
}

extension TileMatrixSet {
    /// The Web-Mercator-equivalent zoom of a level (same ground resolution): the level itself
    /// for WebMercatorQuad and WorldCRS84Quad (their level k tiles span 180/2^k°, WebMercator
    /// 360/2^z° — close enough for generalization), level − 1 for the Tianditu-style CGCS2000 set.
    public func zoom(of level: Int) -> Int { level - minLevel }
}
