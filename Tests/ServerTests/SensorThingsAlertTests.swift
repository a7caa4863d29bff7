import Foundation
import GeoCore
import HummingbirdTesting
import Server
import Testing
import TwinStore

@Suite("SensorThings thresholds: alerts raised and cleared in the alerts collection")
struct SensorThingsAlertTests {
    static let thresholds = #"{"properties": {"thresholds": [{"level": "warning", "value": 27.5, "direction": "above", "hysteresis": 0.2}, {"level": "danger", "value": 28.5}]}}"#

    /// The alerts of the collection, by level, as `/collections/alerts/items` serves them.
    func alerts(_ api: SensorThingsAPI) async throws -> [String: JSONValue] {
        let r = try await api.get("/collections/alerts/items?limit=100")
        #expect(r.status == .ok, "\(r.text)")
        var out = [String: JSONValue]()
        for f in try r.json["features"]?.arrayValue ?? [] {
            let p = f["properties"]
            let key = "\(p?["level"]?.stringValue ?? "?")@\(p?["phenomenonTime"]?.stringValue ?? "?")"
            out[key] = f
        }
        return out
    }

    @Test("a reading over a threshold is an alert feature when the POST returns; falling back past the hysteresis clears it")
    func raiseAndClear() async throws {
        try await SensorThingsAPI.run { api in
            let (thing, ds) = try await api.postGauge()
            let patched = try await api.send(.patch, "/sta/v1.1/Datastreams(\(ds))", token: api.token(), body: Self.thresholds)
            #expect(patched.status == .ok, "\(patched.text)")

            #expect(try await api.postLevels(ds, [27.0, 27.8]).status == .created)   // 00:00, 01:00
            var now = try await alerts(api)
            let warning = try #require(now["warning@2026-06-01T01:00:00Z"], "the alert is visible as soon as the POST is answered")
            #expect(warning["properties"]?["value"]?.doubleValue == 27.8)
            #expect(warning["properties"]?["cleared_at"] == .null)
            #expect(warning["properties"]?["thing_id"]?.integerValue == thing)
            #expect(warning["properties"]?["datastream_id"]?.integerValue == ds)
            #expect(warning["geometry"]?["coordinates"] == [114.8012, 30.8437], "at the Thing's Location")
            #expect(now.count == 1)

            // 02:00 28.9 raises danger and lifts the warning's peak; 03:00 27.4 clears danger only
            // (below 28.5, no hysteresis) and keeps the warning (27.4 > 27.5 − 0.2); 04:00 27.2 clears it.
            #expect(try await api.postLevels(ds, [28.9, 27.4], startHour: 2).status == .created)
            now = try await alerts(api)
            let danger = try #require(now["danger@2026-06-01T02:00:00Z"])
            #expect(danger["properties"]?["cleared_value"]?.doubleValue == 27.4)
            #expect(danger["properties"]?["cleared_phenomenonTime"] == "2026-06-01T03:00:00Z")
            #expect(now["warning@2026-06-01T01:00:00Z"]?["properties"]?["peak"]?.doubleValue == 28.9)
            #expect(now["warning@2026-06-01T01:00:00Z"]?["properties"]?["cleared_at"] == .null)

            #expect(try await api.postLevels(ds, [27.2], startHour: 4).status == .created)
            now = try await alerts(api)
            #expect(now["warning@2026-06-01T01:00:00Z"]?["properties"]?["cleared_value"]?.doubleValue == 27.2)
            #expect(now.count == 2)

            // A late reading (a backfill before the newest one) changes no alert.
            let late = try await api.send(.post, "/sta/v1.1/CreateObservations", token: api.token(), body: """
                [{"Datastream": {"@iot.id": \(ds)}, "components": ["phenomenonTime", "result"], "dataArray": [["2026-05-31T12:00:00Z", 30.0]]}]
                """)
            #expect(late.status == .created)
            #expect(try await alerts(api).count == 2)

            // Alert writes are audited in the alerts layer's log like any feature write.
            let audit = try await api.store.auditLog(layer: "alerts", after: 0, limit: 100, by: .admin)
            #expect(audit.count >= 2)
        }
    }

