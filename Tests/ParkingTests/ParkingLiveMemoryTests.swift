import CityModel
import Emergency
import Foundation
import GeoCore
import ParkingSim
import TestSupport
import Testing
import TwinStore
@testable import Parking

/// The live view brought up to date from what it kept in memory gives what a refresh that reads
/// everything gives.
@Suite("Parking live view kept in memory", .temporaryDirectories)
struct ParkingLiveMemoryTests {
    @Test("after each change (a reading above capacity, two more at its instant under a smaller and a larger id, one withdrawn, one of a past day, a lot's capacity, a sign's lots, a sign removed, a bulk import) the service's refresh from memory leaves the view and the signs as a refresh reading everything: that one writes nothing; the history kept equals the store's")
    func memoryEqualsWholeRead() async throws {
        let (store, _, _) = try await EmergencyDistrict.makeStore(["roads", "parking_lots", "parking_occupancy", "parking_guidance_signs"],
                                                                 in: .forTestCase("parking"))
        let morning = try #require(LocalClock.parse("2026-06-17 09:35:00"))
        let now = morning + 120
        // The signs are ranked from the first refresh on (the service waits 1 s at most for a graph being built).
        _ = try await EmergencyRoadGraphs.shared.graph(for: store, profile: .driving, by: .admin)
        let service = ParkingLiveService(store: store, clock: { now })
        #expect(try await service.catchUp())
        #expect(try await service.catchUp() == false)

        var lots = try await StoreParkingLot.load(from: store, by: .admin)
        var kept = try await LiveOccupancyHistory.load(from: store, lots: lots, by: .admin)
        var touched = Set<String>()
        func check(_ what: String) async throws {
            _ = try await service.catchUp()
            let whole = try await ParkingLiveView.refresh(store, now: now)
            #expect(whole.availability.isEmpty, "\(what): the view differs in \(whole.availability.compactMap { $0.id?.description })")
            #expect(whole.signs.isEmpty, "\(what): the signs differ in \(whole.signs.compactMap { $0.id?.description })")
            lots = try await StoreParkingLot.load(from: store, by: .admin)
            try await kept.reread(touched, from: store, by: .admin)
            touched = []
            let a = kept.history(lots: lots), b = try await StoreParkingOccupancy.read(lots: lots, from: store, by: .admin)
            #expect(a.series == b.series && a.cleaning == b.cleaning && a.above == b.above, "\(what): the history kept")
        }
        func view(_ lot: String) async throws -> [String: JSONValue] {
            try #require(try await store.feature(layer: ParkingLiveView.layer, id: lot, by: .admin)).properties
        }
        let signs = try await store.query(layer: ParkingLiveView.signsLayer, FeatureQuery(limit: 100), by: .admin).features
        let sign = try #require(signs.sorted { $0.id!.description < $1.id!.description }.first)
        let listed = sign.properties["lots"]?.arrayValue?.compactMap(\.stringValue) ?? []
        let lot = try #require(lots.first { $0.smart && listed.contains($0.id) })
        let insert = { (features: [Feature]) in
            try await store.insert(layer: StoreParkingOccupancy.layer, features: features, by: .admin, at: nil)
            touched.formUnion(features.compactMap { $0.id?.description })
        }

        try await insert([ParkingLiveViewTests.reading("PO-T-1", lot, lot.capacity + 3, at: morning + 30)])
        try await check("a reading above capacity")
        let full = try await view(lot.id)
        #expect(full["free"] == .integer(0) && full["reading_flag"] == "above-capacity")

        try await insert([ParkingLiveViewTests.reading("PO-A", lot, 0, at: morning + 30), ParkingLiveViewTests.reading("PO-Z", lot, 1, at: morning + 30)])
        try await check("two readings at one instant")
        #expect(try await view(lot.id)["free"] == .integer(Int64(lot.capacity)), "the smallest id of the instant counts")

        try await store.delete(layer: StoreParkingOccupancy.layer, ids: ["PO-A"], by: .admin, at: nil)
        touched.insert("PO-A")
        try await check("a reading withdrawn")
        #expect(try await view(lot.id)["free"] == .integer(0))

        try await insert([ParkingLiveViewTests.reading("PO-PAST", lots[1], 1, at: morning - 86_400 - 3600)])
        try await check("a reading of a past day")

        var edited = try #require(try await store.feature(layer: StoreParkingLot.layer, id: lot.id, by: .admin))
        edited.properties["capacity"] = .integer(Int64(lot.capacity + 40))
        try await store.upsert(layer: StoreParkingLot.layer, features: [edited], by: .admin, at: nil)
        try await check("a lot's capacity")
        #expect(try await view(lot.id)["capacity"] == .integer(Int64(lot.capacity + 40)))

        var shortened = sign
        shortened.properties["lots"] = .array(listed.dropFirst().map(JSONValue.string))
        try await store.upsert(layer: ParkingLiveView.signsLayer, features: [shortened], by: .admin, at: nil)
        try await check("a sign's lots")
        let other = try #require(signs.last)
        try await store.delete(layer: ParkingLiveView.signsLayer, ids: [other.id!.description], by: .admin, at: nil)
        try await check("a sign removed")

        // More readings than are read one by one: the layer is read again whole.
        let bulk = (0..<(ParkingLiveView.Memory.rereadLimit + 500)).map { k in
            ParkingLiveViewTests.reading("PO-BULK-\(k)", lots[k % lots.count], k % 7, at: morning - 3 * 86_400 + Double(k) * 60)
        }
        try await insert(bulk)
        try await check("a bulk import")
    }

