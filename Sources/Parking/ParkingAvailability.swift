import Foundation
import GeoCore
import ParkingSim
import TwinStore

/// Live availability of every lot (the `parking_availability` view): the latest reading, its age,
/// the trend and the forecasts at +15/+30/+60/+120 min from the lot's own history up to `at`.
public struct ParkingAvailability: Sendable {
    /// A reading older than this (s) shows as unknown: the district's detectors report every 15 minutes.
    public static let defaultFreshness = 1200.0
    /// Horizons of the forecasts (s).
    public static let horizons: [Double] = [15, 30, 60, 120].map { $0 * 60 }

    /// The instant (local time) the availability is for.
    public var at: Double
    public var lots: [StoreParkingLot]
    /// One per lot, in `lots` order.
    public var forecasts: [LiveOccupancyForecast]
    /// The freshness limit (s) the forecasts were computed with.
    public var freshness: Double = defaultFreshness
    /// What reading the history did: readings above capacity clipped to full, negative ones and
    /// readings of unknown lots left out, each counted.
    public var cleaning = OccupancyCleaning.Report()
    /// Lots whose latest reading counted more vehicles than berths (shown clipped to full and flagged).
    public var aboveCapacity: Set<String> = []

    /// How far (s) a reading may lie in the future of the server's clock and still count as the latest
    /// (a detector's clock a little ahead of the server's does not hide its reading).
    public static let clockSkew = 60.0

    /// The instant availability is judged at, the one rule the live view, the signs, `parking-forecast` and
    /// `parking-guidance` share: `at` when the caller names one, else the server's `clock` (local time),
    /// moved forward to a reading up to ``clockSkew`` ahead of it. A reading older than the freshness limit
    /// at that instant is stale: the lot is unknown, however recent the history's last reading.
    public static func instant(_ at: Double?, clock: Double, history: StoreParkingOccupancy.History) -> Double {
        if let at { return at }
        return max(clock, history.series.compactMap { $0.readings.last(where: { $0.time <= clock + clockSkew })?.time }.max() ?? clock)
    }

    /// The oldest reading that is still fresh at this availability's instant (local time): the cut-off.
    public var freshAfter: Double { at - freshness }

    /// - Parameter at: local time; nil: now, by the server's clock (``instant(_:clock:history:)``), as the
    ///   live view judges it.
    public static func load(lots: [StoreParkingLot], from store: any FeatureStore, at: Double?, freshness: Double = defaultFreshness,
                            by caller: Caller) async throws -> ParkingAvailability {
        // The history and the training of the day are the cost of a query: kept per store and brought up to date.
        guard type(of: store) is AnyClass, try await Histories.readsWhole(store, caller) else {
            return try await compute(lots: lots, from: store, at: at, freshness: freshness, by: caller)
        }
        return try await Histories.shared.availability(lots: lots, in: store, at: at, clock: ParkingLiveView.localTime(), freshness: freshness)
    }

    /// The occupancy history kept in memory once per store (``LiveOccupancyHistory``, read as the
    /// administrator) with the forecast's training of the last day asked, and brought up to date from
    /// the change feed at each query: a query after a few new readings reads those, not the half
    /// million a city holds. The live view and the processes share it; a caller who may not read the
    /// layer, or sees one of its readings' properties masked, reads the store instead. Queries of one
    /// store take turns.
    actor Histories {
        static let shared = Histories()
        /// A store's kept history. A class, so bringing it up to date changes it in place (a copy of half a
        /// million readings costs 30 ms); only the query holding the store's turn (`running`) touches it.
        final class Entry: @unchecked Sendable {
            var history: LiveOccupancyHistory
            /// The last change-feed sequence the history reflects.
            var seen: Int64
            var training: OccupancyForecaster.Training?

            init(history: LiveOccupancyHistory, seen: Int64) {
                self.history = history
                self.seen = seen
            }
        }
        private var entries: [ObjectIdentifier: Entry] = [:]
        private var running: [ObjectIdentifier: Task<ParkingAvailability, any Error>] = [:]
        /// The store each identifier was last seen for: a store freed and another made at its address
        /// starts afresh.
        private var owners: [ObjectIdentifier: Owner] = [:]
        private struct Owner { weak var store: AnyObject? }

        /// Whether `caller` reads the readings as the kept history holds them: the layer readable, and
        /// none of a reading's properties (lot, time, count) masked for it.
        static func readsWhole(_ store: any FeatureStore, _ caller: Caller) async throws -> Bool {
            guard let layer = try await store.layerDefinition(StoreParkingOccupancy.layer, for: caller) else { return false }
            let read: Set<String> = ["lot", "observed_at", "occupied"]
            return layer.sensitive.allSatisfy { !read.contains($0.attribute) || AccessPolicy.seesClearValue(of: $0, in: layer, caller) }
        }

        /// Availability of `lots` at `at` (nil: now by `clock`, ``instant(_:clock:history:)``) from the kept history.
        func availability(lots: [StoreParkingLot], in store: any FeatureStore, at: Double?, clock: Double,
                          freshness: Double) async throws -> ParkingAvailability {
            let key = ObjectIdentifier(store as AnyObject)
            if owners[key]?.store !== (store as AnyObject) {
                entries[key] = nil
                owners[key] = Owner(store: store as AnyObject)
            }
            while let other = running[key] {
                _ = try? await other.value
                if running[key] == other { running[key] = nil }
            }
            let kept = entries[key]
            let task = Task { () throws -> ParkingAvailability in
                let (entry, history) = try await Self.bringUpToDate(kept, lots: lots, in: store)
                let now = instant(at, clock: clock, history: history)
                let day = LocalClock.dayIndex(now)
                if let changed = entry.history.takeEarliestChange(), changed < Double(day) * LocalClock.day { entry.training = nil }
                if entry.training?.fits(history.series, day: day) != true {
                    entry.training = try await BlockingWork.run { ParkingAvailability.training(history, at: now) }
                }
                self.keep(entry, for: key)
                return ParkingAvailability.compute(lots: lots, history: history, at: now, freshness: freshness, training: entry.training!)
            }
            running[key] = task
            defer { if running[key] == task { running[key] = nil } }
            do { return try await task.value } catch {
                entries[key] = nil  // read whole at the next query
                throw error
            }
        }

        private func keep(_ entry: Entry, for key: ObjectIdentifier) { entries[key] = entry }

        private static func bringUpToDate(_ kept: Entry?, lots: [StoreParkingLot],
                                          in store: any FeatureStore) async throws -> (Entry, StoreParkingOccupancy.History) {
            let end = try await store.latestChange()
            let entry: Entry
            if let kept, end > kept.seen {
                // The readings the feed names since; more than the live view reads one by one: the layer again whole.
                var ids = Set<String>(), whole = false
                let since = try await store.follow(since: kept.seen, by: .admin) { events in
                    for e in events where e.layer == StoreParkingOccupancy.layer { ids.insert(e.featureID) }
                    whole = ids.count > ParkingLiveView.Memory.rereadLimit
                    return !whole
                }
                if whole {
                    entry = Entry(history: try await LiveOccupancyHistory.load(from: store, lots: lots, by: .admin), seen: end)
                } else {
                    try await kept.history.reread(ids, from: store, by: .admin)
                    kept.seen = max(since, end)
                    entry = kept
                }
            } else if let kept {
                entry = kept
            } else {
                entry = Entry(history: try await LiveOccupancyHistory.load(from: store, lots: lots, by: .admin), seen: end)
            }
            let history = entry.history.history(lots: lots)
            return (entry, history)
        }
    }

