import Foundation
import GeoCore
import Hummingbird
import MapRendering
import Tiles
import TwinStore

/// A WMTS 1.0.0 exception (OGC 07-057r7 §8.2, OWS Common 1.1 `ExceptionReport`).
struct WMTSException: Error, Sendable {
    /// `MissingParameterValue`, `InvalidParameterValue`, `TileOutOfRange`, `OperationNotSupported`, `NoApplicableCode`.
    let code: String
    let message: String
    var locator: String? = nil
    var status: HTTPResponse.Status = .badRequest

    var representation: Representation {
        OWSExceptionReport.representation(code: code, message: message, locator: locator, status: status, version: "1.0.0")
    }

    /// Any error of a WMTS request: the WMS's reports (a hidden or missing layer) and the
    /// server's one mapping, in OWS Common's codes.
    static func from(_ error: any Error) -> WMTSException {
        if let e = error as? WMTSException { return e }
        if let e = error as? WMSException {
            let code = e.code == .missingParameterValue ? "MissingParameterValue" : e.code == .noApplicableCode ? "NoApplicableCode" : "InvalidParameterValue"
            return WMTSException(code: code, message: e.message, locator: e.locator.map { $0 == "LAYERS" ? "LAYER" : $0 })
        }
        let problem = Problem(mapping: error)
        let status = problem.kind.status
        return WMTSException(code: status.code >= 500 ? "NoApplicableCode" : "InvalidParameterValue", message: problem.detail,
                             locator: problem.parameter, status: status)
    }
}

/// WMTS 1.0.0 at `/wmts` (issue 55 §2): GetCapabilities and GetTile in KVP and RESTful form
/// (`/wmts/1.0.0/{layer}/{style}/{TileMatrixSet}/{TileMatrix}/{TileRow}/{TileCol}.png` or `.pbf`)
/// over the existing tile matrix sets (`TILEMATRIXSET=c` is CGCS2000Quad, as Tianditu names
/// it). PNG tiles are drawn by MapRendering from the web map's style, MVT tiles are the OGC
/// API's; both are kept in the tile cache and
/// dropped with the vector tiles when the change feed shows an edit beneath them; a caller
/// sees what it may read, as everywhere.
struct WMTSRoutes: OperationCollection {
    let site: SiteLinks
    /// The tile cache the PNG and MVT tiles are kept in.
    let tileService: TileService
    /// The live parking view, brought up to date before a tile of its layer.
    let parking: ParkingUpkeep
    /// The WMS, which draws the PNG tiles and answers feature info.
    let wms: WMSRoutes

