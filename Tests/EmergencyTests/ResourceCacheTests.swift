import Foundation
import GeoCore
import ProcessRuntime
import TestSupport
import Testing
import TwinStore
@testable import Emergency

/// Issue 57 §3: nearest-resources answers from a resource layer read and snapped once per store,
/// profile and caller; a write to the layer is seen by the next request. On SpatiaLite, and on
/// PostGIS where the tests have it (CITYTWIN_TEST_POSTGRES_URL).
@Suite("Cached resource layers: nearest after an insert, a patch and a delete", .temporaryDirectories, .serialized)
struct ResourceCacheTests {
    static let postgresURL = ProcessInfo.processInfo.environment["CITYTWIN_TEST_POSTGRES_URL"].flatMap { $0.isEmpty ? nil : $0 }
    static let backends = postgresURL != nil ? ["spatiaLite", "postGIS"] : ["spatiaLite"]
    static let layers = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("Layers")

    static func hydrant(_ id: String, x: Double, y: Double, status: String = "完好") -> Feature {
        Feature(id: .string(id), geometry: .point(x: x, y: y), properties: [
            "main": "WM-1", "kind": "地上式", "outlet_mm": 100, "status": .string(status), "road": "横街", "pressure_class": "低压"])
    }

    /// The ids nearest-resources ranks for hydrants around the grid's incident.
    static func nearest(_ store: any FeatureStore, status: String? = nil) async throws -> [String] {
        var inputs: [String: JSONValue] = ["incident": EmergencyProcessTests.incident, "layer": "hydrants", "count": 5]
        if let status { inputs["status"] = .string(status) }
        let result = try await NearestResourcesProcess().execute(inputs, store: store, caller: .admin, progress: .ignored)
        return try #require(result["resources"]?["features"]?.arrayValue).compactMap { $0["properties"]?["resource_id"]?.stringValue }
    }

    @Test("a hydrant inserted, put out of service and deleted is seen by the next nearest-resources call", arguments: backends)
    func writesSeen(backend: String) async throws {
        let store: any FeatureStore
        if backend == "postGIS", let url = Self.postgresURL {
            let schema = "rcache_" + UUID().uuidString.lowercased().replacingOccurrences(of: "-", with: "").prefix(16)
            store = try await PostGISStore.connect(url: url, schema: String(schema), maximumConnections: 4, connectionWait: .seconds(60))
        } else {
            store = try TemporaryDirectory.forTestCase("resource-cache").openStore()
        }
        try await EmergencyProcessTests.fill(store)
        try await store.createLayer(try JSONDecoder().decode(LayerDefinition.self, from: Data(contentsOf: Self.layers.appendingPathComponent("hydrants.json"))))
        let (x0, y0, step) = (EmergencyProcessTests.x0, EmergencyProcessTests.y0, EmergencyProcessTests.step)
        try await store.insert(layer: "hydrants", features: [Self.hydrant("XH-FAR", x: x0 + 5 * step + 0.0001, y: y0 + 5 * step + 0.0001)],
                               by: .admin, at: nil)
        #expect(try await Self.nearest(store) == ["XH-FAR"])
        #expect(try await Self.nearest(store) == ["XH-FAR"])   // answered from the cache
        // The incident is at (114.8031, 30.8429): a hydrant at the corner next to it is nearer.
        try await store.insert(layer: "hydrants", features: [Self.hydrant("XH-NEAR", x: x0 + step + 0.0001, y: y0 + step + 0.0001)],
                               by: .admin, at: nil)
        #expect(try await Self.nearest(store) == ["XH-NEAR", "XH-FAR"])
        try await store.upsert(layer: "hydrants", features: [Self.hydrant("XH-NEAR", x: x0 + step + 0.0001, y: y0 + step + 0.0001, status: "待维修")],
                               by: .admin, at: nil)
        #expect(try await Self.nearest(store, status: "完好") == ["XH-FAR"])
        #expect(try await Self.nearest(store, status: "待维修") == ["XH-NEAR"])
        try await store.delete(layer: "hydrants", ids: ["XH-NEAR"], by: .admin, at: nil)
        #expect(try await Self.nearest(store) == ["XH-FAR"])
    }

    @Test("the cache keeps at most the configured number of layers")
    func bounded() async throws {
        let cache = EmergencyRoadGraphs()
        await cache.setMaximumResourceLayers(1)
        let store = try TemporaryDirectory.forTestCase("resource-cache-cap").openStore()
        try await EmergencyProcessTests.fill(store)
        let roads = try await cache.graph(for: store, profile: .driving, by: .admin)
        let attributes = try await EmergencyResource.attributes(of: "shelters", in: store, by: .admin)
        let first = try await cache.resources(of: "shelters", attributes: attributes, in: store, roads: roads, profile: .driving, by: .admin)
        let walking = try await cache.graph(for: store, profile: .walking, by: .admin)
        _ = try await cache.resources(of: "shelters", attributes: attributes, in: store, roads: walking, profile: .walking, by: .admin)
        #expect(await cache.cachedResourceLayers == 1)
        #expect(first.resources.map(\.id) == ["SH-1", "SH-2", "SH-3", "SH-4", "SH-5"])
        #expect(first.accesses.allSatisfy { $0 != nil })
    }
}
