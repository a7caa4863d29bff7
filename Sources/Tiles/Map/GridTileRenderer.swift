import GeoCore

/// Draws a raster (a flood depth grid in a projected CRS) onto one tile of a tile matrix set as an
/// indexed PNG (`PNGEncoder`, `DepthColourRamp`). Each pixel shows the value of the grid cell
/// under the pixel's centre (nearest cell, no interpolation: the tile's classes are the grid's).
///
/// Pixel centres are reprojected from the tile's CRS to the grid's through a 17 × 17 lattice
/// (one PROJ batch of 289 points) and bilinear interpolation between lattice nodes, as GDAL's
/// approximate warper does: over a 256-pixel tile of a district the error is far below a pixel.
public enum GridTileRenderer {
    /// The grid's extent in longitude/latitude (its corners and edge points reprojected).
    static func lonLatEnvelope(of grid: Grid, crs: CoordinateReferenceSystem) throws -> Envelope {
        try CoordinateTransformer.shared(from: crs, to: .cgcs2000).transform(grid.envelope)
    }

    /// Lattice nodes per tile side.
    static let lattice = 17

    /// The tile's PNG, or nil when no pixel of the tile falls on a wet cell (an empty tile).
    /// - Parameters:
    ///   - grid: values on north-up cells in `gridCRS`.
    ///   - tileMatrixSet, tile: the tile.
    /// - Throws: `TileError.outsideMatrix` for a tile not in the set; `GeometryError` `.crs` from PROJ.
    public static func png(_ grid: Grid, crs gridCRS: CoordinateReferenceSystem, tileMatrixSet tms: TileMatrixSet, tile: TileID,
                           ramp: DepthColourRamp = .flood) throws -> [UInt8]? {
        let bounds = try tms.bounds(of: tile)
        guard let extent = try? lonLatEnvelope(of: grid, crs: gridCRS), extent.intersects(try tms.lonLatBounds(of: tile)) else { return nil }
        let toGrid = try CoordinateTransformer.shared(from: tms.crs, to: gridCRS)
        let size = TileMatrix.tileSize
        let n = lattice
        var xs = [Double](repeating: 0, count: n * n), ys = [Double](repeating: 0, count: n * n)
        for j in 0..<n {
            for i in 0..<n {
                xs[j * n + i] = bounds.minX + (bounds.maxX - bounds.minX) * Double(i) / Double(n - 1)
                ys[j * n + i] = bounds.maxY - (bounds.maxY - bounds.minY) * Double(j) / Double(n - 1)
            }
        }
        // A tile far larger than the district (the lowest zooms) reaches where the grid's
        // projection fails or diverges; the district is below a pixel there, so the tile is empty.
        guard (try? toGrid.transform(xs: &xs, ys: &ys)) != nil, xs.allSatisfy(\.isFinite), ys.allSatisfy(\.isFinite) else { return nil }
        // Lattice nodes in fractional grid cells (column, row).
        let t = grid.geoTransform
        guard t.isNorthUp else { return nil }
        var cols = [Double](repeating: 0, count: n * n), rows = [Double](repeating: 0, count: n * n)
        for k in 0..<(n * n) {
            cols[k] = (xs[k] - t.originX) / t.pixelWidth
            rows[k] = (ys[k] - t.originY) / t.pixelHeight
        }
        // A tile wholly outside the grid is empty.
        let w = grid.width, h = grid.height
        guard let cMin = cols.min(), let cMax = cols.max(), let rMin = rows.min(), let rMax = rows.max(),
              cMax >= 0, rMax >= 0, cMin < Double(w), rMin < Double(h) else { return nil }
        var pixels = [UInt8](repeating: 0, count: size * size)
        var wet = false
        let step = Double(n - 1) / Double(size)
        grid.values.withUnsafeBufferPointer { values in
            for py in 0..<size {
                let fy = (Double(py) + 0.5) * step
                let j = Swift.min(n - 2, Int(fy)), v = fy - Double(j)
                for px in 0..<size {
                    let fx = (Double(px) + 0.5) * step
                    let i = Swift.min(n - 2, Int(fx)), u = fx - Double(i)
                    let k00 = j * n + i, k01 = k00 + 1, k10 = k00 + n, k11 = k10 + 1
                    let c = (cols[k00] * (1 - u) + cols[k01] * u) * (1 - v) + (cols[k10] * (1 - u) + cols[k11] * u) * v
                    let r = (rows[k00] * (1 - u) + rows[k01] * u) * (1 - v) + (rows[k10] * (1 - u) + rows[k11] * u) * v
                    guard c >= 0, r >= 0 else { continue }
                    let ci = Int(c), ri = Int(r)
                    guard ci < w, ri < h else { continue }
                    let value = values[ri * w + ci]
                    if let noData = grid.noData, value == noData { continue }
                    let index = ramp.index(value)
                    if index != 0 { wet = true }
                    pixels[py * size + px] = index
                }
            }
        }
        guard wet else { return nil }
        return try PNGEncoder.indexed(width: size, height: size, pixels: pixels, palette: ramp.palette)
    }
}
