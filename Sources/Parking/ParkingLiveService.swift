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
/// made by other processes, readings going stale). Refreshes run one at a time; each reads and
/// computes again only what changed since the last (``ParkingLiveView/Memory``).
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
    /// something was written. A call while a refresh is under way waits for it, then looks again.
    @discardableResult
    public func catchUp() async throws -> Bool {
        while let other = running {
            _ = try? await other.value
            if running == other { running = nil }
        }
        let task = Task { try await self.refreshIfBehind() }
        running = task
        defer { if running == task { running = nil } }
        return try await task.value
    }

    /// The refresh under way.
    private var running: Task<Bool, any Error>?
    /// What the view read and computed at the last refresh, and the features changed since.
    private var memory = ParkingLiveView.Memory.sharingHistory()

    private func refreshIfBehind() async throws -> Bool {
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
        // The change feed up to its end: the features it names on the view's layers are read again.
        let end: Int64
        if let s = seen {
            end = try await note(since: s, ignoring: [:])
            if memory.isBehind { needed = true } else { seen = end }
        } else {
            end = try await store.latestChange()
            memory = ParkingLiveView.Memory.sharingHistory()
        }
        guard needed else { return false }
        let feed = feed
        var memory = memory
        self.memory = ParkingLiveView.Memory.sharingHistory()
        let update: ParkingLiveView.Update
        do {
            update = try await ParkingLiveView.refresh(store, memory: &memory, now: now, roadsPatience: Self.roadsPatience) { signs in
                for f in signs { feed.publish(f) }
            }
        } catch {
            seen = nil  // the next refresh reads everything again
            throw error
        }
        due = update.nextTransition.map { $0 + 1 }
        signsAwaitRoads = update.signsAwaitRoads
        self.memory = memory
        // The view's own writes are not changes to follow; anyone else's after `end` are read at the next refresh.
        var own: [String: Set<String>] = [:]
        own[ParkingLiveView.signsLayer] = Set(update.signs.compactMap { $0.id?.description })
        own[ParkingLiveView.layer] = Set(update.availability.compactMap { $0.id?.description })
        seen = try await note(since: end, ignoring: own)
        for f in update.availability { feed.publish(f) }
        return !update.signs.isEmpty || !update.availability.isEmpty
    }

    /// Walks the change feed after `sequence` to its end, noting in the memory the events on the view's
    /// layers other than `ignoring` (the refresh's own writes, by layer); the last sequence.
    private func note(since sequence: Int64, ignoring own: [String: Set<String>]) async throws -> Int64 {
        var relevant: [ChangeEvent] = []
        let latest = try await store.follow(since: sequence, by: .admin) { events in
            relevant += events.filter { ParkingLiveView.Memory.layers.contains($0.layer) && own[$0.layer]?.contains($0.featureID) != true }
            return true
        }
        memory.note(relevant)
        return latest
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