    static func compute(lots: [StoreParkingLot], from store: any FeatureStore, at: Double?, clock: Double = ParkingLiveView.localTime(),
                        freshness: Double, by caller: Caller) async throws -> ParkingAvailability {
        let history = try await StoreParkingOccupancy.read(lots: lots, from: store, by: caller)
        return compute(lots: lots, history: history, at: instant(at, clock: clock, history: history), freshness: freshness)
    }

    /// Every lot's availability and forecasts at local time `now` (``instant(_:clock:history:)``) from a history read from the store.
    static func compute(lots: [StoreParkingLot], history: StoreParkingOccupancy.History, at now: Double, freshness: Double) -> ParkingAvailability {
        compute(lots: lots, history: history, at: now, freshness: freshness, training: training(history, at: now))
    }

    /// What the days before `now`'s taught the forecast (``OccupancyForecaster/Training``).
    static func training(_ history: StoreParkingOccupancy.History, at now: Double) -> OccupancyForecaster.Training {
        OccupancyForecaster.train(history.series, before: LocalClock.dayIndex(now), model: OccupancyForecastModel(horizons: horizons))
    }

    /// The same with a training of `now`'s day for this history's lots (the live view keeps one a day).
    static func compute(lots: [StoreParkingLot], history: StoreParkingOccupancy.History, at now: Double, freshness: Double,
                        training: OccupancyForecaster.Training) -> ParkingAvailability {
        let series = history.series
        let forecasts = OccupancyForecaster.live(series, at: now, horizons: horizons, freshness: freshness, training: training)
        return ParkingAvailability(at: now, lots: lots, forecasts: forecasts, freshness: freshness, cleaning: history.cleaning,
                                   aboveCapacity: history.latestAboveCapacity(at: now))
    }

    /// Predicted vehicles in lot `i` after `seconds`: linear between now and the forecast horizons;
    /// nil when the lot's availability is unknown (no detection, or a stale feed). A lot full now
    /// stays full for arrivals before the first horizon (the spaces that free up by then go to the
    /// drivers already queueing or circling there), so guidance never puts it first on that hope.
    public func predictedOccupied(lot i: Int, after seconds: Double) -> Double? {
        let f = forecasts[i]
        guard !f.stale, let rate = f.rate else { return nil }
        if (Double(f.capacity) * (1 - rate)).rounded() < 1, seconds < Self.horizons[0] { return Double(f.capacity) }
        var points: [(Double, Double)] = [(0, rate)]
        for (h, p) in zip(Self.horizons, f.predicted) { if let p { points.append((h, p)) } }
        var value = points.last!.1
        for k in 1..<max(points.count, 1) where seconds <= points[k].0 {
            let (t0, r0) = points[k - 1], (t1, r1) = points[k]
            value = r0 + (r1 - r0) * (seconds - t0) / (t1 - t0)
            break
        }
        if points.count == 1 { value = rate }
        return min(max(value, 0), 1) * Double(f.capacity)
    }
}
