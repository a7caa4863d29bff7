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

    /// Creates every layer defined in `layersDirectory` and loads the district generated from `seed`.
    /// - Parameters:
    ///   - replace: upsert instead of insert, so a rebuild over an existing district replaces
    ///     changed features instead of failing on their ids.
    ///   - dem: whether to import the elevation grid as managed raster `dem` (stores that keep rasters).
    /// - Throws: `StoreError` from the store (naming layer and feature), `GeometryError` from the
    ///   generator, or `ImportError` when the district has a layer the catalogue does not define.
    @discardableResult
    public static func build(into store: any FeatureStore, layersDirectory: URL, seed: UInt64 = 2026,
                             replace: Bool = false, dem: Bool = true,
                             progress: ((WorkProgress) -> Void)? = nil) async throws -> Summary {
        let catalog = try LayerCatalog.load(directory: layersDirectory)
        let district = try SampleDistrict.generate(seed: seed)
        for id in district.layers.keys.sorted() where catalog[id] == nil {
            throw ImportError(.unsupported, file: layersDirectory.lastPathComponent, field: id,
                              "the sample district has layer \(id), which \(layersDirectory.path) does not define")
        }
        for definition in catalog.definitions { try await store.createLayer(definition) }
        var counts: [String: Int] = [:]
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
                } else {
                    try await store.insert(layer: definition.id, features: features, by: .admin, at: nil)
                }
            }
            counts[definition.id] = features.count
            // Stage: the layer just written; counts: layers.
            progress?(WorkProgress(stage: definition.id, completed: Double(i + 1), total: Double(catalog.definitions.count), unit: "layers"))
        }
        // The sample district lies in Gauss–Krüger zone 38 (CM 114°E): its metric CRS, EPSG:4547.
        try await CityRecord.recordIfAbsent(in: store, name: "邾城 (sample district)", metricCRS: .districtMetric, by: .admin)
        var raster: ManagedRaster?
        if dem, let rasters = store as? any ManagedRasters {
            let data = try district.elevation.esriASCIIData(precision: 2)
            let grid = try Grid(esriASCIIData: data)
            let described = try ManagedRaster.describe(grid, data: data, id: ManagedRaster.defaultDEM, title: "邾城 DEM (10 m)", kind: .dem,
                                                       crs: demCRS, by: .admin)
            try await rasters.putRaster(described, data: data, replace: true, by: .admin)
            raster = described
        }
        return Summary(counts: counts, dem: raster)
    }
}