    var operations: [APIOperation] {
        let responses: [APIResponse] = [
            .ok("The capabilities, the tile or the features under a pixel.",
                [("application/xml", "WMSCapabilities"), ("image/png", "MapImage"), (MediaTypeName.mvt, "VectorTile"),
                 (MediaTypeName.json, "FeatureCollection"), ("text/html", "HTML")]),
            APIResponse(status: 400, description: "An OWS ExceptionReport naming the code and the parameter at fault.",
                        content: [("application/xml", "ServiceExceptionReport")]),
        ]
        let restTile = ["wmtsLayer", "wmtsStyle", "wmtsTileMatrixSet", "wmtsTileMatrix", "wmtsTileRow", "wmtsTileCol"]
        return [
            APIOperation(
                id: "getWMTS", method: .get, path: "/wmts",
                summary: "OGC WMTS 1.0.0 (KVP): REQUEST=GetCapabilities, GetTile (LAYER, STYLE, FORMAT image/png or MVT, TILEMATRIXSET, TILEMATRIX, TILEROW, TILECOL) or GetFeatureInfo (also I, J, INFOFORMAT); names case-insensitive.",
                tag: "Tiles", parameters: [APIParameter("REQUEST", "GetCapabilities, GetTile or GetFeatureInfo.", required: true)], responses: responses,
                acceptsQueryables: true  // WMTS names are case-insensitive: WMSParameters reads them
            ) { [self] _, context, query in
                do {
                    let p = try WMSParameters(query)
                    switch try p.required("REQUEST").lowercased() {
                    case "getcapabilities": return try await wmtsCapabilities(context.caller)
                    case "gettile":
                        return try await wmtsTile(layer: try p.required("LAYER"), style: p["STYLE"] ?? "", matrixSet: try p.required("TILEMATRIXSET"),
                                                  matrix: try p.required("TILEMATRIX"), row: try p.required("TILEROW"), col: try p.required("TILECOL"),
                                                  format: try p.required("FORMAT"), caller: context.caller)
                    case "getfeatureinfo": return try await wmtsFeatureInfo(p, context.caller)
                    case let other:
                        throw WMTSException(code: "OperationNotSupported", message: "REQUEST '\(other)' is not served: GetCapabilities, GetTile, GetFeatureInfo",
                                            locator: "REQUEST")
                    }
                } catch {
                    return WMTSException.from(error).representation
                }
            },
            APIOperation(
                id: "getWMTSCapabilities", method: .get, path: "/wmts/1.0.0/WMTSCapabilities.xml",
                summary: "The WMTS 1.0.0 capabilities (RESTful).", tag: "Tiles", parameters: [], responses: responses
            ) { [self] _, context, _ in
                do { return try await wmtsCapabilities(context.caller) } catch { return WMTSException.from(error).representation }
            },
            APIOperation(
                id: "getWMTSTile", method: .get, path: "/wmts/1.0.0/{wmtsLayer}/{wmtsStyle}/{wmtsTileMatrixSet}/{wmtsTileMatrix}/{wmtsTileRow}/{wmtsTileCol}",
                summary: "One map tile (RESTful WMTS): {TileCol} ends in .png (rendered) or .pbf/.mvt (vector).", tag: "Tiles",
                parameters: restTile.map { APIParameter($0, in: .path, "WMTS \($0.dropFirst(4)) (the ResourceURL template of the capabilities).") },
                responses: responses
            ) { [self] _, context, _ in
                do {
                    let v = try restTile.map { try pathParameter(context, $0) }
                    let name = v[5].lowercased()
                    guard let dot = name.lastIndex(of: "."), let format = Self.wmtsExtensions[String(name[name.index(after: dot)...])] else {
                        throw WMTSException(code: "InvalidParameterValue", message: "tile '\(v[5])' is not a .png, .pbf or .mvt", locator: "FORMAT")
                    }
                    return try await wmtsTile(layer: v[0], style: v[1], matrixSet: v[2], matrix: v[3], row: v[4], col: String(name[..<dot]),
                                              format: format, caller: context.caller)
                } catch {
                    return WMTSException.from(error).representation
                }
            },
        ]
    }

    private func wmtsCapabilities(_ caller: Caller) async throws -> Representation {
        let document = WMTSCapabilities(layers: try await tileService.visibleLayers(caller), serviceURL: site.url("/wmts"), legendService: site.url("/wms"))
        var r = Representation(mediaType: "application/xml; charset=utf-8", body: Array(document.xml.utf8))
        r.headers[.cacheControl] = "public, max-age=60"
        return r
    }

    /// The tile matrix set a WMTS request names (Tianditu's `c` and `w` too).
    static func wmtsMatrixSet(_ name: String) throws -> TileMatrixSet {
        switch name.lowercased() {
        case "c": return .cgcs2000Quad
        case "w": return .webMercatorQuad
        default:
            guard let tms = TileMatrixSet.all.first(where: { $0.id.lowercased() == name.lowercased() }) else {
                throw WMTSException(code: "InvalidParameterValue",
                                    message: "TILEMATRIXSET '\(name)' is not served: \(TileMatrixSet.all.map(\.id).joined(separator: ", ")) (c: CGCS2000Quad)",
                                    locator: "TILEMATRIXSET")
            }
            return tms
        }
    }

    /// The layer (readable by the caller), matrix set and tile a WMTS request names.
    private func wmtsTileRequest(layer id: String, style: String, matrixSet: String, matrix: String, row: String, col: String,
                                 caller: Caller) async throws -> (LayerInfo, TileMatrixSet, TileID) {
        guard style.isEmpty || style.lowercased() == "default" else {
            throw WMTSException(code: "InvalidParameterValue", message: "STYLE '\(style)' is not defined: default", locator: "STYLE")
        }
        let tms = try Self.wmtsMatrixSet(matrixSet)
        func integer(_ raw: String, _ name: String) throws -> Int {
            guard let v = Int(raw) else { throw WMTSException(code: "InvalidParameterValue", message: "\(name) '\(raw)' is not an integer", locator: name) }
            return v
        }
        let tile = TileID(matrix: try integer(matrix, "TILEMATRIX"), row: try integer(row, "TILEROW"), col: try integer(col, "TILECOL"))
        do { try tms.validate(tile) } catch let e as TileError {
            let locator = e.message.contains("row") ? "TILEROW" : e.message.contains("column") ? "TILECOL" : "TILEMATRIX"
            throw WMTSException(code: "TileOutOfRange", message: e.message, locator: locator)
        }
        let info = try await wms.wmsLayer(id, caller, locator: "LAYER")
        guard info.definition.hasGeometry else { throw WMTSException(code: "InvalidParameterValue", message: "layer '\(id)' has no geometry", locator: "LAYER") }
        return (info, tms, tile)
    }

