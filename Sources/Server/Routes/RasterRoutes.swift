import Flood
import Foundation
import GeoCore
import Hummingbird
import Scenarios
import TwinStore

extension CityTwinServer {
    /// `/collections/{collectionId}/rasters` and `/collections/{collectionId}/rasters/{rasterName}`:
    /// the rasters a run wrote beside a result layer (a flood run's maximum-depth grid beside its
    /// depth layer; `ResultRasters`). They sit under the collection because they are part of it:
    /// the same access rules as the layer's features, and room for more formats (a GeoTIFF or
    /// PNG tiles are more names). A caller who may not read the layer is refused as a
    /// process reading it is (`AccessPolicy.readRefusal`): 401 anonymous, 403 a department,
    /// naming who may read it; a secret layer is 404, as if it did not exist.
    var rasterOperations: [APIOperation] {
        let common = APIResponse.standardProblems
        let refused: [APIResponse] = [
            .problem(401, "The layer is not open: send a bearer token."),
            .problem(403, "The caller's department may not read the layer."),
        ]
        return [
            APIOperation(
                id: "getRasters", method: .get, path: "/collections/{collectionId}/rasters",
                summary: "The rasters a run wrote beside this result layer (e.g. a flood run's maximum-depth grid).",
                tag: "Data", parameters: [.collectionID],
                responses: [.ok("The rasters: name, media type and link of each.", [(MediaTypeName.json, "RasterList")]),
                            .problem(404, "No such collection (or not visible to the caller).")] + refused + common
            ) { [self] _, context, _ in
                let id = try pathParameter(context, "collectionId")
                _ = try await readableLayer(id, caller: context.caller, reading: "its raster list")
                let names = options.rasters?.names(layer: id) ?? []
                let doc: JSONValue = [
                    "rasters": .array(names.map { name in
                        ["name": .string(name), "type": .string(ResultRasters.mediaType(of: name) ?? ""),
                         "href": .string(url(ResultRasters.path(layer: id, name: name)))]
                    }),
                    "links": [link("/collections/\(id)/rasters", rel: "self", type: MediaTypeName.json),
                              link("/collections/\(id)", rel: "collection", type: MediaTypeName.json)],
                ]
                return .json(doc)
            },
            APIOperation(
                id: "getRaster", method: .get, path: "/collections/{collectionId}/rasters/{rasterName}",
                summary: "One raster of a result layer as a file download (ESRI ASCII grid: text/plain; application=esri-asciigrid).",
                tag: "Data", parameters: [.collectionID, .rasterName],
                responses: [.ok("The raster file.", [("text/plain; charset=us-ascii; application=esri-asciigrid", "Raster")]),
                            .problem(404, "No such collection or raster.")] + refused + common
            ) { [self] _, context, _ in
                let id = try pathParameter(context, "collectionId")
                let name = try pathParameter(context, "rasterName")
                _ = try await readableLayer(id, caller: context.caller, reading: "raster '\(name)'")
                // The name is checked before it touches the file system: a plain file name with a
                // known extension, so `..`, `/` or `%2F` never leave the layer's directory.
                guard let rasters = options.rasters, let file = rasters.file(layer: id, name: name),
                      let mediaType = ResultRasters.mediaType(of: name),
                      let data = FileManager.default.contents(atPath: file.path) else {
                    throw Problem(.notFound, "collection '\(id)' has no raster '\(name)' (its rasters are listed at /collections/\(id)/rasters)")
                }
                var headers = HTTPFields()
                headers[.contentDisposition] = "attachment; filename=\"\(name)\""
                return Representation(mediaType: mediaType, body: [UInt8](data), headers: headers)
            },
        ]
    }

    /// The definition of layer `id` if `caller` may read it; else the refusal that says why
    /// (`AccessPolicy.readRefusal`), or collection-not-found for a layer the store lacks.
    func readableLayer(_ id: String, caller: Caller, reading what: String) async throws -> LayerDefinition {
        guard let definition = try await store.layerDefinition(id, for: .admin) else {
            throw Problem(.collectionNotFound, "no collection '\(id)'")
        }
        if let refusal = AccessPolicy.readRefusal(definition, caller, reading: what) { throw refusal }
        return definition
    }

    /// Links to the rasters of a layer (`enclosure`: a file to download), empty when it has none.
    func rasterLinks(_ id: String) -> [JSONValue] {
        (options.rasters?.names(layer: id) ?? []).map { name in
            link(ResultRasters.path(layer: id, name: name), rel: "enclosure", type: ResultRasters.mediaType(of: name) ?? "",
                 title: "Raster \(name)")
        }
    }
}

extension APIParameter {
    static let rasterName = APIParameter("rasterName", in: .path,
                                         "File name of a raster of the collection (letters, digits, '_', '-', '.'; e.g. flood_p50_waterlogging_maxdepth.asc).")
}