    @Test("a wrong reading taken back ends the alert it raised (reading-withdrawn); a correction still beyond the threshold raises it again; a clearing reading taken back opens its alert again")
    func readingsTakenBack() async throws {
        try await SensorThingsAPI.run { api in
            let (_, ds) = try await api.postGauge()
            #expect(try await api.send(.patch, "/sta/v1.1/Datastreams(\(ds))", token: api.token(), body: Self.thresholds).status == .ok)
            #expect(try await api.postLevels(ds, [27.0, 29.1]).status == .created)   // 00:00, 01:00: a spike raises warning and danger
            var now = try await alerts(api)
            #expect(now["warning@2026-06-01T01:00:00Z"]?["properties"]?["cleared_at"] == .null)
            #expect(now["danger@2026-06-01T01:00:00Z"]?["properties"]?["cleared_at"] == .null)
            func observation(at time: String) async throws -> Int64 {
                let r = try await api.send(.get, "/sta/v1.1/Datastreams(\(ds))/Observations?$orderby=phenomenonTime%20desc", token: api.token())
                let o = try #require(try r.json["value"]?.arrayValue?.first { $0["phenomenonTime"]?.stringValue == time })
                return try #require(o["@iot.id"]?.integerValue)
            }

            // The spike was a fault: corrected to 27.9 it is still over the warning, not the danger level.
            let spike = try await observation(at: "2026-06-01T01:00:00Z")
            #expect(try await api.send(.patch, "/sta/v1.1/Observations(\(spike))", token: api.token(), body: #"{"result": 27.9}"#).status == .ok)
            now = try await alerts(api)
            let danger = try #require(now["danger@2026-06-01T01:00:00Z"]?["properties"])
            #expect(danger["cleared_reason"] == "reading-withdrawn" && danger["cleared_at"] != .null && danger["cleared_value"] == .null)
            let warning = try #require(now["warning@2026-06-01T01:00:00Z"]?["properties"])
            #expect(warning["cleared_at"] == .null && warning["value"]?.doubleValue == 27.9, "raised again by the corrected reading: \(warning)")

            // Deleted, the newest reading left (27.0) is under both: nothing stays open.
            #expect(try await api.send(.delete, "/sta/v1.1/Observations(\(spike))", token: api.token()).status == .ok)
            now = try await alerts(api)
            #expect(now.values.allSatisfy { $0["properties"]?["cleared_at"] != .null }, "\(now)")
            #expect(now["warning@2026-06-01T01:00:00Z"]?["properties"]?["cleared_reason"] == "reading-withdrawn")

            // 02:00 27.8 raises the warning, 03:00 27.1 clears it; the 03:00 reading taken back opens it again.
            #expect(try await api.postLevels(ds, [27.8, 27.1], startHour: 2).status == .created)
            #expect(try await alerts(api)["warning@2026-06-01T02:00:00Z"]?["properties"]?["cleared_value"]?.doubleValue == 27.1)
            #expect(try await api.send(.delete, "/sta/v1.1/Observations(\(try await observation(at: "2026-06-01T03:00:00Z")))", token: api.token()).status == .ok)
            let reopened = try #require(try await alerts(api)["warning@2026-06-01T02:00:00Z"]?["properties"])
            #expect(reopened["cleared_at"] == .null && reopened["value"]?.doubleValue == 27.8, "\(reopened)")

            // An older reading taken back changes no alert.
            #expect(try await api.send(.delete, "/sta/v1.1/Observations(\(try await observation(at: "2026-06-01T00:00:00Z")))", token: api.token()).status == .ok)
            #expect(try await alerts(api)["warning@2026-06-01T02:00:00Z"]?["properties"] == reopened)
        }
    }

