import Flood
import Foundation
import GeoCore
import Hummingbird
import Scenarios
import TwinStore

/// `/collections/{collectionId}/rasters`: the rasters a run wrote beside its result layer.
struct RasterRoutes: OperationCollection {
    let site: SiteLinks
    let layers: LayerDirectory
    /// Where runs keep their rasters (`ServerOptions.rasters`); `nil`: none are served.
    let rasters: ResultRasters?
    /// `/collections/{collectionId}/rasters` and `/collections/{collectionId}/rasters/{rasterName}`:
    /// the rasters a run wrote beside a result layer (a flood run's maximum-depth grid beside its
    /// depth layer; `ResultRasters`). They sit under the collection because they are part of it:
    /// the same access rules as the layer's features, and room for more formats (a GeoTIFF or
    /// PNG tiles are more names). A caller who may not read the layer is refused as a
    /// process reading it is (`AccessPolicy.readRefusal`): 401 anonymous, 403 a department,
    /// naming who may read it; a secret layer is 404, as if it did not exist.
    var operations: [APIOperation] {
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
                _ = try await layers.readable(id, caller: context.caller, reading: "its raster list")
                let names = rasters?.names(layer: id) ?? []
                let doc: JSONValue = [
                    "rasters": .array(names.map { name in
                        ["name": .string(name), "type": .string(ResultRasters.mediaType(of: name) ?? ""),
                         "href": .string(site.url(ResultRasters.path(layer: id, name: name)))]
                    }),
                    "links": [site.link("/collections/\(id)/rasters", rel: "self", type: MediaTypeName.json),
                              site.link("/collections/\(id)", rel: "collection", type: MediaTypeName.json)],
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
                _ = try await layers.readable(id, caller: context.caller, reading: "raster '\(name)'")
                // The name is checked before it touches the file system: a plain file name with a
                // known extension, so `..`, `/` or `%2F` never leave the layer's directory.
                guard let rasters = rasters, let file = rasters.file(layer: id, name: name),
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
}

extension APIParameter {
    static let rasterName = APIParameter("rasterName", in: .path,
                                         "File name of a raster of the collection (letters, digits, '_', '-', '.'; e.g. flood_p50_waterlogging_maxdepth.asc).")
}
