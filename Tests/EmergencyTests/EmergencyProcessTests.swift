import Foundation
import GeoCore
import ProcessRuntime
import TestSupport
import Testing
import TwinStore
@testable import Emergency
@testable import Flood
@testable import Scenarios

/// The emergency processes executed directly (without the HTTP server) over a small real SpatiaLite store: a 6 × 6 street grid at 0.002° spacing
/// (about 190 m × 220 m blocks) and shelters at some corners.
@Suite("Emergency processes: nearest resources, service areas, hazard overlay", .temporaryDirectories)
struct EmergencyProcessTests {
    static let x0 = 114.80, y0 = 30.84, step = 0.002

    static let roadsJSON = """
        {"id": "roads", "title": {"zh": "道路", "en": "Roads"}, "category": "时空基础", "owner": "交通运输局",
         "format": "vector", "updateFrequency": "quarterly", "sharing": {"type": "open", "method": "api", "requirements": "开放"},
         "geometryType": "LineString", "storageCRS": "EPSG:4490",
         "schema": {"type": "object", "properties": {"speed_kmh": {"type": "integer"}, "oneway": {"type": "boolean"}, "class": {"type": "string"}}}}
        """
    static let sheltersJSON = """
        {"id": "shelters", "title": {"zh": "避难场所", "en": "Shelters"}, "category": "公共专题", "owner": "应急管理局",
         "format": "vector", "updateFrequency": "monthly", "sharing": {"type": "open", "method": "api", "requirements": "开放"},
         "geometryType": "Point", "storageCRS": "EPSG:4490",
         "schema": {"type": "object", "properties": {"name": {"type": "string"}, "class": {"type": "string"}, "capacity": {"type": "integer"}}}}
        """

    static func makeStore() async throws -> SpatiaLiteStore {
        let store = try TemporaryDirectory.forTestCase("emergency-server").openStore()
        try await fill(store)
        return store
    }

    /// The street grid and the shelters written into `store`.
    static func fill(_ store: any FeatureStore) async throws {
        let decoder = JSONDecoder()
        try await store.createLayer(try decoder.decode(LayerDefinition.self, from: Data(roadsJSON.utf8)))
        try await store.createLayer(try decoder.decode(LayerDefinition.self, from: Data(sheltersJSON.utf8)))
        var roads: [Feature] = []
        for i in 0..<6 {
            for j in 0..<5 {
                let speed: JSONValue = i == 2 ? 50 : 30
                roads.append(Feature(id: .string("h\(i)-\(j)"), geometry: .lineString(LineString([
                    Position(x: x0 + Double(j) * step, y: y0 + Double(i) * step), Position(x: x0 + Double(j + 1) * step, y: y0 + Double(i) * step)])),
                    properties: ["speed_kmh": speed, "oneway": false]))
                roads.append(Feature(id: .string("v\(i)-\(j)"), geometry: .lineString(LineString([
                    Position(x: x0 + Double(i) * step, y: y0 + Double(j) * step), Position(x: x0 + Double(i) * step, y: y0 + Double(j + 1) * step)])),
                    properties: ["speed_kmh": 30, "oneway": false]))
            }
        }
        try await store.insert(layer: "roads", features: roads, by: .admin, at: nil)
        let corners: [(Int, Int, Int, String)] = [(0, 0, 500, "紧急"), (5, 5, 2000, "固定短期"), (1, 4, 900, "固定短期"), (4, 1, 300, "紧急"), (3, 3, 1200, "中心")]
        try await store.insert(layer: "shelters", features: corners.enumerated().map { k, c in
            Feature(id: .string("SH-\(k + 1)"), geometry: .point(x: x0 + Double(c.0) * step + 0.0001, y: y0 + Double(c.1) * step + 0.0001),
                    properties: ["name": .string("避难场所\(k + 1)"), "class": .string(c.3), "capacity": .integer(Int64(c.2))])
        }, by: .admin, at: nil)
    }

