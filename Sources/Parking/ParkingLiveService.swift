import Emergency
import Foundation
import GeoCore
import Sensing
import TwinStore

/// Keeps the live parking view (`parking_availability`, the signs' `content`: `ParkingLiveView`) in
/// step with the store and the clock, and pushes what changed to `/parking/events` subscribers.
///
/// A refresh runs when a source layer (lots, occupancy, signs) changed since the last one, or when
/// a live lot's latest reading passes its freshness limit. It is asked for in the request that wrote
/// an observation (after its commit, so a screen hears within that request), before every read of
/// the view's layers (items, tiles), and every second while anyone listens to the push feed (edits
/// made by other processes, readings going stale). Refreshes run one at a time.
public actor ParkingLiveService {
    public let store: any FeatureStore
    /// Sign and availability changes for `/parking/events` (the alert feed's machinery).
    public nonisolated let feed = FeatureBroadcast()
    /// The local time (UTC+8) now.
    public nonisolated let clock: @Sendable () -> Double
    /// The last change-feed sequence the view reflects (nil before the first refresh).
    private var seen: Int64?
    /// Local time after which the next live lot turns stale.
    private var due: Double?
    private var follower: Task<Void, Never>?
    private var lastFailure: String?
    /// The signs kept their listed order at the last refresh because the road graph was being
    /// built: the next catch-up after it is built ranks them.
    private var signsAwaitRoads = false
    /// How long a refresh waits for a road graph being built before the signs keep their listed order
    /// (a read of the view waits for its refresh: at 100× the sample the hierarchy takes 40 s).
    static let roadsPatience: Duration = .seconds(1)

    public init(store: any FeatureStore, clock: @escaping @Sendable () -> Double = { ParkingLiveView.localTime() }) {
        self.store = store
        self.clock = clock
    }

    /// Whether a layer is one the view is read from or written to.
    public nonisolated static func concerns(_ layer: String) -> Bool {
        layer == ParkingLiveView.layer || ParkingLiveView.sources.contains(layer)
    }

    /// Refreshes the view if it is behind the store or the clock; publishes what changed. True when
    /// something was written.
    @discardableResult
    public func catchUp() async throws -> Bool {
        let now = clock()
        var needed = seen == nil || (due.map { now > $0 } ?? false)
        if !needed, signsAwaitRoads {
            do {
                needed = try await EmergencyRoadGraphs.shared.graphIfBuilt(for: store, profile: .driving, by: .admin, patience: .zero) != nil
            } catch {
                // The build failed: the signs keep their listed order until the view's next refresh tries again.
                signsAwaitRoads = false
            }
        }
        if !needed, let s = seen {
            let (touched, latest) = try await store.changes(to: ParkingLiveView.sources, since: s, by: .admin)
            if touched { needed = true } else { seen = latest }
        }
        guard needed else { return false }
        let before = try await store.latestChange()
        let feed = feed
        let update = try await ParkingLiveView.refresh(store, now: now, roadsPatience: Self.roadsPatience) { signs in
            for f in signs { feed.publish(f) }
        }
        due = update.nextTransition.map { $0 + 1 }
        signsAwaitRoads = update.signsAwaitRoads
        // The view's own sign writes are not changes to follow: skip past them unless someone else wrote too.
        let (touched, latest) = try await ownWrites(since: before, signs: Set(update.signs.compactMap { $0.id?.description }))
        seen = touched ? before : latest
        for f in update.availability { feed.publish(f) }
        return !update.signs.isEmpty || !update.availability.isEmpty
    }

    /// Walks the change feed after `sequence`: whether a source layer changed other than by the
    /// refresh's own writes to `signs`, and the last sequence.
    private func ownWrites(since sequence: Int64, signs: Set<String>) async throws -> (touched: Bool, latest: Int64) {
        var since = sequence, touched = false
        while true {
            let events = try await store.changes(since: since, limit: 10_000, by: .admin)
            guard let last = events.last else { break }
            if events.contains(where: { ParkingLiveView.sources.contains($0.layer) && !($0.layer == ParkingLiveView.signsLayer && signs.contains($0.featureID)) }) {
                touched = true
            }
            since = last.sequence
        }
        return (touched, since)
    }

    /// Follows the store every `period` while the push feed has subscribers.
    public func follow(period: Duration = .seconds(1), onWrite: @escaping @Sendable () -> Void) {
        guard follower == nil else { return }
        follower = Task { [weak self] in
            while !Task.isCancelled {
                try? await Task.sleep(for: period)
                guard let self else { return }
                if self.feed.subscriberCount == 0 { await self.stopFollowing(); return }
                await self.tick(onWrite)
            }
        }
    }

    private func tick(_ onWrite: @Sendable () -> Void) async {
        do {
            if try await catchUp() { onWrite() }
            lastFailure = nil
        } catch {
            lastFailure = String(describing: error)
        }
    }

    private func stopFollowing() { follower = nil }
}