    @Test("the processes' availability, from the history kept per store and brought up to date from the change feed, equals one from a whole read after readings added, replaced at one instant, withdrawn, of a past day and in bulk, and after a lot's capacity changed")
    func processesHistoryEqualsWholeRead() async throws {
        let (store, _, _) = try await EmergencyDistrict.makeStore(["parking_lots", "parking_occupancy"], in: .forTestCase("parking"))
        let morning = try #require(LocalClock.parse("2026-06-17 09:35:00"))
        func check(_ what: String) async throws {
            let lots = try await StoreParkingLot.load(from: store, by: .admin)
            for at in [morning, morning - 86_400] {
                let kept = try await ParkingAvailability.load(lots: lots, from: store, at: at, by: .admin)
                let whole = try await ParkingAvailability.compute(lots: lots, from: store, at: at, freshness: ParkingAvailability.defaultFreshness, by: .admin)
                #expect(kept.forecasts == whole.forecasts && kept.cleaning == whole.cleaning && kept.aboveCapacity == whole.aboveCapacity,
                        "\(what) at \(ParkingLiveView.iso(at))")
            }
        }
        try await check("first")
        let lots = try await StoreParkingLot.load(from: store, by: .admin)
        let lot = try #require(lots.first { $0.smart })
        try await store.insert(layer: StoreParkingOccupancy.layer, features: [ParkingLiveViewTests.reading("PO-T-1", lot, lot.capacity + 2, at: morning - 60)],
                               by: .admin, at: nil)
        try await check("a reading above capacity")
        try await store.insert(layer: StoreParkingOccupancy.layer, features: [ParkingLiveViewTests.reading("PO-A", lot, 0, at: morning - 60)], by: .admin, at: nil)
        try await check("a second reading at its instant")
        try await store.delete(layer: StoreParkingOccupancy.layer, ids: ["PO-A"], by: .admin, at: nil)
        try await check("withdrawn")
        try await store.insert(layer: StoreParkingOccupancy.layer, features: [ParkingLiveViewTests.reading("PO-PAST", lot, 3, at: morning - 2 * 86_400)],
                               by: .admin, at: nil)
        try await check("a reading of a past day")
        var edited = try #require(try await store.feature(layer: StoreParkingLot.layer, id: lot.id, by: .admin))
        edited.properties["capacity"] = .integer(Int64(lot.capacity + 40))
        try await store.upsert(layer: StoreParkingLot.layer, features: [edited], by: .admin, at: nil)
        try await check("a lot's capacity")
        let bulk = (0..<(ParkingLiveView.Memory.rereadLimit + 10)).map { k in
            ParkingLiveViewTests.reading("PO-BULK-\(k)", lots[k % lots.count], k % 5, at: morning - 4 * 86_400 + Double(k) * 60)
        }
        try await store.insert(layer: StoreParkingOccupancy.layer, features: bulk, by: .admin, at: nil)
        try await check("a bulk import")
    }
}
