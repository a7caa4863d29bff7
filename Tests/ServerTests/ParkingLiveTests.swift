import Foundation
import GeoCore
import Hummingbird
import HummingbirdTesting
import Logging
import Parking
import Scenarios
import Sensing
import TestSupport
import Testing
import TwinStore
@testable import Server

/// The live parking view served as a collection, its push feed to guidance screens, and the
/// refusals of bad observations, over a small store: two lots (one sensed, one not), one sign
/// listing both, the layer definitions of `Layers/`.
@Suite("Parking live view and push feed")
struct ParkingLiveTests {
    static let owner = "城市管理执法委员会"

    static func makeStore(in directory: TemporaryDirectory) async throws -> SpatiaLiteStore {
        let store = try directory.openStore()
        let layers = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("Layers")
        for name in ["parking_lots", "parking_occupancy", "parking_guidance_signs", "iot_devices"] {
            try await store.createLayer(try JSONDecoder().decode(LayerDefinition.self, from: Data(contentsOf: layers.appendingPathComponent("\(name).json"))))
        }
        func square(_ x: Double, _ y: Double) -> Geometry {
            .polygon(Polygon(exterior: [Position(x: x, y: y), Position(x: x + 0.001, y: y), Position(x: x + 0.001, y: y + 0.001),
                                         Position(x: x, y: y + 0.001), Position(x: x, y: y)]))
        }
        func lot(_ id: String, _ name: String, _ x: Double, capacity: Int, smart: Bool) -> Feature {
            Feature(id: .string(id), geometry: square(x, 30.84), properties: [
                "name": .string(name), "kind": "公共", "capacity": .integer(Int64(capacity)), "entrances": [[.number(x), 30.84]],
                "price_per_hour": 5, "smart": .bool(smart), "charging_piles": 0,
            ])
        }
        try await store.insert(layer: "parking_lots", features: [lot("PK-A", "甲", 114.80, capacity: 100, smart: true),
                                                                 lot("PK-B", "乙", 114.81, capacity: 50, smart: false)], by: .admin, at: nil)
        try await store.insert(layer: "parking_guidance_signs", features: [Feature(id: .string("PGS-1"), geometry: .point(x: 114.805, y: 30.835), properties: [
            "name": "测试诱导屏", "level": "二级", "facing_road": "问津大道", "heading_deg": 0, "lots": ["PK-A", "PK-B"],
            "content": "甲 --；乙 --", "updated_at": "2026-06-17T22:00:00+08:00",
        ])], by: .admin, at: nil)
        return store
    }

    struct API: Sendable {
        let client: any TestClientProtocol
        let server: CityTwinServer
        let authority: TokenAuthority

        func token() -> String {
            authority.issue(TokenClaims(department: ParkingLiveTests.owner, role: .editor, subject: "停车检测网关", lifetime: 3600))
        }

        func send(_ method: HTTPRequest.Method, _ uri: String, body: String? = nil) async throws -> TestResponse {
            var h: HTTPFields = [.authorization: "Bearer \(token())"]
            if body != nil { h[.contentType] = "application/geo+json" }
            return try await client.execute(uri: uri, method: method, headers: h, body: body.map { ByteBuffer(string: $0) })
        }

        /// Posts one reading of `lot` at local time `time` (UTC+8).
        func observe(_ lot: String, _ occupied: Int, at time: Double) async throws -> TestResponse {
            try await send(.post, "/collections/parking_occupancy/items", body: """
                {"type": "Feature", "geometry": null, "properties": {"lot": "\(lot)", "observed_at": "\(ParkingLiveView.iso(time))",
                 "occupied": \(occupied), "capacity": 100, "source": "检测器"}}
                """)
        }

        func view() async throws -> [String: JSONValue] {
            let r = try await client.execute(uri: "/collections/parking_availability/items?f=json", method: .get)
            #expect(r.status == .ok, "\(r.text)")
            var out: [String: JSONValue] = [:]
            for f in try r.json["features"]?.arrayValue ?? [] { out[f["id"]?.stringValue ?? ""] = f["properties"] }
            return out
        }
    }

    static func run(_ body: @Sendable (API) async throws -> Void) async throws {
        var logger = Logger(label: "citytwin.server.test")
        logger.logLevel = .warning
        try await withTemporaryDirectory("parking-live") { dir in
            let store = try await makeStore(in: dir)
            let authority = try TokenAuthority(secret: (0..<32).map { _ in UInt8.random(in: 0...255) })
            let server = CityTwinServer(store: store, options: ServerOptions(baseURL: "http://test.local", logger: logger, tokenVerifier: authority))
            try await server.makeApplication().test(.router) { client in
                try await body(API(client: client, server: server, authority: authority))
            }
        }
    }

