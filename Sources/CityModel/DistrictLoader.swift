import Foundation
import GeoCore
import TwinStore

/// Builds the sample district into a store: creates every layer of `Layers/` and inserts the
/// generated features (`SampleDistrict.generate`), one transaction per layer, and imports the DEM
/// into the store's managed rasters (`ManagedRasters`, id `dem`). The set-up script and `citytwin district build` call it; `citytwin serve`
/// then serves the result.
public enum DistrictLoader {
    /// Where the CLI keeps the district store when `--store` is not given, relative to the
    /// current directory. `citytwin district build` writes it and `citytwin serve` reads it.
    public static let defaultStorePath = ".citytwin/district.sqlite"
    /// The DEM's CRS (ESRI ASCII grid, EPSG:4547 metres).
    public static let demCRS = 4547
    /// The layer whose features mark a store as holding the district.
    static let markerLayer = "buildings"

    /// What a build wrote.
    public struct Summary: Sendable, Hashable {
        /// Features per layer id (every layer of the catalogue, 0 for those the district leaves empty).
        public var counts: [String: Int]
        /// The DEM imported into the store's managed rasters, if any.
        public var dem: ManagedRaster?
        public var total: Int { counts.values.reduce(0, +) }
    }

    /// Whether `store` already holds the district (its buildings layer exists and is not empty).
    public static func isBuilt(_ store: any FeatureStore) async throws -> Bool {
        let layers = try await store.layers(for: .admin)
        return layers.contains { $0.definition.id == markerLayer && $0.count > 0 }
    }

