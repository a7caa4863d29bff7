import Foundation
import GeoCore
import Hummingbird
import HummingbirdTesting
import Logging
import Server
import TestSupport
import Testing
import TwinStore

/// Issue 54 §3, hydrants live: a pressure meter's reading below GB 50974's 0.10 MPa sets its
/// hydrant 待维修 in the store (an audited system write naming the rule and the Observation), a
/// reading back at or above it restores 完好, a hydrant a person marked 待维修 is never revived by a
/// reading, and every hydrant out of service is an open `hydrant-out-of-service` alert, ended when
/// it is back. Through the server's API, on SpatiaLite and on PostGIS where the tests have it.
@Suite("Hydrants live: status from the pressure meter, out-of-service alerts", .serialized)
struct HydrantStatusTests {
    static let postgresURL = ProcessInfo.processInfo.environment["CITYTWIN_TEST_POSTGRES_URL"].flatMap { $0.isEmpty ? nil : $0 }
    static let backends = postgresURL != nil ? ["spatiaLite", "postGIS"] : ["spatiaLite"]
    static let layers = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("Layers")

    struct API: Sendable {
        let client: any TestClientProtocol
        let store: any FeatureStore
        let authority: TokenAuthority

        func token(_ department: String) -> String {
            authority.issue(TokenClaims(department: department, role: .editor, subject: "测试员", lifetime: 3600))
        }

        func send(_ method: HTTPRequest.Method, _ uri: String, department: String, body: String? = nil,
                  contentType: String = "application/json") async throws -> TestResponse {
            var h: HTTPFields = [.authorization: "Bearer \(token(department))"]
            if body != nil { h[.contentType] = contentType }
            return try await client.execute(uri: uri, method: method, headers: h, body: body.map { ByteBuffer(string: $0) })
        }

        func hydrant(_ id: String) async throws -> [String: JSONValue] {
            try #require(try await store.feature(layer: "hydrants", id: id, by: .admin)).properties
        }

        /// The hydrant's out-of-service alerts, as `/collections/alerts/items` serves them: ended ones first, by when raised.
        func outOfService(_ id: String) async throws -> [[String: JSONValue]] {
            let r = try await client.get("/collections/alerts/items?limit=1000", headers: [.authorization: "Bearer \(token(HydrantStatusTests.iot))"])
            #expect(r.status == .ok, "\(r.text)")
            return try (r.json["features"]?.arrayValue ?? []).compactMap { $0["properties"]?.objectValue }
                .filter { $0["level"] == "hydrant-out-of-service" && $0["resource_id"]?.stringValue == id }
                .sorted { ($0["cleared_at"] == .null ? 1 : 0, $0["raised_at"]?.stringValue ?? "") < ($1["cleared_at"] == .null ? 1 : 0, $1["raised_at"]?.stringValue ?? "") }
        }

        /// Posts a pressure reading (MPa) at hour `hour` of 2026-06-01; the Observation's id.
        func read(_ datastream: Int64, _ mpa: Double, hour: Int) async throws -> Int64 {
            let r = try await send(.post, "/sta/v1.1/Observations", department: HydrantStatusTests.iot, body: """
                {"result": \(mpa), "phenomenonTime": "2026-06-01T\(String(format: "%02d", hour)):00:00Z", "Datastream": {"@iot.id": \(datastream)}}
                """)
            #expect(r.status == .created, "\(r.text)")
            let location = try #require(r.headers[.location])
            return try #require(Int64(location.split(separator: "(").last!.dropLast()))
        }

        func patchStatus(_ id: String, _ status: String) async throws {
            let r = try await send(.patch, "/collections/hydrants/items/\(id)", department: HydrantStatusTests.fire,
                                   body: #"{"properties": {"status": "\#(status)"}}"#, contentType: "application/merge-patch+json")
            #expect(r.status == .ok || r.status == .noContent, "\(r.text)")
        }
    }

    static let iot = "城市管理执法委员会"
    static let fire = "消防救援大队"

    static func hydrant(_ id: String, x: Double) -> Feature {
        Feature(id: .string(id), geometry: .point(x: x, y: 30.84), properties: [
            "main": "WM-1", "kind": "地上式", "outlet_mm": 100, "status": "完好", "road": "横街", "pressure_class": "低压"])
    }

