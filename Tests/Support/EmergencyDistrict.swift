import CityModel
import Foundation
import GeoCore
import TwinStore

/// The sample district's emergency-relevant layers in a temporary SpatiaLite store, built once
/// per test process and shared (read-only) by the emergency, flood, parking, geocoding and
/// process-access suites (removed at its exit).
public enum EmergencyDistrict {
    public static let layerIDs = ["roads", "addresses", "buildings", "population_by_address", "admin_divisions",
                                  "shelters", "hospitals", "fire_stations", "warehouses", "rescue_teams"]

    public static let layersDirectory = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        .appendingPathComponent("../../Layers", isDirectory: true).standardizedFileURL

    private static let built = Task { () throws -> (SpatiaLiteStore, SampleDistrict) in
        let (store, _, district) = try await makeStore(layerIDs, in: .forProcess("emergency"))
        return (store, district)
    }

    /// A new SpatiaLite file in `directory` (`.forTestCase`, or `.forProcess` for a store the run
    /// shares) holding the sample district's `ids` layers as `Layers/` defines them: the store, its
    /// path (for the CLI) and the district.
    public static func makeStore(_ ids: [String], in directory: TemporaryDirectory) async throws -> (SpatiaLiteStore, String, SampleDistrict) {
        let path = directory.appending("city.sqlite").path
        let store = try directory.openStore("city.sqlite")
        let catalog = try LayerCatalog.load(directory: layersDirectory)
        let district = try SampleDistrict.generate()
        for id in ids {
            guard let definition = catalog[id] else { throw GeometryError(.invalidArgument, "no layer \(id) in Layers/") }
            try await store.createLayer(definition)
            var features = district[layer: id]
            if !definition.hasZ {
                for i in features.indices where features[i].geometry?.hasZ == true {
                    features[i].geometry = features[i].geometry?.mapPositions { $0.xy }
                }
            }
            try await store.insert(layer: id, features: features, by: .admin, at: nil)
        }
        return (store, path, district)
    }

    /// The store and the district it was built from.
    public static func store() async throws -> (SpatiaLiteStore, SampleDistrict) { try await built.value }

    /// 应急管理局, a department that reads shared layers but not the negative-listed population.
    public static let emergencyBureau = Caller.department(name: "应急管理局", role: .viewer)
}
