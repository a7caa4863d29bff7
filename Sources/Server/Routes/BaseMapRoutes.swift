import Foundation
import GeoCore
import Hummingbird
import Logging
import Tiles

/// A Tianditu (天地图) key. The browser asks Tianditu for its tiles with it, so it is in the
/// style document the web map reads; it is never printed (`description` hides it), so no log line
/// or error message carries it.
public struct TiandituKey: Sendable, CustomStringConvertible {
    public let value: String

    /// A key as Tianditu issues them: 32 hexadecimal digits (letters and digits are accepted, so a
    /// key of another length still works); nil for an empty value or one with other characters.
    public init?(_ value: String) {
        let trimmed = value.trimmingCharacters(in: .whitespacesAndNewlines)
        guard !trimmed.isEmpty, trimmed.count <= 128, trimmed.allSatisfy({ $0.isASCII && ($0.isLetter || $0.isNumber) }) else { return nil }
        self.value = trimmed
    }

    public var description: String { "Tianditu key (\(value.count) characters, not shown)" }
}

/// The city's base map as the server holds it: the vector archive (`--basemap`) and the Tianditu
/// key (`--tianditu-key`), either or both absent.
struct BaseMapSource: Sendable {
    let archive: PMTilesReader?
    let tianditu: TiandituKey?

    /// The base map the web map's style draws under the layers; `nil` when the server has none.
    func style(fontstack: String?, site: SiteLinks) -> BaseMapStyle? {
        guard archive != nil || tianditu != nil else { return nil }
        let layers = archive.map { Set($0.vectorLayers.compactMap { $0["id"]?.stringValue }) }
        return BaseMapStyle(vector: layers.map { (site.url("/basemap/tilejson.json"), $0) }, tianditu: tianditu, fontstack: fontstack)
    }
}

/// `/basemap/tilejson.json` and `/basemap/{z}/{x}/{y}`: the city's vector base map.
struct BaseMapRoutes: OperationCollection {
    let site: SiteLinks
    let baseMap: BaseMapSource
    let logger: Logger

    /// The base map's tiles and TileJSON (`serve --basemap FILE`): `/basemap/tilejson.json` and
    /// `/basemap/{z}/{x}/{y}` (XYZ, as in the TileJSON), read from the PMTiles archive.
    var operations: [APIOperation] {
        let common = APIResponse.standardProblems
        let z = APIParameter("z", in: .path, "Zoom level.", schema: ["type": "integer", "minimum": 0])
        let x = APIParameter("x", in: .path, "Column from the west, 0-based.", schema: ["type": "integer", "minimum": 0])
        let y = APIParameter("y", in: .path, "Row from the north, 0-based.", schema: ["type": "integer", "minimum": 0])
        return [
            APIOperation(
                id: "getBaseMapTileJSON", method: .get, path: "/basemap/tilejson.json",
                summary: "TileJSON 3.0.0 of the city's vector base map (OpenMapTiles schema, built from its OpenStreetMap extract by `citytwin city basemap`).",
                tag: "Tiles", parameters: [],
                responses: [.ok("TileJSON.", [(MediaTypeName.json, TileRoutes.tileSchema("TileJSON"))]),
                            .problem(404, "The server was started without --basemap.")] + common
            ) { [self] _, _, _ in
                let archive = try baseMapArchive()
                var answer = Representation.json(baseMapTileJSON(archive))
                answer.headers[.cacheControl] = "public, max-age=3600"
                return answer
            },
            APIOperation(
                id: "getBaseMapTile", method: .get, path: "/basemap/{z}/{x}/{y}",
                summary: "One vector tile (MVT) of the city's base map.", tag: "Tiles", parameters: [z, x, y],
                responses: [.ok("The vector tile.", [(MediaTypeName.mvt, TileRoutes.tileSchema("VectorTile"))]),
                            APIResponse(status: 204, description: "The tile is in the base map's zoom range but holds nothing.", content: []),
                            .problem(404, "No base map, or a tile outside the tile matrix or beyond the base map's zooms.")] + common
            ) { [self] request, context, _ in
                let archive = try baseMapArchive()
                let tile = try (["z", "x", "y"] as [String]).map { name -> Int in
                    let raw = try pathParameter(context, name)
                    guard let v = Int(raw) else { throw Problem.invalid(name, "'\(raw)' is not an integer") }
                    return v
                }
                return try baseMapTile(archive, zoom: tile[0], x: tile[1], y: tile[2], request: request)
            },
        ]
    }

