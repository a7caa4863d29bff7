import Foundation
import GeoCore

/// A drive between two places of a parking scenario.
public struct ParkingLeg: Sendable, Hashable, Codable {
    /// Travel time (s) and length along the roads (m).
    public var seconds: Double
    public var metres: Double

    public init(seconds: Double, metres: Double) {
        self.seconds = seconds
        self.metres = metres
    }
}

/// A lot in the simulation.
public struct SimulatedLot: Sendable, Hashable, Codable {
    public var id: String
    public var capacity: Int
    /// CNY per hour.
    public var pricePerHour: Double

    public init(id: String, capacity: Int, pricePerHour: Double) {
        self.id = id
        self.capacity = capacity
        self.pricePerHour = pricePerHour
    }
}

/// The places of a parking scenario and the drives between them (from the road graph; nil when unreachable).
public struct ParkingScenarioNetwork: Sendable {
    public var lots: [SimulatedLot]
    /// Origin o → lot l, origin o → destination d, destination d → lot l, lot → lot.
    public var originToLot: [[ParkingLeg?]]
    public var originToDestination: [[ParkingLeg?]]
    public var destinationToLot: [[ParkingLeg?]]
    public var lotToLot: [[ParkingLeg?]]
    /// Walk from lot l to destination d (m): `walkMetres[d][l]`.
    public var walkMetres: [[Double]]

    public init(lots: [SimulatedLot], originToLot: [[ParkingLeg?]], originToDestination: [[ParkingLeg?]],
                destinationToLot: [[ParkingLeg?]], lotToLot: [[ParkingLeg?]], walkMetres: [[Double]]) {
        self.lots = lots
        self.originToLot = originToLot
        self.originToDestination = originToDestination
        self.destinationToLot = destinationToLot
        self.lotToLot = lotToLot
        self.walkMetres = walkMetres
    }
}

/// One driver: leaves `origin` at `departure` (s after midnight) for `destination`, stays `stay` s.
public struct ParkingTrip: Sendable, Hashable, Codable {
    public var departure: Double
    public var origin: Int
    public var destination: Int
    public var stay: Double

    public init(departure: Double, origin: Int, destination: Int, stay: Double) {
        self.departure = departure
        self.origin = origin
        self.destination = destination
        self.stay = stay
    }
}

/// How drivers find a lot.
public enum ParkingStrategy: String, Sendable, Hashable, Codable, CaseIterable {
    /// Drive to the lot nearest the destination on foot (the one a driver knows), then, finding it
    /// full, to the next nearest to the destination, and so on outward, learning each one's occupancy
    /// only on arrival (remembering the full ones).
    case unguided
    /// Follow the generalised-cost ranking with every lot's occupancy as the guidance last published
    /// it (refreshed every 5 minutes, so it can be out of date) plus the guided drivers already heading
    /// there (the capacity feedback); re-guided from a lot found full.
    case guided
}

/// What a day of one strategy gave.
public struct ParkingSimulationSummary: Sendable, Hashable, Codable {
    public var strategy: ParkingStrategy
    public var drivers: Int
    public var parked: Int
    /// Drivers who gave up (every lot tried, or `maximumTries` full lots met).
    public var rejected: Int
    /// Mean search time of parked drivers (s): driving beyond the direct drive to the lot finally used
    /// (`meanCruiseSeconds`), plus the expected in-lot search at its occupancy on entry.
    public var meanSearchSeconds: Double
    /// Its driving part alone (s): time driven beyond the direct drive from the origin to the lot
    /// finally used (what a traffic simulator without in-lot search, such as SUMO, measures).
    public var meanCruiseSeconds: Double
    /// Vehicle-km driven beyond each driver's direct drive to the lot used (to the destination for
    /// drivers who gave up), all drivers.
    public var extraVehicleKm: Double
    /// Mean walk from lot to destination of parked drivers (m).
    public var meanWalkMetres: Double
    /// Full lots met on arrival, all drivers.
    public var fullLotArrivals: Int
    /// Mean standard deviation of occupancy rates across lots over the busy period (5-min samples
    /// while the mean occupancy is ≥ 50 %): lower is a more even use of the lots.
    public var occupancySpread: Double
    /// Highest occupancy of all lots together (rate) and share of lot × 5-min samples at ≥ 90 %.
    public var peakOccupancy: Double
    public var shareAbove90: Double
    /// Per lot (in the network's order): drivers parked there and their summed search time (s),
    /// for per-lot differences between two days (`compare-scenarios` on parking scenarios).
    /// Not part of the summary's JSON.
    public var lots: [LotDay] = []

