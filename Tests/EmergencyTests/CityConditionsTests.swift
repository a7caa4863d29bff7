import Foundation
import GeoCore
import ProcessRuntime
import TestSupport
import Testing
import TwinStore
@testable import Emergency
@testable import Flood

/// Every analysis answers against the city's state (issue 77 §1): the published flood run's depth
/// per road closes a road deeper than the vehicle class's wading depth and slows a shallower one by
/// Pregnolato et al. 2017; a duty officer's closure in force closes its road; the answer names the
/// state it used; `none` is the dry city. On `EmergencyProcessTests`' 6 × 6 street grid.
@Suite("City conditions: the published flood and the closures in every analysis", .temporaryDirectories)
struct CityConditionsTests {
    typealias Grid = EmergencyProcessTests
    static let water = "水务和湖泊局"
    static let duty = Caller.department(name: "应急管理局", role: .editor, user: "值班员")
    /// A fire-rescue officer: the published run's layers are shared with every department.
    static let fire = Caller.department(name: "消防救援大队", role: .viewer)

    /// The grid, a published current flood run whose `_roads` layer gives `depths` (road id → m),
    /// and the `road_closures` layer.
    static func store(depths: [String: Double]) async throws -> SpatiaLiteStore {
        let store = try await Grid.makeStore()
        try await store.createLayer(FloodRunCatalog.definition)
        let run = FloodRun(id: "test-storm-1", scenario: "test-storm", title: "测试暴雨", stem: "flood_test_storm_1", state: .published,
                           current: true, status: .successful, inputs: [:], runBy: "测试员", department: water,
                           startedAt: "2026-07-01T08:00:00Z", finishedAt: "2026-07-01T08:05:00Z", layers: [], summary: nil, error: nil,
                           publishedBy: "测试员", publishedAt: "2026-07-01T08:10:00Z")
        try await store.insert(layer: FloodRunCatalog.layerID, features: [try run.feature], by: .admin, at: nil)
        let roads = try FloodResultLayers.definition(suffix: "roads", stem: run.stem, title: run.title, sharing: nil,
                                                     from: ProjectFiles.url("Layers/results"))
        try await store.createLayer(roads)
        var features: [Feature] = []
        for try await road in store.stream(layer: "roads", FeatureQuery(limit: 1000), by: .admin) {
                    let id = road.id.map { "\($0)" } ?? ""
                    let d = depths[id] ?? 0
                    features.append(Feature(id: .string(id), geometry: road.geometry, properties: [
                        "road_id": .string(id), "name": .string("路\(id)"), "class": "支路", "max_depth_m": .number(d),
                        "hours_above_15cm": 0, "flooded": .bool(d > 0.15),
                    ]))
        }
        try await store.insert(layer: roads.id, features: features, by: .admin, at: nil)
        let closures = try JSONDecoder().decode(LayerDefinition.self, from: Data(contentsOf: ProjectFiles.url("Layers/road_closures.json")))
        try await store.createLayer(closures)
        return store
    }

    static func nearest(_ store: any FeatureStore, _ extra: [String: JSONValue] = [:]) async throws -> JSONValue {
        let p = NearestResourcesProcess()
        let inputs = ["incident": Grid.incident, "layer": "shelters", "count": 5].merging(extra) { _, b in b }
        try await p.validate(inputs, store: store, caller: Self.fire)
        return try await p.execute(inputs, store: store, caller: Self.fire, progress: .ignored)
    }

    static func ranked(_ answer: JSONValue) -> [String] {
        answer["resources"]?["features"]?.arrayValue?.compactMap { $0["properties"]?["resource_id"]?.stringValue } ?? []
    }

