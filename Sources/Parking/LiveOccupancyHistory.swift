import Foundation
import GeoCore
import ParkingSim
import TwinStore

/// The occupancy history (`parking_occupancy`) as the live view keeps it in memory: every current
/// reading by feature id, and each lot's cleaned series, brought up to date a few readings at a time
/// from the change feed instead of reading the whole layer again (a city of 1,500 lots holds half a
/// million readings: 5 s a read). What it answers is what ``StoreParkingOccupancy/read(lots:from:by:)``
/// answers on the same store: the same cleaning, per lot, in the store's order (ids in byte order,
/// so of two readings of a lot at one instant the one with the smaller id is kept).
struct LiveOccupancyHistory: Sendable {
    /// One stored reading.
    struct Reading: Sendable, Equatable {
        var lot: String
        /// Local time (s).
        var time: Double
        var occupied: Int
    }

    /// The cleaned series of one lot, and what its cleaning did.
    private struct Cleaned: Sendable {
        var series: LotOccupancySeries?
        var report: OccupancyCleaning.Report
        var above: Set<String>
    }

    /// Current readings by feature id.
    private var readings: [String: Reading] = [:]
    /// Feature ids of each lot's readings.
    private var idsByLot: [String: Set<String>] = [:]
    /// Lots whose cleaned series is out of date.
    private var dirty: Set<String> = []
    private var cleaned: [String: Cleaned] = [:]
    private var capacities: [String: Int] = [:]

    /// The earliest local time of a reading added, changed or removed since ``takeEarliestChange()``.
    private var earliestChange: Double?

    /// Reads the whole layer (`caller` reads it as the view's sources are read: as the administrator).
    static func load(from store: any FeatureStore, lots: [StoreParkingLot], by caller: Caller) async throws -> LiveOccupancyHistory {
        var history = LiveOccupancyHistory()
        history.setLots(lots)
        guard try await store.layerDefinition(StoreParkingOccupancy.layer, for: caller) != nil else { return history }
        let query = FeatureQuery(properties: ["lot", "observed_at", "occupied"], limit: 10_000)
        for try await f in store.stream(layer: StoreParkingOccupancy.layer, query, by: caller) {
            guard let id = f.id?.description else { continue }
            history.set(id, Self.reading(f))
        }
        history.earliestChange = nil
        return history
    }

    /// Reads again the features `ids` of the layer (changed or ended since the history was read).
    mutating func reread(_ ids: Set<String>, from store: any FeatureStore, by caller: Caller) async throws {
        guard try await store.layerDefinition(StoreParkingOccupancy.layer, for: caller) != nil else {
            for id in ids { set(id, nil) }
            return
        }
        for id in ids.sorted() {
            set(id, try await store.feature(layer: StoreParkingOccupancy.layer, id: id, by: caller).flatMap(Self.reading))
        }
    }

    /// A stored feature as a reading; nil when it is not one (no lot, an unreadable time or count),
    /// as the store's reader leaves it out.
    static func reading(_ f: Feature) -> Reading? {
        guard let lot = f.properties["lot"]?.stringValue, let at = f.properties["observed_at"]?.stringValue,
              let t = StoreParkingOccupancy.localTime(iso: at), let occupied = f.properties["occupied"]?.integerValue else { return nil }
        return Reading(lot: lot, time: t, occupied: Int(occupied))
    }

    /// The lots the history is cleaned against (their capacities clip the readings; a reading of a lot
    /// not among them is left out and counted).
    mutating func setLots(_ lots: [StoreParkingLot]) {
        let next = Dictionary(uniqueKeysWithValues: lots.map { ($0.id, $0.capacity) })
        guard next != capacities else { return }
        for lot in Set(capacities.keys).union(next.keys) where capacities[lot] != next[lot] { dirty.insert(lot) }
        capacities = next
        // A changed capacity changes every rate of the lot, in every day the forecast learnt from.
        earliestChange = -.infinity
    }

    private mutating func set(_ id: String, _ reading: Reading?) {
        let old = readings[id]
        guard old != reading else { return }
        if let old {
            idsByLot[old.lot]?.remove(id)
            if idsByLot[old.lot]?.isEmpty == true { idsByLot[old.lot] = nil }
            dirty.insert(old.lot)
            earliestChange = min(earliestChange ?? old.time, old.time)
        }
        if let reading {
            idsByLot[reading.lot, default: []].insert(id)
            dirty.insert(reading.lot)
            earliestChange = min(earliestChange ?? reading.time, reading.time)
        }
        readings[id] = reading
    }

    /// The earliest local time of a reading changed since the last call (nil: none; −∞: a lot's
    /// capacity changed), and forgets it.
    mutating func takeEarliestChange() -> Double? {
        defer { earliestChange = nil }
        return earliestChange
    }

    /// The history of `lots` (in their order; lots without readings have empty series), cleaned as
    /// every reading path cleans.
    mutating func history(lots: [StoreParkingLot]) -> StoreParkingOccupancy.History {
        setLots(lots)
        let cleaning = OccupancyCleaning(maximumRate: 1)
        for lot in dirty {
            guard let ids = idsByLot[lot] else { cleaned[lot] = nil; continue }
            // The store's order: feature ids in byte order (SQLite's BINARY collation, PostgreSQL's "C").
            let ordered = ids.sorted { $0.utf8.lexicographicallyPrecedes($1.utf8) }
            let observations = ordered.compactMap { readings[$0] }.map { OccupancyObservation(lot: $0.lot, time: $0.time, occupied: $0.occupied) }
            let (series, report) = cleaning.series(observations, capacities: capacities[lot].map { [lot: $0] } ?? [:])
            var above = Set<String>()
            if let c = capacities[lot] { for o in observations where o.occupied > c { above.insert("\(lot)@\(o.time)") } }
            cleaned[lot] = Cleaned(series: series.first, report: report, above: above)
        }
        dirty.removeAll()
        var report = OccupancyCleaning.Report()
        var unknown: [String] = []
        var above = Set<String>()
        for (lot, c) in cleaned {
            report.accepted += c.report.accepted
            report.clipped += c.report.clipped
            report.aboveCapacity += c.report.aboveCapacity
            report.rejectedNegative += c.report.rejectedNegative
            report.rejectedUnknownLot += c.report.rejectedUnknownLot
            report.duplicates += c.report.duplicates
            if c.report.rejectedUnknownLot > 0 { unknown.append(lot) }
            above.formUnion(c.above)
        }
        report.unknownLots = Array(unknown.sorted().prefix(20))
        let series = lots.map { cleaned[$0.id]?.series ?? LotOccupancySeries(lot: $0.id, capacity: $0.capacity, readings: []) }
        return StoreParkingOccupancy.History(series: series, cleaning: report, above: above)
    }
}
