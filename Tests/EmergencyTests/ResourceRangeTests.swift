import CityModel
import Foundation
import GeoCore
import ProcessRuntime
import TestSupport
import Testing
import TwinStore
@testable import Scenarios

/// Issue 58 §5: a shelter with `capacity: -5` was stored, and `nearest-resources` ranked it first.
@Suite("Resource capacities", .temporaryDirectories)
struct ResourceRangeTests {
    static let incident: JSONValue = [114.801, 30.842]

    /// A copy of a district shelter beside the incident (nothing is nearer) with `capacity`.
    static func besideIncident(capacity: Int) throws -> Feature {
        var f = try #require(try SampleDistrict.generate()[layer: "shelters"].first)
        f.id = .string("SH-NEG")
        f.geometry = .point(Point(x: 114.801, y: 30.842))
        f.properties["name"] = "负容量避难所"
        f.properties["capacity"] = .integer(Int64(capacity))
        return f
    }

    @Test("every layer's capacities, counts, lengths and depths have minimum 0; a shelter with capacity -5 is refused naming the field and the range")
    func schemaRefusesNegativeCapacity() async throws {
        let catalog = try LayerCatalog.load(directory: EmergencyDistrict.layersDirectory)
        let nonNegative = ["capacity", "beds", "members", "residents", "engines", "personnel", "lanes", "length_m", "depth_m",
                           "diameter_mm", "volume_m3", "area_ha", "footprint_m2", "floors", "charging_piles", "pump_count", "capacity_ls"]
        for definition in catalog.definitions {
            for (name, rule) in definition.schema.properties where nonNegative.contains(name) && (rule.types ?? []).isDisjoint(with: [.object, .array]) {
                #expect((rule.minimum ?? -1) >= 0, "\(definition.id).\(name) has no minimum ≥ 0")
            }
        }
        let (store, _, _) = try await EmergencyDistrict.makeStore(["shelters"], in: .forTestCase("resource-ranges"))
        do {
            try await store.insert(layer: "shelters", features: [try Self.besideIncident(capacity: -5)], by: .admin, at: nil)
            Issue.record("a shelter with capacity -5 was stored")
        } catch let e as StoreError {
            #expect(e.field == "capacity" && e.message.contains("≥ 0"), "\(e.message)")
        }
    }

    @Test("a negative capacity stored before the schemas said minimum 0 is never ranked by nearest-resources: it is listed under invalid")
    func nearestSkipsNegativeCapacity() async throws {
        let directory = try TemporaryDirectory.forTestCase("resource-ranges-old")
        let (store, _, _) = try await EmergencyDistrict.makeStore(["roads"], in: directory)
        // The shelters layer as it was defined before the fix: capacity without a minimum.
        let text = try String(contentsOf: EmergencyDistrict.layersDirectory.appendingPathComponent("shelters.json"), encoding: .utf8)
        let old = text.replacingOccurrences(of: "\"type\": \"integer\",\n        \"minimum\": 0,\n        \"title\": \"容纳人数\"",
                                            with: "\"type\": \"integer\",\n        \"title\": \"容纳人数\"")
        #expect(old != text)
        try await store.createLayer(try JSONDecoder().decode(LayerDefinition.self, from: Data(old.utf8)))
        let shelters = try SampleDistrict.generate()[layer: "shelters"]
        try await store.insert(layer: "shelters", features: shelters + [try Self.besideIncident(capacity: -5)], by: .admin, at: nil)

        let registry = ProcessRegistry.standard
        let process = try #require(registry["nearest-resources"])
        let inputs: [String: JSONValue] = ["incident": Self.incident, "layer": "shelters", "count": 3]
        let answer = try await registry.run(process.id, inputs: inputs, caller: .admin, store: store)
        let ranked = try #require(answer["resources"]?["features"]?.arrayValue).compactMap { $0["properties"]?["resource_id"]?.stringValue }
        #expect(ranked.count == 3 && !ranked.contains("SH-NEG"), "\(ranked)")
        let invalid = try #require(answer["invalid"]?.arrayValue)
        #expect(invalid.count == 1 && invalid[0]["resource_id"] == "SH-NEG" && invalid[0]["field"] == "capacity" && invalid[0]["value"] == .number(-5))
    }
}
