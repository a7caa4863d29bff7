import Testing
@testable import ParkingSim

@Suite("Parking guidance")
struct ParkingGuidanceTests {
    static func option(_ id: String, drive: Double, walk: Double, occupied: Double?, capacity: Int = 100, price: Double = 2) -> LotOption {
        LotOption(lot: id, capacity: capacity, driveSeconds: drive, driveMetres: drive * 8, walkMetres: walk,
                  predictedOccupied: occupied, pricePerHour: price)
    }

    @Test("a lot predicted full is never first, even when it is nearest, cheapest and next to the destination")
    func fullNeverFirst() throws {
        let ranked = try ParkingGuidance.rank([
            Self.option("NEAR-FULL", drive: 60, walk: 20, occupied: 100, price: 0),
            Self.option("FAR", drive: 600, walk: 700, occupied: 90, price: 10),
        ])
        #expect(ranked.map(\.lot) == ["FAR", "NEAR-FULL"])
        #expect(ranked[1].predictedFull)
        // The same with many drivers guided at once: nobody is sent to the full lot.
        let shared = try ParkingGuidance.rank([
            Self.option("NEAR-FULL", drive: 60, walk: 20, occupied: 100, price: 0),
            Self.option("FAR", drive: 600, walk: 700, occupied: 10, price: 10),
        ], drivers: 50)
        #expect(shared[0].lot == "FAR")
        #expect(shared.first { $0.lot == "NEAR-FULL" }?.share == 0)
    }

    @Test("a lot of unknown availability ranks as near full, never as free")
    func unknownIsNotFree() throws {
        let ranked = try ParkingGuidance.rank([
            Self.option("UNKNOWN", drive: 100, walk: 100, occupied: nil),
            Self.option("KNOWN", drive: 100, walk: 100, occupied: 50),
        ])
        #expect(ranked.map(\.lot) == ["KNOWN", "UNKNOWN"])
        #expect(ranked[1].availabilityUnknown && ranked[1].predictedFree == nil)
    }

    @Test("a lot of unknown availability comes after every lot known to have space, however near and cheap it is; a full lot after both")
    func unknownAfterKnownSpace() throws {
        let ranked = try ParkingGuidance.rank([
            Self.option("FULL", drive: 10, walk: 10, occupied: 100, price: 0),
            Self.option("STALE", drive: 20, walk: 10, occupied: nil, capacity: 2000, price: 0),
            Self.option("FAR-BUSY", drive: 900, walk: 600, occupied: 90, price: 8),
        ], drivers: 5)
        #expect(ranked.map(\.lot) == ["FAR-BUSY", "STALE", "FULL"])
    }

    @Test("capacity feedback spreads a screen's drivers: the best lot's share falls as more drivers are guided")
    func feedback() throws {
        let options = [Self.option("A", drive: 200, walk: 100, occupied: 80), Self.option("B", drive: 260, walk: 150, occupied: 40)]
        let one = try ParkingGuidance.rank(options, drivers: 1)
        let many = try ParkingGuidance.rank(options, drivers: 60)
        let shareA = { (r: [RankedLot]) in r.first { $0.lot == "A" }!.share }
        #expect(one[0].lot == "A")
        #expect(shareA(many) < shareA(one))
        // With 60 drivers A (20 free) cannot take them all: B must get the larger part.
        #expect(shareA(many) < 0.5)
    }

    @Test("bad input names the field")
    func badInput() {
        #expect(throws: ParkingError(field: "lots[0].capacity", "must be positive (got 0)")) {
            try ParkingGuidance.rank([Self.option("A", drive: 1, walk: 1, occupied: 0, capacity: 0)])
        }
        #expect(throws: ParkingError.self) { try ParkingGuidance.rank([Self.option("A", drive: 1, walk: 1, occupied: 0)], drivers: 0) }
    }
}

