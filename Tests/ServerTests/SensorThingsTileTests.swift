import Foundation
import GeoCore
import Hummingbird
import HummingbirdTesting
import Logging
@testable import Server
import TestSupport
import Testing
import Tiles
import TwinStore

@Suite("SensorThings readings in vector tiles")
struct SensorThingsTileTests {
    static let site = Position(x: 114.8012, y: 30.8437)

    /// A store with the device register and the river gauges (GA-02 monitored by IOT-SW-02), a
    /// server on it, and the store file's path (for a second process on the same store).
    static func run(limits: RequestLimits = RequestLimits(), _ body: @Sendable (SensorThingsAPI, String) async throws -> Void) async throws {
        var logger = Logger(label: "citytwin.server.test")
        logger.logLevel = .warning
        try await withTemporaryDirectory("sta-tiles") { dir in
            let path = dir.appending("city.sqlite").path
            let store = try dir.openStore()
            let layers = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
                .appendingPathComponent("Layers")
            for name in ["iot_devices", "river_gauges"] {
                try await store.createLayer(try JSONDecoder().decode(LayerDefinition.self, from: Data(contentsOf: layers.appendingPathComponent("\(name).json"))))
            }
            let at = Geometry.point(Point(site))
            try await store.insert(layer: "river_gauges", features: [Feature(id: .string("GA-02"), geometry: at, properties: [
                "name": "举水邾城站", "water_body": "举水", "datum": "1985国家高程基准", "warning_level_m": 23.6, "guarantee_level_m": 25.1, "device": "IOT-SW-02",
            ])], by: .admin, at: nil)
            try await store.insert(layer: "iot_devices", features: [Feature(id: .string("IOT-SW-02"), geometry: at, properties: [
                "name": "举水邾城站水位计", "kind": "水位计", "quantity": "水位", "unit": "m", "target_layer": "river_gauges", "target": "GA-02", "status": "在线",
            ])], by: .admin, at: nil)
            let authority = try TokenAuthority(secret: (0..<32).map { _ in UInt8.random(in: 0...255) })
            let server = CityTwinServer(store: store, options: ServerOptions(baseURL: "http://test.local", logger: logger, tokenVerifier: authority, limits: limits))
            try await server.makeApplication().test(.router) { client in
                try await body(SensorThingsAPI(client: client, store: store, authority: authority), path)
            }
        }
    }