    /// One lot's day.
    public struct LotDay: Sendable, Hashable, Codable {
        public var lot: String
        public var parked: Int
        /// Summed search time of the drivers who parked in the lot (s).
        public var searchSeconds: Double
        /// Mean search time of those drivers (s; 0 when nobody parked).
        public var meanSearchSeconds: Double { parked > 0 ? searchSeconds / Double(parked) : 0 }
    }

    enum CodingKeys: String, CodingKey {
        case strategy, drivers, parked, rejected
        case meanSearchSeconds = "mean_search_s", meanCruiseSeconds = "mean_cruise_s", extraVehicleKm = "extra_vehicle_km", meanWalkMetres = "mean_walk_m"
        case fullLotArrivals = "full_lot_arrivals", occupancySpread = "occupancy_spread", peakOccupancy = "peak_occupancy"
        case shareAbove90 = "share_lot_time_above_90"
    }
}

public enum ParkingSimulation {
    /// Full lots a driver meets before giving up.
    public static let maximumTries = 6

    /// Simulates one day of `trips` under `strategy` (event by event: departures, lot arrivals, leaving).
    public static func run(_ network: ParkingScenarioNetwork, trips: [ParkingTrip], strategy: ParkingStrategy,
                           settings: GuidanceSettings = GuidanceSettings()) throws -> ParkingSimulationSummary {
        let lots = network.lots
        for (i, t) in trips.enumerated() {
            guard network.originToDestination.indices.contains(t.origin) else { throw ParkingError(field: "trips[\(i)].origin", "no such origin") }
            guard network.walkMetres.indices.contains(t.destination) else { throw ParkingError(field: "trips[\(i)].destination", "no such destination") }
        }
        enum Event { case depart(Int), arrive(Int, Int), leave(Int) }
        var queue = EventQueue<Event>()
        for (i, t) in trips.enumerated() { queue.push(t.departure, .depart(i)) }
        var occupied = [Int](repeating: 0, count: lots.count)
        var heading = [Int](repeating: 0, count: lots.count)   // guided drivers on their way (the feedback)
        var published = occupied                                // what guidance last published (5-min refresh)
        var drivenSeconds = [Double](repeating: 0, count: trips.count)
        var drivenMetres = [Double](repeating: 0, count: trips.count)
        var tried = [[Int]](repeating: [], count: trips.count)
        var parked = 0, rejected = 0, fullArrivals = 0
        var searchSum = 0.0, cruiseSum = 0.0, walkSum = 0.0, extraMetres = 0.0
        var lotParked = [Int](repeating: 0, count: lots.count), lotSearch = [Double](repeating: 0, count: lots.count)
        var spreadSum = 0.0, spreadSamples = 0, above90 = 0, lotSamples = 0, peak = 0.0
        let totalCapacity = Double(lots.reduce(0) { $0 + $1.capacity })
        var nextSample = 0.0

        func drive(_ trip: Int, _ leg: ParkingLeg, to lot: Int, at time: Double) {
            drivenSeconds[trip] += leg.seconds
            drivenMetres[trip] += leg.metres
            if strategy == .guided { heading[lot] += 1 }
            queue.push(time + leg.seconds, .arrive(trip, lot))
        }
        /// The guided choice from legs to each lot: best generalised cost with space predicted.
        func guide(_ trip: Int, legs: [ParkingLeg?]) -> Int? {
            var options: [LotOption] = [], index: [Int] = []
            for (l, leg) in legs.enumerated() {
                guard let leg, !tried[trip].contains(l) else { continue }
                options.append(LotOption(lot: lots[l].id, capacity: lots[l].capacity, driveSeconds: leg.seconds, driveMetres: leg.metres,
                                         walkMetres: network.walkMetres[trips[trip].destination][l],
                                         predictedOccupied: Double(published[l] + heading[l]), pricePerHour: lots[l].pricePerHour))
                index.append(l)
            }
            guard let best = try? ParkingGuidance.rank(options, settings: settings).first, !best.predictedFull else { return nil }
            return index[options.firstIndex { $0.lot == best.lot }!]
        }
        /// The unguided choice: the untried lot nearest the destination on foot, driven to from `legs`.
        func cruise(_ trip: Int, legs: [ParkingLeg?]) -> Int? {
            let walks = network.walkMetres[trips[trip].destination]
            var best: (Double, Int)?
            for l in lots.indices where legs[l] != nil && !tried[trip].contains(l) {
                if best.map({ (walks[l], l) < $0 }) ?? true { best = (walks[l], l) }
            }
            return best?.1
        }
        func giveUp(_ trip: Int) {
            rejected += 1
            let direct = network.originToDestination[trips[trip].origin][trips[trip].destination]?.metres ?? 0
            extraMetres += max(0, drivenMetres[trip] - direct)
        }
        func next(_ trip: Int, from legs: [ParkingLeg?], at time: Double) {
            guard tried[trip].count < maximumTries,
                  let l = strategy == .guided ? guide(trip, legs: legs) : cruise(trip, legs: legs), let leg = legs[l] else {
                return giveUp(trip)
            }
            drive(trip, leg, to: l, at: time)
        }

        while let (time, event) = queue.pop() {
            while nextSample <= time {
                let rates = lots.indices.map { Double(occupied[$0]) / Double(lots[$0].capacity) }
                let mean = rates.reduce(0, +) / Double(rates.count)
                peak = max(peak, Double(occupied.reduce(0, +)) / totalCapacity)
                if mean >= 0.5 {
                    spreadSum += (rates.reduce(0) { $0 + ($1 - mean) * ($1 - mean) } / Double(rates.count)).squareRoot()
                    spreadSamples += 1
                }
                above90 += rates.filter { $0 >= 0.9 }.count
                lotSamples += rates.count
                published = occupied
                nextSample += 300
            }
            switch event {
            case .depart(let i):
                next(i, from: network.originToLot[trips[i].origin], at: time)
            case .arrive(let i, let l):
                if strategy == .guided { heading[l] -= 1 }
                let t = trips[i]
                if occupied[l] < lots[l].capacity {
                    let inLot = settings.expectedSearch(occupied: Double(occupied[l]), capacity: lots[l].capacity)
                    occupied[l] += 1
                    parked += 1
                    let direct = network.originToLot[t.origin][l] ?? ParkingLeg(seconds: 0, metres: 0)
                    let cruise = max(0, drivenSeconds[i] - direct.seconds)
                    cruiseSum += cruise
                    searchSum += cruise + inLot
                    lotParked[l] += 1
                    lotSearch[l] += cruise + inLot
                    extraMetres += max(0, drivenMetres[i] - direct.metres)
                    walkSum += network.walkMetres[t.destination][l]
                    queue.push(time + inLot + t.stay, .leave(l))
                } else {
                    fullArrivals += 1
                    tried[i].append(l)
                    next(i, from: network.lotToLot[l], at: time)
                }
            case .leave(let l):
                occupied[l] -= 1
            }
        }
        return ParkingSimulationSummary(
            strategy: strategy, drivers: trips.count, parked: parked, rejected: rejected,
            meanSearchSeconds: parked > 0 ? searchSum / Double(parked) : 0, meanCruiseSeconds: parked > 0 ? cruiseSum / Double(parked) : 0,
            extraVehicleKm: extraMetres / 1000,
            meanWalkMetres: parked > 0 ? walkSum / Double(parked) : 0, fullLotArrivals: fullArrivals,
            occupancySpread: spreadSamples > 0 ? spreadSum / Double(spreadSamples) : 0, peakOccupancy: peak,
            shareAbove90: lotSamples > 0 ? Double(above90) / Double(lotSamples) : 0,
            lots: lots.indices.map { ParkingSimulationSummary.LotDay(lot: lots[$0].id, parked: lotParked[$0], searchSeconds: lotSearch[$0]) })
    }
}

