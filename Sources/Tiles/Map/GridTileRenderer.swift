import GeoCore
import Synchronization

/// Draws a raster (a flood depth grid in a projected CRS) onto one tile of a tile matrix set as an
/// indexed PNG (`PNGEncoder`, `DepthColourRamp`). Each pixel shows the value of the grid cell
/// under the pixel's centre (nearest cell, no interpolation: the tile's classes are the grid's).
///
/// Pixel centres are reprojected from the tile's CRS to the grid's through a 17 × 17 lattice
/// (one PROJ batch of 289 points) and bilinear interpolation between lattice nodes, as GDAL's
/// approximate warper does: over a 256-pixel tile of a district the error is far below a pixel.
///
/// A `mask` of the grid's cells (≠ 0: permanent water, e.g. rivers and lakes) leaves those
/// cells undrawn, so the base map's water shows through instead of a depth class.
public enum GridTileRenderer {
    /// The grid's extent in longitude/latitude (its corners and edge points reprojected).
    static func lonLatEnvelope(of grid: Grid, crs: CoordinateReferenceSystem) throws -> Envelope {
        let key = ExtentKey(envelope: grid.envelope, crs: crs)
        if let known = extents.withLock({ $0[key] }) { return known }
        let extent = try CoordinateTransformer.shared(from: crs, to: .cgcs2000).transform(grid.envelope)
        extents.withLock { if $0.count > 256 { $0.removeAll() }; $0[key] = extent }
        return extent
    }

    /// Lon/lat extents of the grids drawn, by extent and CRS (a run's steps share one).
    private struct ExtentKey: Hashable {
        var envelope: Envelope
        var crs: CoordinateReferenceSystem
    }
    private static let extents = Mutex<[ExtentKey: Envelope]>([:])

    /// Lattice nodes per tile side.
    static let lattice = 17

    /// The tile's PNG, or nil when no pixel of the tile falls on a wet cell (an empty tile).
    /// - Parameters:
    ///   - grid: values on north-up cells in `gridCRS`.
    ///   - tileMatrixSet, tile: the tile.
    ///   - mask: cells not to draw (≠ 0), on the grid's cells; ignored unless of the grid's size.
    /// - Throws: `TileError.outsideMatrix` for a tile not in the set; `GeometryError` `.crs` from PROJ.
    public static func png(_ grid: Grid, crs gridCRS: CoordinateReferenceSystem, tileMatrixSet tms: TileMatrixSet, tile: TileID,
                           ramp: DepthColourRamp = .flood, mask: Grid? = nil) throws -> [UInt8]? {
        let bounds = try tms.bounds(of: tile)
        guard let extent = try? lonLatEnvelope(of: grid, crs: gridCRS), extent.intersects(try tms.lonLatBounds(of: tile)) else { return nil }
        precondition(TileMatrix.tileSize % (lattice - 1) == 0)
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
        // Within one lattice cell the grid coordinates are bilinear in the pixel's, so along a
        // pixel row they are linear: each span of pixels between two lattice columns is walked
        // with a constant step.
        let perSpan = size / (n - 1)
        let noData = grid.noData
        let lowest = ramp.bounds[0]
        let dry = [Float](), masked = mask.flatMap { $0.width == w && $0.height == h ? $0.values : nil } ?? dry
        let hasMask = !masked.isEmpty
        masked.withUnsafeBufferPointer { water in
            grid.values.withUnsafeBufferPointer { values in
                pixels.withUnsafeMutableBufferPointer { out in
                    cols.withUnsafeBufferPointer { cols in
                        rows.withUnsafeBufferPointer { rows in
                            for py in 0..<size {
                                let fy = (Double(py) + 0.5) / Double(perSpan)
                                let j = Swift.min(n - 2, Int(fy)), v = fy - Double(j)
                                for i in 0..<(n - 1) {
                                    let k00 = j * n + i, k10 = k00 + n
                                    // Grid coordinates at the span's left and right lattice columns on this pixel row.
                                    let cl = cols[k00] * (1 - v) + cols[k10] * v, cr = cols[k00 + 1] * (1 - v) + cols[k10 + 1] * v
                                    let rl = rows[k00] * (1 - v) + rows[k10] * v, rr = rows[k00 + 1] * (1 - v) + rows[k10 + 1] * v
                                    let dc = (cr - cl) / Double(perSpan), dr = (rr - rl) / Double(perSpan)
                                    var c = cl + dc * 0.5, r = rl + dr * 0.5
                                    var o = py * size + i * perSpan
                                    for _ in 0..<perSpan {
                                        if c >= 0, r >= 0 {
                                            let ci = Int(c), ri = Int(r)
                                            if ci < w, ri < h {
                                                let value = values[ri * w + ci]
                                                if value >= lowest, noData == nil || value != noData, !hasMask || water[ri * w + ci] == 0 {
                                                    let index = ramp.index(value)
                                                    out[o] = index
                                                    wet = wet || index != 0
                                                }
                                            }
                                        }
                                        c += dc
                                        r += dr
                                        o += 1
                                    }
                                }
                            }
                        }
                    }
                }
            }
        }
        guard wet else { return nil }
        return try PNGEncoder.indexed(width: size, height: size, pixels: pixels, palette: ramp.palette)
    }
}
