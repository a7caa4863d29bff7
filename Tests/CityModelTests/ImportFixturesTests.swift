import Foundation
import GeoCore
import TestSupport
import Testing
import TwinStore
@testable import CityModel

/// Shared by the importer suites: fixture files (made by Scripts/fixtures/make_import_fixtures.sh
/// with GDAL's ogr2ogr), the CIM layer catalogue and fresh SpatiaLite stores.
enum ImportFixtures {
    static let directory = Bundle.module.resourceURL!.appendingPathComponent("Fixtures/import", isDirectory: true)
    /// The repository's layer definitions (outside the test target, so found from this file).
    static let layersDirectory = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        .appendingPathComponent("../../Layers", isDirectory: true).standardizedFileURL

    static func url(_ name: String) -> URL { directory.appendingPathComponent(name) }

    static let catalog: Result<LayerCatalog, any Error> = Result { try LayerCatalog.load(directory: layersDirectory) }

    static func layer(_ id: String) throws -> LayerDefinition {
        guard let d = try catalog.get()[id] else { throw ImportError(.unsupported, file: "Layers", field: id, "no layer") }
        return d
    }

    /// A new SpatiaLite store with `layers` created, removed when the test case ends (`.temporaryDirectories`).
    static func store(_ layers: [String]) async throws -> SpatiaLiteStore {
        let store = try TemporaryDirectory.forTestCase("import").openStore()
        for id in layers { try await store.createLayer(try layer(id)) }
        return store
    }

    /// The GeoJSON original of a fixture, decoded by the GeoCore codec.
    static func original(_ name: String) throws -> [Feature] {
        try GeoJSON.decode(Data(contentsOf: url(name))).features
    }

    /// Every position of a geometry, in storage order.
    static func positions(_ g: Geometry?) -> [Position] {
        var out: [Position] = []
        g?.forEachPosition { out.append($0) }
        return out
    }
}

/// Expects two geometries to have the same structure and positions within `tolerance`.
func expectSameGeometry(_ a: Geometry?, _ b: Geometry?, tolerance: Double = 1e-9,
                        sourceLocation: SourceLocation = #_sourceLocation) {
    #expect(a?.type == b?.type, sourceLocation: sourceLocation)
    let pa = ImportFixtures.positions(a), pb = ImportFixtures.positions(b)
    #expect(pa.count == pb.count, sourceLocation: sourceLocation)
    for (p, q) in zip(pa, pb) {
        #expect(abs(p.x - q.x) <= tolerance && abs(p.y - q.y) <= tolerance, "\(p) vs \(q)", sourceLocation: sourceLocation)
    }
}

@Suite("Import fixtures")
struct ImportFixturesTests {
    @Test("the GDAL-made fixtures and the layer catalogue are where the suites look")
    func fixturesExist() throws {
        for name in ["hydrants.geojson", "hydrants_gbk.shp", "city.gpkg", "hydrants.csv", "survey_points.csv"] {
            #expect(FileManager.default.fileExists(atPath: ImportFixtures.url(name).path), "\(name)")
        }
        #expect(try ImportFixtures.catalog.get().definitions.count >= 31)
    }
}