/// A time-ordered queue of events (binary heap; ties in insertion order, so runs are reproducible).
struct EventQueue<Event> {
    private var heap: [(time: Double, seq: Int, event: Event)] = []
    private var seq = 0

    mutating func push(_ time: Double, _ event: Event) {
        heap.append((time, seq, event))
        seq += 1
        var i = heap.count - 1
        while i > 0 {
            let p = (i - 1) / 2
            guard (heap[i].time, heap[i].seq) < (heap[p].time, heap[p].seq) else { break }
            heap.swapAt(i, p)
            i = p
        }
    }

    mutating func pop() -> (Double, Event)? {
        guard !heap.isEmpty else { return nil }
        let top = heap[0]
        heap[0] = heap[heap.count - 1]
        heap.removeLast()
        var i = 0
        while true {
            let l = 2 * i + 1, r = l + 1
            var m = i
            if l < heap.count, (heap[l].time, heap[l].seq) < (heap[m].time, heap[m].seq) { m = l }
            if r < heap.count, (heap[r].time, heap[r].seq) < (heap[m].time, heap[m].seq) { m = r }
            if m == i { break }
            heap.swapAt(i, m)
            i = m
        }
        return (top.time, top.event)
    }
}

/// A day's parking demand: departures over the day (a morning and an afternoon peak), destinations
/// drawn by weight, stays of 30 min to 4 h, sized so the lots together peak near `targetPeakOccupancy`.
public enum ParkingDemand {
    /// - Parameters:
    ///   - origins: how many origins (entries to the district) there are; drawn uniformly.
    ///   - destinationWeights: relative attraction of each destination (e.g. floor area; hotspots weigh more).
    ///   - drivers: how many trips; nil sizes the day to `targetPeakOccupancy` of `totalCapacity`.
    public static func day(origins: Int, destinationWeights: [Double], totalCapacity: Int, drivers: Int? = nil,
                           targetPeakOccupancy: Double = 0.9, seed: UInt64 = 17) throws -> [ParkingTrip] {
        guard origins > 0 else { throw ParkingError(field: "origins", "at least one origin is needed") }
        guard !destinationWeights.isEmpty, destinationWeights.allSatisfy({ $0 >= 0 && $0.isFinite }),
              destinationWeights.reduce(0, +) > 0 else {
            throw ParkingError(field: "destinations", "need at least one destination with a positive weight")
        }
        if let n = drivers { guard n > 0 else { throw ParkingError(field: "drivers", "must be positive (got \(n))") } }
        var rng = SplitMix64(seed: seed)
        // Mean stay 2 h; arrivals spread over 07:00–19:00 peaking at 10:00 and 15:00. With a mean stay
        // of 2 h the peak accumulation is about 2 h × the peak arrival rate; the peak rate of this profile
        // is ≈ 1.45 × its mean and the clipped stays average ≈ 1.7 h, so n ≈ target × capacity × 12 h / (1.25 × 2 h)
        // (measured on the district: guided drivers, who are rarely turned away, then peak at ≈ 90 %).
        let n = drivers ?? max(1, Int((targetPeakOccupancy * Double(totalCapacity) * 12 / (1.25 * 2)).rounded()))
        var cumulative: [Double] = []
        var total = 0.0
        for w in destinationWeights { total += w; cumulative.append(total) }
        var trips: [ParkingTrip] = []
        for _ in 0..<n {
            let departure: Double
            switch rng.unit() {
            case ..<0.4: departure = normal(&rng, mean: 10 * 3600, sd: 1.3 * 3600)
            case ..<0.8: departure = normal(&rng, mean: 15 * 3600, sd: 1.5 * 3600)
            default: departure = rng.uniform(7 * 3600, 19 * 3600)
            }
            let x = rng.unit() * total
            let d = cumulative.firstIndex { $0 > x } ?? (cumulative.count - 1)
            let stay = min(max(-2 * 3600 * log1p(-rng.unit()), 1800), 4 * 3600)
            trips.append(ParkingTrip(departure: min(max(departure, 6.5 * 3600), 20 * 3600), origin: rng.integer(0...(origins - 1)),
                                     destination: d, stay: stay))
        }
        return trips.sorted { $0.departure < $1.departure }
    }

    static func normal(_ rng: inout SplitMix64, mean: Double, sd: Double) -> Double {
        let u1 = max(rng.unit(), 1e-12), u2 = rng.unit()
        return mean + sd * (-2 * log(u1)).squareRoot() * cos(2 * Double.pi * u2)
    }
}