    @Test("a shelter whose every road is deeper than a car's 0.30 m is cut off with the road named, never ranked; 'none' ranks it; a fire engine wades through slower")
    func cutOff() async throws {
        // SH-5 stands at the crossing (3, 3): its four roads stand 0.40 m deep.
        let store = try await Self.store(depths: ["h3-2": 0.4, "h3-3": 0.4, "v3-2": 0.4, "v3-3": 0.4])
        let dry = try await Self.nearest(store, ["conditions": "none"])
        #expect(Self.ranked(dry).contains("SH-5"))
        #expect(dry["conditions"]?["state"] == "none")
        #expect(dry["conditions"]?["flood_run"] == .null)

        let wet = try await Self.nearest(store)
        #expect(!Self.ranked(wet).contains("SH-5"), "\(wet)")
        let cut = try #require(wet["cut_off"]?.arrayValue)
        #expect(cut.map { $0["id"] } == ["SH-5"])
        let reason = try #require(cut.first?["reason"]?.stringValue)
        #expect(reason.contains("0.40 m") && reason.contains("小汽车") && reason.contains("路"), "\(reason)")
        #expect(wet["conditions"]?["state"] == "current")
        #expect(wet["conditions"]?["flood_run"]?["id"] == "test-storm-1")
        #expect(wet["conditions"]?["vehicle"]?["vehicle"] == "car")
        #expect(wet["conditions"]?["roads_closed"]?.arrayValue?.count == 4)

        // A fire engine (closed above 0.50 m) reaches it at 2.07 km/h through the 0.40 m water.
        let engine = try await Self.nearest(store, ["vehicle": "fire_engine"])
        let five = try #require(engine["resources"]?["features"]?.arrayValue?.first { $0["properties"]?["resource_id"] == "SH-5" })
        let dryFive = try #require(dry["resources"]?["features"]?.arrayValue?.first { $0["properties"]?["resource_id"] == "SH-5" })
        #expect(try #require(five["properties"]?["seconds"]?.doubleValue) > (try #require(dryFive["properties"]?["seconds"]?.doubleValue)) + 60)
        #expect(engine["cut_off"]?.arrayValue?.isEmpty == true)
        #expect(engine["conditions"]?["roads_slowed"]?.arrayValue?.count == 4)
    }

    @Test("water 0.20 m deep on every road: every road at Pregnolato's 12.36 km/h, so every time is its route's metres at that speed")
    func slowedEverywhere() async throws {
        var depths: [String: Double] = [:]
        for i in 0..<6 { for j in 0..<5 { depths["h\(i)-\(j)"] = 0.2; depths["v\(i)-\(j)"] = 0.2 } }
        let store = try await Self.store(depths: depths)
        let answer = try await Self.nearest(store)
        let features = try #require(answer["resources"]?["features"]?.arrayValue)
        #expect(features.count == 5)
        // v = 0.0009·w² − 0.5529·w + 86.9448 km/h at w = 200 mm, below every road's 30 or 50 km/h.
        let kmh = 0.0009 * 200 * 200 - 0.5529 * 200 + 86.9448
        for f in features {
            let metres = try #require(f["properties"]?["metres"]?.doubleValue)
            let seconds = try #require(f["properties"]?["seconds"]?.doubleValue)
            #expect(abs(seconds - metres / (kmh / 3.6)) < 0.05, "\(f)")
        }
        #expect(answer["conditions"]?["roads_slowed"]?.arrayValue?.count == 60)
    }

