import Foundation

/// A lot as guidance weighs it for one trip: what reaching it costs and how full it will be on arrival.
public struct LotOption: Sendable, Hashable, Codable {
    public var lot: String
    /// Spaces (vehicles).
    public var capacity: Int
    /// Drive from the origin to the lot's entrance (s) and its length (m).
    public var driveSeconds: Double
    public var driveMetres: Double
    /// Walk from the lot to the destination (m).
    public var walkMetres: Double
    /// Vehicles predicted in the lot at the driver's arrival (the forecast at the ETA, not the count
    /// now); nil when the lot's availability is unknown (no live detection, or a stale feed).
    public var predictedOccupied: Double?
    /// Price (CNY per hour).
    public var pricePerHour: Double

    public init(lot: String, capacity: Int, driveSeconds: Double, driveMetres: Double, walkMetres: Double,
                predictedOccupied: Double?, pricePerHour: Double) {
        self.lot = lot
        self.capacity = capacity
        self.driveSeconds = driveSeconds
        self.driveMetres = driveMetres
        self.walkMetres = walkMetres
        self.predictedOccupied = predictedOccupied
        self.pricePerHour = pricePerHour
    }
}

/// The weights of the generalised cost (Thompson & Richardson 1998: access, search/wait, price,
/// egress), all in seconds of in-vehicle time.
public struct GuidanceSettings: Sendable, Hashable, Codable {
    /// Walking speed (m/s) and how much a second of walking weighs against a second of driving
    /// (walking is felt as slower: 2 by the usual value-of-time ratios).
    public var walkingSpeed: Double
    public var walkWeight: Double
    /// Weight of a second spent searching or queueing (cruising is disliked more than driving).
    public var searchWeight: Double
    /// Value of time (CNY per hour) to turn the parking fee into seconds, and the stay (h) it is paid for.
    public var valueOfTime: Double
    public var stayHours: Double
    /// Expected in-lot search time at occupancy ρ after arrival: `searchScale` × ρ / (1 − ρ) seconds,
    /// capped at `maximumSearch` (steep near full, as cruising studies report).
    public var searchScale: Double
    public var maximumSearch: Double
    /// Occupancy a lot of unknown availability is assumed to have: near full, so a lot nobody can see
    /// is never recommended as if it were free.
    public var unknownOccupancy: Double
    /// Logit sensitivity θ (1/s) of the capacity feedback's choice shares.
    public var logitTheta: Double

    public init(walkingSpeed: Double = 1.2, walkWeight: Double = 2, searchWeight: Double = 1.5, valueOfTime: Double = 30,
                stayHours: Double = 2, searchScale: Double = 20, maximumSearch: Double = 900, unknownOccupancy: Double = 0.95,
                logitTheta: Double = 0.02) {
        self.walkingSpeed = walkingSpeed
        self.walkWeight = walkWeight
        self.searchWeight = searchWeight
        self.valueOfTime = valueOfTime
        self.stayHours = stayHours
        self.searchScale = searchScale
        self.maximumSearch = maximumSearch
        self.unknownOccupancy = unknownOccupancy
        self.logitTheta = logitTheta
    }

    /// A lot's fee for the stay, in seconds of driving.
    public func priceSeconds(_ pricePerHour: Double) -> Double { pricePerHour * stayHours / valueOfTime * 3600 }

    /// A lot's cost but its search time: the drive, the weighted walk and the fee (s). Search time is
    /// never negative, so this bounds the lot's cost from below in any ranking.
    public func costBeforeSearch(_ o: LotOption) -> Double {
        o.driveSeconds + walkWeight * (o.walkMetres / walkingSpeed) + priceSeconds(o.pricePerHour)
    }

    /// The most a lot can cost in a ranking of `drivers` drivers: its cost with every other driver sent there.
    public func costWithEveryDriver(_ o: LotOption, drivers: Int) -> Double {
        let base = o.predictedOccupied ?? unknownOccupancy * Double(o.capacity)
        let occupied = min(max(base, 0), Double(o.capacity)) + Double(max(drivers - 1, 0))
        return costBeforeSearch(o) + searchWeight * expectedSearch(occupied: occupied, capacity: o.capacity)
    }

    /// How much more than the best lot's cost a lot must cost (s) for its logit share to vanish
    /// against it (below e⁻⁴⁰, under a double's precision): such a lot changes no ranking.
    public var negligibleCostGap: Double { 40 / logitTheta }

    /// Expected search/queue time (s) entering a lot holding `occupied` of `capacity` vehicles: a full
    /// lot (no free space predicted) costs the whole `maximumSearch` plus the drive on to another.
    public func expectedSearch(occupied: Double, capacity: Int) -> Double {
        let free = Double(capacity) - occupied
        guard free >= 1 else { return maximumSearch * 2 }
        let rho = min(max(occupied / Double(capacity), 0), 0.999)
        return min(searchScale * rho / (1 - rho), maximumSearch)
    }
}

