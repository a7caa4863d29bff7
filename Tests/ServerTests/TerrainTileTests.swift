import Foundation
import GeoCore
import Hummingbird
import HummingbirdTesting
@testable import Server
import Testing
import Tiles
import TwinStore

/// The managed DEM as MapLibre terrain (`raster-dem`): Terrarium PNG tiles over WebMercatorQuad
/// and their TileJSON (`TerrainTileRoutes`). A tile is decoded here and each pixel's height
/// checked against the DEM cell under the pixel's centre, reprojected point by point.
@Suite("Terrain tiles: the managed DEM in Terrarium encoding")
struct TerrainTileTests {
    /// A 60 × 40 DEM of 10 m cells in EPSG:4547 (≈ 114° E, 30.7° N) with heights at millimetres
    /// and a nodata cell; `shift` is added to every height (a replaced DEM).
    static func dem(shift: Float = 0) throws -> (Grid, Data) {
        let width = 60, height = 40
        var values = (0..<(width * height)).map { k -> Float in
            let c = Float(k % width), r = Float(k / width)
            return 18 + 0.37 * c + 0.91 * r + Float((k * 7919) % 1000) / 1000 + shift
        }
        values[20 * width + 30] = -9999
        let grid = try Grid(width: width, height: height, geoTransform: .northUp(west: 500_000, north: 3_400_030, cellWidth: 10, cellHeight: 10),
                            noData: -9999, values: values)
        let data = try grid.esriASCIIData(precision: 3)
        return (try Grid(esriASCIIData: data), data)
    }

    static func put(_ api: WritableAPI, shift: Float = 0, replace: Bool = false) async throws -> Grid {
        let (grid, data) = try dem(shift: shift)
        try await api.store.putRaster(try ManagedRaster.describe(grid, data: data, id: "dem", title: "DEM", kind: .dem, crs: 4547, by: .admin),
                                      data: data, replace: replace, by: .admin)
        return grid
    }

    /// The WebMercatorQuad tile at `zoom` holding lon/lat `p`.
    static func tile(_ p: (Double, Double), zoom: Int) -> (row: Int, col: Int) {
        let n = Double(1 << zoom), lat = p.1 * .pi / 180
        return (Int(n * (1 - log(tan(lat) + 1 / cos(lat)) / .pi) / 2), Int(n * (p.0 + 180) / 360))
    }

    @Test("Terrarium encodes heights to 1/256 m over its whole range and decodes them back")
    func encoding() {
        for h in [-32768, -12.3456, 0, 0.001, 23.45678, 1523.9, 8848.86, 32767.99] {
            let (r, g, b) = TerrariumTile.encode(h)
            #expect(abs(TerrariumTile.decode(r, g, b) - h) <= TerrariumTile.step / 2 + 1e-9, "\(h)")
        }
        #expect(TerrariumTile.encode(0) == (128, 0, 0))
    }

