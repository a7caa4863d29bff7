import Emergency
import Foundation
import GeoCore
import NetworkAnalysis
import ParkingSim
import ProcessRuntime
import TwinStore

/// Parking guidance and the guided-vs-unguided day on the store's own road graph: lots from
/// `parking_lots` met at their entrances, drives from the routing graph (contraction hierarchy),
/// walks as straight metres in the district's metric CRS (times a detour factor).
public struct DistrictParking: Sendable {
    public let lots: [StoreParkingLot]
    public let roads: StoreRoadGraph
    /// Each lot's entrance on the roads (nil when it lies beyond the maximum snap distance).
    let access: [RoadAccess?]
    let metricEntrances: [Position]
    /// The graph's highest speed (m/s): no drive covers a straight line faster.
    let fastest: Double
    /// The graph's sweep selection of every lot's access (`RoadGraph.sweepSelection`), for drives to them.
    let sweep: [Int32]
    /// Walking detour over the straight line (street grids: ≈ 1.3).
    public static let walkDetour = 1.3

    public init(lots: [StoreParkingLot], roads: StoreRoadGraph, maximumSnapMetres: Double = StoreRoadGraph.defaultMaximumSnapMetres) throws {
        self.lots = lots
        self.roads = roads
        access = try roads.access(lonLats: lots.map(\.entrance)).map { a in a.flatMap { $0.distance <= maximumSnapMetres ? $0 : nil } }
        metricEntrances = try lots.map { try roads.metric($0.entrance) }
        fastest = (roads.graph.network.lines.map(\.speedKmh).max() ?? 0) / 3.6
        sweep = roads.graph.sweepSelection(reaching: access.compactMap { $0 })
    }

    /// Lots and the driving graph as `caller` reads them.
    public static func load(from store: any FeatureStore, by caller: Caller) async throws -> DistrictParking {
        let lots = try await StoreParkingLot.load(from: store, by: caller)
        let roads = try await EmergencyRoadGraphs.shared.graph(for: store, profile: .driving, by: caller)
        return try DistrictParking(lots: lots, roads: roads)
    }

    func walkMetres(from lot: Int, to metric: Position) -> Double {
        let e = metricEntrances[lot]
        return ((e.x - metric.x) * (e.x - metric.x) + (e.y - metric.y) * (e.y - metric.y)).squareRoot() * Self.walkDetour
    }

    /// Drives (s, m) from a point travelling `heading` (degrees clockwise from north) to every lot:
    /// along the nearest road in that direction (no U-turn at the point), so lots behind it are
    /// reached only round a block. The drive goes on to the road piece's end ahead and from there
    /// over the graph; a lot on the same piece ahead is reached straight along it. Without a usable
    /// direction (the road runs across the heading, or is one-way against it): `legs(from: start)`.
    func legs(from start: RoadAccess, heading: Double, only: Set<Int>? = nil) -> [ParkingLeg?] {
        let network = roads.graph.network
        let (hx, hy) = (sin(heading * .pi / 180), cos(heading * .pi / 180))
        func alignment(_ p: EdgePosition) -> Double {
            let c = network.pieces[p.piece].coordinates
            let (dx, dy) = (c[c.count - 1].x - c[0].x, c[c.count - 1].y - c[0].y)
            let length = (dx * dx + dy * dy).squareRoot()
            return length > 0 ? (dx * hx + dy * hy) / length : 0
        }
        guard let p = start.positions.max(by: { abs(alignment($0)) < abs(alignment($1)) }), abs(alignment(p)) >= 0.5 else {
            return legs(from: start, only: only)
        }
        let piece = network.pieces[p.piece], line = network.lines[Int(piece.line)]
        let forward = alignment(p) > 0
        if line.oneway && !forward { return legs(from: start, only: only) }
        let speed = line.speedKmh / 3.6
        let ahead = forward ? piece.length - p.offset : p.offset
        let end = EdgePosition(piece: p.piece, offset: forward ? piece.length : 0, point: forward ? piece.coordinates[piece.coordinates.count - 1] : piece.coordinates[0])
        var out = legs(from: RoadAccess(end), only: only).map { $0.map { ParkingLeg(seconds: $0.seconds + ahead / speed, metres: $0.metres + ahead) } }
        for (i, a) in access.enumerated() where only?.contains(i) ?? true {
            guard let a else { continue }
            for q in a.positions where q.piece == p.piece && (forward ? q.offset >= p.offset : q.offset <= p.offset) {
                let metres = abs(q.offset - p.offset)
                if out[i].map({ metres / speed < $0.seconds }) ?? true { out[i] = ParkingLeg(seconds: metres / speed, metres: metres) }
            }
        }
        return out
    }

