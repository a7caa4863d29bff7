import CityModel
import Foundation
import GeoCore
import ParkingSim
import TestSupport
import Testing
import TwinStore
@testable import Parking
@testable import Scenarios

/// Issue 58 §9: guidance, the forecast and the live view judge a reading fresh or stale by one rule, at
/// one instant (now, by the server's clock, unless the caller names a time), and say which readings they used.
@Suite("Parking freshness: one rule", .temporaryDirectories)
struct ParkingFreshnessTests {
    /// Per lot: known (a fresh reading) or not, as `parking_availability` shows it after a refresh now.
    static func liveView(_ store: any FeatureStore) async throws -> [String: Bool] {
        _ = try await ParkingLiveView.refresh(store, now: ParkingLiveView.localTime())
        var out: [String: Bool] = [:]
        for f in try await store.query(layer: ParkingLiveView.layer, FeatureQuery(limit: 1000), by: .admin).features {
            out[f.id?.description ?? ""] = f.properties["availability"] != "unknown"
        }
        return out
    }

    @Test("with the sample week's readings months old, guidance without a time ranks every lot as unknown, as the live view shows it; a reading sent now makes that lot known in both, with its observed_at and the cut-off")
    func guidanceJudgesAsTheLiveView() async throws {
        let (store, _, _) = try await EmergencyDistrict.makeStore(["roads", "parking_lots", "parking_occupancy"], in: .forTestCase("parking-fresh"))
        let trip: [String: JSONValue] = ["from": ParkingProcessTests.origin, "to": ParkingProcessTests.destination]

        let old = try await ParkingProcessTests.run("parking-guidance", trip, store: store)
        let view = try await Self.liveView(store)
        let lots = try #require(old["lots"]?.arrayValue)
        #expect(!lots.isEmpty && view.values.allSatisfy { !$0 }, "the live view: \(view)")
        for lot in lots {
            let id = lot["lot"]?.stringValue ?? ""
            #expect(lot["availability_unknown"] == true && lot["predicted_free"] == .null, "\(id): \(lot)")
            #expect(view[id] == false, "\(id)")
        }
        #expect(old["readings"]?["fresh"] == 0, "\(old["readings"] ?? .null)")
        // The readings it judged: each lot's latest (the sample week's, 2026-06-17) and the cut-off, 20 minutes before now.
        let pk1 = try #require(lots.first { $0["lot"] == "PK-001" })
        #expect(pk1["observed_at"]?.stringValue?.hasPrefix("2026-06-17T") == true, "\(pk1)")
        let at = try #require(old["readings"]?["at"]?.stringValue.flatMap { StoreParkingOccupancy.localTime(iso: $0) })
        let cutOff = try #require(old["readings"]?["fresh_after"]?.stringValue.flatMap { StoreParkingOccupancy.localTime(iso: $0) })
        let sampleWeekEnd = try #require(LocalClock.parse("2026-06-18 00:00:00"))
        #expect(at - cutOff == ParkingAvailability.defaultFreshness && at > sampleWeekEnd)
        // parking-forecast without a time judges at the same instant.
        let forecast = try await ParkingProcessTests.run("parking-forecast", [:], store: store)
        #expect(forecast["lots"]?.arrayValue?.allSatisfy { $0["availability"] == "unknown" } == true)
        #expect(forecast["fresh_after"]?.stringValue != nil && forecast["freshness_s"] == .number(ParkingAvailability.defaultFreshness))

        // A reading five minutes ago: that lot alone is known, in guidance and in the view.
        let lot = try #require(try await StoreParkingLot.load(from: store, by: .admin).first { $0.id == "PK-001" })
        let observed = (ParkingLiveView.localTime() - 300).rounded(.down)
        try await store.insert(layer: StoreParkingOccupancy.layer, features: [
            Feature(id: .string("now"), geometry: nil, properties: ["lot": .string(lot.id), "observed_at": .string(ParkingLiveView.iso(observed)),
                                                           "occupied": 100, "capacity": .integer(Int64(lot.capacity)), "source": "检测器"]),
        ], by: .admin, at: nil)
        let fresh = try await ParkingProcessTests.run("parking-guidance", trip, store: store)
        let after = try await Self.liveView(store)
        #expect(after[lot.id] == true && after.filter(\.value).count == 1, "\(after)")
        for l in try #require(fresh["lots"]?.arrayValue) {
            let id = l["lot"]?.stringValue ?? ""
            #expect((l["availability_unknown"] == false) == (after[id] == true), "\(id): \(l)")
        }
        let known = try #require(fresh["lots"]?.arrayValue?.first { $0["lot"] == .string(lot.id) })
        #expect(known["observed_at"] == .string(ParkingLiveView.iso(observed)) && known["predicted_free"] != .null, "\(known)")
        #expect(fresh["readings"]?["fresh"] == 1)
        // A time named by the caller is still judged by the same rule: inside the sample week, its readings are fresh.
        let then = try await ParkingProcessTests.run("parking-guidance", trip.merging(["at": "2026-06-17T09:35:00"]) { $1 }, store: store)
        #expect(then["readings"]?["at"] == "2026-06-17T09:35:00+08:00" && then["readings"]?["fresh_after"] == "2026-06-17T09:15:00+08:00")
        #expect((then["readings"]?["fresh"]?.integerValue ?? 0) > 1, "\(then["readings"] ?? .null)")
    }
}