    /// The gauge's Thing (naming its device in the register) and its water-level Datastream.
    static func postThing(_ api: SensorThingsAPI) async throws -> Int64 {
        let body = SensorThingsAPI.gauge.replacingOccurrences(of: #""properties": {"station": "JS-01"}"#,
                                                              with: #""properties": {"station": "JS-01", "iot_device": "IOT-SW-02"}"#)
        let r = try await api.send(.post, "/sta/v1.1/Things", token: api.token(), body: body)
        #expect(r.status == .created, "\(r.text)")
        let location = try #require(r.headers[.location])
        let thing = try #require(Int64(location.split(separator: "(").last!.dropLast()))
        return try #require(try await api.get("/sta/v1.1/Things(\(thing))/Datastreams").json["value"]?.arrayValue?.first?["@iot.id"]?.integerValue)
    }

    static func tilePath(_ layer: String) throws -> String {
        let id = try TileMatrixSet.webMercatorQuad.tile(containing: site, level: 15)
        return "/collections/\(layer)/tiles/WebMercatorQuad/\(id.matrix)/\(id.row)/\(id.col)"
    }

    /// The properties of the one feature of `layer`'s tile at the gauge, with the response.
    static func tileFeature(_ api: SensorThingsAPI, _ layer: String, token: String?) async throws -> (TestResponse, [String: JSONValue]) {
        let r = try await api.send(.get, try tilePath(layer), token: token, basic: false)
        #expect(r.status == .ok, "\(r.text)")
        let decoded = try #require(try VectorTile.decode(Array(buffer: r.body)).first)
        #expect(decoded.name == layer && decoded.features.count == 1)
        return (r, try #require(decoded.features.first).properties.mapValues(\.json))
    }

    @Test("the gauge's and the device's tiles carry the latest reading as the features API does; a new observation replaces it")
    func latestInTiles() async throws {
        try await Self.run { api, _ in
            let ds = try await Self.postThing(api)
            #expect(try await api.postLevels(ds, [23.0, 23.8]).status == .created)
            var etags = [String: String]()
            for layer in ["river_gauges", "iot_devices"] {
                let (r, p) = try await Self.tileFeature(api, layer, token: api.token())
                #expect(p["latest_value"] == 23.8, "\(layer)")
                #expect(p["latest_unit"] == "m" && p["latest_phenomenonTime"] == "2026-06-01T01:00:00Z", "\(layer)")
                #expect(p["latest_datastream"]?.integerValue == ds, "\(layer)")
                // What depends on the clock is left to the features API (a cached tile would go stale by itself).
                #expect(p["latest_age_s"] == nil && p["latest_stale"] == nil)
                // A live tile is revalidated on every use; for a department only in its own cache.
                #expect(r.headers[.cacheControl] == "private, no-cache")
                etags[layer] = try #require(r.headers[.eTag])
            }
            // The same value as the features API.
            let item = try await api.get("/collections/river_gauges/items/GA-02")
            #expect(try item.json["properties"]?["latest_value"] == 23.8)

            // The public may read the gauges but not the device register: its tile shows no reading,
            // and is publicly cacheable; the department's cached tile is not handed to it.
            let (anonymous, publicProps) = try await Self.tileFeature(api, "river_gauges", token: nil)
            #expect(publicProps["latest_value"] == nil && publicProps["name"] == "举水邾城站")
            #expect(anonymous.headers[.cacheControl] == "public, no-cache")
            #expect(anonymous.headers[.eTag] != etags["river_gauges"])

            // A new reading: the cached tiles at the gauge are dropped through the change feed.
            #expect(try await api.postLevels(ds, [24.1], startHour: 2).status == .created)
            for layer in ["river_gauges", "iot_devices"] {
                let (r, p) = try await Self.tileFeature(api, layer, token: api.token())
                #expect(p["latest_value"] == 24.1 && p["latest_phenomenonTime"] == "2026-06-01T02:00:00Z", "\(layer)")
                #expect(r.headers[.eTag] != etags[layer])
                // The old ETag no longer matches.
                let revalidated = try await api.client.execute(uri: try Self.tilePath(layer), method: .get,
                                                               headers: [.authorization: "Bearer \(api.token())", .ifNoneMatch: etags[layer]!])
                #expect(revalidated.status == .ok)
            }
        }
    }

    @Test("the Things a feature's reading comes from follow the change feed: one registered after the first join gives its reading; edited to name no device it gives none; named again it does; deleted it gives none")
    func thingsFollowTheFeed() async throws {
        try await Self.run { api, _ in
            func latest() async throws -> JSONValue? {
                try await api.get("/collections/river_gauges/items/GA-02").json["properties"]?["latest_value"]
            }
            #expect(try await latest() == nil)
            let ds = try await Self.postThing(api)
            #expect(try await api.postLevels(ds, [23.0, 23.8]).status == .created)
            #expect(try await latest() == 23.8)
            let thing = try #require(try await api.get("/sta/v1.1/Datastreams(\(ds))/Thing").json["@iot.id"]?.integerValue)
            let edited = try await api.send(.patch, "/sta/v1.1/Things(\(thing))", token: api.token(), body: #"{"properties": {"station": "JS-01"}}"#)
            #expect(edited.status == .ok, "\(edited.text)")
            #expect(try await latest() == nil)
            #expect(try await api.send(.patch, "/sta/v1.1/Things(\(thing))", token: api.token(),
                                       body: #"{"properties": {"station": "JS-01", "iot_device": "IOT-SW-02"}}"#).status == .ok)
            #expect(try await latest() == 23.8)
            #expect(try await api.send(.delete, "/sta/v1.1/Things(\(thing))", token: api.token()).status == .ok)
            #expect(try await latest() == nil)
        }
    }

    @Test("an observation written by another process on the same store invalidates this server's cached tile (change feed, no timer)")
    func otherProcessObservation() async throws {
        try await Self.run { api, path in
            let ds = try await Self.postThing(api)
            #expect(try await api.postLevels(ds, [23.0]).status == .created)
            let (_, before) = try await Self.tileFeature(api, "river_gauges", token: api.token())
            #expect(before["latest_value"] == 23.0)
            // A second store on the same file, as a gateway process or a second server would write.
            let other = try SpatiaLiteStore(path: path)
            let id = try #require(try await other.reserveSensingIDs(1).first)
            var change = SensingChange(caller: .department(name: SensorThingsAPI.owner, role: .editor, user: "网关"), auditLayer: "iot_devices")
            change.observations = [SensingObservation(id: id, datastream: ds, phenomenonStart: SensingTime.instant("2026-06-01T05:00:00Z")!, result: 24.6)]
            _ = try await other.applySensing(change)
            // This server reads the feed at its next tile request (at most `followInterval` after the last read).
            let deadline = Date().addingTimeInterval(5)
            var seen: JSONValue?
            repeat {
                try await Task.sleep(for: .milliseconds(100))
                seen = try await Self.tileFeature(api, "river_gauges", token: api.token()).1["latest_value"]
            } while seen != 24.6 && Date() < deadline
            #expect(seen == 24.6)
        }
    }
}

@Suite("Layers created by another process, served without a restart")
struct LayerFromOtherProcessTests {
    @Test("a layer a worker or an import creates on the same store is listed, read and tiled by the running server")
    func servedWithoutRestart() async throws {
        try await SensorThingsTileTests.run { api, path in
            #expect(try await api.send(.get, "/collections/flood_nowcast_run9/items").status == .notFound)
            // Another process (a second store on the same file) creates a layer and writes a feature.
            let other = try SpatiaLiteStore(path: path)
            let definition = try JSONDecoder().decode(LayerDefinition.self, from: Data("""
                {"id": "flood_nowcast_run9", "title": {"zh": "内涝预报", "en": "Flood nowcast"}, "category": "公共专题",
                 "owner": "水务和湖泊局", "format": "vector", "updateFrequency": "realtime",
                 "sharing": {"type": "open", "method": "api", "requirements": "注明数据来源"},
                 "geometryType": "Point", "storageCRS": "EPSG:4490",
                 "schema": {"type": "object", "properties": {"name": {"type": "string"}}, "required": ["name"]}}
                """.utf8))
            try await other.createLayer(definition)
            try await other.insert(layer: "flood_nowcast_run9", features: [Feature(id: .string("P1"), geometry: .point(Point(SensorThingsTileTests.site)),
                                                                                   properties: ["name": "积水点"])], by: .admin, at: nil)
            let list = try await api.send(.get, "/collections?f=json")
            #expect(try list.json["collections"]?.arrayValue?.contains { $0["id"] == "flood_nowcast_run9" } == true)
            let items = try await api.send(.get, "/collections/flood_nowcast_run9/items?f=json")
            #expect(items.status == .ok, "\(items.text.prefix(300))")
            #expect(try items.json["features"]?.arrayValue?.first?["id"] == "P1")
            let tile = try await api.send(.get, try SensorThingsTileTests.tilePath("flood_nowcast_run9"))
            #expect(tile.status == .ok)
        }
    }
}
