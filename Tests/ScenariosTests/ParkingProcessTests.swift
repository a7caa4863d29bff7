import CityModel
import Foundation
import GeoCore
import Testing
import TwinStore
@testable import Scenarios

/// The parking processes on the sample district's own roads, lots and buildings.
@Suite("Parking processes")
struct ParkingProcessTests {
    private static let built = Task { () throws -> (SpatiaLiteStore, String, SampleDistrict) in
        try await EmergencyDistrict.makeStore(["roads", "buildings", "parking_lots"])
    }

    static func run(_ id: String, _ inputs: [String: JSONValue], store: any FeatureStore) async throws -> JSONValue {
        let registry = ProcessRegistry.standard
        let process = try #require(registry[id])
        try await registry.validate(inputs, for: process, store: store, caller: .admin)
        return try await registry.execute(process, inputs, store: store, caller: .admin)
    }

    /// PK-001's entrance (the hospital lot) and a point west of the centre.
    static let destination: JSONValue = [114.7985, 30.8405]
    static let origin: JSONValue = [114.780, 30.830]

    @Test("the lot beside the destination, reported full, is never first; a stale reading shows as unknown; the 70 % indicator is returned")
    func guidance() async throws {
        let (store, _, _) = try await Self.built.value
        let free = try await Self.run("parking-guidance", ["from": Self.origin, "to": Self.destination,
                                                           "occupancy": [["lot": "PK-001", "occupied": 10, "age_s": 30]]], store: store)
        #expect(free["lots"]?.arrayValue?.first?["lot"] == "PK-001")   // beside the destination, with space: first
        let full = try await Self.run("parking-guidance", ["from": Self.origin, "to": Self.destination, "occupancy": [
            ["lot": "PK-001", "occupied": 400, "age_s": 30],      // above its 300 berths: clipped, full
            ["lot": "PK-002", "occupied": 10, "age_s": 4000],     // stale: unknown, not free
        ]], store: store)
        let lots = try #require(full["lots"]?.arrayValue)
        #expect(lots.count == 15)
        #expect(lots[0]["lot"] != "PK-001")
        #expect(lots.last?["lot"] == "PK-001" && lots.last?["predicted_full"] == true)
        let pk2 = try #require(lots.first { $0["lot"] == "PK-002" })
        #expect(pk2["availability_unknown"] == true && pk2["predicted_free"] == .null)
        #expect(full["readings"]?["clipped"] == 1 && full["readings"]?["stale"] == 1)
        let share = try #require(full["coverage"]?["share"]?.doubleValue)
        #expect(share > 0 && share <= 1)
        #expect(full["coverage"]?["public_berths"]?.integerValue ?? 0 > 0)
    }

    @Test("bad input is refused naming the field: unknown lot, negative occupancy, origin off the network")
    func badInput() async throws {
        let (store, _, _) = try await Self.built.value
        await #expect(throws: ProcessInputError("occupancy[0].lot", "no parking lot 'PK-999' in parking_lots")) {
            _ = try await Self.run("parking-guidance", ["from": Self.origin, "to": Self.destination,
                                                        "occupancy": [["lot": "PK-999", "occupied": 3]]], store: store)
        }
        await #expect(throws: ProcessInputError("occupancy[0].occupied", "must not be negative (got -2)")) {
            _ = try await Self.run("parking-guidance", ["from": Self.origin, "to": Self.destination,
                                                        "occupancy": [["lot": "PK-001", "occupied": -2]]], store: store)
        }
        do {
            _ = try await Self.run("parking-guidance", ["from": [114.70, 30.83], "to": Self.destination], store: store)
            Issue.record("an origin 8 km from the roads was routed")
        } catch let e as ProcessInputError {
            #expect(e.input == "from" && e.reason.contains("beyond the maximum snap distance of 500 m"))
        }
    }

    @Test("on the district at about 90 % peak occupancy guidance cuts mean search time by at least 40 % and cuts extra vehicle-km")
    func simulation() async throws {
        let (store, _, _) = try await Self.built.value
        let result = try await Self.run("parking-simulation", [:], store: store)
        let u = try #require(result["unguided"]), g = try #require(result["guided"])
        #expect(u["drivers"] == g["drivers"])
        let peak = try #require(g["peak_occupancy"]?.doubleValue)
        #expect(peak >= 0.85 && peak <= 0.95, "guided peak occupancy \(peak)")
        let search = try #require(result["change"]?["search_time"]?.doubleValue)
        #expect(search <= -0.40, "search time change \(search)")
        let km = try #require(result["change"]?["extra_vehicle_km"]?.doubleValue)
        #expect(km < 0)
        #expect((g["rejected"]?.integerValue ?? 1) <= (u["rejected"]?.integerValue ?? 0))
        #expect((g["occupancy_spread"]?.doubleValue ?? 1) < (u["occupancy_spread"]?.doubleValue ?? 0))
    }

    @Test("parking guide and simulate = their processes")
    func commands() async throws {
        let (store, path, _) = try await Self.built.value
        let cli = try await CommandProcessTests.command(["parking", "guide", "--from", "114.780,30.830", "--to", "114.7985,30.8405",
                                                         "--drivers", "20", "--json"], store: path)
        let api = try await Self.run("parking-guidance", ["from": Self.origin, "to": Self.destination, "drivers": 20, "freshnessSeconds": 300,
                                                          "maximumSnapMetres": 500], store: store)
        #expect(cli == (try JSONDecoder().decode(JSONValue.self, from: JSONEncoder().encode(api))))
        let sim = try await CommandProcessTests.command(["parking", "simulate", "--drivers", "3000", "--json"], store: path)
        let simAPI = try await Self.run("parking-simulation", ["drivers": 3000, "seed": 17], store: store)
        #expect(sim == (try JSONDecoder().decode(JSONValue.self, from: JSONEncoder().encode(simAPI))))
        #expect(sim["guided"]?["drivers"] == 3000)
    }
}
