import Foundation
import GeoCore
import Hummingbird
import TwinStore

/// `/rasters`: the rasters the store manages (a DEM flood runs read by id).
struct ManagedRasterRoutes: OperationCollection {
    let store: any FeatureStore
    let site: SiteLinks
    /// `/rasters`, `/rasters/{rasterId}` and `/rasters/{rasterId}/data`: the rasters the store
    /// manages (`ManagedRasters`; the DEM flood runs read by id). They are the city's shared base
    /// data: every department token reads them, the public does not (401); only the platform
    /// administrator imports or deletes one (`citytwin raster`), and nothing here names a file.
    var operations: [APIOperation] {
        let common = APIResponse.standardProblems
        let anonymous = APIResponse.problem(401, "The rasters are shared with departments: send a bearer token.")
        return [
            APIOperation(
                id: "getManagedRasters", method: .get, path: "/rasters",
                summary: "The rasters the store manages (a DEM): id, kind, CRS, size and extent; flood runs name one by id (input 'dem').",
                tag: "Data", parameters: [],
                responses: [.ok("The rasters.", [(MediaTypeName.json, "ManagedRasterList")]), anonymous] + common
            ) { [self] _, context, _ in
                let rasters = try await managedRasters(for: context.caller)
                let all = try await rasters.managedRasters()
                let doc: JSONValue = [
                    "rasters": .array(try all.map(managedRasterDocument)),
                    "links": [site.link("/rasters", rel: "self", type: MediaTypeName.json)],
                ]
                return .json(doc)
            },
            APIOperation(
                id: "getManagedRaster", method: .get, path: "/rasters/{rasterId}",
                summary: "One managed raster's description, with a link to its grid.",
                tag: "Data", parameters: [.rasterID],
                responses: [.ok("The raster's description.", [(MediaTypeName.json, "ManagedRaster")]),
                            .problem(404, "No such raster."), anonymous] + common
            ) { [self] _, context, _ in
                let rasters = try await managedRasters(for: context.caller)
                let id = try pathParameter(context, "rasterId")
                guard ManagedRaster.isValidID(id), let raster = try await rasters.managedRaster(id) else { throw noRaster(id) }
                return .json(try managedRasterDocument(raster))
            },
            APIOperation(
                id: "getManagedRasterData", method: .get, path: "/rasters/{rasterId}/data",
                summary: "A managed raster's grid as stored (ESRI ASCII grid: text/plain; application=esri-asciigrid).",
                tag: "Data", parameters: [.rasterID],
                responses: [.ok("The grid.", [(ManagedRaster.esriASCIIMediaType, "Raster")]), .problem(404, "No such raster."), anonymous] + common
            ) { [self] _, context, _ in
                let rasters = try await managedRasters(for: context.caller)
                let id = try pathParameter(context, "rasterId")
                guard ManagedRaster.isValidID(id), let data = try await rasters.managedRasterData(id) else { throw noRaster(id) }
                var headers = HTTPFields()
                headers[.contentDisposition] = "attachment; filename=\"\(id).asc\""
                return Representation(mediaType: ManagedRaster.esriASCIIMediaType, body: [UInt8](data), headers: headers)
            },
        ]
    }

    /// The store's rasters, for a caller who may read them (a department or the admin); also the
    /// terrain tiles' rule (`TerrainTileRoutes`).
    func managedRasters(for caller: Caller) async throws -> any ManagedRasters {
        guard caller != .anonymous else {
            throw StoreError(.unauthenticated, "the managed rasters are shared with departments: send a bearer token", field: "Authorization")
        }
        guard let rasters = store as? any ManagedRasters else { throw Problem(.notFound, "this store keeps no rasters") }
        return rasters
    }

    private func noRaster(_ id: String) -> Problem {
        Problem(.notFound, "no raster '\(id)' (the store's rasters are listed at /rasters)")
    }

    private func managedRasterDocument(_ raster: ManagedRaster) throws -> JSONValue {
        var doc = try JSONOutput.value(raster).objectValue ?? [:]
        let links = [site.link("/rasters/\(raster.id)", rel: "self", type: MediaTypeName.json),
                     site.link("/rasters/\(raster.id)/data", rel: "enclosure", type: ManagedRaster.esriASCIIMediaType, title: "The grid")]
        // A DEM's terrain as 3D Tiles (OGC API – 3D GeoVolumes' relation and type).
        doc["links"] = .array(links + (raster.kind == .dem ? [Tiles3DRoutes.terrainLink(raster.id, site: site)] : []))
        return .object(doc)
    }
}

extension APIParameter {
    static let rasterID = APIParameter("rasterId", in: .path, "Identifier of a managed raster (lower-case letters, digits, '-', '_'; e.g. dem).")
}