    @Test("readings of one excursion sent through two servers at the same instant raise one alert, not one per server")
    func oneAlertAcrossServers() async throws {
        try await SensorThingsAPI.run(secondServer: true) { api in
            let other = try #require(api.other)
            let (_, ds) = try await api.postGauge()
            #expect(try await api.send(.patch, "/sta/v1.1/Datastreams(\(ds))", token: api.token(), body: Self.thresholds).status == .ok)
            #expect(try await api.postLevels(ds, [27.0]).status == .created)
            for round in 0..<12 {
                // 27.8 through A and 27.9 an hour later through B, both over the warning level; then
                // 27.0 clears it.
                let hour = 1 + 3 * round
                async let first = api.postLevels(ds, [27.8], startHour: hour)
                async let second = other.postLevels(ds, [27.9], startHour: hour + 1)
                let (a, b) = try await (first, second)
                #expect(a.status == .created && b.status == .created, "\(a.text) \(b.text)")
                #expect(try await api.postLevels(ds, [27.0], startHour: hour + 2).status == .created)
                // postLevels' times: hourly from 2026-06-01T00:00Z.
                let times = [hour, hour + 1].map { h in "2026-06-\(String(format: "%02d", 1 + h / 24))T\(String(format: "%02d", h % 24)):00:00Z" }
                let raised = try await alerts(api).values.compactMap(\.["properties"]).filter { p in
                    p["phenomenonTime"]?.stringValue.map(times.contains) == true
                }
                #expect(raised.count == 1, "round \(round): \(raised)")
                #expect(raised.first?["level"] == "warning" && raised.first?["peak"]?.doubleValue == 27.9 && raised.first?["cleared_value"]?.doubleValue == 27.0,
                        "round \(round): \(raised)")
            }
        }
    }

    @Test("a rate-of-rise threshold compares the change per hour since the previous reading, the one before the batch included")
    func rateOfRise() async throws {
        try await SensorThingsAPI.run { api in
            let (_, ds) = try await api.postGauge()
            let patched = try await api.send(.patch, "/sta/v1.1/Datastreams(\(ds))", token: api.token(),
                                             body: #"{"properties": {"thresholds": [{"level": "rapid-rise", "rise_per_hour": 0.5, "hysteresis": 0.1}]}}"#)
            #expect(patched.status == .ok, "\(patched.text)")
            // 27.0 → 27.2 (+0.2/h): nothing; → 27.9 (+0.7/h): raised.
            #expect(try await api.postLevels(ds, [27.0, 27.2, 27.9]).status == .created)
            var now = try await alerts(api)
            let rise = try #require(now["rapid-rise@2026-06-01T02:00:00Z"])
            #expect(abs((rise["properties"]?["value"]?.doubleValue ?? 0) - 0.7) < 1e-9)
            #expect(rise["properties"]?["rate"] == true)
            // A batch of its own: 28.35 at 03:00 is +0.45/h against 27.9 stored before it — within
            // the hysteresis (0.5 − 0.1), so the alert stays; 28.4 at 04:00 (+0.05/h) clears it.
            #expect(try await api.postLevels(ds, [28.35], startHour: 3).status == .created)
            #expect(try await alerts(api)["rapid-rise@2026-06-01T02:00:00Z"]?["properties"]?["cleared_at"] == .null)
            #expect(try await api.postLevels(ds, [28.4], startHour: 4).status == .created)
            now = try await alerts(api)
            #expect(now["rapid-rise@2026-06-01T02:00:00Z"]?["properties"]?["cleared_phenomenonTime"] == "2026-06-01T04:00:00Z")
            #expect(now.count == 1)
        }
    }

    @Test("a river gauge's Thing takes the warning and guaranteed levels of its river_gauges feature; the feature shows the latest reading")
    func riverGaugeLevels() async throws {
        try await SensorThingsAPI.run { api in
            let layers = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
                .appendingPathComponent("Layers")
            try await api.store.createLayer(try JSONDecoder().decode(LayerDefinition.self, from: Data(contentsOf: layers.appendingPathComponent("river_gauges.json"))))
            let at = Geometry.point(Point(Position(x: 114.8012, y: 30.8437)))
            try await api.store.insert(layer: "river_gauges", features: [Feature(id: .string("GA-02"), geometry: at, properties: [
                "name": "举水邾城站", "water_body": "举水", "datum": "1985国家高程基准", "warning_level_m": 23.6, "guarantee_level_m": 25.1, "device": "IOT-SW-02",
            ])], by: .admin, at: nil)
            try await api.store.insert(layer: "iot_devices", features: [Feature(id: .string("IOT-SW-02"), geometry: at, properties: [
                "name": "举水邾城站水位计", "kind": "水位计", "quantity": "水位", "unit": "m", "target_layer": "river_gauges", "target": "GA-02", "status": "在线",
            ])], by: .admin, at: nil)
            // The Thing names its device in the register; its Datastream sets no thresholds.
            let body = SensorThingsAPI.gauge.replacingOccurrences(of: #""properties": {"station": "JS-01"}"#, with: #""properties": {"station": "JS-01", "iot_device": "IOT-SW-02"}"#)
            let r = try await api.send(.post, "/sta/v1.1/Things", token: api.token(), body: body)
            #expect(r.status == .created, "\(r.text)")
            let location = try #require(r.headers[.location])
            let thing = try #require(Int64(location.split(separator: "(").last!.dropLast()))
            let ds = try #require(try await api.get("/sta/v1.1/Things(\(thing))/Datastreams").json["value"]?.arrayValue?.first?["@iot.id"]?.integerValue)

            #expect(try await api.postLevels(ds, [23.0, 23.8]).status == .created)
            var now = try await alerts(api)
            #expect(now["warning@2026-06-01T01:00:00Z"]?["properties"]?["threshold"] == 23.6, "the layer's warning level")
            #expect(try await api.postLevels(ds, [25.3], startHour: 2).status == .created)
            now = try await alerts(api)
            #expect(now["danger@2026-06-01T02:00:00Z"]?["properties"]?["threshold"] == 25.1, "the layer's guaranteed level")
            // 23.55 is below the warning level but not by the hysteresis (0.1 m): the warning stays; danger clears.
            #expect(try await api.postLevels(ds, [23.55], startHour: 3).status == .created)
            now = try await alerts(api)
            #expect(now["warning@2026-06-01T01:00:00Z"]?["properties"]?["cleared_at"] == .null)
            #expect(now["danger@2026-06-01T02:00:00Z"]?["properties"]?["cleared_value"] == 23.55)

            // The newest reading on the gauge and the device, joined at read time, with its age.
            for path in ["/collections/river_gauges/items/GA-02", "/collections/iot_devices/items/IOT-SW-02"] {
                let f = try await api.get(path)
                #expect(f.status == .ok, "\(f.text)")
                let p = try f.json["properties"]
                #expect(p?["latest_value"] == 23.55, "\(path)")
                #expect(p?["latest_unit"] == "m" && p?["latest_phenomenonTime"] == "2026-06-01T03:00:00Z")
                #expect(p?["latest_datastream"]?.integerValue == ds && p?["latest_stale"] == true)
            }
            let list = try await api.get("/collections/river_gauges/items?f=json")
            #expect(try list.json["features"]?.arrayValue?.first?["properties"]?["latest_value"] == 23.55)
            // A feature no Thing stands for has no reading; the stored feature holds none (no copy to keep in step).
            #expect(try await api.store.feature(layer: "river_gauges", id: "GA-02", by: .admin)?.properties["latest_value"] == nil)
        }
    }

    @Test("a water-depth sensor at a ponding-prone road point takes the road depth levels: 15 cm warning, 30 cm danger")
    func pondingRoadPoint() async throws {
        try await SensorThingsAPI.run { api in
            let layers = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
                .appendingPathComponent("Layers")
            try await api.store.createLayer(try JSONDecoder().decode(LayerDefinition.self, from: Data(contentsOf: layers.appendingPathComponent("roads.json"))))
            let road = Geometry.lineString(LineString([Position(x: 114.80, y: 30.84), Position(x: 114.81, y: 30.84)]))
            try await api.store.insert(layer: "roads", features: [Feature(id: .string("RD-0027"), geometry: road, properties: [
                "name": "齐安大道", "class": "主干路", "lanes": 4, "speed_kmh": 50, "oneway": false, "from_intersection": "I-1", "to_intersection": "I-2", "length_m": 960,
            ])], by: .admin, at: nil)
            try await api.store.insert(layer: "iot_devices", features: [Feature(id: .string("IOT-JS-01"), geometry: .point(Point(Position(x: 114.805, y: 30.84))), properties: [
                "name": "齐安大道下穿积水监测", "kind": "水位计", "quantity": "积水深度", "unit": "m", "target_layer": "roads", "target": "RD-0027", "status": "在线",
            ])], by: .admin, at: nil)
            let body = SensorThingsAPI.gauge.replacingOccurrences(of: #""properties": {"station": "JS-01"}"#, with: #""properties": {"iot_device": "IOT-JS-01"}"#)
            let r = try await api.send(.post, "/sta/v1.1/Things", token: api.token(), body: body)
            #expect(r.status == .created, "\(r.text)")
            let location = try #require(r.headers[.location])
            let thing = try #require(Int64(location.split(separator: "(").last!.dropLast()))
            let ds = try #require(try await api.get("/sta/v1.1/Things(\(thing))/Datastreams").json["value"]?.arrayValue?.first?["@iot.id"]?.integerValue)
            #expect(try await api.postLevels(ds, [0.05, 0.18, 0.34]).status == .created)
            let now = try await alerts(api)
            #expect(now["warning@2026-06-01T01:00:00Z"]?["properties"]?["threshold"] == 0.15)
            #expect(now["danger@2026-06-01T02:00:00Z"]?["properties"]?["threshold"] == 0.3)
            #expect(now.count == 2)
        }
    }

    @Test("thresholds must be well-formed")
    func badThresholds() async throws {
        try await SensorThingsAPI.run { api in
            let (_, ds) = try await api.postGauge()
            let r = try await api.send(.patch, "/sta/v1.1/Datastreams(\(ds))", token: api.token(),
                                       body: #"{"properties": {"thresholds": [{"level": "warning", "value": 27.5, "direction": "sideways"}]}}"#)
            try expectProblem(r, status: 400, type: "invalid-body")
            #expect(try r.json["position"] == "$.properties.thresholds[0].direction")
        }
    }
}