    /// Creates every layer defined in `layersDirectory` and loads the district generated from `seed`,
    /// or the sample city of `scale` × `scale` districts (`DistrictTile`), one district at a time so
    /// memory holds one district's features, never the city's.
    /// - Parameters:
    ///   - scale: districts per side: 1 (the sample district) … `DistrictTile.maximumCount`.
    ///   - replace: upsert instead of insert, so a rebuild over an existing district replaces
    ///     changed features instead of failing on their ids.
    ///   - dem: whether to import the elevation grid as managed raster `dem` (stores that keep rasters):
    ///     the districts' DEMs as one mosaic for a city.
    /// - Throws: `StoreError` from the store (naming layer and feature), `GeometryError` from the
    ///   generator, or `ImportError` when the district has a layer the catalogue does not define or
    ///   `scale` is out of range.
    @discardableResult
    public static func build(into store: any FeatureStore, layersDirectory: URL, seed: UInt64 = 2026, scale: Int = 1,
                             replace: Bool = false, dem: Bool = true,
                             progress: ((WorkProgress) -> Void)? = nil) async throws -> Summary {
        guard (1...DistrictTile.maximumCount).contains(scale) else {
            throw ImportError(.invalidValue, file: "district", field: "scale",
                              "must be 1 (the sample district) to \(DistrictTile.maximumCount) districts per side, got \(scale)")
        }
        let catalog = try LayerCatalog.load(directory: layersDirectory)
        for definition in catalog.definitions { try await store.createLayer(definition) }
        let tiles = DistrictTile.tiling(scale)
        var counts: [String: Int] = [:]
        var mosaic: Grid?
        for (t, tile) in tiles.enumerated() {
            let district = try SampleDistrict.generate(seed: seed, tile: tile)
            for id in district.layers.keys.sorted() where catalog[id] == nil {
                throw ImportError(.unsupported, file: layersDirectory.lastPathComponent, field: id,
                                  "the sample district has layer \(id), which \(layersDirectory.path) does not define")
            }
            for (i, definition) in catalog.definitions.enumerated() {
                var features = district[layer: definition.id]
                if !definition.hasZ {
                    // The generator gives some points heights (address entrances at floor level); a 2D
                    // layer stores their plan position, as an import does.
                    for i in features.indices where features[i].geometry?.hasZ == true {
                        features[i].geometry = features[i].geometry?.mapPositions { $0.xy }
                    }
                }
                if !features.isEmpty {
                    if replace {
                        try await store.upsert(layer: definition.id, features: features, by: .admin, at: nil)
                    } else if let bulk = store as? any BulkFeatureLoading {
                        // The bulk path (`citytwin import`'s): the same versions, audit entries and
                        // change events as one insert, with statements prepared once and the
                        // spatial index written set-wise.
                        _ = try await bulk.insert(layer: definition.id, features: features, chunkSize: bulkChunk, by: .admin, at: nil)
                    } else {
                        try await store.insert(layer: definition.id, features: features, by: .admin, at: nil)
                    }
                }
                counts[definition.id, default: 0] += features.count
                // Stage: the layer just written (and the district, for a city); counts: layers.
                let layers = catalog.definitions.count
                progress?(WorkProgress(stage: scale == 1 ? definition.id : "district \(t + 1)/\(tiles.count) \(definition.id)",
                                       completed: Double(t * layers + i + 1), total: Double(tiles.count * layers), unit: "layers"))
            }
            if dem { try place(district.elevation, of: tile, in: &mosaic) }
        }
        // The sample district lies in Gauss–Krüger zone 38 (CM 114°E): its metric CRS, EPSG:4547
        // (a city of 32 × 32 districts reaches 114.78 + 1.7°E, inside the zone's 112.5–115.5°E).
        let name = scale == 1 ? "邾城 (sample district)" : "邾城 (sample city of \(scale) × \(scale) districts)"
        try await CityRecord.recordIfAbsent(in: store, name: name, metricCRS: .districtMetric, by: .admin)
        var raster: ManagedRaster?
        if let mosaic, let rasters = store as? any ManagedRasters {
            let data = try mosaic.esriASCIIData(precision: 2)
            let grid = try Grid(esriASCIIData: data)
            let title = scale == 1 ? "邾城 DEM (10 m)" : "邾城 sample city DEM (10 m, \(scale) × \(scale) districts)"
            let described = try ManagedRaster.describe(grid, data: data, id: ManagedRaster.defaultDEM, title: title, kind: .dem,
                                                       crs: demCRS, by: .admin)
            try await rasters.putRaster(described, data: data, replace: true, by: .admin)
            raster = described
        }
        // The planner's statistics of what was just loaded (PostGIS: ANALYZE), before anyone queries it.
        try await store.refreshStatistics()
        return Summary(counts: counts, dem: raster)
    }

    /// Features a bulk insert's chunk holds.
    static let bulkChunk = 5_000

    /// Places one district's grid at its tile of the city's DEM (the district's own grid for the
    /// sample district); the districts' grids have the same cells, so placing is copying rows. The
    /// mosaic is written in place: a copy of the city's grid per district (100 MB at 100×) had made
    /// the build grow with the square of the districts.
    static func place(_ grid: Grid, of tile: DistrictTile, in mosaic: inout Grid?) throws {
        guard tile.count > 1 else { mosaic = grid; return }
        let n = tile.count, cell = grid.geoTransform.pixelWidth
        // The mosaic's north-west corner: this district's, moved west by the districts to its left
        // and north by those above it.
        var city = try mosaic.take() ?? Grid(width: grid.width * n, height: grid.height * n, geoTransform: .northUp(
            west: grid.geoTransform.originX - Double(tile.column * grid.width) * cell,
            north: grid.geoTransform.originY + Double((n - 1 - tile.row) * grid.height) * cell,
            cellWidth: cell, cellHeight: cell), repeating: 0)
        let top = (n - 1 - tile.row) * grid.height, left = tile.column * grid.width, width = city.width
        let source = grid.values
        city.withUnsafeMutableValues { values in
            for r in 0..<grid.height {
                for c in 0..<grid.width { values[(top + r) * width + left + c] = source[r * grid.width + c] }
            }
        }
        mosaic = city
    }
}