/// One lot in a guidance answer.
public struct RankedLot: Sendable, Hashable, Codable {
    public var lot: String
    /// Generalised cost (s of driving) and its parts.
    public var cost: Double
    public var driveSeconds: Double
    public var walkSeconds: Double
    public var searchSeconds: Double
    public var priceSeconds: Double
    /// Predicted free spaces at arrival after the other guided drivers' shares are added; nil when unknown.
    public var predictedFree: Double?
    /// Share of the guided drivers sent here (logit, after the capacity feedback).
    public var share: Double
    /// True when availability is unknown (no live detection or a stale feed): ranked as near full.
    public var availabilityUnknown: Bool
    /// True when no space is predicted at arrival.
    public var predictedFull: Bool

    enum CodingKeys: String, CodingKey {
        case lot, cost, share
        case driveSeconds = "drive_s", walkSeconds = "walk_s", searchSeconds = "search_s", priceSeconds = "price_s"
        case predictedFree = "predicted_free", availabilityUnknown = "availability_unknown", predictedFull = "predicted_full"
    }
}

public enum ParkingGuidance {
    /// Ranks lots by generalised cost for `drivers` drivers guided at once (a screen's approaching
    /// stream, or 1 for one app user). With more than one driver the costs are iterated with the
    /// capacity feedback: each lot's predicted occupancy at arrival gains the drivers the logit shares
    /// send there, costs are recomputed, shares averaged (method of successive averages) until stable,
    /// so one screen does not send everyone to the same lot. Lots come in three tiers, each by cost:
    /// lots with space predicted at arrival, then lots of unknown availability (no live detection or
    /// a stale feed: a lot nobody can see is never put before one known to have space), then lots
    /// predicted full. Apps and screens (`ParkingLiveView`) show this one ranking.
    public static func rank(_ options: [LotOption], drivers: Int = 1, settings: GuidanceSettings = GuidanceSettings(),
                            iterations: Int = 30) throws -> [RankedLot] {
        for (i, o) in options.enumerated() {
            guard o.capacity > 0 else { throw ParkingError(field: "lots[\(i)].capacity", "must be positive (got \(o.capacity))") }
            guard o.driveSeconds.isFinite, o.driveSeconds >= 0, o.walkMetres.isFinite, o.walkMetres >= 0 else {
                throw ParkingError(field: "lots[\(i)]", "drive time and walk distance must be finite and ≥ 0")
            }
            if let p = o.predictedOccupied, !p.isFinite {
                throw ParkingError(field: "lots[\(i)].predicted_occupied", "must be finite")
            }
        }
        guard drivers >= 1 else { throw ParkingError(field: "drivers", "must be at least 1 (got \(drivers))") }
        guard !options.isEmpty else { return [] }
        let extraPerShare = Double(drivers - 1)   // the other drivers; the asking driver is the +1 in `free ≥ 1`
        var shares = [Double](repeating: 1 / Double(options.count), count: options.count)
        func costs(_ shares: [Double]) -> [RankedLot] {
            options.enumerated().map { i, o in
                let base = o.predictedOccupied ?? settings.unknownOccupancy * Double(o.capacity)
                let occupied = min(max(base, 0), Double(o.capacity)) + extraPerShare * shares[i]
                let search = settings.expectedSearch(occupied: occupied, capacity: o.capacity)
                let walk = o.walkMetres / settings.walkingSpeed
                let price = settings.priceSeconds(o.pricePerHour)
                let free = Double(o.capacity) - occupied
                // The terms of `costBeforeSearch` with the search between them, in this order (the answers' last digits).
                return RankedLot(lot: o.lot, cost: o.driveSeconds + settings.walkWeight * walk + settings.searchWeight * search + price,
                                 driveSeconds: o.driveSeconds, walkSeconds: walk, searchSeconds: search, priceSeconds: price,
                                 predictedFree: o.predictedOccupied == nil ? nil : free, share: shares[i],
                                 availabilityUnknown: o.predictedOccupied == nil, predictedFull: free < 1)
            }
        }
        func logit(_ ranked: [RankedLot]) -> [Double] {
            let best = ranked.map(\.cost).min() ?? 0
            let w = ranked.map { r in r.predictedFull ? 0 : Foundation.exp(-settings.logitTheta * (r.cost - best)) }
            let total = w.reduce(0, +)
            return total > 0 ? w.map { $0 / total } : w
        }
        if drivers > 1 {
            for k in 1...iterations {
                let target = logit(costs(shares))
                let step = 1 / Double(k + 1)
                shares = zip(shares, target).map { $0 + step * ($1 - $0) }
            }
        }
        var ranked = costs(shares)
        let final = logit(ranked)
        for i in ranked.indices { ranked[i].share = final[i] }
        func tier(_ r: RankedLot) -> Int { r.predictedFull ? 2 : (r.availabilityUnknown ? 1 : 0) }
        return ranked.sorted { a, b in (tier(a), a.cost, a.lot) < (tier(b), b.cost, b.lot) }
    }
}
