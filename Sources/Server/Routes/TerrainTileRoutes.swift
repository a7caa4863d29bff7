import Foundation
import GeoCore
import Hummingbird
import Tiles
import TwinStore

/// Elevation tiles of a managed DEM for MapLibre's terrain (`raster-dem`, `map.setTerrain`):
/// Terrarium-encoded PNG tiles over WebMercatorQuad and their TileJSON.
///
/// Terrarium (Mapzen's encoding, MapLibre's `"encoding": "terrarium"`): a height `h` in metres is
/// `R × 256 + G + B / 256 − 32768`, so the step is 1/256 m (≈ 4 mm) over −32768 … 32767.996 m; the
/// PNG is lossless (RGB, no alpha), so a decoded height is the DEM's within half a step. Each pixel
/// is the DEM cell under its centre (nearest cell; each pixel centre reprojected exactly with
/// PROJ, no interpolation): the tile's heights are the grid's own. A pixel off the grid takes the
/// nearest edge cell (no cliff at the DEM's border); a nodata cell the DEM's lowest height.
///
/// The tiles follow the managed rasters' access (`ManagedRasterRoutes`: departments and the
/// administrator; the public gets 401). They are cached per DEM content (`sha256` of the stored
/// grid): replacing the DEM (`citytwin raster import … --replace`) changes the hash, which drops
/// the cached grid and tiles and changes every tile's entity tag.
struct TerrainTileRoutes: OperationCollection {
    let store: any FeatureStore
    let site: SiteLinks
    let cache = TerrainTileCache()

    var operations: [APIOperation] {
        let common = APIResponse.standardProblems
        let anonymous = APIResponse.problem(401, "The rasters are shared with departments: send a bearer token.")
        let notDEM = APIResponse.problem(404, "No such raster, or it is not a DEM.")
        return [
            APIOperation(
                id: "getTerrainTileJSON", method: .get, path: "/rasters/{rasterId}/terrain/tilejson.json",
                summary: "TileJSON 3.0 of a managed DEM's elevation tiles (Terrarium encoding, WebMercatorQuad, 256 px): tiles, bounds, zoom range, encoding — a MapLibre raster-dem source.",
                tag: "Tiles", parameters: [.rasterID],
                responses: [.ok("The TileJSON.", [(MediaTypeName.json, "TileJSON")]), notDEM, anonymous] + common
            ) { [self] _, context, _ in
                let dem = try await cache.dem(try pathParameter(context, "rasterId"), rasters: try await rasters(for: context.caller))
                return .json(tileJSON(dem))
            },
            APIOperation(
                id: "getTerrainTile", method: .get, path: "/rasters/{rasterId}/terrain/WebMercatorQuad/{tileMatrix}/{tileRow}/{tileCol}",
                summary: "A managed DEM's heights as a Terrarium PNG tile (h = R×256 + G + B/256 − 32768 m; 1/256 m steps; nodata as the DEM's lowest height).",
                tag: "Tiles",
                parameters: [.rasterID,
                             APIParameter("tileMatrix", in: .path, "Level (zoom).", schema: ["type": "integer"]),
                             APIParameter("tileRow", in: .path, "Row from the top, 0-based.", schema: ["type": "integer", "minimum": 0]),
                             APIParameter("tileCol", in: .path, "Column from the left, 0-based.", schema: ["type": "integer", "minimum": 0])],
                responses: [.ok("The elevation tile.", [("image/png", "PNG")]), notDEM, anonymous] + common
            ) { [self] request, context, _ in
                let dem = try await cache.dem(try pathParameter(context, "rasterId"), rasters: try await rasters(for: context.caller))
                func integer(_ name: String) throws -> Int {
                    let raw = try pathParameter(context, name)
                    guard let v = Int(raw) else { throw Problem.invalid(name, "'\(raw)' is not an integer") }
                    return v
                }
                let tile = TileID(matrix: try integer("tileMatrix"), row: try integer("tileRow"), col: try integer("tileCol"))
                let tms = TileMatrixSet.webMercatorQuad
                do { try tms.validate(tile) } catch let e as TileError { throw Problem.tile(e) }
                var headers = HTTPFields()
                headers[.cacheControl] = "public, no-cache"
                let etag = "\"\(dem.sha256.prefix(16))-\(tile.matrix)-\(tile.row)-\(tile.col)\""
                headers[.eTag] = etag
                if let match = request.headers[.ifNoneMatch], match.split(separator: ",").contains(where: { $0.trimmingCharacters(in: .whitespaces) == etag }) {
                    return Representation(status: .notModified, mediaType: "image/png", body: [], headers: headers)
                }
                let png = try cache.tile(tile, of: dem) { try TerrariumTile.png(dem, tile: tile, tileMatrixSet: tms) }
                return Representation(mediaType: "image/png", body: png, headers: headers)
            },
        ]
    }

