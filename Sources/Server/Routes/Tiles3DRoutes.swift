import CityTiles3D
import Foundation
import GeoCore
import Hummingbird
import TwinStore

/// OGC API – 3D GeoVolumes over the layers' 3D Tiles 1.1 tilesets (CityTiles3D): a collection
/// with a 3D representation (`SolidRule`) has its tileset at `/collections/{id}/3dtiles`
/// (`tileset.json`, explicit quadtree, root transform to ECEF) and its leaves' glTF content under
/// it. Everything is read as the caller (`Tileset3DService` keeps one tileset per access class),
/// so a layer the caller may not read answers 401/403/404 as its features do.
struct Tiles3DRoutes: OperationCollection {
    let store: any FeatureStore
    let layers: LayerDirectory

    static let tilesetMediaType = "application/json"
    static let glbMediaType = "model/gltf-binary"
    /// The link relation of a collection's 3D Tiles container (OGC API – 3D GeoVolumes draft).
    static let tilesetRel = "http://www.opengis.net/def/rel/ogc/1.0/3dtiles"

    /// The link a collection document gives to its tileset, for layers with one (`nil` otherwise).
    static func collectionLink(_ layer: String, url: (String) -> String) -> JSONValue? {
        guard SolidRule.rule(for: layer) != nil else { return nil }
        return ["href": .string(url("/collections/\(layer)/3dtiles")), "rel": .string(tilesetRel),
                "type": .string(tilesetMediaType), "title": "3D Tiles 1.1 tileset (OGC API – 3D GeoVolumes)"]
    }

    var operations: [APIOperation] {
        let common = APIResponse.standardProblems
        let tile = APIParameter("tile", in: .path, "A leaf tile's content as the tileset names it: column_row.glb (250 m leaves of the city's metric CRS).")
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
                let service = await Tileset3DService.shared(for: store)
                let bytes = try await Self.mapping { try await service.tileset(layer: id, caller: context.caller, contentPrefix: "3dtiles/") }
                return Representation(mediaType: Self.tilesetMediaType, body: bytes, headers: Self.headers(context.caller))
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
                let service = await Tileset3DService.shared(for: store)
                let bytes = try await Self.mapping { try await service.content(layer: id, name: name, caller: context.caller) }
                return Representation(mediaType: Self.glbMediaType, body: bytes, headers: Self.headers(context.caller))
            },
        ]
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
            case .unsupportedLayer, .unknownTile: throw Problem(.notFound, e.message)
            case .noTerrain: throw Problem(.conflict, e.message)
            case .invalidFeature, .invalidArgument: throw Problem(.invalidParameter, e.message)
            }
        }
    }
}