    static let incident: JSONValue = ["type": "Point", "coordinates": [114.8031, 30.8429]]

    static func expectInvalid(_ input: String, sourceLocation: SourceLocation = #_sourceLocation,
                              _ body: () async throws -> Void) async {
        do {
            try await body()
            Issue.record("expected invalid input '\(input)'", sourceLocation: sourceLocation)
        } catch let e as ProcessInputError {
            #expect(e.input == input, "\(e)", sourceLocation: sourceLocation)
        } catch {
            Issue.record("unexpected \(error)", sourceLocation: sourceLocation)
        }
    }

    @Test("nearest-resources returns the shelters with ≥ 800 places, fastest first, with LineString routes")
    func nearest() async throws {
        let store = try await Self.makeStore()
        let p = NearestResourcesProcess()
        let inputs: [String: JSONValue] = ["incident": Self.incident, "layer": "shelters", "count": 5, "minimumCapacity": 800]
        try await p.validate(inputs, store: store, caller: .anonymous)
        let result = try await p.execute(inputs, store: store, caller: .anonymous, progress: .ignored)
        let features = try #require(result["resources"]?["features"]?.arrayValue)
        #expect(Set(features.compactMap { $0["properties"]?["resource_id"]?.stringValue }) == ["SH-2", "SH-3", "SH-5"])
        let seconds = features.compactMap { $0["properties"]?["seconds"]?.doubleValue }
        #expect(seconds == seconds.sorted() && seconds.count == 3)
        #expect(features.allSatisfy { $0["geometry"]?["type"] == "LineString" })
        #expect(features.map { $0["properties"]?["rank"] } == [1, 2, 3])
    }

    @Test("bad inputs are 400 invalid-input problems naming the input")
    func invalidInputs() async throws {
        let store = try await Self.makeStore()
        let p = NearestResourcesProcess()
        await Self.expectInvalid("incident") { try await p.validate(["layer": "shelters"], store: store, caller: .anonymous) }
        await Self.expectInvalid("incident") {
            try await p.validate(["incident": [530_000, 3_400_000], "layer": "shelters"], store: store, caller: .anonymous)
        }
        await Self.expectInvalid("layer") { try await p.validate(["incident": Self.incident, "layer": "nowhere"], store: store, caller: .anonymous) }
        await Self.expectInvalid("count") {
            try await p.validate(["incident": Self.incident, "layer": "shelters", "count": 0], store: store, caller: .anonymous)
        }
        await Self.expectInvalid("status") {
            try await p.validate(["incident": Self.incident, "layer": "shelters", "status": "open"], store: store, caller: .anonymous)
        }
        await Self.expectInvalid("minimumCapacity") {
            try await p.validate(["incident": Self.incident, "layer": "roads", "minimumCapacity": 10], store: store, caller: .anonymous)
        }
        await Self.expectInvalid("profile") {
            try await p.validate(["incident": Self.incident, "layer": "shelters", "profile": "flying"], store: store, caller: .anonymous)
        }
        await Self.expectInvalid("breaks") { try await ServiceAreaProcess().validate(["origin": Self.incident, "breaks": [5, -1]], store: store, caller: .anonymous) }
        let h = HazardOverlayProcess()
        // Without an area, a layer or a run, the current published flood run; with none published, a refusal naming 'run'.
        await Self.expectInvalid("run") { try await h.validate([:], store: store, caller: .anonymous) }
        await Self.expectInvalid("run") { try await h.validate(["run": "p50-waterlogging-9"], store: store, caller: .anonymous) }
        await Self.expectInvalid("run") { try await h.validate(["run": "p50-waterlogging-9", "hazardLayer": "roads"], store: store, caller: .anonymous) }
        await Self.expectInvalid("hazardLayer") { try await h.validate(["hazardLayer": "flood_x_depth"], store: store, caller: .anonymous) }
        // A polygon in Beijing: the city's data says nothing there, so no answer of zeros (issue 77 §7).
        await Self.expectInvalid("area") {
            try await h.validate(["area": ["type": "Polygon", "coordinates": [[[116.30, 39.85], [116.45, 39.85], [116.45, 39.95], [116.30, 39.85]]]]],
                                 store: store, caller: .anonymous)
        }
        await Self.expectInvalid("fireMinutes") { try await CoverageProcess().validate(["fireMinutes": "five"], store: store, caller: .anonymous) }
    }