    @Test("a duty officer's closure in force closes its road for route and service-area; a lifted one or one not yet valid at 'at' does not")
    func closures() async throws {
        let store = try await Self.store(depths: [:])
        let route = RouteProcess()
        let trip: [String: JSONValue] = ["from": [114.8001, 30.846], "to": [114.8079, 30.846]]   // along the street y = 30.846
        let open = try await route.execute(trip, store: store, caller: Self.fire, progress: .ignored)
        let openMetres = try #require(open["route"]?["properties"]?["metres"]?.doubleValue)
        #expect(open["conditions"]?["closures"]?.arrayValue?.isEmpty == true)

        let closure = Feature(id: .string("RC-1"), geometry: nil, properties: [
            "road_id": "h3-2", "reason": "塌陷", "note": .null, "valid_from": "2020-01-01T00:00:00Z", "valid_to": .null,
        ])
        let lifted = Feature(id: .string("RC-0"), geometry: nil, properties: [
            "road_id": "h3-1", "reason": "施工", "note": .null, "valid_from": "2019-01-01T00:00:00Z", "valid_to": "2019-02-01T00:00:00Z",
        ])
        try await store.insert(layer: CityConditions.closuresLayer, features: [closure, lifted], by: Self.duty, at: nil)
        let closed = try await route.execute(trip, store: store, caller: Self.fire, progress: .ignored)
        #expect(try #require(closed["route"]?["properties"]?["metres"]?.doubleValue) > openMetres + 100)
        #expect(closed["conditions"]?["closures"]?.arrayValue?.map { $0["id"] } == ["RC-1"])
        #expect(closed["conditions"]?["roads_closed"]?.arrayValue?.first?["closure"] == "RC-1")
        // Before the closure took effect, and in the dry city, the straight route again.
        let before = try await route.execute(trip.merging(["at": "2019-12-31T00:00:00Z"]) { _, b in b }, store: store, caller: Self.fire,
                                             progress: .ignored)
        #expect(before["route"]?["properties"]?["metres"]?.doubleValue == openMetres)
        let none = try await route.execute(trip.merging(["conditions": "none"]) { _, b in b }, store: store, caller: Self.fire, progress: .ignored)
        #expect(none["route"]?["properties"]?["metres"]?.doubleValue == openMetres)

        let area = ServiceAreaProcess()
        let dryArea = try await area.execute(["origin": [114.806, 30.846], "breaks": [1], "conditions": "none"], store: store, caller: Self.fire,
                                             progress: .ignored)
        let wetArea = try await area.execute(["origin": [114.806, 30.846], "breaks": [1]], store: store, caller: Self.fire, progress: .ignored)
        let dryMetres = try #require(dryArea["areas"]?["features"]?.arrayValue?.first?["properties"]?["reached_metres"]?.doubleValue)
        let wetMetres = try #require(wetArea["areas"]?["features"]?.arrayValue?.first?["properties"]?["reached_metres"]?.doubleValue)
        #expect(wetMetres < dryMetres)
        #expect(wetArea["conditions"]?["closures"]?.arrayValue?.count == 1)
    }

    @Test("conditions, at and vehicle are checked: a scenario id, a missing run, a bad instant, a walking engine are refused naming the input")
    func inputs() async throws {
        let store = try await Self.store(depths: [:])
        let p = NearestResourcesProcess()
        let base: [String: JSONValue] = ["incident": Grid.incident, "layer": "shelters"]
        await Grid.expectInvalid("conditions") { try await p.validate(base.merging(["conditions": "pl-quick"]) { _, b in b }, store: store, caller: Self.fire) }
        await Grid.expectInvalid("conditions") {
            _ = try await p.execute(base.merging(["conditions": "no-such-run-7"]) { _, b in b }, store: store, caller: Self.fire, progress: .ignored)
        }
        await Grid.expectInvalid("at") { try await p.validate(base.merging(["at": "tomorrow"]) { _, b in b }, store: store, caller: Self.fire) }
        await Grid.expectInvalid("vehicle") { try await p.validate(base.merging(["vehicle": "boat"]) { _, b in b }, store: store, caller: Self.fire) }
        await Grid.expectInvalid("vehicle") {
            try await p.validate(base.merging(["vehicle": "fire_engine", "profile": "walking"]) { _, b in b }, store: store, caller: Self.fire)
        }
        // The run named explicitly answers as the current one.
        let named = try await p.execute(base.merging(["conditions": "test-storm-1"]) { _, b in b }, store: store, caller: Self.fire, progress: .ignored)
        #expect(named["conditions"]?["flood_run"]?["id"] == "test-storm-1")
    }
}
