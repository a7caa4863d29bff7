import CityModel
import Foundation
import GeoCore
import ProcessRuntime
import TestSupport
import Testing
import TwinStore
@testable import Scenarios

/// Each process declares the layers it reads and writes; the registry holds them against the
/// caller before any work starts (issue 14, case 4): a caller who may not read a layer the
/// answer needs is refused naming the layer and who may read it, and an answer computed
/// without layers the caller may not see names them instead of reporting zeros as if complete.
@Suite("Process access: refused before the run, or marked partial")
struct ProcessAccessTests {
    static let registry = ProcessRegistry.standard
    static let incident: JSONValue = [114.801, 30.842]
    static let waterEditor = Caller.department(name: "水务和湖泊局", role: .editor)
    static let emergencyEditor = Caller.department(name: "应急管理局", role: .editor)

    /// `registry.validate` as `caller`: the refusal, or `nil` when it passed.
    static func refusal(_ id: String, _ inputs: [String: JSONValue], store: any FeatureStore, caller: Caller) async throws -> StoreError? {
        let process = try #require(registry[id])
        do {
            try await registry.validate(inputs, for: process, store: store, caller: caller)
            return nil
        } catch let e as StoreError {
            return e
        }
    }

    @Test("anonymous nearest-resources on fire_stations is unauthenticated, naming the layer and that a department may read it")
    func anonymousNearestFireStations() async throws {
        let (store, _) = try await EmergencyDistrict.store()
        let inputs: [String: JSONValue] = ["incident": Self.incident, "layer": "fire_stations"]
        let e = try #require(try await Self.refusal("nearest-resources", inputs, store: store, caller: .anonymous))
        #expect(e.code == .unauthenticated)
        #expect(e.layer == "fire_stations")
        #expect(e.message.contains("fire_stations") && e.message.contains("any department") && e.message.contains("消防救援大队"), "\(e.message)")
        // A department reads shared layers: the same request passes.
        #expect(try await Self.refusal("nearest-resources", inputs, store: store, caller: EmergencyDistrict.emergencyBureau) == nil)
    }

    @Test("anonymous coverage is unauthenticated, naming the first shared layer it needs")
    func anonymousCoverage() async throws {
        let (store, _) = try await EmergencyDistrict.store()
        let e = try #require(try await Self.refusal("coverage", [:], store: store, caller: .anonymous))
        #expect(e.code == .unauthenticated)
        #expect(e.layer == "addresses", "\(e.message)")
        #expect(try await Self.refusal("coverage", [:], store: store, caller: EmergencyDistrict.emergencyBureau) == nil)
    }

    @Test("anonymous hazard-overlay answers, marked partial: the layers left out are named; a department's answer is complete")
    func anonymousHazardPartial() async throws {
        let (store, _) = try await EmergencyDistrict.store()
        let (x, y, r) = (114.801, 30.842, 0.003)
        let area: JSONValue = ["type": "Polygon", "coordinates": [[[.number(x - r), .number(y - r)], [.number(x + r), .number(y - r)],
                                                                    [.number(x + r), .number(y + r)], [.number(x - r), .number(y + r)],
                                                                    [.number(x - r), .number(y - r)]]]]
        let process = try #require(Self.registry["hazard-overlay"])
        let anonymous = try await Self.registry.run(process.id, inputs: ["area": area], caller: .anonymous, store: store)
        let omitted = anonymous[ProcessRegistry.partialMember]?["omittedLayers"]?.arrayValue?.compactMap(\.stringValue)
        #expect(omitted == ["addresses", "buildings", "fire_stations", "rescue_teams", "warehouses"])
        let department = try await Self.registry.run(process.id, inputs: ["area": area], caller: EmergencyDistrict.emergencyBureau, store: store)
        #expect(department[ProcessRegistry.partialMember] == nil)
        #expect((department["inside"]?["buildings"]?["count"]?.integerValue ?? 0) > 0)
    }

    @Test("a flood job is refused before it runs: anonymous is unauthenticated, an editor of another department forbidden, naming the owner")
    func floodWriters() async throws {
        let (store, _) = try await EmergencyDistrict.store()
        let inputs: [String: JSONValue] = ["scenario": "p50-waterlogging"]
        let anonymous = try #require(try await Self.refusal("flood-scenario", inputs, store: store, caller: .anonymous))
        #expect(anonymous.code == .unauthenticated)
        let other = try #require(try await Self.refusal("flood-scenario", inputs, store: store, caller: Self.emergencyEditor))
        #expect(other.code == .forbidden)
        #expect(other.layer == "flood_p50_waterlogging_<run>_depth", "each run writes layers of its own, named when it starts")
        #expect(other.message.contains("水务和湖泊局") && other.message.contains("应急管理局"), "\(other.message)")
        let viewer = try #require(try await Self.refusal("flood-scenario", inputs, store: store,
                                                         caller: .department(name: "水务和湖泊局", role: .viewer)))
        #expect(viewer.code == .forbidden)
        // The owner's editor passes the access check; what stops it here is the store's missing DEM, an input.
        let process = try #require(Self.registry["flood-scenario"])
        await #expect(throws: ProcessInputError.self) {
            try await Self.registry.validate(inputs, for: process, store: store, caller: Self.waterEditor)
        }
    }
}