    /// The store's rasters, for a caller who may read them, as `/rasters` says.
    private func rasters(for caller: Caller) async throws -> any ManagedRasters {
        try await ManagedRasterRoutes(store: store, site: site).managedRasters(for: caller)
    }

    /// TileJSON 3.0 with MapLibre's raster-dem keys (`encoding`, `tileSize`).
    func tileJSON(_ dem: TerrainDEM) -> JSONValue {
        let e = dem.lonLatExtent
        return [
            "tilejson": "3.0.0", "name": .string("\(dem.id) terrain"), "scheme": "xyz",
            "tiles": [.string(site.url("/rasters/\(dem.id)/terrain/WebMercatorQuad/{z}/{y}/{x}"))],
            "minzoom": .integer(Int64(dem.zooms.lowerBound)), "maxzoom": .integer(Int64(dem.zooms.upperBound)),
            "bounds": [.number(e.minX), .number(e.minY), .number(e.maxX), .number(e.maxY)],
            "center": [.number(e.center.x), .number(e.center.y), .integer(Int64(dem.zooms.upperBound))],
            "encoding": "terrarium", "tileSize": .integer(Int64(TileMatrix.tileSize)),
            "attribution": "CityTwin DEM",
        ]
    }
}

/// A managed DEM as the terrain tiles read it: the grid, its CRS, the height nodata cells take.
struct TerrainDEM: Sendable {
    let id: String
    /// The stored grid's hash: the DEM's version.
    let sha256: String
    let grid: Grid
    let crs: CoordinateReferenceSystem
    /// The DEM's lowest valid height, drawn for nodata cells.
    let fill: Float
    let lonLatExtent: Envelope
    /// Zooms served: up to the first whose pixel is no larger than a cell at the DEM's latitude, and 6 below it.
    let zooms: ClosedRange<Int>

    init(id: String, raster: ManagedRaster, data: Data) throws {
        guard raster.kind == .dem else { throw Problem(.notFound, "raster '\(id)' is a \(raster.kind.rawValue), not a DEM: it has no terrain tiles") }
        guard let epsg = raster.epsg else { throw Problem(.notFound, "raster '\(id)' is in \(raster.crs), which has no EPSG code: it cannot be tiled") }
        let grid: Grid
        do { grid = try Grid(esriASCIIData: data) } catch { throw Problem(.notFound, "raster '\(id)' in the store is not a readable ESRI ASCII grid") }
        guard grid.geoTransform.isNorthUp else { throw Problem(.notFound, "raster '\(id)' is not a north-up grid: it cannot be tiled") }
        let valid = grid.values.lazy.filter { $0.isFinite && $0 != grid.noData }
        guard let lowest = valid.min() else { throw Problem(.notFound, "raster '\(id)' holds no valid height (every cell is nodata)") }
        self.id = id
        sha256 = raster.sha256
        self.grid = grid
        crs = CoordinateReferenceSystem(epsg: epsg)
        fill = lowest
        lonLatExtent = try CoordinateTransformer.shared(from: crs, to: .cgcs2000).transform(grid.envelope)
        let cell = min(abs(grid.geoTransform.pixelWidth), abs(grid.geoTransform.pixelHeight))
        let equator = 2 * Double.pi * 6_378_137 / Double(TileMatrix.tileSize)  // metres per pixel at zoom 0
        let ground = equator * cos(lonLatExtent.center.y * .pi / 180)
        let top = max(6, min(22, Int(ceil(log2(ground / max(cell, 0.01))))))
        zooms = (top - 6)...top
    }
}

/// The encoding of Terrarium tiles (Mapzen; MapLibre `"encoding": "terrarium"`).
enum TerrariumTile {
    /// One step of the encoding, in metres.
    static let step = 1.0 / 256
    /// R, G, B of height `h` (metres, clamped to −32768 … 32767.996).
    static func encode(_ h: Double) -> (UInt8, UInt8, UInt8) {
        let v = Int(((min(max(h, -32768), 32768 - step) + 32768) * 256).rounded())
        return (UInt8(v >> 16), UInt8((v >> 8) & 0xFF), UInt8(v & 0xFF))
    }
    /// The height R, G, B encode.
    static func decode(_ r: UInt8, _ g: UInt8, _ b: UInt8) -> Double {
        Double(r) * 256 + Double(g) + Double(b) / 256 - 32768
    }

