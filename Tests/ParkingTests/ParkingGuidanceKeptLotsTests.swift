import CityModel
import Emergency
import Foundation
import GeoCore
import ParkingSim
import TestSupport
import Testing
import TwinStore
@testable import Parking

/// A sign ranks only its own lots (issue 57: the parking view's refresh routed every sign to every lot
/// of the city, 55 % of 43.8 s at 100×). Routing only the kept lots and the lots that may compete with
/// them must give the kept lots the places, costs and shares the whole ranking gives them.
@Suite("Parking guidance kept to a sign's lots", .temporaryDirectories)
struct ParkingGuidanceKeptLotsTests {
    @Test("on 150 lots over the district, 40 trips (one driver and ten, with and without a heading): the kept lots' order, costs and shares equal the whole ranking's, with most lots never routed")
    func keptLots() async throws {
        let (store, _, _) = try await EmergencyDistrict.makeStore(["roads"], in: .forTestCase("kept-lots"))
        let roads = try await StoreRoadGraph.load(from: store, profile: .driving)
        let points = roads.graph.network.lines.flatMap(\.coordinates)
        var rng = SplitMix64(seed: 57)
        func onRoads() throws -> Position {
            let p = points[Int.random(in: 0..<points.count, using: &rng)]
            return try #require(try roads.storage([Position(x: p.x + .random(in: -30...30, using: &rng), y: p.y + .random(in: -30...30, using: &rng))]).first)
        }
        let lots = try (0..<150).map { i in
            StoreParkingLot(id: String(format: "P%03d", i), name: nil, kind: "公共", capacity: Int.random(in: 20...300, using: &rng),
                            pricePerHour: Double(Int.random(in: 0...10, using: &rng)), smart: true, entrance: try onRoads())
        }
        let parking = try DistrictParking(lots: lots, roads: roads)
        // Occupancy at arrival: some lots unknown, some full, the rest anywhere, moving with the ETA.
        let occupancy: @Sendable (StoreParkingLot, Double) -> Double? = { lot, eta in
            let k = Int(lot.id.dropFirst())!
            if k % 11 == 0 { return nil }
            if k % 7 == 0 { return Double(lot.capacity) }
            return Double(lot.capacity) * (Double((k * 37) % 100) / 100 + eta / 36_000).truncatingRemainder(dividingBy: 1)
        }
        var compared = 0, bounded = 0
        for trip in 0..<40 {
            let from = try onRoads(), to = try onRoads()
            let heading: Double? = trip % 2 == 0 ? Double.random(in: 0..<360, using: &rng) : nil
            let drivers = trip % 3 == 0 ? 1 : 10
            // A sign's lots: the four nearest its destination, and one anywhere.
            let near = lots.sorted { hypot($0.entrance.x - to.x, $0.entrance.y - to.y) < hypot($1.entrance.x - to.x, $1.entrance.y - to.y) }
            let kept = Set(near.prefix(4).map(\.id) + [lots[trip * 3].id])
            let whole = try parking.guide(from: from, heading: heading, to: to, drivers: drivers, occupancy: occupancy)
            let part = try parking.guide(from: from, heading: heading, to: to, drivers: drivers, keeping: kept, occupancy: occupancy)
            let a = whole.ranked.filter { kept.contains($0.lot) }, b = part.ranked.filter { kept.contains($0.lot) }
            #expect(a.map(\.lot) == b.map(\.lot), "trip \(trip)")
            for (x, y) in zip(a, b) {
                #expect(abs(x.cost - y.cost) <= 1e-9 * max(1, x.cost) && abs(x.share - y.share) <= 1e-12, "trip \(trip) \(x.lot): \(x) vs \(y)")
            }
            #expect(Set(whole.unreachable).intersection(kept) == Set(part.unreachable).intersection(kept))
            let routed = Dictionary(uniqueKeysWithValues: whole.options.map { ($0.lot, $0.driveSeconds) })
            bounded += part.options.filter { !kept.contains($0.lot) && routed[$0.lot] != $0.driveSeconds }.count
            compared += a.count
        }
        #expect(compared >= 150)
        // Most lots of the district lie far from any one trip's destination: their drives are bounds, not routes.
        #expect(bounded > 40 * 150 / 2, "only \(bounded) lots of 40 trips were left unrouted")
    }
}
