import CityModel
import Foundation
import GeoCore
import NetworkAnalysis
import TestSupport
import Testing
import TwinStore
@testable import Emergency
@testable import Scenarios

/// A SpatiaLite store holding the sample district's roads layer, removed when the test case ends.
private func roadStore() async throws -> (SpatiaLiteStore, [Feature]) {
    let layers = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        .appendingPathComponent("../../Layers", isDirectory: true).standardizedFileURL
    let store = try TemporaryDirectory.forTestCase("roads").openStore()
    let definition = try #require(try LayerCatalog.load(directory: layers)["roads"])
    try await store.createLayer(definition)
    let roads = try SampleDistrict.generate()[layer: "roads"]
    try await store.insert(layer: "roads", features: roads, by: .admin, at: nil)
    return (store, roads)
}

@Suite("The road graph of a store's roads layer", .temporaryDirectories)
struct RoadGraphStoreTests {
    @Test("an empty roads layer gives an empty graph")
    func emptyLayer() async throws {
        let layers = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
            .appendingPathComponent("../../Layers", isDirectory: true).standardizedFileURL
        let store = try TemporaryDirectory.forTestCase("roads").openStore()
        try await store.createLayer(try #require(try LayerCatalog.load(directory: layers)["roads"]))
        let roads = try await StoreRoadGraph.load(from: store, profile: .driving)
        #expect(roads.graph.network.pieces.isEmpty)
    }

    @Test("the sample district's roads become a graph whose nodes are its intersections, in EPSG:4547 metres")
    func districtGraph() async throws {
        let (store, features) = try await roadStore()
        let roads = try await StoreRoadGraph.load(from: store, profile: .driving)
        #expect(roads.metricCRS == CoordinateReferenceSystem(epsg: 4547))
        #expect(roads.graph.network.lines.count == features.count)
        var intersections = Set<String>()
        for f in features {
            if case .string(let a)? = f.properties["from_intersection"] { intersections.insert(a) }
            if case .string(let b)? = f.properties["to_intersection"] { intersections.insert(b) }
        }
        #expect(roads.graph.network.nodes.count == intersections.count)
        // Lengths in metres: the projected lengths agree with geodesic lengths within 0.1 %.
        let first = try #require(features.first?.geometry)
        let line = roads.graph.network.lines[0]
        var planar = 0.0
        for i in 1..<line.coordinates.count {
            planar += hypot(line.coordinates[i].x - line.coordinates[i - 1].x, line.coordinates[i].y - line.coordinates[i - 1].y)
        }
        let geodesic = try first.geodesicLength()
        #expect(abs(planar - geodesic) / geodesic < 1e-3)
    }

    @Test("routes on the store's graph equal routes on a graph built feature by feature")
    func routesAgree() async throws {
        let (store, features) = try await roadStore()
        let roads = try await StoreRoadGraph.load(from: store, profile: .driving)
        let toGK = try CoordinateTransformer.shared(from: .cgcs2000, to: CoordinateReferenceSystem(epsg: 4547))
        let lines = try features.map { f -> RoadLine in
            guard case .lineString(let l)? = f.geometry, case .integer(let speed)? = f.properties["speed_kmh"],
                  case .bool(let oneway)? = f.properties["oneway"] else { throw GeometryError(.invalidGeometry, "road") }
            return RoadLine(coordinates: try l.positions.map { try toGK.transform($0) }, speedKmh: Double(speed), oneway: oneway)
        }
        let reference = try RoadGraph(lines: lines, profile: .driving)
        let e = try #require(Envelope(of: roads.graph.network.nodes))
        var rng = SystemRandomNumberGenerator()
        for _ in 0..<20 {
            let a = Position(x: .random(in: e.minX...e.maxX, using: &rng), y: .random(in: e.minY...e.maxY, using: &rng))
            let b = Position(x: .random(in: e.minX...e.maxX, using: &rng), y: .random(in: e.minY...e.maxY, using: &rng))
            let r1 = try roads.graph.route(from: a, to: b), r2 = try reference.route(from: a, to: b)
            #expect(r1 != nil)
            if let r1, let r2 { #expect(abs(r1.seconds - r2.seconds) <= 1e-6 * r2.seconds) }
        }
    }

    @Test("the graph is rebuilt when the change feed shows the roads changed, and kept otherwise")
    func rebuildOnChange() async throws {
        let (store, features) = try await roadStore()
        let roads = try await StoreRoadGraph.load(from: store, profile: .walking)
        let same = try await roads.refreshed(from: store)
        #expect(same.sequence == roads.sequence)
        #expect(same.graph.network.lines.count == features.count)
        let gone = try #require(features.first?.id)
        try await store.delete(layer: "roads", ids: ["\(gone)"], by: .admin, at: nil)
        let rebuilt = try await roads.refreshed(from: store)
        #expect(rebuilt.sequence > roads.sequence)
        #expect(rebuilt.graph.network.lines.count == features.count - 1)
        #expect(rebuilt.graph.profile == .walking)
    }
}