    private func baseMapArchive() throws -> PMTilesReader {
        guard let archive = baseMap.archive else {
            throw Problem(.notFound, "no base map is served: start the server with --basemap FILE.pmtiles (built by `citytwin city basemap`)")
        }
        return archive
    }

    private func baseMapTile(_ archive: PMTilesReader, zoom: Int, x: Int, y: Int, request: Request) throws -> Representation {
        guard (0...30).contains(zoom), x >= 0, y >= 0, x < 1 << zoom, y < 1 << zoom else {
            throw Problem(.notFound, "tile \(zoom)/\(x)/\(y) is outside the Web Mercator tile matrix")
        }
        guard zoom >= archive.header.minZoom, zoom <= archive.header.maxZoom else {
            throw Problem(.notFound, "the base map has zooms \(archive.header.minZoom)-\(archive.header.maxZoom); clients draw deeper zooms from level \(archive.header.maxZoom) (TileJSON maxzoom)")
        }
        let stored: [UInt8]?
        do { stored = try archive.tile(zoom: zoom, x: x, y: y) } catch let e as TileError {
            logger.error("base map \(archive.path): \(e.message)")
            throw Problem(.internalError, "the base map archive cannot be read")
        }
        var headers = HTTPFields()
        headers[.cacheControl] = "public, max-age=3600"
        guard let stored, !stored.isEmpty else {
            return Representation(status: .noContent, mediaType: MediaTypeName.mvt, body: [], headers: headers)
        }
        let etag = EntityTag.of(bytes: stored)
        headers[.eTag] = etag
        if let match = request.headers[.ifNoneMatch], match.split(separator: ",").contains(where: { $0.trimmingCharacters(in: .whitespaces) == etag }) {
            return Representation(status: .notModified, mediaType: MediaTypeName.mvt, body: [], headers: headers)
        }
        let gzipped = archive.header.tileCompression == 2 && TileCompression.isGzip(stored)
        if gzipped, Representation.acceptsGzip(request) {
            headers[.contentEncoding] = "gzip"
            return Representation(mediaType: MediaTypeName.mvt, body: stored, headers: headers)
        }
        let plain: [UInt8]
        do { plain = gzipped ? try TileCompression.gunzip(stored) : stored } catch {
            logger.error("base map \(archive.path): tile \(zoom)/\(x)/\(y) is not valid gzip")
            throw Problem(.internalError, "the base map archive holds a damaged tile")
        }
        return Representation(mediaType: MediaTypeName.mvt, body: plain, headers: headers)
    }

    /// TileJSON 3.0.0 of the base map: its tile URL, zooms, bounds, centre and layers.
    func baseMapTileJSON(_ archive: PMTilesReader) -> JSONValue {
        let h = archive.header, b = h.bounds
        let lat = TileMatrixSet.webMercatorMaxLatitude
        return [
            "tilejson": "3.0.0", "name": .string(archive.metadata["name"]?.stringValue ?? "base map"), "scheme": "xyz",
            "tiles": [.string(site.url("/basemap/{z}/{x}/{y}"))], "minzoom": .integer(Int64(h.minZoom)), "maxzoom": .integer(Int64(h.maxZoom)),
            "bounds": [.number(b.minX), .number(max(b.minY, -lat)), .number(b.maxX), .number(min(b.maxY, lat))],
            "center": [.number(h.center.lon), .number(h.center.lat), .integer(Int64(h.center.zoom))],
            "vector_layers": .array(archive.vectorLayers),
            "attribution": .string(archive.metadata["attribution"]?.stringValue ?? "© OpenStreetMap contributors"),
        ]
    }
}
