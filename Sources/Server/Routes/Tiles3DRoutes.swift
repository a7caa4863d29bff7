import CityTiles3D
import Foundation
import GeoCore
import Hummingbird
import TwinStore

/// OGC API – 3D GeoVolumes over the layers' 3D Tiles 1.1 tilesets (CityTiles3D): a collection
/// with a 3D representation (`SolidRule`) has its tileset at `/collections/{id}/3dtiles`
/// (`tileset.json`, explicit quadtree, root transform to ECEF) and its leaves' glTF content under
/// it; a managed DEM its terrain at `/rasters/{id}/3dtiles` (the DEM is a raster, not a feature
/// collection, so its own resource carries the 3D container link). Everything is read as the
/// caller (`Tileset3DService` keeps one tileset per access class), so a layer the caller may not
/// read answers 401/403/404 as its features do, and the terrain as the rasters do.
struct Tiles3DRoutes: OperationCollection {
    let store: any FeatureStore
    let layers: LayerDirectory

    static let tilesetMediaType = "application/json"
    static let glbMediaType = "model/gltf-binary"
    /// The link relation and media type of a collection's 3D Tiles container (OGC API – 3D
    /// GeoVolumes draft, /req/core/collections: `[ogc-rel:3d-geovolumes]`, `application/json+3dtiles`).
    static let geoVolumesRel = "http://www.opengis.net/def/rel/ogc/1.0/3d-geovolumes"
    static let geoVolumesMediaType = "application/json+3dtiles"
    /// The draft's conformance classes this server implements: its core and the 3D Tiles class.
    static let geoVolumesConformance = ["https://www.opengis.net/spec/ogcapi-geovolumes-1/1.0/conf/core",
                                        "https://www.opengis.net/spec/ogcapi-geovolumes-1/1.0/conf/3d-tiles"]
    /// CRS84 with ellipsoidal heights: the CRS of a 3D bounding box (six numbers).
    static let crs84h = "http://www.opengis.net/def/crs/OGC/0/CRS84h"

    /// The link a collection document gives to its tileset, for layers with one (`nil` otherwise),
    /// with the CIM level the tileset reaches.
    static func collectionLink(_ layer: String, site: SiteLinks) -> JSONValue? {
        guard let rule = SolidRule.rule(for: layer) else { return nil }
        var link = site.link("/collections/\(layer)/3dtiles", rel: geoVolumesRel, type: geoVolumesMediaType,
                             title: "3D Tiles 1.1 tileset (OGC API – 3D GeoVolumes), \(rule.cimLevel.rawValue)").objectValue ?? [:]
        link["cim_level"] = .string(rule.cimLevel.rawValue)
        return .object(link)
    }

    /// A collection document with what the GeoVolumes draft adds for a layer with a 3D tileset:
    /// `content` (the tileset's link, as the draft's examples carry it) and the spatial extent as
    /// a 3D box in CRS84h, its heights the tileset's (ellipsoidal metres) once a tileset request has
    /// built it. Before that, or without a tileset the caller may read (no DEM yet, no access), the
    /// extent stays 2D: listing the catalogue never builds a tileset.
    static func geoVolume(_ document: JSONValue, store: any FeatureStore, caller: Caller, site: SiteLinks) async -> JSONValue {
        guard var o = document.objectValue, let layer = o["id"]?.stringValue, let link = collectionLink(layer, site: site) else { return document }
        o["content"] = [link]
        let service = await Tileset3DService.shared(for: store)
        guard let heights = await service.builtHeightRange(layer: layer, caller: caller),
              var extent = o["extent"]?.objectValue, var spatial = extent["spatial"]?.objectValue,
              let box = spatial["bbox"]?.arrayValue?.first?.arrayValue, box.count == 4 else { return .object(o) }
        spatial["bbox"] = [[box[0], box[1], .number(heights.lowerBound), box[2], box[3], .number(heights.upperBound)]]
        spatial["crs"] = .string(crs84h)
        extent["spatial"] = .object(spatial)
        o["extent"] = .object(extent)
        return .object(o)
    }