@Suite("Guided vs unguided parking")
struct ParkingSimulationTests {
    /// Three lots on a line, 1 km apart; every destination is next to lot 0, which is small, so
    /// unguided drivers queue at it and cruise on while guided ones go where space is.
    static func network() -> ParkingScenarioNetwork {
        let xs = [0.0, 1000, 2000]
        func leg(_ a: Double, _ b: Double) -> ParkingLeg { ParkingLeg(seconds: abs(a - b) / 10 + 20, metres: abs(a - b) + 50) }
        let origin = -3000.0, dest = 50.0
        return ParkingScenarioNetwork(
            lots: [SimulatedLot(id: "HOT", capacity: 40, pricePerHour: 2), SimulatedLot(id: "MID", capacity: 150, pricePerHour: 2),
                   SimulatedLot(id: "FAR", capacity: 150, pricePerHour: 2)],
            originToLot: [xs.map { leg(origin, $0) }], originToDestination: [[leg(origin, dest)]],
            destinationToLot: [xs.map { leg(dest, $0) }], lotToLot: xs.map { a in xs.map { leg(a, $0) } },
            walkMetres: [xs.map { abs($0 - dest) * 1.3 }])
    }

    @Test("guidance cuts search time and extra vehicle-km and turns fewer drivers away")
    func guidanceHelps() throws {
        let network = Self.network()
        let trips = try ParkingDemand.day(origins: 1, destinationWeights: [1], totalCapacity: 340, seed: 3)
        let u = try ParkingSimulation.run(network, trips: trips, strategy: .unguided)
        let g = try ParkingSimulation.run(network, trips: trips, strategy: .guided)
        #expect(u.drivers == trips.count && g.drivers == trips.count)
        #expect(u.parked + u.rejected == u.drivers && g.parked + g.rejected == g.drivers)
        #expect(u.fullLotArrivals > 100)
        #expect(g.meanSearchSeconds < 0.6 * u.meanSearchSeconds, "\(g.meanSearchSeconds) vs \(u.meanSearchSeconds)")
        #expect(g.extraVehicleKm < u.extraVehicleKm)
        #expect(g.rejected <= u.rejected)
        #expect(g.peakOccupancy > 0.8)
    }

    @Test("when no lot fills nobody searches: unguided drivers drive straight to the lot nearest their destination, with no cruising or extra vehicle-km, as guided ones")
    func noSearchWithoutFullLots() throws {
        let network = Self.network()
        let trips = try ParkingDemand.day(origins: 1, destinationWeights: [1], totalCapacity: 340, drivers: 30, seed: 3)
        let u = try ParkingSimulation.run(network, trips: trips, strategy: .unguided)
        let g = try ParkingSimulation.run(network, trips: trips, strategy: .guided)
        #expect(u.fullLotArrivals == 0 && u.parked == 30)
        #expect(u.meanCruiseSeconds == 0 && u.extraVehicleKm == 0)
        #expect(g.meanCruiseSeconds == 0 && g.extraVehicleKm == 0)
        #expect(u.meanSearchSeconds > 0 && u.meanSearchSeconds < 60, "only the in-lot search of a lot never full: \(u.meanSearchSeconds)")
    }

    @Test("the demand is deterministic for a seed and refuses nonsense")
    func demand() throws {
        let a = try ParkingDemand.day(origins: 2, destinationWeights: [1, 3], totalCapacity: 500, seed: 9)
        let b = try ParkingDemand.day(origins: 2, destinationWeights: [1, 3], totalCapacity: 500, seed: 9)
        #expect(a == b)
        #expect(a.allSatisfy { $0.stay >= 1800 && $0.stay <= 4 * 3600 && (0...1).contains($0.origin) })
        #expect(throws: ParkingError.self) { try ParkingDemand.day(origins: 1, destinationWeights: [0], totalCapacity: 10) }
        #expect(throws: ParkingError.self) { try ParkingDemand.day(origins: 1, destinationWeights: [1], totalCapacity: 10, drivers: 0) }
    }
}