    static func meter(_ id: String, hydrant: String) -> Feature {
        Feature(id: .string(id), geometry: .point(x: 114.84, y: 30.84), properties: [
            "name": .string("\(hydrant) 压力计"), "kind": "压力计", "quantity": "压力", "unit": "MPa",
            "target_layer": "hydrants", "target": .string(hydrant), "status": "在线"])
    }

    /// A server on a fresh store of `backend` holding `iot_devices` and `hydrants` (definitions from
    /// `Layers/`), hydrant XH-T1 watched by meter IOT-XH-T1.
    static func run(_ backend: String, _ body: @Sendable (API) async throws -> Void) async throws {
        var logger = Logger(label: "citytwin.hydrant-status")
        logger.logLevel = .warning
        try await withTemporaryDirectory("hydrant-status") { dir in
            let store: any FeatureStore
            let pg: PostGISStore?
            if backend == "postGIS", let url = postgresURL {
                let schema = "hydrants_" + UUID().uuidString.lowercased().replacingOccurrences(of: "-", with: "").prefix(16)
                pg = try await PostGISStore.connect(url: url, schema: String(schema), maximumConnections: 4, connectionWait: .seconds(60))
                store = pg!
            } else {
                pg = nil
                store = try dir.openStore()
            }
            do {
                for name in ["iot_devices", "hydrants"] {
                    try await store.createLayer(try JSONDecoder().decode(LayerDefinition.self, from: Data(contentsOf: layers.appendingPathComponent("\(name).json"))))
                }
                try await store.insert(layer: "hydrants", features: [hydrant("XH-T1", x: 114.84), hydrant("XH-T2", x: 114.85)], by: .admin, at: nil)
                try await store.insert(layer: "iot_devices", features: [meter("IOT-XH-T1", hydrant: "XH-T1")], by: .admin, at: nil)
                let authority = try TokenAuthority(secret: (0..<32).map { _ in UInt8.random(in: 0...255) })
                let server = CityTwinServer(store: store, options: ServerOptions(baseURL: "http://test.local", logger: logger, tokenVerifier: authority))
                try await server.makeApplication().test(.router) { client in
                    try await body(API(client: client, store: store, authority: authority))
                }
            } catch {
                try? await pg?.dropSchema()
                await pg?.shutdown()
                throw error
            }
            try await pg?.dropSchema()
            await pg?.shutdown()
        }
    }

    /// The gateway's Thing for meter IOT-XH-T1 with one Datastream in MPa; the Datastream's id.
    static func registerMeter(_ api: API) async throws -> Int64 {
        let r = try await api.send(.post, "/sta/v1.1/Things", department: iot, body: """
            {"name": "XH-T1 gateway", "description": "hydrant pressure", "properties": {"iot_device": "IOT-XH-T1"},
             "Locations": [{"name": "XH-T1", "description": "hydrant", "encodingType": "application/geo+json",
                            "location": {"type": "Point", "coordinates": [114.84, 30.84]}}],
             "Datastreams": [{"name": "outlet pressure", "description": "static pressure at the outlet",
                              "observationType": "http://www.opengis.net/def/observationType/OGC-OM/2.0/OM_Measurement",
                              "unitOfMeasurement": {"name": "megapascal", "symbol": "MPa", "definition": "http://qudt.org/vocab/unit/MegaPA"},
                              "Sensor": {"name": "transducer", "description": "pressure", "encodingType": "text/html", "metadata": "https://example.org"},
                              "ObservedProperty": {"name": "pressure", "definition": "http://qudt.org/vocab/quantitykind/Pressure", "description": "p"}}]}
            """)
        #expect(r.status == .created, "\(r.text)")
        let location = try #require(r.headers[.location])
        let thing = try #require(Int64(location.split(separator: "(").last!.dropLast()))
        let ds = try await api.send(.get, "/sta/v1.1/Things(\(thing))/Datastreams", department: iot)
        return try #require(try ds.json["value"]?.arrayValue?.first?["@iot.id"]?.integerValue)
    }

