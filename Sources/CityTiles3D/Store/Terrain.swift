import GeoCore
import TwinStore

/// The ground the solids stand on: the store's managed DEM (`ManagedRasters`, id `dem`), a grid
/// in the city's metric CRS, sampled bilinearly between cell centres.
///
/// A building stands at the **lowest** terrain height under its footprint: the minimum of the
/// DEM at the footprint's exterior vertices and its envelope centre, so no wall hangs above the
/// ground on a slope (its roof is `height_m` above that base).
public struct Terrain: Sendable {
    public let grid: Grid
    /// The grid's CRS (the city's metric zone).
    public let crs: CoordinateReferenceSystem
    /// The stored grid's SHA-256 (`ManagedRaster.sha256`), when read from a store: what tells a
    /// replaced DEM from the one a tileset was made on.
    public var version: String?

    public init(grid: Grid, crs: CoordinateReferenceSystem, version: String? = nil) {
        self.grid = grid
        self.crs = crs
        self.version = version
    }

    /// The DEM `id` of `store`, which must be in the city's metric CRS `crs`.
    /// - Throws: `Tiles3DError` `.noTerrain` naming the raster when the store has none or it is
    ///   not a DEM in `crs` or not a readable grid.
    public static func read(_ id: String = ManagedRaster.defaultDEM, from store: any FeatureStore,
                            crs: CoordinateReferenceSystem) async throws -> Terrain {
        guard let rasters = store as? any ManagedRasters else {
            throw Tiles3DError(.noTerrain, "this store keeps no rasters, so it has no DEM '\(id)' for the solids to stand on")
        }
        guard let raster = try await rasters.managedRaster(id), let data = try await rasters.managedRasterData(id) else {
            throw Tiles3DError(.noTerrain, "the store has no raster '\(id)' for the solids to stand on "
                               + "(an administrator imports one with `citytwin raster import FILE --id \(id)`)")
        }
        guard raster.kind == .dem, raster.epsg == crs.epsgCode else {
            throw Tiles3DError(.noTerrain, "raster '\(id)' is not a DEM in the city's metric CRS \(crs) (it is a \(raster.kind.rawValue) in \(raster.crs))")
        }
        do { return Terrain(grid: try Grid(esriASCIIData: data), crs: crs, version: raster.sha256) } catch {
            throw Tiles3DError(.noTerrain, "raster '\(id)' in the store is not a readable ESRI ASCII grid")
        }
    }

    /// The height (metres) at a metric position, `nil` outside the grid or on no-data.
    public func height(at p: Position) -> Double? { grid.bilinear(at: p).map(Double.init) }

    /// The base of a footprint (metric positions of its exterior and its envelope centre): the
    /// lowest DEM height among them, `nil` when none is on the grid.
    public func base(of exterior: [Position]) -> Double? {
        guard let e = Envelope(of: exterior) else { return nil }
        return (exterior + [e.center]).compactMap(height(at:)).min()
    }
}
