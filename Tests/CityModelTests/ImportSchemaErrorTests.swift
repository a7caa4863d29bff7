import Foundation
import GeoCore
import TestSupport
import Testing
import TwinStore
@testable import CityModel

/// A chunked import leaves the layer-schema check to the store (once per feature); its error
/// must still name the file, the feature and the field, and be the first bad feature's.
@Suite("Import: layer-schema errors of a chunked import name the file, the feature and the field", .temporaryDirectories)
struct ImportSchemaErrorTests {
    /// A hydrant feature (GeoJSON text) of `kind`, with a point or no geometry.
    static func hydrant(_ kind: String, geometry: Bool = true) -> String {
        let g = geometry ? #"{"type":"Point","coordinates":[114.8,30.8]}"# : "null"
        return #"{"type":"Feature","properties":{"main":"a","kind":"\#(kind)","outlet_mm":100,"status":"完好","road":"x"},"geometry":\#(g)}"#
    }

    /// `features` written as a FeatureCollection to a new temporary file.
    static func file(_ features: [String]) throws -> URL {
        let file = try TemporaryDirectory.forTestCase("schema").appending("schema.geojson")
        try Data((#"{"type":"FeatureCollection","features":["# + features.joined(separator: ",\n") + "]}").utf8).write(to: file)
        return file
    }

    /// Imports `features` into a new SpatiaLite store; the error, which must be an `ImportError`, and the layer's count.
    static func failedImport(_ features: [String]) async throws -> (ImportError?, Int) {
        let file = try file(features)
        let store = try await ImportFixtures.store(["hydrants"])
        var source = try GeoJSONSource(file: file)
        let error = await #expect(throws: ImportError.self) {
            try await LayerImport.run(&source, into: try ImportFixtures.layer("hydrants"), store: store)
        }
        #expect(error?.file == file.lastPathComponent)
        return (error, try await store.count(layer: "hydrants", FeatureQuery(), by: .admin))
    }

    @Test("a value outside the schema's enumeration names its feature and field, and nothing is written")
    func enumeratedValue() async throws {
        let (error, count) = try await Self.failedImport([Self.hydrant("地上式"), Self.hydrant("地下式"), Self.hydrant("空中式")])
        #expect(error?.code == .invalidValue)
        #expect(error?.location == "feature 3")
        #expect(error?.field == "kind")
        #expect(error?.reason.contains("enumerated") == true)
        #expect(count == 0)
    }

    @Test("a schema error comes before a later feature's geometry error")
    func schemaBeforeLaterGeometry() async throws {
        let (error, _) = try await Self.failedImport([Self.hydrant("地上式"), Self.hydrant("空中式"), Self.hydrant("地上式", geometry: false)])
        #expect(error?.location == "feature 2")
        #expect(error?.field == "kind")
    }

    @Test("a feature with a schema error and no geometry reports the schema error")
    func schemaBeforeOwnGeometry() async throws {
        let (error, _) = try await Self.failedImport([Self.hydrant("地上式"), Self.hydrant("空中式", geometry: false)])
        #expect(error?.location == "feature 2")
        #expect(error?.field == "kind")
    }

    @Test("a bad feature in the second chunk is named by its place in the file")
    func secondChunk() async throws {
        var features = Array(repeating: Self.hydrant("地上式"), count: LayerImport.chunkSize + 10)
        features[LayerImport.chunkSize + 4] = Self.hydrant("空中式")
        let (error, count) = try await Self.failedImport(features)
        #expect(error?.location == "feature \(LayerImport.chunkSize + 5)")
        #expect(error?.field == "kind")
        #expect(count == 0)
    }
}