    @Test("a low reading sets 待维修 at once, audited as the pressure rule's write, and raises the alert; a reading at 0.10 MPa restores it",
          arguments: backends)
    func pressureRule(_ backend: String) async throws {
        try await Self.run(backend) { api in
            let ds = try await Self.registerMeter(api)
            _ = try await api.read(ds, 0.25, hour: 0)
            #expect(try await api.hydrant("XH-T1")["status"] == "完好")
            #expect(try await api.outOfService("XH-T1").isEmpty)

            // The status is stored when the POST is answered (the rule runs in the reading's own
            // request), so the very next read sees it: no waiting, and no clock in the test.
            let low = try await api.read(ds, 0.05, hour: 1)
            var h = try await api.hydrant("XH-T1")
            #expect(h["status"] == "待维修")
            #expect(h["status_source"] == "pressure-rule")
            #expect(h["status_observation"]?.integerValue == low)
            let reason = try #require(h["status_reason"]?.stringValue)
            #expect(reason.contains("0.05 MPa") && reason.contains("0.10 MPa") && reason.contains("Observation \(low)"), "\(reason)")
            var alerts = try await api.outOfService("XH-T1")
            #expect(alerts.count == 1)
            #expect(alerts.first?["cleared_at"] == .null)
            #expect(alerts.first?["source"] == "hydrant-status")
            #expect(alerts.first?["datastream_id"] == .null && alerts.first?["phenomenonTime"] == .null, "present, null: no reading raised it")
            #expect(alerts.first?["status"] == "待维修" && alerts.first?["status_source"] == "pressure-rule")
            #expect(alerts.first?["reason"]?.stringValue == reason)
            #expect(try await api.outOfService("XH-T2").isEmpty, "the other hydrant is untouched")

            // The audit log names the rule and the Observation, as the owner department's system write.
            let audit = try await api.store.auditLog(layer: "hydrants", after: 0, limit: 1000, by: .admin).filter { $0.featureID == "XH-T1" }
            let entry = try #require(audit.last)
            #expect(entry.actor == "system:hydrant-pressure-rule Observation(\(low))", "\(entry.actor)")
            #expect(entry.department == Self.fire && entry.kind == .update)

            // A second low reading changes nothing; 0.10 MPa (the standard's minimum) restores 完好 and ends the alert.
            _ = try await api.read(ds, 0.06, hour: 2)
            #expect(try await api.hydrant("XH-T1")["status_observation"]?.integerValue == low)
            _ = try await api.read(ds, 0.10, hour: 3)
            h = try await api.hydrant("XH-T1")
            #expect(h["status"] == "完好")
            #expect((h["status_source"] ?? .null) == .null && (h["status_reason"] ?? .null) == .null)
            alerts = try await api.outOfService("XH-T1")
            #expect(alerts.count == 1)
            #expect(alerts.first?["cleared_at"] != .null && alerts.first?["cleared_reason"] == "returned-to-service")
        }
    }

    @Test("a PATCH to 待维修 raises the alert; a good reading does not revive it; a low one does not claim it; back to 完好 ends it",
          arguments: backends)
    func manualStatus(_ backend: String) async throws {
        try await Self.run(backend) { api in
            let ds = try await Self.registerMeter(api)
            try await api.patchStatus("XH-T1", "待维修")
            var alerts = try await api.outOfService("XH-T1")
            #expect(alerts.count == 1)
            #expect(alerts.first?["cleared_at"] == .null && alerts.first?["status"] == "待维修")
            #expect((alerts.first?["status_source"] ?? .null) == .null)
            #expect(alerts.first?["reason"]?.stringValue?.contains("person") == true)

            _ = try await api.read(ds, 0.05, hour: 0)
            #expect((try await api.hydrant("XH-T1")["status_source"] ?? .null) == .null, "a person's 待维修 is not the rule's")
            _ = try await api.read(ds, 0.30, hour: 1)
            #expect(try await api.hydrant("XH-T1")["status"] == "待维修", "a good reading does not revive a hydrant a person marked 待维修")
            #expect(try await api.outOfService("XH-T1").first?["cleared_at"] == .null)

            try await api.patchStatus("XH-T1", "完好")
            alerts = try await api.outOfService("XH-T1")
            #expect(alerts.count == 1 && alerts.first?["cleared_reason"] == "returned-to-service")
            // Out again: a new alert, the ended one kept.
            try await api.patchStatus("XH-T1", "待维修")
            alerts = try await api.outOfService("XH-T1")
            #expect(alerts.count == 2 && alerts.last?["cleared_at"] == .null)
        }
    }
}
