/// One occupancy reading of a lot as a feed reports it: vehicles present at a local time.
public struct OccupancyObservation: Sendable, Hashable, Codable {
    /// The lot's id (Birmingham's `SystemCodeNumber`, the district's `parking_lots` id).
    public var lot: String
    /// Local clock time (``LocalClock``), seconds.
    public var time: Double
    /// Vehicles present.
    public var occupied: Int

    public init(lot: String, time: Double, occupied: Int) {
        self.lot = lot
        self.time = time
        self.occupied = occupied
    }
}

/// How readings outside [0, capacity] are treated, and what a cleaning did to a batch. Feeds do report
/// impossible counts (Birmingham: 373 rows above capacity, 12 negative): they are never silently kept.
public struct OccupancyCleaning: Sendable, Hashable, Codable {
    /// Occupancy rate a reading is clipped to when it exceeds it (1.0: never above capacity; the
    /// Birmingham baselines of the reference clip at 1.2 because those lots do overfill).
    public var maximumRate: Double

    public init(maximumRate: Double = 1.0) { self.maximumRate = maximumRate }

    /// What happened to each reading of a batch.
    public struct Report: Sendable, Hashable, Codable {
        /// Readings kept unchanged.
        public var accepted = 0
        /// Readings above `maximumRate` × capacity, kept at that rate.
        public var clipped = 0
        /// Readings above capacity (clipped or not: up to `maximumRate` they are kept as read).
        public var aboveCapacity = 0
        /// Negative readings, dropped.
        public var rejectedNegative = 0
        /// Readings of lots the inventory does not know, dropped.
        public var rejectedUnknownLot = 0
        /// Second readings of a lot at the same time, dropped (the first is kept).
        public var duplicates = 0
        /// The unknown lot ids met (sorted, at most 20), so an operator can fix the feed.
        public var unknownLots: [String] = []

        public init() {}

        /// Readings kept (unchanged or clipped).
        public var kept: Int { accepted + clipped }

        enum CodingKeys: String, CodingKey {
            case accepted, clipped, duplicates
            case aboveCapacity = "above_capacity"
            case rejectedNegative = "rejected_negative"
            case rejectedUnknownLot = "rejected_unknown_lot"
            case unknownLots = "unknown_lots"
        }
    }

    /// Sorts readings into per-lot series of occupancy rates, clipping, rejecting and counting.
    /// - Parameters:
    ///   - observations: readings in any order.
    ///   - capacities: each known lot's capacity (vehicles, > 0).
    public func series(_ observations: [OccupancyObservation], capacities: [String: Int]) -> ([LotOccupancySeries], Report) {
        var report = Report()
        var unknown = Set<String>()
        // Per lot: (reading, clipped?, input order) so duplicates are dropped before counting.
        var byLot: [String: [(reading: OccupancyReading, clipped: Bool, above: Bool, order: Int)]] = [:]
        for (order, o) in observations.enumerated() {
            guard let capacity = capacities[o.lot], capacity > 0 else {
                report.rejectedUnknownLot += 1
                unknown.insert(o.lot)
                continue
            }
            guard o.occupied >= 0 else { report.rejectedNegative += 1; continue }
            let rate = Double(o.occupied) / Double(capacity)
            byLot[o.lot, default: []].append((OccupancyReading(time: o.time, rate: min(rate, maximumRate)),
                                              rate > maximumRate, rate > 1, order))
        }
        var result: [LotOccupancySeries] = []
        for (lot, entries) in byLot {
            var kept: [OccupancyReading] = []
            for e in entries.sorted(by: { ($0.reading.time, $0.order) < ($1.reading.time, $1.order) }) {
                if let last = kept.last, last.time == e.reading.time { report.duplicates += 1; continue }
                if e.clipped { report.clipped += 1 } else { report.accepted += 1 }
                if e.above { report.aboveCapacity += 1 }
                kept.append(e.reading)
            }
            result.append(LotOccupancySeries(lot: lot, capacity: capacities[lot]!, readings: kept))
        }
        report.unknownLots = Array(unknown.sorted().prefix(20))
        return (result.sorted { $0.lot < $1.lot }, report)
    }
}

/// An occupancy rate (vehicles ÷ capacity) at a local time.
public struct OccupancyReading: Sendable, Hashable, Codable {
    /// Local clock time (s).
    public var time: Double
    /// Occupancy rate, 0…``OccupancyCleaning/maximumRate``.
    public var rate: Double

    public init(time: Double, rate: Double) {
        self.time = time
        self.rate = rate
    }
}

/// One lot's cleaned history: readings in time order, one per time.
public struct LotOccupancySeries: Sendable, Hashable, Codable {
    public var lot: String
    /// Spaces (vehicles).
    public var capacity: Int
    public var readings: [OccupancyReading]

    public init(lot: String, capacity: Int, readings: [OccupancyReading]) {
        self.lot = lot
        self.capacity = capacity
        self.readings = readings
    }
}
