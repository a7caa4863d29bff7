import Foundation
import Logging
import Synchronization
import TwinStore

/// The change feed read once for every change subscriber of one server (`GET /changes`,
/// `/collections/{id}/changes`) and fanned out to them (issue 78 §9).
///
/// While anyone listens, ONE task follows the store's feed: at once after a write through this
/// server (`noteLocalWrite`), and otherwise when a read of `latestChange()` every `interval` shows
/// it grew, so writes by other servers, workers and `citytwin import` on the same store reach the
/// subscribers too. It reads each page of changes once (as the admin), and for each access class
/// among the subscribers (`Caller.accessClass`: the public, the admin, a department) reads the
/// features as that class may see them and writes each event's text once
/// (`ChangeSubscription.read`); every subscriber of the class is handed the same batch and only
/// picks the events of the collections it follows. A write thus costs one read of the feed and one
/// read and serialisation per class and feature, not per stream (before: each of 2,000 anonymous
/// streams read the feed and the feature and wrote the JSON again, about 0.45 CPU-s a write).
///
/// A subscriber whose own cursor is behind a batch (it started from `since` or `Last-Event-ID`, or
/// fell behind and its oldest batches were dropped: `bufferedBatches`) reads the gap itself
/// before taking the batch, so no stream waits for another. Each subscriber also gets a heartbeat
/// every `heartbeat`, so a connection that went away is noticed (the write fails) and an idle
/// proxy or the server's idle timeout never cuts a quiet stream.
final class ChangeFeedWatch: Sendable {
    /// What a subscriber is handed.
    enum Delivery: Sendable {
        /// The changes after `from` up to `to`, as each access class receives them.
        case batch(ChangeBatch)
        /// Time for a heartbeat.
        case heartbeat
        /// The stream must end, for this reason (its token is no longer valid).
        case end(String)
    }

    /// One page of the feed, read once and prepared per access class.
    struct ChangeBatch: Sendable {
        /// The batch holds every change after `from` up to and including `to`.
        let from: Int64
        let to: Int64
        /// What each access class receives; a class missing here could not be read now (its
        /// subscribers read the batch's range themselves).
        let parts: [Caller: Part]

        struct Part: Sendable {
            /// The events the class may read, in sequence order, each as sent.
            let events: [Event]
            /// The newest change of the batch the class may know of (`ChangeSubscription.read`).
            let position: Int64?
        }

        struct Event: Sendable {
            let sequence: Int64
            let layer: String
            let text: String
        }
    }

    private struct Subscriber {
        let accessClass: Caller
        let continuation: AsyncStream<Delivery>.Continuation
    }

    private struct State {
        var subscribers = [UUID: Subscriber]()
        var watching: Task<Void, Never>?
        var kick: AsyncStream<Void>.Continuation?
        /// Where the shared reading has got to; `nil` until it starts.
        var cursor: Int64?
    }

    private let store: any FeatureStore
    private let state = Mutex(State())
    let interval: Duration
    let heartbeat: Duration
    let logger: Logger
    /// Change-feed rows read per batch.
    let pageSize = 500
    /// Batches a subscriber may have waiting; a slower one drops its oldest and reads the gap itself.
    static let bufferedBatches = 8

    /// `citytwin_change_feed_reads_total{reader="shared"}`, `citytwin_change_events_serialised_total{reader="shared"}`.
    let metrics: ServerMetrics?

    init(store: any FeatureStore, interval: Duration = .milliseconds(250), heartbeat: Duration = .seconds(15),
         metrics: ServerMetrics? = nil, logger: Logger = Logger(label: "citytwin.changes")) {
        self.store = store
        self.metrics = metrics
        self.interval = interval
        self.heartbeat = heartbeat
        self.logger = logger
    }

    /// Deliveries for a subscriber of `accessClass`; ended by `end(_:reason:)` or when the
    /// consumer stops.
    /// - Parameter known: a sequence of the feed the subscriber reads to by itself (the feed's end
    ///   when its request came): when the shared reading starts with this subscriber it starts there,
    ///   so no change after it can fall between the subscriber's own reading and the shared one.
    func subscribe(_ accessClass: Caller, known: Int64) -> (id: UUID, deliveries: AsyncStream<Delivery>) {
        let id = UUID()
        let (stream, continuation) = AsyncStream<Delivery>.makeStream(bufferingPolicy: .bufferingNewest(Self.bufferedBatches))
        continuation.onTermination = { [weak self] _ in self?.remove(id) }
        state.withLock { s in
            if s.cursor == nil { s.cursor = known }
            s.subscribers[id] = Subscriber(accessClass: accessClass.accessClass, continuation: continuation)
            if s.watching == nil {
                let (kicks, kick) = AsyncStream<Void>.makeStream(bufferingPolicy: .bufferingNewest(1))
                s.kick = kick
                s.watching = Task { [weak self] in await self?.watch(kicks) }
            }
        }
        return (id, stream)
    }

