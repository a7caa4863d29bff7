import Foundation
import GeoCore
import Hummingbird
import HummingbirdTesting
import Server
import Testing
import TwinStore

/// Issue 54 §1 in the SensorThings API: the IoT register (`iot_devices`) is co-built, so the water
/// authority registers its own river gauge and writes its readings (403 before), and may not touch
/// the register owner's entities; a forged ownership is refused and audited.
@Suite("SensorThings on a co-built register")
struct SensorThingsCoBuiltTests {
    static let waterAuthority = "水务和湖泊局"

    func post(_ api: SensorThingsAPI, _ token: String, _ body: String) async throws -> (thing: Int64, datastream: Int64) {
        let r = try await api.send(.post, "/sta/v1.1/Things", token: token, body: body)
        #expect(r.status == .created, "\(r.text)")
        let location = try #require(r.headers[.location])
        let thing = try #require(Int64(location.split(separator: "(").last!.dropLast()))
        let ds = try await api.get("/sta/v1.1/Things(\(thing))/Datastreams")
        return (thing, try #require(try ds.json["value"]?.arrayValue?.first?["@iot.id"]?.integerValue))
    }

    func reading(_ api: SensorThingsAPI, _ token: String, _ datastream: Int64, _ value: Double) async throws -> TestResponse {
        try await api.send(.post, "/sta/v1.1/Observations", token: token,
                           body: #"{"phenomenonTime": "2026-06-18T08:00:00Z", "result": \#(value), "Datastream": {"@iot.id": \#(datastream)}}"#)
    }

    @Test("the water authority registers a gauge and writes its readings, not the register owner's; forged ownership refused and audited")
    func waterAuthorityGauge() async throws {
        try await SensorThingsAPI.run { api in
            let water = api.token(Self.waterAuthority)
            let gauge = try await post(api, water, SensorThingsAPI.gauge)
            let thing = try await api.get("/sta/v1.1/Things(\(gauge.thing))").json
            #expect(thing["properties"]?["owner_department"] == .string(Self.waterAuthority))
            #expect(thing["properties"]?["station"] == "JS-01")
            #expect(try await reading(api, water, gauge.datastream, 18.42).status == .created)

            // The register owner's gauge: the water authority may neither change it nor write its readings.
            let owners = try await post(api, api.token(), SensorThingsAPI.gauge.replacingOccurrences(of: "JS-01", with: "JS-02"))
            let patch = try await api.send(.patch, "/sta/v1.1/Things(\(owners.thing))", token: water, body: #"{"name": "改名"}"#)
            #expect(patch.status == .forbidden, "\(patch.text)")
            #expect(try await reading(api, water, owners.datastream, 1).status == .forbidden)
            // The owner's editors write the water authority's gauge too (its department stays).
            #expect(try await api.send(.patch, "/sta/v1.1/Things(\(gauge.thing))", token: api.token(), body: #"{"name": "举水 邾城 水位站（校准）"}"#).status == .ok)
            #expect(try await api.get("/sta/v1.1/Things(\(gauge.thing))").json["properties"]?["owner_department"] == .string(Self.waterAuthority))

            // Registering in another department's name is refused and audited; a department that
            // contributes nothing to the register still may not write it.
            let forged = SensorThingsAPI.gauge.replacingOccurrences(of: #""station": "JS-01""#, with: #""station": "JS-03", "owner_department": "城市管理执法委员会""#)
            let refused = try await api.send(.post, "/sta/v1.1/Things", token: water, body: forged)
            #expect(refused.status == .forbidden, "\(refused.text)")
            let audit = try await api.store.auditLog(layer: "iot_devices", after: 0, limit: 1000, by: .admin)
            #expect(audit.contains { $0.kind == .refused && $0.department == Self.waterAuthority })
            #expect(try await api.send(.post, "/sta/v1.1/Things", token: api.token("住房和城市更新局"), body: SensorThingsAPI.gauge).status == .forbidden)
        }
    }
}
