import CityModel
import Foundation
import GeoCore
import ProcessRuntime
import TestSupport
import Testing
import TwinStore
import ParkingSim
@testable import Parking
@testable import Scenarios

/// The parking processes on the sample district's own roads, lots and buildings.
@Suite("Parking processes")
struct ParkingProcessTests {
    private static let built = Task { () throws -> (SpatiaLiteStore, String, SampleDistrict) in
        try await EmergencyDistrict.makeStore(["roads", "buildings", "parking_lots"], in: .forProcess("parking"))
    }

    static func run(_ id: String, _ inputs: [String: JSONValue], store: any FeatureStore) async throws -> JSONValue {
        let registry = ProcessRegistry.standard
        let process = try #require(registry[id])
        return try await registry.run(process.id, inputs: inputs, caller: .admin, store: store)
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
        await #expect(throws: ProcessInputError("heading", "must be between 0.0 and 360.0, got 400.0")) {
            _ = try await Self.run("parking-guidance", ["from": Self.origin, "to": Self.destination, "heading": 400], store: store)
        }
        await #expect(throws: ProcessInputError("capacityScale", "must be between 0.001 and 10.0, got 0.0")) {
            _ = try await Self.run("parking-simulation", ["capacityScale": 0], store: store)
        }
    }

    @Test("a heading makes the drive start along the road that way: the same origin heading one way and the opposite way reaches the lots in different times")
    func heading() async throws {
        let (store, _, _) = try await Self.built.value
        func drives(_ heading: Double?) async throws -> [String: Double] {
            var inputs: [String: JSONValue] = ["from": Self.origin, "to": Self.destination, "occupancy": [["lot": "PK-001", "occupied": 10]]]
            if let heading { inputs["heading"] = .number(heading) }
            let lots = try await Self.run("parking-guidance", inputs, store: store)["lots"]?.arrayValue ?? []
            return Dictionary(uniqueKeysWithValues: lots.compactMap { l in l["lot"]?.stringValue.flatMap { id in l["drive_s"]?.doubleValue.map { (id, $0) } } })
        }
        let free = try await drives(nil), north = try await drives(0), south = try await drives(180), east = try await drives(90), west = try await drives(270)
        #expect(!free.isEmpty)
        for (lot, seconds) in free {
            // Either way is the best of every heading: a heading never makes a drive shorter.
            for h in [north, south, east, west] { #expect((h[lot] ?? .infinity) >= seconds - 0.01, "\(lot)") }
        }
        #expect(north != south || east != west, "opposite headings give different drives")
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
}

/// Occupancy readings into the store (one at a time and in bulk) and the availability they give.
@Suite("Parking occupancy in the store", .temporaryDirectories)
struct ParkingOccupancyStoreTests {
    private static func store() async throws -> SpatiaLiteStore {
        try await EmergencyDistrict.makeStore(["parking_lots", "parking_occupancy"], in: .forTestCase("parking")).0
    }

    @Test("a bulk import clips above capacity, rejects negative counts and unknown lots, counts each; a repeat replaces itself")
    func bulkImport() async throws {
        let store = try await Self.store()
        let csv = "lot,occupied,time\nPK-001,999,2026-06-17 22:15:00\nPK-999,5,2026-06-17 22:15:00\nPK-004,-3,2026-06-17 22:15:00\nPK-004,50,2026-06-17 22:15:00\nPK-004,x,2026-06-17 22:30:00\n"
        let before = try await store.count(layer: StoreParkingOccupancy.layer, FeatureQuery(), by: .admin)
        let report = try await StoreParkingOccupancy.importReadings(csv, into: store, by: .admin)
        #expect(report.written == 2 && report.cleaning.clipped == 1 && report.cleaning.rejectedNegative == 1)
        #expect(report.cleaning.rejectedUnknownLot == 1 && report.cleaning.unknownLots == ["PK-999"] && report.malformedCount == 1)
        #expect(try await store.count(layer: StoreParkingOccupancy.layer, FeatureQuery(), by: .admin) == before + 2)
        _ = try await StoreParkingOccupancy.importReadings(csv, into: store, by: .admin)
        #expect(try await store.count(layer: StoreParkingOccupancy.layer, FeatureQuery(), by: .admin) == before + 2)
        let json = #"[{"lot": "PK-004", "occupied": 60, "time": "2026-06-17T22:45:00"}]"#
        #expect(try await StoreParkingOccupancy.importReadings(json, into: store, by: .admin).written == 1)
    }

    @Test("one observation is recorded; an unknown lot or a negative count is refused naming the field")
    func record() async throws {
        let store = try await Self.store()
        let t = try #require(LocalClock.parse("2026-06-17 23:00:00"))
        let ok = try await StoreParkingOccupancy.record(OccupancyObservation(lot: "PK-001", time: t, occupied: 12), into: store, by: .admin)
        #expect(ok.written == 1)
        await #expect(throws: ScenarioError(.invalidArgument, "no parking lot 'PK-0' in parking_lots", field: "lot")) {
            _ = try await StoreParkingOccupancy.record(OccupancyObservation(lot: "PK-0", time: t, occupied: 1), into: store, by: .admin)
        }
        await #expect(throws: ScenarioError.self) {
            _ = try await StoreParkingOccupancy.record(OccupancyObservation(lot: "PK-001", time: t, occupied: -1), into: store, by: .admin)
        }
    }

    @Test("parking-forecast: live lots get free spaces and forecasts; undetected and stale lots are unknown, never free")
    func forecast() async throws {
        let store = try await Self.store()
        let live = try await ParkingProcessTests.run("parking-forecast", ["at": "2026-06-17T09:30:00"], store: store)
        let lots = try #require(live["lots"]?.arrayValue)
        let smart = Set(try await StoreParkingLot.load(from: store, by: .admin).filter(\.smart).map(\.id))
        for l in lots {
            let id = l["lot"]?.stringValue ?? ""
            if smart.contains(id) {
                #expect(l["state"] == "live", "\(id)")
                #expect(l["free"]?.integerValue != nil && l["predicted_free_30"]?.integerValue != nil, "\(id)")
            } else {
                #expect(l["state"] == "no-detection" && l["free"] == .null && l["predicted_free_30"] == .null, "\(id)")
            }
        }
        // A new reading is seen at once (the availability is reused only while the store is unchanged).
        let before = try await ParkingProcessTests.run("parking-forecast", ["at": "2026-06-17T09:32:00"], store: store)
        #expect(before["lots"]?.arrayValue?.first { $0["lot"] == "PK-001" }?["observed_at"] == "2026-06-17T09:30:00+08:00")
        let t = try #require(LocalClock.parse("2026-06-17 09:31:00"))
        _ = try await StoreParkingOccupancy.record(OccupancyObservation(lot: "PK-001", time: t, occupied: 0), into: store, by: .admin)
        let after = try await ParkingProcessTests.run("parking-forecast", ["at": "2026-06-17T09:32:00"], store: store)
        let pk1 = try #require(after["lots"]?.arrayValue?.first { $0["lot"] == "PK-001" })
        #expect(pk1["free"] == pk1["capacity"] && pk1["observed_at"] == "2026-06-17T09:31:00+08:00")
        // An hour after the last reading of the week every feed is stale: nothing shows as free.
        let stale = try await ParkingProcessTests.run("parking-forecast", ["at": "2026-06-17T23:30:00"], store: store)
        for l in stale["lots"]?.arrayValue ?? [] {
            #expect(l["state"] != "live" && l["free"] == .null && l["predicted_free_15"] == .null)
        }
        await #expect(throws: ProcessInputError.self) {
            _ = try await ParkingProcessTests.run("parking-forecast", ["at": "yesterday"], store: store)
        }
    }
}
