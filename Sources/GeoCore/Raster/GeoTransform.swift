/// The affine map from raster cell space (column, row) to map coordinates, with GDAL's six
/// coefficients in GDAL's order:
///
///     x = originX + column * pixelWidth  + row * rowRotation
///     y = originY + column * columnRotation + row * pixelHeight
///
/// `column` and `row` are continuous: (0, 0) is the outer corner of the top-left cell and
/// (0.5, 0.5) its centre. Units are those of the grid's CRS (metres for EPSG:4547, degrees for
/// EPSG:4490). A north-up grid has both rotations 0 and a negative `pixelHeight`.
public struct GeoTransform: Hashable, Sendable {
    /// Map x of the top-left corner of the top-left cell.
    public var originX: Double
    /// Cell width along a row (x change per column).
    public var pixelWidth: Double
    /// x change per row (0 for north-up).
    public var rowRotation: Double
    /// Map y of the top-left corner of the top-left cell.
    public var originY: Double
    /// y change per column (0 for north-up).
    public var columnRotation: Double
    /// y change per row: negative for north-up grids (rows run southward).
    public var pixelHeight: Double

    @inlinable
    public init(originX: Double, pixelWidth: Double, rowRotation: Double = 0,
                originY: Double, columnRotation: Double = 0, pixelHeight: Double) {
        self.originX = originX
        self.pixelWidth = pixelWidth
        self.rowRotation = rowRotation
        self.originY = originY
        self.columnRotation = columnRotation
        self.pixelHeight = pixelHeight
    }

    /// A north-up transform whose top-left corner is (`west`, `north`) and whose cells are
    /// `cellWidth` by `cellHeight` map units (both positive).
    @inlinable
    public static func northUp(west: Double, north: Double, cellWidth: Double, cellHeight: Double) -> GeoTransform {
        GeoTransform(originX: west, pixelWidth: cellWidth, originY: north, pixelHeight: -cellHeight)
    }

    /// The six coefficients in GDAL's order (`GDALGetGeoTransform`, gdalinfo's `geoTransform`).
    public var gdalCoefficients: [Double] {
        [originX, pixelWidth, rowRotation, originY, columnRotation, pixelHeight]
    }

    /// Builds a transform from GDAL's six coefficients; `nil` unless there are exactly six.
    public init?(gdalCoefficients c: [Double]) {
        guard c.count == 6 else { return nil }
        self.init(originX: c[0], pixelWidth: c[1], rowRotation: c[2],
                  originY: c[3], columnRotation: c[4], pixelHeight: c[5])
    }

    /// Whether the grid is north-up: no rotation terms, columns run east and rows run south.
    @inlinable
    public var isNorthUp: Bool {
        rowRotation == 0 && columnRotation == 0 && pixelWidth > 0 && pixelHeight < 0
    }

    /// The map position of continuous cell coordinates (`column`, `row`).
    @inlinable
    public func position(column: Double, row: Double) -> Position {
        Position(x: originX + column * pixelWidth + row * rowRotation,
                 y: originY + column * columnRotation + row * pixelHeight)
    }

    /// The continuous cell coordinates of a map position (the inverse transform), or `nil` when
    /// the transform is singular (zero-area cells).
    @inlinable
    public func cellCoordinates(of p: Position) -> (column: Double, row: Double)? {
        let dx = p.x - originX
        let dy = p.y - originY
        if rowRotation == 0 && columnRotation == 0 {
            guard pixelWidth != 0 && pixelHeight != 0 else { return nil }
            return (dx / pixelWidth, dy / pixelHeight)
        }
        let det = pixelWidth * pixelHeight - rowRotation * columnRotation
        guard det != 0 && det.isFinite else { return nil }
        return ((dx * pixelHeight - dy * rowRotation) / det,
                (dy * pixelWidth - dx * columnRotation) / det)
    }
}