    @Test("a tile decodes to the DEM's heights within half the encoding's step at every pixel clear of a cell edge; nodata is the DEM's lowest height; the public gets 401")
    func tileHeights() async throws {
        try await WritableAPI.run { api in
            let grid = try await Self.put(api)
            try expectProblem(try await api.send(.get, "/rasters/dem/terrain/tilejson.json"), status: 401, type: "unauthorized")
            try expectProblem(try await api.send(.get, "/rasters/dem/terrain/WebMercatorQuad/14/0/0"), status: 401, type: "unauthorized")
            let token = api.token("应急管理局", .viewer)
            let tj = try await api.send(.get, "/rasters/dem/terrain/tilejson.json", token: token).json
            #expect(tj["encoding"] == "terrarium" && tj["tileSize"] == 256 && tj["scheme"] == "xyz")
            #expect(tj["tiles"]?.arrayValue?.first?.stringValue == "http://test.local/rasters/dem/terrain/WebMercatorQuad/{z}/{y}/{x}")
            let zoom = try #require(tj["maxzoom"]?.integerValue.map(Int.init))
            #expect(zoom == 14, "10 m cells at 30.7° N: zoom 14's pixels (8.2 m) are the first no larger than a cell")
            let bounds = (tj["bounds"]?.arrayValue ?? []).compactMap(\.doubleValue)
            try #require(bounds.count == 4)
            let toLonLat = try CoordinateTransformer.shared(from: CoordinateReferenceSystem(epsg: 4547), to: .cgcs2000)
            let centre = try toLonLat.transform(Position(x: 500_300, y: 3_399_830))
            #expect(bounds[0] < centre.x && centre.x < bounds[2] && bounds[1] < centre.y && centre.y < bounds[3])

            let toGrid = try CoordinateTransformer.shared(from: CoordinateReferenceSystem(epsg: 3857), to: CoordinateReferenceSystem(epsg: 4547))
            let valid = grid.values.filter { $0 != grid.noData }
            let lowest = Double(try #require(valid.min()))
            var checked = 0, nodata = 0, worst = 0.0
            // The served zoom MapLibre asks for, and two above it (5 pixels a cell: the nodata cell is under some).
            for z in [zoom, zoom + 2] {
                let (row, col) = Self.tile((centre.x, centre.y), zoom: z)
                let response = try await api.send(.get, "/rasters/dem/terrain/WebMercatorQuad/\(z)/\(row)/\(col)", token: token)
                #expect(response.status == .ok && response.contentType == "image/png")
                let image = try PNGEncoder.decodeRGB(Array(buffer: response.body))
                #expect(image.width == 256 && image.height == 256)
                // Each pixel centre in EPSG:3857, then EPSG:4547, point by point.
                let bounds3857 = try TileMatrixSet.webMercatorQuad.bounds(of: TileID(matrix: z, row: row, col: col))
                for j in 0..<256 {
                    for i in 0..<256 {
                        let x = bounds3857.minX + (bounds3857.maxX - bounds3857.minX) * (Double(i) + 0.5) / 256
                        let y = bounds3857.maxY - (bounds3857.maxY - bounds3857.minY) * (Double(j) + 0.5) / 256
                        let p = try toGrid.transform(Position(x: x, y: y))
                        let c = (p.x - 500_000) / 10, r = (3_400_030 - p.y) / 10
                        guard c >= 0, r >= 0, c < 60, r < 40 else { continue }
                        // Clear of a cell edge by a tenth of a cell: the nearest cell is not in doubt.
                        let fc = c - c.rounded(.down), fr = r - r.rounded(.down)
                        guard fc > 0.1, fc < 0.9, fr > 0.1, fr < 0.9 else { continue }
                        let value = grid.values[Int(r) * 60 + Int(c)]
                        let expected = value == grid.noData ? lowest : Double(value)
                        if value == grid.noData { nodata += 1 }
                        let k = 3 * (j * 256 + i)
                        let height = TerrariumTile.decode(image.pixels[k], image.pixels[k + 1], image.pixels[k + 2])
                        worst = max(worst, abs(height - expected))
                        checked += 1
                    }
                }
            }
            #expect(checked > 1000, "\(checked) pixels checked")
            #expect(nodata > 0, "the nodata cell was under some pixels")
            #expect(worst <= TerrariumTile.step / 2 + 1e-6, "worst height error \(worst) m over \(checked) pixels")
        }
    }

    @Test("replacing the DEM drops the cached tiles: the same tile then holds the new heights under a new entity tag; an unchanged DEM answers 304")
    func invalidation() async throws {
        try await WritableAPI.run { api in
            _ = try await Self.put(api)
            let token = api.token("应急管理局", .viewer)
            let toLonLat = try CoordinateTransformer.shared(from: CoordinateReferenceSystem(epsg: 4547), to: .cgcs2000)
            let centre = try toLonLat.transform(Position(x: 500_300, y: 3_399_830))
            let (row, col) = Self.tile((centre.x, centre.y), zoom: 14)
            let path = "/rasters/dem/terrain/WebMercatorQuad/14/\(row)/\(col)"
            let first = try await api.send(.get, path, token: token)
            let etag = try #require(first.headers[.eTag])
            let again = try await api.send(.get, path, token: token, headers: [.ifNoneMatch: etag])
            #expect(again.status == .notModified)
            _ = try await Self.put(api, shift: 5, replace: true)
            let second = try await api.send(.get, path, token: token, headers: [.ifNoneMatch: etag])
            #expect(second.status == .ok && second.headers[.eTag] != etag)
            let a = try PNGEncoder.decodeRGB(Array(buffer: first.body)).pixels, b = try PNGEncoder.decodeRGB(Array(buffer: second.body)).pixels
            // The pixel at the tile's centre (on the grid, away from the nodata cell).
            let k = 3 * (128 * 256 + 128)
            let before = TerrariumTile.decode(a[k], a[k + 1], a[k + 2]), after = TerrariumTile.decode(b[k], b[k + 1], b[k + 2])
            #expect(abs(after - before - 5) <= TerrariumTile.step, "\(before) → \(after)")
        }
    }

    @Test("an unknown raster is 404 naming it; a tile outside the matrix set is 404")
    func refusals() async throws {
        try await WritableAPI.run { api in
            _ = try await Self.put(api)
            let token = api.token("应急管理局", .viewer)
            let missing = try await api.send(.get, "/rasters/nothing/terrain/tilejson.json", token: token)
            try expectProblem(missing, status: 404, type: "not-found")
            #expect(missing.text.contains("no raster 'nothing'"))
            try expectProblem(try await api.send(.get, "/rasters/dem/terrain/WebMercatorQuad/3/9/0", token: token), status: 404, type: "not-found")
        }
    }
}