    var operations: [APIOperation] {
        let common = APIResponse.standardProblems
        let tile = APIParameter("tile", in: .path, "A leaf tile's content as the tileset names it: column_row.glb (250 m leaves of the city's metric CRS).")
        let terrainTile = APIParameter("tile", in: .path, "A terrain tile's content as the tileset names it: level_column_row.glb (level 0 the DEM's full resolution).")
        return [
            APIOperation(
                id: "getCollection3DTileset", method: .get, path: "/collections/{collectionId}/3dtiles",
                summary: "The collection's 3D Tiles 1.1 tileset (tileset.json): solids on the DEM, explicit quadtree, glTF content with feature ids and properties.",
                tag: "3D Tiles", parameters: [.collectionID],
                responses: [.ok("The tileset.", [(Self.tilesetMediaType, "Tileset3D")]),
                            .problem(404, "No such collection, or it has no 3D representation.")] + common
            ) { [self] _, context, _ in
                let id = try pathParameter(context, "collectionId")
                _ = try await layers.definition(id, for: context.caller)
                return try await answer(Self.tilesetMediaType, context.caller) { try await $0.tileset(layer: id, caller: context.caller, contentPrefix: "3dtiles/") }
            },
            APIOperation(
                id: "getCollection3DTileContent", method: .get, path: "/collections/{collectionId}/3dtiles/content/{tile}",
                summary: "One leaf of the collection's 3D tileset: binary glTF 2.0 with EXT_mesh_features and EXT_structural_metadata.",
                tag: "3D Tiles", parameters: [.collectionID, tile],
                responses: [.ok("The tile's glTF.", [(Self.glbMediaType, "GLB")]), .problem(404, "No such collection or tile.")] + common
            ) { [self] _, context, _ in
                let id = try pathParameter(context, "collectionId")
                let name = try pathParameter(context, "tile")
                _ = try await layers.definition(id, for: context.caller)
                return try await answer(Self.glbMediaType, context.caller) { try await $0.content(layer: id, name: name, caller: context.caller) }
            },
            APIOperation(
                id: "getTerrain3DTileset", method: .get, path: "/rasters/{rasterId}/3dtiles",
                summary: "A managed DEM as terrain (CIM1): a 3D Tiles 1.1 tileset of glTF meshes, a quadtree refined by REPLACE whose geometric errors are the levels' measured height errors.",
                tag: "3D Tiles", parameters: [.rasterID],
                responses: [.ok("The tileset.", [(Self.tilesetMediaType, "Tileset3D")]),
                            .problem(401, "The rasters are shared with departments: send a bearer token."),
                            .problem(404, "No such raster, or it is not a DEM in the city's metric CRS.")] + common
            ) { [self] _, context, _ in
                let id = try pathParameter(context, "rasterId")
                return try await answer(Self.tilesetMediaType, context.caller) {
                    try await $0.terrainTileset(raster: id, caller: context.caller).document(contentPrefix: "3dtiles/")
                }
            },
            APIOperation(
                id: "getTerrain3DTileContent", method: .get, path: "/rasters/{rasterId}/3dtiles/content/{tile}",
                summary: "One terrain tile: binary glTF 2.0, the surface (feature 0) and its skirts (feature 1).",
                tag: "3D Tiles", parameters: [.rasterID, terrainTile],
                responses: [.ok("The tile's glTF.", [(Self.glbMediaType, "GLB")]), .problem(404, "No such raster or tile.")] + common
            ) { [self] _, context, _ in
                let id = try pathParameter(context, "rasterId")
                let name = try pathParameter(context, "tile")
                return try await answer(Self.glbMediaType, context.caller) { try await $0.terrainTileset(raster: id, caller: context.caller).content(name) }
            },
        ]
    }

    /// The link a DEM's description gives to its terrain tileset (GeoVolumes' relation and type).
    static func terrainLink(_ raster: String, site: SiteLinks) -> JSONValue {
        var link = site.link("/rasters/\(raster)/3dtiles", rel: geoVolumesRel, type: geoVolumesMediaType,
                             title: "Terrain as 3D Tiles 1.1 (OGC API – 3D GeoVolumes), \(TerrainTileset.cimLevel.rawValue)").objectValue ?? [:]
        link["cim_level"] = .string(TerrainTileset.cimLevel.rawValue)
        return .object(link)
    }

    /// The bytes `body` reads from the store's tileset service, as `mediaType`, CityTiles3D's
    /// errors as problems, cached as `caller`'s answers may be.
    private func answer(_ mediaType: String, _ caller: Caller,
                        _ body: (Tileset3DService) async throws -> [UInt8]) async throws -> Representation {
        let service = await Tileset3DService.shared(for: store)
        let bytes = try await Self.mapping { try await body(service) }
        return Representation(mediaType: mediaType, body: bytes, headers: Self.headers(caller))
    }

    /// A path parameter, percent-decoded.
    private func pathParameter(_ context: CityTwinRequestContext, _ name: String) throws -> String {
        guard let raw = context.parameters.get(name) else { throw Problem(.notFound, "missing path segment {\(name)}") }
        return raw.removingPercentEncoding ?? raw
    }

    /// Public tilesets may be kept by shared caches; a department's only by its own client.
    private static func headers(_ caller: Caller) -> HTTPFields {
        var headers = HTTPFields()
        headers[.cacheControl] = caller == .anonymous ? "public, no-cache" : "private, no-cache"
        return headers
    }

    /// CityTiles3D's errors as problems: what is not there is 404; a store without a DEM 409.
    private static func mapping<T>(_ body: () async throws -> T) async throws -> T {
        do { return try await body() } catch let e as Tiles3DError {
            switch e.code {
            case .unsupportedLayer, .unknownTile, .unknownRaster: throw Problem(.notFound, e.message)
            case .noTerrain: throw Problem(.conflict, e.message)
            case .invalidFeature, .invalidArgument: throw Problem(.invalidParameter, e.message)
            }
        }
    }
}