    /// The tile's Terrarium PNG: each pixel the height of the DEM cell under its centre.
    static func png(_ dem: TerrainDEM, tile: TileID, tileMatrixSet tms: TileMatrixSet) throws -> [UInt8] {
        let size = TileMatrix.tileSize
        let b = try tms.bounds(of: tile)
        var xs = [Double](repeating: 0, count: size * size), ys = xs
        for j in 0..<size {
            let y = b.maxY - (b.maxY - b.minY) * (Double(j) + 0.5) / Double(size)
            for i in 0..<size {
                xs[j * size + i] = b.minX + (b.maxX - b.minX) * (Double(i) + 0.5) / Double(size)
                ys[j * size + i] = y
            }
        }
        // Far outside the DEM's CRS's area PROJ may fail or diverge: those pixels take the nearest
        // edge cell too (a tile that far lies outside the TileJSON's bounds).
        let projected = (try? CoordinateTransformer.shared(from: tms.crs, to: dem.crs).transform(xs: &xs, ys: &ys)) != nil
        let grid = dem.grid, t = grid.geoTransform, w = grid.width, h = grid.height
        var rgb = [UInt8](repeating: 0, count: 3 * size * size)
        grid.values.withUnsafeBufferPointer { values in
            for k in 0..<(size * size) {
                var height = Double(dem.fill)
                if projected, xs[k].isFinite, ys[k].isFinite {
                    let c = min(max(Int(((xs[k] - t.originX) / t.pixelWidth).rounded(.down)), 0), w - 1)
                    let r = min(max(Int(((ys[k] - t.originY) / t.pixelHeight).rounded(.down)), 0), h - 1)
                    let v = values[r * w + c]
                    if v.isFinite, v != grid.noData { height = Double(v) }
                }
                (rgb[3 * k], rgb[3 * k + 1], rgb[3 * k + 2]) = encode(height)
            }
        }
        return try PNGEncoder.rgb(width: size, height: size, pixels: rgb)
    }
}

/// Parsed DEMs (by id, while their hash is unchanged) and their encoded tiles (least recently
/// made dropped first): a tile costs its reprojection and encoding once per DEM version.
final class TerrainTileCache: @unchecked Sendable {
    private let lock = NSLock()
    private var dems: [String: TerrainDEM] = [:]
    private var tiles: [String: [UInt8]] = [:]
    private var order: [String] = []
    let capacity: Int

    init(capacity: Int = 512) {
        self.capacity = capacity
    }

    /// DEM `id` as stored now: the cached one while the store's hash is the same, else read again
    /// (and the old version's tiles dropped).
    /// - Throws: 404 naming the raster when there is none, or it is not a DEM that can be tiled.
    func dem(_ id: String, rasters: any ManagedRasters) async throws -> TerrainDEM {
        guard ManagedRaster.isValidID(id), let raster = try await rasters.managedRaster(id) else {
            throw Problem(.notFound, "no raster '\(id)' (the store's rasters are listed at /rasters)")
        }
        if let known = lock.withLock({ dems[id] }), known.sha256 == raster.sha256 { return known }
        guard let data = try await rasters.managedRasterData(id) else { throw Problem(.notFound, "no raster '\(id)' (the store's rasters are listed at /rasters)") }
        let dem = try TerrainDEM(id: id, raster: raster, data: data)
        lock.withLock {
            if dems[id]?.sha256 != dem.sha256 {
                let stale = "\(id)/"
                tiles = tiles.filter { !$0.key.hasPrefix(stale) }
                order.removeAll { $0.hasPrefix(stale) }
            }
            dems[id] = dem
        }
        return dem
    }

    /// The tile of `dem`'s version, made by `make` when not cached.
    func tile(_ tile: TileID, of dem: TerrainDEM, make: () throws -> [UInt8]) throws -> [UInt8] {
        let key = "\(dem.id)/\(dem.sha256)/\(tile.matrix)/\(tile.row)/\(tile.col)"
        if let hit = lock.withLock({ tiles[key] }) { return hit }
        let png = try make()
        lock.withLock {
            if tiles[key] == nil { order.append(key) }
            tiles[key] = png
            while order.count > capacity { tiles[order.removeFirst()] = nil }
        }
        return png
    }

    /// Tiles held (for tests of the invalidation).
    var tileCount: Int { lock.withLock { tiles.count } }
}
