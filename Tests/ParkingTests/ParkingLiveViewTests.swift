import CityModel
import Foundation
import GeoCore
import ParkingSim
import TestSupport
import Testing
import TwinStore
@testable import Parking
@testable import Scenarios

/// The live parking view on the sample district's lots, week of readings and signs.
@Suite("Parking live view", .temporaryDirectories)
struct ParkingLiveViewTests {
    static func store() async throws -> SpatiaLiteStore {
        try await EmergencyDistrict.makeStore(["parking_lots", "parking_occupancy", "parking_guidance_signs", "admin_divisions"], in: .forTestCase("parking")).0
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
            // Without a roads layer the signs cannot be ranked: they keep their listed order.
            let listed = sign.properties["lots"]?.arrayValue?.compactMap(\.stringValue) ?? []
            #expect(sign.properties["ranking"]?.arrayValue?.compactMap(\.stringValue) == listed)
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

    // MARK: Signs ranked as guidance ranks

    private static let withRoads = Task { () throws -> (SpatiaLiteStore, String, SampleDistrict) in
        try await EmergencyDistrict.makeStore(["roads", "parking_lots", "parking_occupancy", "parking_guidance_signs"], in: .forProcess("parking"))
    }

    static func signs(_ store: any FeatureStore) async throws -> [String: Feature] {
        var out: [String: Feature] = [:]
        for f in try await store.query(layer: ParkingLiveView.signsLayer, FeatureQuery(limit: 100), by: .admin).features {
            out[f.id?.description ?? ""] = f
        }
        return out
    }

    static func ranking(_ sign: Feature?) -> [String] { sign?.properties["ranking"]?.arrayValue?.compactMap(\.stringValue) ?? [] }

    /// `parking-guidance` for a driver at the sign (its position, heading, destination, drivers) at local time `at`.
    static func guidance(_ sign: Feature, lots: [StoreParkingLot], at: String, store: any FeatureStore) async throws -> [String] {
        let q = try #require(ParkingLiveView.signGuidanceInputs(sign, lots: lots))
        var inputs: [String: JSONValue] = ["from": [.number(q.from.x), .number(q.from.y)], "to": [.number(q.to.x), .number(q.to.y)],
                                           "drivers": .integer(Int64(q.drivers)), "at": .string(at)]
        if let h = q.heading { inputs["heading"] = .number(h) }
        let result = try await ParkingProcessTests.run("parking-guidance", inputs, store: store)
        return result["lots"]?.arrayValue?.compactMap { $0["lot"]?.stringValue } ?? []
    }

    /// A reading of `lot` at local time `t`.
    static func reading(_ id: String, _ lot: StoreParkingLot, _ occupied: Int, at t: Double) -> Feature {
        Feature(id: .string(id), geometry: nil, properties: ["lot": .string(lot.id), "observed_at": .string(ParkingLiveView.iso(t)),
                                                            "occupied": .integer(Int64(occupied)), "capacity": .integer(Int64(lot.capacity)), "source": "检测器"])
    }

    @Test("every sign shows its lots in the order parking-guidance ranks them for a driver at the sign, heading its way; the text follows that order; a new reading that fills its first lot moves that lot behind every lot with space")
    func signsRankedAsGuidance() async throws {
        let (store, _, _) = try await Self.withRoads.value
        let lots = try await StoreParkingLot.load(from: store, by: .admin)
        let byID = Dictionary(uniqueKeysWithValues: lots.map { ($0.id, $0) })
        let morning = try #require(LocalClock.parse("2026-06-17 09:35:00"))
        _ = try await ParkingLiveView.refresh(store, now: morning)
        let signs = try await Self.signs(store)
        #expect(signs.count == 6)
        var reordered = 0
        for (id, sign) in signs {
            let listed = sign.properties["lots"]?.arrayValue?.compactMap(\.stringValue) ?? []
            let expected = try await Self.guidance(sign, lots: lots, at: "2026-06-17T09:35:00", store: store).filter(listed.contains)
            #expect(Self.ranking(sign) == expected, "\(id)")
            #expect(Set(expected) == Set(listed), "\(id)")
            if expected != listed { reordered += 1 }
            let names = (sign.properties["content"]?.stringValue ?? "").split(separator: "；").map { String($0.split(separator: " ")[0]) }
            #expect(names == expected.map { byID[$0]?.name ?? $0 }, "\(id)")
        }
        print("signs whose guidance ranking differs from their listed (nearest-first) order: \(reordered) of \(signs.count)")

        // A reading that fills a sign's first lot (a smart lot with others beside it) moves it behind every lot with space.
        let (signID, sign) = try #require(signs.sorted { $0.key < $1.key }.first { _, s in
            Self.ranking(s).first.map { byID[$0]?.smart == true } == true && Self.ranking(s).dropFirst().contains { byID[$0]?.smart == true }
        })
        let first = try #require(byID[Self.ranking(sign)[0]])
        try await store.insert(layer: StoreParkingOccupancy.layer, features: [Self.reading("fill-first", first, first.capacity, at: morning + 60)],
                               by: .admin, at: nil)
        let update = try await ParkingLiveView.refresh(store, now: morning + 90)
        #expect(update.signs.contains { $0.id?.description == signID })
        let after = try await Self.signs(store)[signID]
        let order = Self.ranking(after)
        #expect(order.first != first.id)
        let view = try await Self.view(store)
        let fullAt = try #require(order.firstIndex(of: first.id))
        for other in order[(fullAt + 1)...] { #expect(view[other]?["availability"]?.stringValue != "available", "\(other) after the full lot") }
        #expect((after?.properties["content"]?.stringValue ?? "").contains("\(first.name ?? first.id) 满"))
        let expected = try await Self.guidance(try #require(after), lots: lots, at: ParkingLiveView.iso(morning + 90).prefix(19).description, store: store)
        #expect(order == expected.filter(order.contains))
    }

    @Test("a full lot, an undetected lot and a lot whose feed is stale are never shown first, even beside the sign; two signs approaching from different sides rank the same lots differently")
    func wrongWaySigns() async throws {
        let (store, _, _) = try await EmergencyDistrict.makeStore(["roads", "parking_lots", "parking_occupancy", "parking_guidance_signs"],
                                                                 in: .forTestCase("parking"))
        let lots = try await StoreParkingLot.load(from: store, by: .admin)
        let parking = try await DistrictParking.load(from: store, by: .admin)
        let morning = try #require(LocalClock.parse("2026-06-17 09:35:00"))
        let network = parking.roads.graph.network

        /// A sign 25 m before lot `i`'s road access, facing along that road toward the lot.
        func sign(_ id: String, before i: Int, listing: [StoreParkingLot], destination: Position? = nil) throws -> Feature {
            let a = try #require(parking.access[i]).nearest
            let piece = network.pieces[a.piece]
            let forward = a.offset >= 25 || piece.length - a.offset < 25
            let back = forward ? max(a.offset - 25, 0) : min(a.offset + 25, piece.length)
            let path = network.coordinates(ofPiece: a.piece, from: min(back, a.offset), to: max(back, a.offset))
            let (from, to) = forward ? (path[0], path[path.count - 1]) : (path[path.count - 1], path[0])
            let heading = (atan2(to.x - from.x, to.y - from.y) * 180 / .pi + 360).truncatingRemainder(dividingBy: 360)
            let at = try parking.roads.storage([from])[0]
            var p: [String: JSONValue] = ["name": .string(id), "level": "二级", "facing_road": "测试路", "heading_deg": .number(heading),
                                          "lots": .array(listing.map { .string($0.id) }), "content": "", "updated_at": "2026-06-17T09:00:00+08:00"]
            if let destination { p["destination"] = [.number(destination.x), .number(destination.y)] }
            return Feature(id: .string(id), geometry: .point(x: at.x, y: at.y), properties: p)
        }
        func index(_ lot: StoreParkingLot) -> Int { lots.firstIndex(of: lot)! }

        // Beside an undetected lot, with a detected lot beside it made full: the sign shows a lot with space first.
        let unknown = try #require(lots.first { !$0.smart && parking.access[index($0)] != nil })
        func metres(_ a: StoreParkingLot, _ b: StoreParkingLot) throws -> Double {
            let p = try parking.roads.metric(a.entrance), q = try parking.roads.metric(b.entrance)
            return hypot(p.x - q.x, p.y - q.y)
        }
        let smart = try lots.filter { $0.smart && parking.access[index($0)] != nil }.sorted { try metres($0, unknown) < metres($1, unknown) }
        let (full, open) = (smart[0], smart[1])
        try await store.insert(layer: StoreParkingOccupancy.layer, features: [
            Self.reading("full", full, full.capacity, at: morning - 60), Self.reading("open", open, open.capacity / 2, at: morning - 60),
        ], by: .admin, at: nil)
        // Two signs facing the two ends of a pair of equally priced detected lots far apart, both serving the middle.
        let pairs = smart.flatMap { a in smart.filter { $0.id > a.id && $0.pricePerHour == a.pricePerHour && $0.id != full.id && a.id != full.id }.map { (a, $0) } }
        let (west, east) = try #require(try pairs.max { try metres($0.0, $0.1) < metres($1.0, $1.1) })
        #expect(try metres(west, east) > 400)
        try await store.insert(layer: StoreParkingOccupancy.layer, features: [
            Self.reading("west", west, west.capacity / 2, at: morning - 60), Self.reading("east", east, east.capacity / 2, at: morning - 60),
        ], by: .admin, at: nil)
        let middle = Position(x: (west.entrance.x + east.entrance.x) / 2, y: (west.entrance.y + east.entrance.y) / 2)
        try await store.insert(layer: ParkingLiveView.signsLayer, features: [
            try sign("T-UNKNOWN", before: index(unknown), listing: [unknown, full, open]),
            try sign("T-A", before: index(west), listing: [west, east], destination: middle),
            try sign("T-B", before: index(east), listing: [west, east], destination: middle),
        ], by: .admin, at: nil)
        _ = try await ParkingLiveView.refresh(store, now: morning)
        let signs = try await Self.signs(store)

        let ranked = Self.ranking(signs["T-UNKNOWN"])
        #expect(ranked.first == open.id && Set(ranked) == [open.id, unknown.id, full.id])
        let content = signs["T-UNKNOWN"]?.properties["content"]?.stringValue ?? ""
        #expect(content.hasPrefix("\(open.name ?? open.id) ") && content.hasSuffix("\(full.name ?? full.id) 满"))
        #expect(content.contains("\(unknown.name ?? unknown.id) --"))

        #expect(Self.ranking(signs["T-A"]) == [west.id, east.id])
        #expect(Self.ranking(signs["T-B"]) == [east.id, west.id])
        for id in ["T-UNKNOWN", "T-A", "T-B"] {
            let s = try #require(signs[id])
            let listed = Self.ranking(s)
            #expect(listed == (try await Self.guidance(s, lots: lots, at: "2026-06-17T09:35:00", store: store)).filter(listed.contains), "\(id)")
        }

        // Before the day's first readings every detected lot's latest reading (22:00 the evening before) is stale:
        // beside a stale lot, the one lot with a fresh reading comes first and the stale one shows --.
        let dawn = try #require(LocalClock.parse("2026-06-17 05:50:00"))
        try await store.insert(layer: StoreParkingOccupancy.layer, features: [Self.reading("dawn", open, open.capacity / 3, at: dawn - 300)],
                               by: .admin, at: nil)
        try await store.insert(layer: ParkingLiveView.signsLayer, features: [try sign("T-STALE", before: index(full), listing: [full, open])],
                               by: .admin, at: nil)
        _ = try await ParkingLiveView.refresh(store, now: dawn)
        let stale = try #require(try await Self.signs(store)["T-STALE"])
        #expect(Self.ranking(stale) == [open.id, full.id])
        #expect(stale.properties["content"]?.stringValue == "\(open.name ?? open.id) \(open.capacity - open.capacity / 3)；\(full.name ?? full.id) --")
        #expect(Self.ranking(stale) == (try await Self.guidance(stale, lots: lots, at: "2026-06-17T05:50:00", store: store)).filter(Self.ranking(stale).contains))
    }
}
