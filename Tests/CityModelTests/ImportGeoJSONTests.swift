import Foundation
import GeoCore
import TestSupport
import Testing
import TwinStore
@testable import CityModel

@Suite("Import: GeoJSON and GeoJSON sequences", .temporaryDirectories)
struct ImportGeoJSONTests {
    @Test("an empty FeatureCollection imports nothing and writes an empty layer")
    func emptyCollection() async throws {
        let file = try TemporaryDirectory.forTestCase("empty").appending("empty.geojson")
        try Data(#"{"type":"FeatureCollection","features":[]}"#.utf8).write(to: file)
        let store = try await ImportFixtures.store(["hydrants"])
        var source = try GeoJSONSource(file: file)
        let summary = try await LayerImport.run(&source, into: try ImportFixtures.layer("hydrants"), store: store)
        #expect(summary.count == 0)
        #expect(summary.extent == nil)
        #expect(try await store.count(layer: "hydrants", FeatureQuery(), by: .admin) == 0)
    }

    @Test("a FeatureCollection lands whole with its Chinese attributes and exact positions")
    func featureCollection() async throws {
        let store = try await ImportFixtures.store(["hydrants"])
        var source = try GeoJSONSource(file: ImportFixtures.url("hydrants.geojson"))
        #expect(source.crs == .crs84)
        let summary = try await LayerImport.run(&source, into: try ImportFixtures.layer("hydrants"), store: store)
        #expect(summary.count == 10)
        #expect(try await store.count(layer: "hydrants", FeatureQuery(), by: .admin) == 10)
        let page = try await store.query(layer: "hydrants", FeatureQuery(limit: 100), by: .admin)
        let original = try ImportFixtures.original("hydrants.geojson")
        for f in original {
            let main = f.properties["main"]
            let stored = try #require(page.features.first { $0.properties["main"] == main })
            #expect(stored.properties["road"] == f.properties["road"])
            #expect(stored.properties["outlet_mm"] == f.properties["outlet_mm"])
            expectSameGeometry(stored.geometry, f.geometry)
        }
    }

    @Test("a newline-delimited GeoJSON sequence from ogr2ogr reads the same features")
    func sequence() throws {
        var source = try GeoJSONSource(file: ImportFixtures.url("hydrants.geojsonl"))
        let (features, _) = try LayerImport.read(&source, for: try ImportFixtures.layer("hydrants"))
        let original = try ImportFixtures.original("hydrants.geojson")
        #expect(features.count == original.count)
        for (a, b) in zip(features, original) {
            #expect(a.properties == b.properties)
            expectSameGeometry(a.geometry, b.geometry)
        }
    }

    static let hydrant = #"{"type":"Feature","properties":{"main":"a","kind":"地上式","outlet_mm":100,"status":"完好","road":"x"},"geometry":{"type":"Point","coordinates":[114.8,30.8]}}"#

    static func write(_ text: String) throws -> URL {
        let file = try TemporaryDirectory.forTestCase("fc").appending("fc.geojson")
        try Data(text.utf8).write(to: file)
        return file
    }

    /// A collection is read while another thread checks the file's structure: what that check
    /// finds after the last feature still fails the import, and nothing is written.
    @Test("text after a FeatureCollection fails the import at the end and writes nothing")
    func somethingAfterTheCollection() async throws {
        let file = try Self.write(#"{"type":"FeatureCollection","features":["# + Self.hydrant + "," + Self.hydrant + "]} x")
        let store = try await ImportFixtures.store(["hydrants"])
        var source = try GeoJSONSource(file: file)
        let error = await #expect(throws: ImportError.self) {
            _ = try await LayerImport.run(&source, into: try ImportFixtures.layer("hydrants"), store: store)
        }
        #expect(error?.code == .malformed)
        #expect(error?.file == file.lastPathComponent)
        #expect(try await store.count(layer: "hydrants", FeatureQuery(), by: .admin) == 0)
    }

    @Test("a FeatureCollection cut off inside a feature names the feature")
    func truncatedCollection() throws {
        let text = #"{"type":"FeatureCollection","features":["# + Self.hydrant + "," + Self.hydrant.prefix(60)
        var source = try GeoJSONSource(file: try Self.write(text))
        let error = try #require(throws: ImportError.self) { try LayerImport.read(&source, for: try ImportFixtures.layer("hydrants")) }
        #expect(error.code == .malformed)
        #expect(error.location?.hasPrefix("$.features[1]") == true)
    }

    @Test("a FeatureCollection naming its type after its features reads the same, and counts them")
    func typeAfterFeatures() throws {
        for text in [#"{"type":"FeatureCollection","features":["# + Self.hydrant + "," + Self.hydrant + "]}",
                     #"{"features":["# + Self.hydrant + "," + Self.hydrant + #"],"type":"FeatureCollection"}"#] {
            var source = try GeoJSONSource(file: try Self.write(text))
            let (features, _) = try LayerImport.read(&source, for: try ImportFixtures.layer("hydrants"))
            #expect(features.count == 2)
            #expect(source.expectedCount == 2)
        }
    }

    @Test("a feature breaking the layer schema names the file, the feature and the field")
    func schemaError() throws {
        let file = try TemporaryDirectory.forTestCase("bad").appending("bad.geojson")
        let text = #"""
        {"type":"FeatureCollection","features":[
         {"type":"Feature","properties":{"main":"a","kind":"地上式","outlet_mm":100,"status":"完好","road":"x"},"geometry":{"type":"Point","coordinates":[114.8,30.8]}},
         {"type":"Feature","properties":{"main":"b","kind":"空中式","outlet_mm":100,"status":"完好","road":"x"},"geometry":{"type":"Point","coordinates":[114.8,30.8]}}]}
        """#
        try Data(text.utf8).write(to: file)
        var source = try GeoJSONSource(file: file)
        let error = try #require(throws: ImportError.self) { try LayerImport.read(&source, for: try ImportFixtures.layer("hydrants")) }
        #expect(error.file == file.lastPathComponent)
        #expect(error.location == "feature 2")
        #expect(error.field == "kind")
    }
}