    /// WMTS GetFeatureInfo: the layer's features under pixel (I, J) of a tile, as WMS
    /// GetFeatureInfo finds them (`featureInfo`), `INFOFORMAT` application/json or text/html.
    private func wmtsFeatureInfo(_ p: WMSParameters, _ caller: Caller) async throws -> Representation {
        let (info, tms, tile) = try await wmtsTileRequest(layer: try p.required("LAYER"), style: p["STYLE"] ?? "", matrixSet: try p.required("TILEMATRIXSET"),
                                                          matrix: try p.required("TILEMATRIX"), row: try p.required("TILEROW"),
                                                          col: try p.required("TILECOL"), caller: caller)
        let format = try p.required("INFOFORMAT").lowercased()
        guard ["application/json", "application/geo+json", "text/html"].contains(format) else {
            throw WMTSException(code: "InvalidParameterValue", message: "INFOFORMAT '\(format)' is not served: application/json, text/html", locator: "INFOFORMAT")
        }
        let size = TileMatrix.tileSize
        guard let i = Int(try p.required("I")), let j = Int(try p.required("J")), (0..<size).contains(i), (0..<size).contains(j) else {
            throw WMTSException(code: "PointIJOutOfRange", message: "I, J (\(p["I"] ?? ""), \(p["J"] ?? "")) is not a pixel of a \(size)-pixel tile", locator: "I")
        }
        let view = try MapView(bbox: try tms.bounds(of: tile), crs: tms.crs, width: size, height: size)
        return try await wms.featureInfo([info], view: view, style: try wms.wmsStyle([info], caller), i: i, j: j, count: 10,
                                     html: format == "text/html", caller)
    }

    /// The RESTful tile extensions and their formats.
    static let wmtsExtensions = ["png": "image/png", "pbf": MediaTypeName.mvt, "mvt": MediaTypeName.mvt]

    /// One 256-pixel tile: rendered (PNG) or vector (MVT, the OGC API tile of the collection:
    /// the same bytes and cache entry), from the tile cache, else made and cached.
    private func wmtsTile(layer id: String, style: String, matrixSet: String, matrix: String, row: String, col: String,
                          format: String, caller: Caller) async throws -> Representation {
        let vector = format.lowercased() == MediaTypeName.mvt || format.lowercased() == "application/x-protobuf"
        guard vector || MapImageFormat(mediaType: format) == .png else {
            throw WMTSException(code: "InvalidParameterValue", message: "FORMAT '\(format)' is not served: image/png, \(MediaTypeName.mvt)", locator: "FORMAT")
        }
        let (info, tms, tile) = try await wmtsTileRequest(layer: id, style: style, matrixSet: matrixSet, matrix: matrix, row: row, col: col, caller: caller)
        await parking.catchUp([id])
        try await tileService.followChanges()
        let version = tileService.dataVersion([info.definition])
        let key = TileCacheKey(layers: [id], dataVersion: vector ? version : "png:" + version,
                               audience: TileCacheKey.audience(of: caller), tileMatrixSet: tms.id, tile: tile)
        let cached: CachedTile
        if let hit = tileService.cache.tile(key) {
            cached = hit
        } else if vector {
            cached = tileService.cache.store(key, bytes: try await tileService.source.tile(layers: [id], tileMatrixSet: tms, tile: tile, caller: caller))
        } else {
            let view = try MapView(bbox: try tms.bounds(of: tile), crs: tms.crs, width: TileMatrix.tileSize, height: TileMatrix.tileSize)
            // Features a quarter tile beyond: lines, circles and labels near the edge reach in.
            let style = try wms.wmsStyle([info], caller)
            var features: [String: [Feature]] = [:]
            if style.draws(id, atZoom: view.zoom) {
                features[id] = try await wms.wmsFeatures(id, in: try tms.lonLatBounds(of: tile).expanded(byFraction: 0.25), caller)
            }
            let drawn = features
            let bytes = try await BlockingWork.run { try MapRenderer(style: style).image(drawn, view: view, format: .png, background: nil) }
            cached = tileService.cache.store(key, bytes: bytes)
        }
        var headers = HTTPFields()
        headers[.eTag] = cached.etag
        headers[.cacheControl] = "public, max-age=3600"
        // An empty vector tile is a tile of no bytes (WMTS clients expect a 200, not OGC API's 204).
        return Representation(mediaType: vector ? MediaTypeName.mvt : "image/png", buffer: cached.buffer ?? ByteBuffer(), headers: headers)
    }
}