    /// Ends one subscriber's deliveries: with `reason`, a last `.end` (its token is no longer
    /// valid); without, at once (the server is stopping).
    func end(_ id: UUID, reason: String? = nil) {
        let continuation = state.withLock { $0.subscribers.removeValue(forKey: id)?.continuation }
        if let reason { continuation?.yield(.end(reason)) }
        continuation?.finish()
    }

    /// A write went through this server: read the feed now.
    func noteLocalWrite() {
        _ = state.withLock { $0.kick?.yield() }
    }

    var subscriberCount: Int { state.withLock { $0.subscribers.count } }

    private func broadcast(_ delivery: Delivery) {
        state.withLock { for s in $0.subscribers.values { s.continuation.yield(delivery) } }
    }

    private func remove(_ id: UUID) {
        state.withLock { s in
            s.subscribers[id] = nil
            if s.subscribers.isEmpty {
                s.watching?.cancel()
                s.watching = nil
                s.kick?.finish()
                s.kick = nil
                s.cursor = nil
            }
        }
    }

    /// Follows the feed while anyone listens: at every kick (a local write) or `interval`,
    /// whichever comes first; heartbeats on their own clock.
    private func watch(_ kicks: AsyncStream<Void>) async {
        let ticker = Task { [interval, weak self] in
            while !Task.isCancelled {
                try? await Task.sleep(for: interval)
                self?.noteLocalWrite()
            }
        }
        defer { ticker.cancel() }
        var nextBeat = ContinuousClock.now + heartbeat
        for await _ in kicks {
            if Task.isCancelled { return }
            if ContinuousClock.now >= nextBeat {
                nextBeat = ContinuousClock.now + heartbeat
                broadcast(.heartbeat)
            }
            // A store that does not answer now is asked again at the next tick.
            guard let latest = try? await store.latestChange() else { continue }
            guard let cursor = state.withLock({ s -> Int64? in
                if s.cursor == nil { s.cursor = latest }
                return s.cursor
            }) else { continue }
            if latest > cursor { await fanOut(from: cursor, to: latest) }
        }
    }

    /// Reads the feed from `cursor` to `latest` in pages, each page once, and hands every
    /// subscriber its class's part.
    private func fanOut(from start: Int64, to latest: Int64) async {
        var cursor = start
        while cursor < latest, !Task.isCancelled {
            let classes = state.withLock { Set($0.subscribers.values.map(\.accessClass)) }
            guard !classes.isEmpty else { return }
            let rows: [ChangeEvent]
            do {
                rows = try await store.changes(since: cursor, limit: pageSize, by: .admin)
            } catch {
                return  // asked again at the next tick, from the same place
            }
            metrics?.count("citytwin_change_feed_reads_total", [("reader", "shared")])
            let to = rows.last?.sequence ?? max(cursor, min(cursor + Int64(pageSize), latest))
            var parts = [Caller: ChangeBatch.Part]()
            if !rows.isEmpty, let definitions = try? await ChangeSubscription.definitions(of: rows, in: store) {
                for accessClass in classes {
                    // A class whose features cannot be read now gets no part: its subscribers read the range themselves.
                    guard let read = try? await ChangeSubscription.read(rows, for: accessClass, definitions: definitions, store: store) else { continue }
                    metrics?.count("citytwin_change_events_serialised_total", [("reader", "shared")], by: read.messages.count)
                    parts[accessClass] = ChangeBatch.Part(
                        events: read.messages.map { ChangeBatch.Event(sequence: $0.event.sequence, layer: $0.event.layer, text: ChangeSubscription.eventText($0)) },
                        position: read.position)
                }
            } else if rows.isEmpty {
                for accessClass in classes { parts[accessClass] = ChangeBatch.Part(events: [], position: nil) }
            }
            broadcast(.batch(ChangeBatch(from: cursor, to: to, parts: parts)))
            cursor = to
            state.withLock { if $0.cursor != nil { $0.cursor = to } }
        }
    }
}
