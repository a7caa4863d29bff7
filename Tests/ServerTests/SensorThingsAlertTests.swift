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