    @Test("parking_availability is a collection and a tileset computed from the store: a fresh reading is live, an undetected lot and an old reading are unknown, never free")
    func servedView() async throws {
        try await Self.run { api in
            var view = try await api.view()
            #expect(view["PK-A"]?["state"] == "stale" && view["PK-A"]?["availability"] == "unknown" && view["PK-A"]?["free"] == .null)
            #expect(view["PK-B"]?["state"] == "no-detection" && view["PK-B"]?["free"] == .null)

            // A reading from 30 minutes ago is past the 20-minute limit: still unknown.
            let now = ParkingLiveView.localTime()
            #expect(try await api.observe("PK-A", 30, at: now - 1800).status == .created)
            view = try await api.view()
            #expect(view["PK-A"]?["state"] == "stale" && view["PK-A"]?["free"] == .null)

            #expect(try await api.observe("PK-A", 40, at: now - 60).status == .created)
            view = try await api.view()
            #expect(view["PK-A"]?["state"] == "live" && view["PK-A"]?["free"] == 60 && view["PK-A"]?["availability"] == "available")
            #expect(view["PK-A"]?["occupancy"]?.doubleValue == 0.4)
            #expect(view["PK-A"]?["trend"] == "rising")
            #expect(view["PK-A"]?["fresh_until"]?.stringValue == ParkingLiveView.iso(now - 60 + 1200))
            for h in [15, 30, 60] { #expect(view["PK-A"]?.objectValue?.keys.contains("predicted_free_\(h)") == true) }

            // The collection's definition carries the map's colour rule; the tiles hold the lots.
            let collection = try await api.client.execute(uri: "/collections/parking_availability?f=json", method: .get)
            #expect(collection.status == .ok)
            let def = try #require(try await api.server.store.layerDefinition("parking_availability", for: .anonymous))
            #expect(def.json["style"]?["fill"] == "by-availability" && def.json["style"]?["colors"]?["unknown"] == "#9e9e9e")
            let tile = try await api.client.execute(uri: "/collections/parking_availability/tiles/WebMercatorQuad/15/13430/26833", method: .get)
            #expect(tile.status == .ok, "\(tile.status)")   // PK-A's square

            // The sign shows the fresh lot's free spaces and -- for the undetected one.
            let sign = try await api.client.execute(uri: "/collections/parking_guidance_signs/items/PGS-1?f=json", method: .get)
            #expect(try sign.json["properties"]?["content"] == "甲 60；乙 --")

            // The view is computed, not edited.
            let edit = try await api.send(.post, "/collections/parking_availability/items", body: #"{"type": "Feature", "geometry": null, "properties": {"lot": "PK-B", "capacity": 50, "state": "live", "availability": "available"}}"#)
            try expectProblem(edit, status: 403, type: "forbidden")
        }
    }

    @Test("a sign's new content is pushed in the request that wrote the observation, before its answer")
    func push() async throws {
        try await Self.run { api in
            _ = try await api.view()   // the view exists; the sign shows 甲 --
            let stream = api.server.parkingLive.feed.subscribe()
            let started = ContinuousClock.now
            #expect(try await api.observe("PK-A", 97, at: ParkingLiveView.localTime()).status == .created)
            let answered = ContinuousClock.now - started
            // The sign was rewritten and published before the POST was answered: its event is waiting.
            let stored = try await api.server.store.feature(layer: "parking_guidance_signs", id: "PGS-1", by: .admin)
            #expect(stored?.properties["content"] == "甲 3；乙 --")
            let content = try await withThrowingTaskGroup(of: String?.self) { group in
                group.addTask {
                    for await item in stream {
                        if let f = item, f.id == .string("PGS-1") { return f.properties["content"]?.stringValue }
                    }
                    return nil
                }
                group.addTask { try await Task.sleep(for: .seconds(5)); return nil }
                let first = try await group.next() ?? nil
                group.cancelAll()
                return first
            }
            #expect(content == "甲 3；乙 --")
            // Timing is measured over HTTP in Tests/Clients/test_parking_push.py and in Benchmarks/run.sh parking.
            print("observation → sign event: published within the POST, answered after \(answered)")
        }
    }

    @Test("a detector posting to the SensorThings API (a Datastream with properties.parking_lot) reaches the view and the signs")
    func sensorThings() async throws {
        try await Self.run { api in
            _ = try await api.view()
            let thing = """
                {"name": "甲 出入口计数", "description": "lot counter", "Datastreams": [{"name": "甲 在场车辆", "description": "vehicles present",
                 "observationType": "http://www.opengis.net/def/observationType/OGC-OM/2.0/OM_CountObservation",
                 "unitOfMeasurement": {"name": "vehicle", "symbol": "veh", "definition": "https://example.org/vehicle"},
                 "properties": {"parking_lot": "PK-A"},
                 "Sensor": {"name": "counter", "description": "entry/exit counter", "encodingType": "text/html", "metadata": "https://example.org/counter"},
                 "ObservedProperty": {"name": "occupied berths", "definition": "https://example.org/occupied", "description": "vehicles present"}}]}
                """
            #expect(try await api.send(.post, "/sta/v1.1/Things", body: thing).status == .created)
            let streams = try await api.send(.get, "/sta/v1.1/Datastreams")
            let ds = try #require(try streams.json["value"]?.arrayValue?.first?["@iot.id"]?.integerValue)
            let now = ISO8601DateFormatter().string(from: Date().addingTimeInterval(-60))
            let posted = try await api.send(.post, "/sta/v1.1/CreateObservations", body: """
                [{"Datastream": {"@iot.id": \(ds)}, "components": ["phenomenonTime", "result"], "dataArray": [["\(now)", 55]]}]
                """)
            #expect(posted.status == .created, "\(posted.text)")
            let view = try await api.view()
            #expect(view["PK-A"]?["free"] == 45 && view["PK-A"]?["state"] == "live")
            let sign = try await api.server.store.feature(layer: "parking_guidance_signs", id: "PGS-1", by: .admin)
            #expect(sign?.properties["content"] == "甲 45；乙 --")
            let rows = try await api.server.store.query(layer: "parking_occupancy", FeatureQuery(limit: 10), by: .admin).features
            #expect(rows.contains { $0.properties["source"] == "传感接口" && $0.properties["occupied"] == 55 })

            // A reading taken back (DELETE) no longer counts; a corrected one (PATCH) replaces its row.
            let later = try await api.send(.post, "/sta/v1.1/Observations", body: """
                {"Datastream": {"@iot.id": \(ds)}, "phenomenonTime": "\(ISO8601DateFormatter().string(from: Date()))", "result": 95}
                """)
            #expect(later.status == .created, "\(later.text)")
            #expect(try await api.view()["PK-A"]?["free"] == 5)
            let laterID = try #require(try later.json["@iot.id"]?.integerValue)
            #expect(try await api.send(.delete, "/sta/v1.1/Observations(\(laterID))").status == .ok)
            #expect(try await api.view()["PK-A"]?["free"] == 45, "the earlier reading is the latest again")
            let remaining = try await api.server.store.query(layer: "parking_occupancy", FeatureQuery(limit: 10), by: .admin).features
            #expect(remaining.filter { $0.properties["source"] == "传感接口" }.map { $0.properties["occupied"] } == [55])
            let firstID = try #require(try await api.send(.get, "/sta/v1.1/Datastreams(\(ds))/Observations").json["value"]?.arrayValue?.first?["@iot.id"]?.integerValue)
            #expect(try await api.send(.patch, "/sta/v1.1/Observations(\(firstID))", body: "{\"result\": 60}").status == .ok)
            #expect(try await api.view()["PK-A"]?["free"] == 40)
        }
    }

    @Test("bad observations: an unknown lot and an unreadable time are refused naming the property, a negative count by the schema; a count above capacity is clipped to full and flagged")
    func badObservations() async throws {
        try await Self.run { api in
            let now = ParkingLiveView.localTime()
            let unknown = try await api.observe("PK-Z", 10, at: now)
            try expectProblem(unknown, status: 400, type: "invalid-feature")
            #expect(try unknown.json["position"] == "$.properties.lot")
            let negative = try await api.observe("PK-A", -4, at: now)
            try expectProblem(negative, status: 400, type: "invalid-feature")
            #expect(try negative.json["position"] == "$.properties.occupied")
            let time = try await api.send(.post, "/collections/parking_occupancy/items", body: """
                {"type": "Feature", "geometry": null, "properties": {"lot": "PK-A", "observed_at": "yesterday", "occupied": 3, "capacity": 100, "source": "检测器"}}
                """)
            try expectProblem(time, status: 400, type: "invalid-feature")

            #expect(try await api.observe("PK-A", 130, at: now - 30).status == .created)
            let view = try await api.view()
            #expect(view["PK-A"]?["free"] == 0 && view["PK-A"]?["availability"] == "full" && view["PK-A"]?["reading_flag"] == "above-capacity")
        }
    }

    @Test("/parking/coverage returns the share of public berths with live detection")
    func coverage() async throws {
        try await Self.run { api in
            let r = try await api.client.execute(uri: "/parking/coverage", method: .get)
            #expect(r.status == .ok, "\(r.text)")
            let doc = try r.json
            #expect(doc["public_berths"] == 150 && doc["detected_berths"] == 100)
            #expect(doc["share"]?.doubleValue == 0.6667 && doc["meets_target"] == false && doc["target"]?.doubleValue == 0.7)
        }
    }
}
