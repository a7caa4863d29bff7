import GeoCore
import Testing
import TestSupport
import TwinStore
@testable import CityModel

/// The layer files are read by the store: check them with the store's own catalogue loader and
/// schema validator, not only with this suite's small checker.
@Suite("Layer files in the store's catalogue")
struct LayerCatalogCompatibilityTests {
    @Test("the store loads every layer file and accepts every generated feature")
    func storeAcceptsTheSampleDistrict() throws {
        let catalog = try LayerCatalog.load(directory: LayerDefinitionFile.directory)
        #expect(catalog.definitions.count == (try LayerDefinitionFile.all()).count)
        let district = try generatedDistrict()
        for (layer, features) in district.layers {
            let definition = try #require(catalog[layer], "no definition for \(layer)")
            for f in features {
                try definition.schema.validate(f.properties, layer: layer, feature: f.id?.description ?? "?")
            }
        }
        #expect(catalog["population_by_address"]?.negativeList == true)
    }
}
