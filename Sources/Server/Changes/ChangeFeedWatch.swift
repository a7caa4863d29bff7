import Foundation
import Synchronization
import TwinStore

/// Wakes the change subscribers of one server (`GET /changes`, `/collections/{id}/changes`) when
/// the store's change feed grows: at once after a write through this server (`noteLocalWrite`),
/// and otherwise by ONE read of `latestChange()` every `interval` while anyone listens, whatever
/// their number, so writes by other servers, workers and `citytwin import` on the same store
/// reach them too. Each subscriber also gets a heartbeat every `heartbeat`, so a connection that
/// went away is noticed (the write fails) and an idle proxy or the server's idle timeout never
/// cuts a quiet stream.
final class ChangeFeedWatch: Sendable {
    /// What wakes a subscriber: the feed may have grown, or it is time for a heartbeat.
    enum Wake: Sendable { case changed, heartbeat }

    private struct State {
        var subscribers = [UUID: AsyncStream<Wake>.Continuation]()
        var watching: Task<Void, Never>?
        var lastSeen: Int64?
    }

    private let store: any FeatureStore
    private let state = Mutex(State())
    let interval: Duration
    let heartbeat: Duration

    init(store: any FeatureStore, interval: Duration = .milliseconds(250), heartbeat: Duration = .seconds(15)) {
        self.store = store
        self.interval = interval
        self.heartbeat = heartbeat
    }

    /// Wakes; ended by `end(_:)` or when the consumer stops. Wakes coalesce: a subscriber busy
    /// sending holds at most one pending wake, since it reads the feed to its end anyway.
    func subscribe() -> (id: UUID, wakes: AsyncStream<Wake>) {
        let id = UUID()
        let (stream, continuation) = AsyncStream<Wake>.makeStream(bufferingPolicy: .bufferingNewest(1))
        continuation.onTermination = { [weak self] _ in self?.remove(id) }
        state.withLock { s in
            s.subscribers[id] = continuation
            if s.watching == nil { s.watching = Task { [weak self] in await self?.watch() } }
        }
        return (id, stream)
    }

    /// Ends one subscriber's wakes (its stream then closes): the server is stopping.
    func end(_ id: UUID) {
        let continuation = state.withLock { $0.subscribers.removeValue(forKey: id) }
        continuation?.finish()
    }

    /// A write went through this server: wake every subscriber now.
    func noteLocalWrite() { wakeAll(.changed) }

    var subscriberCount: Int { state.withLock { $0.subscribers.count } }

    private func wakeAll(_ wake: Wake) {
        state.withLock { for c in $0.subscribers.values { c.yield(wake) } }
    }

    private func remove(_ id: UUID) {
        state.withLock { s in
            s.subscribers[id] = nil
            if s.subscribers.isEmpty {
                s.watching?.cancel()
                s.watching = nil
                s.lastSeen = nil
            }
        }
    }

    /// Polls the feed's newest sequence while anyone listens; heartbeats on their own clock.
    private func watch() async {
        var sinceBeat = Duration.zero
        while !Task.isCancelled {
            try? await Task.sleep(for: interval)
            if Task.isCancelled { return }
            sinceBeat += interval
            if sinceBeat >= heartbeat {
                sinceBeat = .zero
                wakeAll(.heartbeat)
            }
            // A store that does not answer now is asked again at the next tick.
            guard let latest = try? await store.latestChange() else { continue }
            let grew = state.withLock { s -> Bool in
                defer { s.lastSeen = latest }
                return s.lastSeen != latest
            }
            if grew { wakeAll(.changed) }
        }
    }
}
