import CityModel
import FloodSim
import Foundation
import GeoCore
import ProcessRuntime
import TestSupport
import Testing
import TwinStore
@testable import Flood

/// A city without a drainage model floods on its surface alone (issue 52 §8), in its own metric CRS:
/// a street bowl in Helsinki (UTM zone 35N, EPSG:32635), its DEM a managed raster in that zone, no
/// drainage layer at all. The run takes the whole storm on the grid, writes its depth layers, and
/// is marked `surface only`; a DEM in another CRS is refused naming the city's.
@Suite("Flood on a city's surface alone", .temporaryDirectories)
struct FloodSurfaceOnlyCityTests {
    static let zone = CoordinateReferenceSystem(epsg: 32635)
    /// 40 × 40 cells of 5 m, south-west corner at E 385,000 N 6,671,000: a bowl 1.5 m deep at the centre.
    static func dem() throws -> Grid {
        try Grid(width: 40, height: 40, geoTransform: .northUp(west: 385_000, north: 6_671_200, cellWidth: 5, cellHeight: 5)) { c, r in
            let dx = Double(c) - 19.5, dy = Double(r) - 19.5
            return Float(12 + 1.5 * min(1, (dx * dx + dy * dy) / 400))
        }
    }

    static func store(in directory: TemporaryDirectory, demCRS: Int) async throws -> SpatiaLiteStore {
        let store = try directory.openStore()
        let repository = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("../..").standardizedFileURL
        let catalog = try LayerCatalog.load(directory: repository.appendingPathComponent("Layers"))
        let toStorage = try CoordinateTransformer.shared(from: zone, to: .cgcs2000)
        func lonLat(_ x: Double, _ y: Double) throws -> Position { try toStorage.transform(Position(x: x, y: y)) }
        try await store.createLayer(try #require(catalog["roads"]).requiring(only: []))
        try await store.insert(layer: "roads", features: [
            Feature(id: .string("R1"), geometry: .lineString(LineString([try lonLat(385_010, 6_671_100), try lonLat(385_190, 6_671_100)])),
                    properties: ["name": "Bowl street", "speed_kmh": 30]),
        ], by: .admin, at: nil)
        try await store.recordCity(CityRecord(name: "Helsinki", metricCRS: zone, by: .admin), by: .admin)
        let data = try dem().esriASCIIData(precision: 3)
        try await store.putRaster(try ManagedRaster.describe(try Grid(esriASCIIData: data), data: data, id: "dem", title: nil, kind: .dem,
                                                             crs: demCRS, by: .admin), data: data, replace: true, by: .admin)
        return store
    }

    static var stormCatalog: URL {
        URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("../../Models/storm-intensity.json").standardizedFileURL
    }

    @Test("a 50-year storm on a bowl with no drainage layer: the surface takes all the rain, depth layers are written, the run says surface only")
    func surfaceOnly() async throws {
        let directory = try TemporaryDirectory.forTestCase("flood-surface-only")
        let store = try await Self.store(in: directory, demCRS: 32635)
        let scenario = try FloodScenario(id: "bowl", title: "bowl", returnPeriod: 50, duration: 60)
        var options = FloodScenarioRun.Options(stormCatalog: Self.stormCatalog, rasters: ResultRasters(directory: directory.appending("rasters")),
                                               resultLayers: URL(fileURLWithPath: #filePath).deletingLastPathComponent()
                                                   .appendingPathComponent("../../Layers/results").standardizedFileURL)
        options.threads = 1
        let summary = try await FloodScenarioRun.run(scenario, store: store, caller: .admin, options: options)
        #expect(summary.drainage == "surface only")
        #expect(summary.nodes == 0 && summary.subcatchments == 0 && summary.linkedManholes == 0)
        #expect(summary.floodedAreaSquareMetres > 0, "the bowl's centre should hold more than 0.15 m")
        #expect(abs(summary.massBalanceErrorPercent) < 1, "\(summary.balance)")
        #expect(summary.layers.contains { $0.hasSuffix("_depth") }, "\(summary.layers)")
        let depth = try #require(summary.layers.first { $0.hasSuffix("_depth") })
        #expect(try await store.count(layer: depth, FeatureQuery(), by: .admin) > 0)
        // The depth polygons lie in Helsinki, where the DEM is.
        let extent = try #require(try await store.layers(for: .admin).first { $0.definition.id == depth }?.extent)
        #expect(extent.minX > 24.9 && extent.maxX < 25.0 && extent.minY > 60.1 && extent.maxY < 60.2, "\(extent)")
    }

    @Test("a DEM stored in another CRS than the city's is refused naming the city's metric CRS and how to re-import it")
    func wrongCRS() async throws {
        let directory = try TemporaryDirectory.forTestCase("flood-surface-wrong-crs")
        let store = try await Self.store(in: directory, demCRS: 4547)
        let error = await #expect(throws: ScenarioError.self) { _ = try await ManagedDEM.read("dem", from: store) }
        #expect(error?.field == "dem" && error?.message.contains("EPSG:32635") == true && error?.message.contains("--replace") == true,
                "\(error?.message ?? "")")
    }
}