    /// Drives (s, m) from one road access to every lot (or the lots numbered `only`); nil for lots
    /// off the network, unreachable or not asked for.
    func legs(from origin: RoadAccess, only: Set<Int>? = nil) -> [ParkingLeg?] {
        let targets = access.enumerated().compactMap { i, a in (only?.contains(i) ?? true) ? a.map { (i, $0) } : nil }
        let reached = roads.graph.nearest(from: origin, targets: targets.map(\.1), count: targets.count, withRoutes: true, sweeping: sweep)
        var out = [ParkingLeg?](repeating: nil, count: lots.count)
        for r in reached {
            out[targets[r.index].0] = ParkingLeg(seconds: r.seconds, metres: r.route?.metres ?? r.seconds * 8)
        }
        return out
    }

    /// The lots ranked for a trip from `origin` to `destination` (lon/lat).
    /// - Parameters:
    ///   - occupancy: predicted vehicles per lot id at the driver's arrival, given the drive time (s);
    ///     nil for a lot whose availability is unknown.
    ///   - heading: the driver's direction of travel at `origin` (degrees clockwise from north; a
    ///     screen's `heading_deg`): the drive starts along the road that way. nil: either way.
    ///   - drivers: drivers guided at once (capacity feedback).
    ///   - keeping: only these lots' places in the ranking are wanted (a sign's lots): the drives
    ///     routed are theirs and those of the lots that may compete with them; every other lot is
    ///     ranked with a lower bound of its drive (the straight line at the graph's highest speed),
    ///     which puts it at least `negligibleCostGap` behind the best lot, so it moves no kept lot's
    ///     place or share. Their own entries are then bounds, not answers. The routing then depends
    ///     on the lots near the trip, not on the city's size.
    /// - Throws: `ScenarioError` naming `from` or `to` when a point is off the network.
    public func guide(from origin: Position, heading: Double? = nil, to destination: Position, drivers: Int = 1,
                      maximumSnapMetres: Double = StoreRoadGraph.defaultMaximumSnapMetres,
                      settings: GuidanceSettings = GuidanceSettings(), keeping: Set<String>? = nil,
                      occupancy: (StoreParkingLot, Double) -> Double?) throws -> ParkingGuidanceAnswer {
        let start = try roads.access(lonLat: origin, field: "from", maximumMetres: maximumSnapMetres)
        _ = try roads.access(lonLat: destination, field: "to", maximumMetres: maximumSnapMetres)
        let dest = try roads.metric(destination)
        func route(_ only: Set<Int>?) -> [ParkingLeg?] { heading.map { legs(from: start, heading: $0, only: only) } ?? legs(from: start, only: only) }
        func option(_ i: Int, _ leg: ParkingLeg) -> LotOption {
            LotOption(lot: lots[i].id, capacity: lots[i].capacity, driveSeconds: leg.seconds, driveMetres: leg.metres,
                      walkMetres: walkMetres(from: i, to: dest), predictedOccupied: occupancy(lots[i], leg.seconds),
                      pricePerHour: lots[i].pricePerHour)
        }
        var drives: [ParkingLeg?]
        if let keeping, settings.logitTheta > 0, fastest > 0 {
            // Lower bounds of every lot's drive: the straight line between the two points met on the roads.
            let from = try roads.metric(origin)
            let bound: [ParkingLeg?] = lots.indices.map { i in
                guard let a = access[i] else { return nil }
                let e = metricEntrances[i]
                let metres = max(0, ((e.x - from.x) * (e.x - from.x) + (e.y - from.y) * (e.y - from.y)).squareRoot() - start.distance - a.distance)
                return ParkingLeg(seconds: metres / fastest, metres: metres)
            }
            let lowest = lots.indices.compactMap { i in bound[i].map { (i, settings.costBeforeSearch(option(i, $0))) } }
            // The kept lots and the eight cheapest by bound are routed; the cheapest of them, even with
            // every driver sent there, bounds the best lot's cost; then every lot whose bound comes within
            // the negligible gap of that is routed too.
            var routed = Set(lots.indices.filter { keeping.contains(lots[$0].id) })
            routed.formUnion(lowest.sorted { ($0.1, $0.0) < ($1.1, $1.0) }.prefix(8).map(\.0))
            drives = route(routed)
            let best = routed.compactMap { i in drives[i].map { settings.costWithEveryDriver(option(i, $0), drivers: drivers) } }.min()
            if let best {
                let rivals = Set(lowest.filter { $0.1 <= best + settings.negligibleCostGap }.map(\.0)).subtracting(routed)
                if !rivals.isEmpty {
                    let more = route(rivals)
                    for i in rivals { drives[i] = more[i] }
                    routed.formUnion(rivals)
                }
                for i in lots.indices where !routed.contains(i) { drives[i] = bound[i] }
            } else {
                drives = route(nil)
            }
        } else {
            drives = route(nil)
        }
        var options: [LotOption] = []
        var unreachable: [String] = []
        for (i, lot) in lots.enumerated() {
            guard let leg = drives[i] else { unreachable.append(lot.id); continue }
            options.append(option(i, leg))
        }
        let ranked: [RankedLot]
        do { ranked = try ParkingGuidance.rank(options, drivers: drivers, settings: settings) } catch let e as ParkingError {
            throw ScenarioError(.invalidArgument, e.reason, field: e.field)
        }
        return ParkingGuidanceAnswer(ranked: ranked, options: options, unreachable: unreachable, originSnapMetres: start.distance)
    }

