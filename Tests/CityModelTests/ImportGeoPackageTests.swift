import Foundation
import GeoCore
import Testing
import TwinStore
@testable import CityModel

@Suite("Import: GeoPackage (through GDAL)", .temporaryDirectories)
struct ImportGeoPackageTests {
    @Test("a GeoPackage with two tables needs the table named")
    func severalTables() throws {
        let error = try #require(throws: ImportError.self) { try GDALSource(file: ImportFixtures.url("city.gpkg")) }
        #expect(error.reason.contains("hydrants") && error.reason.contains("land_use"))
    }

    @Test("the hydrants table of an ogr2ogr GeoPackage imports whole")
    func points() async throws {
        let store = try await ImportFixtures.store(["hydrants"])
        var source = try GDALSource(file: ImportFixtures.url("city.gpkg"), layer: "hydrants")
        #expect(source.crs == CoordinateReferenceSystem(epsg: 4326))
        #expect(source.expectedCount == 10)
        let summary = try await LayerImport.run(&source, into: try ImportFixtures.layer("hydrants"), store: store)
        #expect(summary.count == 10)
        #expect(try await store.count(layer: "hydrants", FeatureQuery(), by: .admin) == 10)
    }

    @Test("polygons with holes come through the GeoPackage binary header and WKB unchanged")
    func polygons() throws {
        var source = try GDALSource(file: ImportFixtures.url("city.gpkg"), layer: "land_use")
        let (features, _) = try LayerImport.read(&source, for: try ImportFixtures.layer("land_use"))
        let original = try ImportFixtures.original("land_use.geojson")
        #expect(features.count == 2)
        for (a, b) in zip(features, original) {
            #expect(numbersAsDoubles(a.properties) == numbersAsDoubles(b.properties))   // SQLite REAL for a JSON 10
            expectSameGeometry(a.geometry, b.geometry)
        }
    }

    @Test("a blob without the GP magic is refused with a reason")
    func badBlob() {
        #expect(throws: GeoPackageGeometry.Failure.self) { try GeoPackageGeometry.decode(Data([0x00, 0x01, 0x02])) }
        #expect(throws: GeoPackageGeometry.Failure.self) { try GeoPackageGeometry.decode(Data()) }
    }
}

/// Properties with every integer as a double: a GeoPackage REAL column holds JSON's `10` as `10.0`.
func numbersAsDoubles(_ p: [String: JSONValue]) -> [String: JSONValue] {
    p.mapValues { if case .integer(let i) = $0 { .number(Double(i)) } else { $0 } }
}