    @Test("service-area polygons are ordered by break, nested and hold the origin")
    func serviceArea() async throws {
        let store = try await Self.makeStore()
        // The origin lies on the street y = 30.842 (a service area holds the roads, not off-road points).
        let result = try await ServiceAreaProcess().execute(["origin": [114.803, 30.842], "breaks": [2, 1]], store: store, caller: .anonymous,
                                                            progress: .ignored)
        let features = try #require(result["areas"]?["features"]?.arrayValue)
        #expect(features.map { $0["properties"]?["minutes"]?.doubleValue } == [1, 2])
        let areas = try features.map { f -> Geometry in
            guard case .geometry(let g) = try GeoJSON.decode(JSONEncoder().encode(try #require(f["geometry"]))) else { throw GeometryError(.invalidGeometry, "area") }
            return g
        }
        #expect(try areas[0].intersects(.point(x: 114.803, y: 30.842)))
        #expect(try areas[1].contains(areas[0].buffer(distance: -1e-6)))
    }

    @Test("hazard-overlay lists the shelters inside a polygon, closes its roads and reports the cut-off shelter")
    func hazard() async throws {
        let store = try await Self.makeStore()
        // A box around the centre crossing (3, 3) where SH-5 stands.
        let c = (x: Self.x0 + 3 * Self.step, y: Self.y0 + 3 * Self.step), r = 0.0005
        let area: JSONValue = ["type": "Polygon", "coordinates": [[[.number(c.x - r), .number(c.y - r)], [.number(c.x + r), .number(c.y - r)],
                                                                    [.number(c.x + r), .number(c.y + r)], [.number(c.x - r), .number(c.y + r)],
                                                                    [.number(c.x - r), .number(c.y - r)]]]]
        let inputs: [String: JSONValue] = ["area": area, "origin": [114.8001, 30.8401],
                                           "route": ["from": [114.8041, 30.8461], "to": [114.8081, 30.8461]]]
        let p = HazardOverlayProcess()
        try await p.validate(inputs, store: store, caller: .anonymous)
        let result = try await p.execute(inputs, store: store, caller: .anonymous, progress: .ignored)
        #expect(result["inside"]?["shelters"]?["ids"] == ["SH-5"])
        #expect(result["inside"]?["roads"]?["count"] == 4)
        #expect(result["closures"]?["pieces"] == 4)
        #expect(result["reach"]?["cut_off"]?.arrayValue?.compactMap { $0["id"]?.stringValue } == ["SH-5"])
        let before = try #require(result["route"]?["before"]?["seconds"]?.doubleValue)
        let after = try #require(result["route"]?["after"]?["seconds"]?.doubleValue)
        #expect(after >= before)
        // SH-5's own roads are all inside: cut off at its door, whatever the origin; the route has no reason to be missing.
        #expect(result["access_closed"]?.arrayValue?.compactMap { $0["id"]?.stringValue } == ["SH-5"])
        #expect(result["route"]?["unavailable"] == .null)
        // A route starting inside the closed box says why it cannot go around.
        let trapped = inputs.merging(["route": ["from": [.number(c.x), .number(c.y)], "to": [114.8081, 30.8461]]]) { $1 }
        let stuck = try await p.execute(trapped, store: store, caller: .anonymous, progress: .ignored)
        #expect(stuck["route"]?["after"] == .null)
        #expect(stuck["route"]?["unavailable"]?.stringValue?.contains("'from'") == true, "\(stuck["route"] ?? .null)")
    }
}