    /// A day of `drivers` trips (nil: sized to peak near 90 % of all berths) from the district's edges to
    /// destinations weighted by building floor area, run unguided and guided on the same trips.
    /// `capacityScale` scales every lot's berths (at least 1) and so the default demand: a small day
    /// (0.2: a fifth of the trips) fills the lots as much as the full one.
    public func simulate(destinations: [(position: Position, weight: Double)], drivers: Int?, seed: UInt64 = 17,
                         capacityScale: Double = 1, settings: GuidanceSettings = GuidanceSettings()) throws -> [ParkingSimulationSummary] {
        let s = try scenario(destinations: destinations, drivers: drivers, seed: seed, capacityScale: capacityScale)
        return try ParkingStrategy.allCases.map { try ParkingSimulation.run(s.network, trips: s.trips, strategy: $0, settings: settings) }
    }

    /// The day's scenario the simulation runs (and the SUMO export writes): the lots on the network,
    /// origins on the roads around them, destinations, the drives between them and the trips.
    public func scenario(destinations: [(position: Position, weight: Double)], drivers: Int?, seed: UInt64 = 17,
                         capacityScale: Double = 1) throws -> DistrictParkingScenario {
        guard capacityScale.isFinite, capacityScale > 0, capacityScale <= 10 else {
            throw ScenarioError(.invalidArgument, "must be greater than 0 and at most 10 (got \(capacityScale))", field: "capacityScale")
        }
        var lots = lots
        for i in lots.indices { lots[i].capacity = max(1, Int((Double(lots[i].capacity) * capacityScale).rounded())) }
        let usable = lots.indices.filter { access[$0] != nil }
        guard !usable.isEmpty else { throw ScenarioError(.invalidDistrict, "no parking lot lies on the road network", field: "parking_lots") }
        // Origins: eight points around the lots' extent, 300 m out, met at the nearest road.
        let xs = usable.map { metricEntrances[$0].x }, ys = usable.map { metricEntrances[$0].y }
        let (x0, x1, y0, y1) = (xs.min()! - 300, xs.max()! + 300, ys.min()! - 300, ys.max()! + 300)
        let rim = [(x0, y0), ((x0 + x1) / 2, y0), (x1, y0), (x1, (y0 + y1) / 2), (x1, y1), ((x0 + x1) / 2, y1), (x0, y1), (x0, (y0 + y1) / 2)]
        let origins = rim.compactMap { p in roads.graph.access(to: Position(x: p.0, y: p.1)).map { (Position(x: p.0, y: p.1), $0) } }
        let dests = destinations.compactMap { d -> (RoadAccess, Position, Double)? in
            guard let m = try? roads.metric(d.position), let a = roads.graph.access(to: m), a.distance <= StoreRoadGraph.defaultMaximumSnapMetres else { return nil }
            return (a, m, d.weight)
        }
        guard !origins.isEmpty else { throw ScenarioError(.noRoads, "no road near the district's edge to enter from", field: "roads") }
        guard !dests.isEmpty else { throw ScenarioError(.invalidDistrict, "no destination lies on the road network", field: "destinations") }
        let sim = usable
        func legsToDestinations(from a: RoadAccess) -> [ParkingLeg?] {
            let reached = roads.graph.nearest(from: a, targets: dests.map(\.0), count: dests.count, withRoutes: true)
            var out = [ParkingLeg?](repeating: nil, count: dests.count)
            for r in reached { out[r.index] = ParkingLeg(seconds: r.seconds, metres: r.route?.metres ?? 0) }
            return out
        }
        let network = ParkingScenarioNetwork(
            lots: sim.map { SimulatedLot(id: lots[$0].id, capacity: lots[$0].capacity, pricePerHour: lots[$0].pricePerHour) },
            originToLot: origins.map { o in let l = legs(from: o.1); return sim.map { l[$0] } },
            originToDestination: origins.map { legsToDestinations(from: $0.1) },
            destinationToLot: dests.map { d in let l = legs(from: d.0); return sim.map { l[$0] } },
            lotToLot: sim.map { i in let l = legs(from: access[i]!); return sim.map { l[$0] } },
            walkMetres: dests.map { d in sim.map { walkMetres(from: $0, to: d.1) } })
        let capacity = sim.reduce(0) { $0 + lots[$1].capacity }
        let trips: [ParkingTrip]
        do {
            trips = try ParkingDemand.day(origins: origins.count, destinationWeights: dests.map(\.2), totalCapacity: capacity,
                                          drivers: drivers, seed: seed)
        } catch let e as ParkingError { throw ScenarioError(.invalidArgument, e.reason, field: e.field) }
        return DistrictParkingScenario(network: network, trips: trips, lots: sim.map { lots[$0] }, lotEntrances: sim.map { metricEntrances[$0] },
                                       origins: origins.map(\.0), destinations: dests.map(\.1))
    }
}

/// A day of the district's parking: what ``DistrictParking/simulate(destinations:drivers:seed:settings:)`` runs.
public struct DistrictParkingScenario: Sendable {
    public var network: ParkingScenarioNetwork
    public var trips: [ParkingTrip]
    /// The lots of `network`, in its order, and their entrances in the graph's metric CRS.
    public var lots: [StoreParkingLot]
    public var lotEntrances: [Position]
    /// Origins and destinations in the graph's metric CRS (`trips` index them).
    public var origins: [Position]
    public var destinations: [Position]
}

/// A guidance answer: the ranking and what it was computed from.
public struct ParkingGuidanceAnswer: Sendable {
    public var ranked: [RankedLot]
    public var options: [LotOption]
    /// Lots that cannot be reached from the origin (or lie off the network).
    public var unreachable: [String]
    public var originSnapMetres: Double
}
