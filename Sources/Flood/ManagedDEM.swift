import Foundation
import GeoCore
import ProcessRuntime
import TwinStore

/// The DEM a flood run reads: a raster the store manages (`ManagedRasters`), named by its id
/// (`dem` by default, the one `citytwin district build` imports). A run never reads a file a
/// request names.
enum ManagedDEM {
    /// Checks that `id` is a managed raster's id, before the store is asked for it.
    /// - Throws: `ScenarioError` naming `dem`.
    static func checkID(_ id: String) throws {
        guard ManagedRaster.isValidID(id) else {
            throw ScenarioError(.invalidScenario,
                                "must be the id of a raster the store manages (1–64 lower-case letters, digits, '-' and '_'; "
                                + "the store's rasters are listed at /rasters and by `citytwin raster list`), not a file path",
                                field: "dem")
        }
    }

    /// The grid of raster `id` in `store`, in the city's metric CRS (`CityRecord.metricCRS`).
    static func read(_ id: String, from store: any FeatureStore) async throws -> Grid {
        try checkID(id)
        guard let crs = try await CityRecord.metricCRS(of: store) else {
            throw ScenarioError(.invalidDistrict, "the store holds no city yet, so no DEM can be placed in it", field: "dem")
        }
        return try await read(id, from: store, crs: crs)
    }

    /// The grid of raster `id` in `store`, which must be in `crs`, the city's metric CRS (the one
    /// the flood engine works in: `CityRecord.metricCRS`; `citytwin raster import` reprojects to it).
    /// - Throws: `ScenarioError` naming `dem` when the store keeps no rasters, has no raster
    ///   `id`, or holds one the engine cannot use (not a DEM, another CRS, not a readable grid).
    ///   The message names the raster, never its contents.
    static func read(_ id: String, from store: any FeatureStore, crs: CoordinateReferenceSystem) async throws -> Grid {
        try checkID(id)
        guard let rasters = store as? any ManagedRasters else {
            throw ScenarioError(.invalidDistrict, "this store keeps no rasters, so it has no DEM", field: "dem")
        }
        guard let raster = try await rasters.managedRaster(id), let data = try await rasters.managedRasterData(id) else {
            let known = try await rasters.managedRasters().map(\.id)
            throw ScenarioError(.invalidDistrict,
                                "the store has no raster '\(id)' (its rasters: \(known.isEmpty ? "none" : known.joined(separator: ", "))); "
                                + "an administrator imports a DEM with `citytwin raster import FILE --id \(id)` (`citytwin district build` imports the sample district's as 'dem')",
                                field: "dem")
        }
        guard raster.kind == .dem else {
            throw ScenarioError(.invalidDistrict, "raster '\(id)' is a \(raster.kind.rawValue), not a DEM", field: "dem")
        }
        guard raster.epsg != nil, raster.epsg == crs.epsgCode else {
            throw ScenarioError(.invalidDistrict,
                                "raster '\(id)' is in \(raster.crs); the flood engine reads a DEM in the city's metric CRS, \(crs) "
                                + "(re-import it with `citytwin raster import FILE --id \(id) --replace`, which reprojects to it)",
                                field: "dem")
        }
        do { return try Grid(esriASCIIData: data) } catch {
            throw ScenarioError(.invalidDistrict, "raster '\(id)' in the store is not a readable ESRI ASCII grid", field: "dem")
        }
    }
}
