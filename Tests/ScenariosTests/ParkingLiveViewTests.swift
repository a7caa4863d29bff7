import CityModel
import Foundation
import GeoCore
import ParkingSim
import Testing
import TwinStore
@testable import Scenarios

/// The live parking view on the sample district's lots, week of readings and signs.
@Suite("Parking live view")
struct ParkingLiveViewTests {
    static func store() async throws -> SpatiaLiteStore {
        try await EmergencyDistrict.makeStore(["parking_lots", "parking_occupancy", "parking_guidance_signs", "admin_divisions"]).0
    }

    static func view(_ store: any FeatureStore) async throws -> [String: [String: JSONValue]] {
        var out: [String: [String: JSONValue]] = [:]
        for f in try await store.query(layer: ParkingLiveView.layer, FeatureQuery(limit: 1000), by: .anonymous).features {
            out[f.id?.description ?? ""] = f.properties
        }
        return out
    }

    @Test("inside the week every sensed lot is live with forecasts, the others unknown; the signs show the same numbers; a second refresh writes nothing; after the last reading's limit every lot turns unknown and every sign shows --")
    func refresh() async throws {
        let store = try await Self.store()
        let lots = try await StoreParkingLot.load(from: store, by: .admin)
        let morning = try #require(LocalClock.parse("2026-06-17 09:35:00"))
        let first = try await ParkingLiveView.refresh(store, now: morning)
        #expect(first.availability.count == lots.count)
        #expect(first.nextTransition == (try #require(LocalClock.parse("2026-06-17 09:30:00"))) + 1200)
        var view = try await Self.view(store)
        #expect(view.count == lots.count)
        for lot in lots {
            let p = try #require(view[lot.id])
            if lot.smart {
                #expect(p["state"] == "live" && p["free"]?.integerValue != nil, "\(lot.id)")
                #expect(p["predicted_free_15"]?.integerValue != nil && p["predicted_free_60"]?.integerValue != nil, "\(lot.id)")
                #expect(p["observed_at"] == "2026-06-17T09:30:00+08:00" && p["fresh_until"] == "2026-06-17T09:50:00+08:00")
                #expect(["available", "few", "full"].contains(p["availability"]?.stringValue ?? ""))
            } else {
                #expect(p["state"] == "no-detection" && p["free"] == .null && p["availability"] == "unknown", "\(lot.id)")
            }
        }
        let byID = Dictionary(uniqueKeysWithValues: lots.map { ($0.id, $0) })
        for sign in try await store.query(layer: ParkingLiveView.signsLayer, FeatureQuery(limit: 100), by: .admin).features {
            let listed = sign.properties["lots"]?.arrayValue?.compactMap(\.stringValue) ?? []
            let parts = (sign.properties["content"]?.stringValue ?? "").split(separator: "；").map(String.init)
            for (id, part) in zip(listed, parts) {
                let free = view[id]?["free"]?.integerValue
                let name = byID[id]?.name ?? id
                #expect(part == (free.map { $0 < 1 ? "\(name) 满" : "\(name) \($0)" } ?? "\(name) --"))
            }
            #expect(sign.properties["updated_at"] == "2026-06-17T09:35:00+08:00")
        }

        let again = try await ParkingLiveView.refresh(store, now: morning)
        #expect(again.availability.isEmpty && again.signs.isEmpty)

        // 22:00 was the week's last reading: at 22:21 it is past the 20-minute limit.
        let late = try await ParkingLiveView.refresh(store, now: try #require(LocalClock.parse("2026-06-17 22:21:00")))
        #expect(late.nextTransition == nil && !late.signs.isEmpty)
        view = try await Self.view(store)
        for lot in lots {
            #expect(view[lot.id]?["availability"] == "unknown" && view[lot.id]?["free"] == .null, "\(lot.id)")
            #expect(view[lot.id]?["predicted_free_30"] == .null)
        }
        for sign in try await store.query(layer: ParkingLiveView.signsLayer, FeatureQuery(limit: 100), by: .admin).features {
            #expect((sign.properties["content"]?.stringValue ?? "").split(separator: "；").allSatisfy { $0.hasSuffix(" --") })
        }
        // The view's writes are the guidance service's, audited.
        let audit = try await store.auditLog(layer: ParkingLiveView.layer, after: 0, limit: 10, by: .admin)
        #expect(audit.first?.actor.contains(ParkingLiveView.author) == true)
    }

    @Test("parking-forecast counts what reading the history did and reports the 70 % indicator per division")
    func readingsAndCoverage() async throws {
        let store = try await Self.store()
        let t = try #require(LocalClock.parse("2026-06-17 09:40:00"))
        let lot = try #require(try await StoreParkingLot.load(from: store, by: .admin).first(where: \.smart))
        try await store.insert(layer: StoreParkingOccupancy.layer, features: [
            Feature(id: .string("over"), geometry: nil, properties: ["lot": .string(lot.id), "observed_at": .string(ParkingLiveView.iso(t)),
                                                            "occupied": .integer(Int64(lot.capacity + 25)), "capacity": .integer(Int64(lot.capacity)), "source": "检测器"]),
            Feature(id: .string("ghost"), geometry: nil, properties: ["lot": "PK-999", "observed_at": .string(ParkingLiveView.iso(t)),
                                                             "occupied": 3, "capacity": 10, "source": "检测器"]),
        ], by: .admin, at: nil)
        let result = try await ParkingProcessTests.run("parking-forecast", ["at": "2026-06-17T09:42:00"], store: store)
        #expect(result["readings"]?["clipped_above_capacity"] == 1 && result["readings"]?["rejected_unknown_lot"] == 1)
        #expect(result["readings"]?["unknown_lots"] == ["PK-999"])
        let row = try #require(result["lots"]?.arrayValue?.first { $0["lot"]?.stringValue == lot.id })
        #expect(row["free"] == 0 && row["reading_flag"] == "above-capacity" && row["availability"] == "full")

        let coverage = try #require(result["coverage"])
        let divisions = try #require(coverage["divisions"]?.arrayValue)
        #expect(!divisions.isEmpty)
        let county = try #require(divisions.first)
        #expect(county["level"] == "区县")
        #expect(county["public_berths"] == coverage["public_berths"] && county["detected_berths"] == coverage["detected_berths"])
        for d in divisions {
            let share = try #require(d["share"]?.doubleValue)
            #expect(share >= 0 && share <= 1 && d["meets_target"]?.boolValue == (share >= 0.7))
        }
    }

    @Test("observation times: local without offset, Z and other offsets are moved to UTC+8; malformed ones are nil")
    func times() throws {
        let local = try #require(LocalClock.parse("2026-06-17 10:00:00"))
        #expect(StoreParkingOccupancy.localTime(iso: "2026-06-17T10:00:00") == local)
        #expect(StoreParkingOccupancy.localTime(iso: "2026-06-17T10:00:00+08:00") == local)
        #expect(StoreParkingOccupancy.localTime(iso: "2026-06-17T02:00:00Z") == local)
        #expect(StoreParkingOccupancy.localTime(iso: "2026-06-17T02:00:00.250Z") == local)
        #expect(StoreParkingOccupancy.localTime(iso: "2026-06-17T04:00:00+02:00") == local)
        #expect(StoreParkingOccupancy.localTime(iso: "2026-06-17T10:00:00 junk") == nil)
        #expect(StoreParkingOccupancy.localTime(iso: "yesterday") == nil)
    }
}
