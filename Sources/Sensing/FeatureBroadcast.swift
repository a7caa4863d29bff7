import Foundation
import GeoCore
import Synchronization

/// In-process fan-out of features to Server-Sent Events subscribers: each gets every feature
/// published after it subscribed, and a heartbeat (`nil`) every `heartbeat` while anyone listens,
/// so a subscriber whose connection went away is noticed and dropped even when nothing is
/// published. Used where the publisher is this server (the parking screens, published inside the
/// request that wrote the observation); `AlertFeed` follows the store instead, because alerts are
/// also written by other processes.
public final class FeatureBroadcast: Sendable {
    private struct State {
        var subscribers = [UUID: AsyncStream<Feature?>.Continuation]()
        var beating: Task<Void, Never>?
    }

    private let state = Mutex(State())
    let heartbeat: Duration

    public init(heartbeat: Duration = .seconds(15)) { self.heartbeat = heartbeat }

    public func publish(_ feature: Feature) {
        state.withLock { for c in $0.subscribers.values { c.yield(feature) } }
    }

    /// A stream of published features and heartbeats, ended when the consumer stops (the connection closes).
    public func subscribe() -> AsyncStream<Feature?> {
        let id = UUID()
        let (stream, continuation) = AsyncStream<Feature?>.makeStream(bufferingPolicy: .bufferingNewest(1000))
        continuation.onTermination = { [weak self] _ in self?.unsubscribe(id) }
        state.withLock { s in
            s.subscribers[id] = continuation
            if s.beating == nil {
                let period = heartbeat
                s.beating = Task { [weak self] in
                    while !Task.isCancelled {
                        try? await Task.sleep(for: period)
                        guard let self else { return }
                        self.state.withLock { for c in $0.subscribers.values { c.yield(nil) } }
                    }
                }
            }
        }
        return stream
    }

    private func unsubscribe(_ id: UUID) {
        state.withLock { s in
            s.subscribers[id] = nil
            if s.subscribers.isEmpty {
                s.beating?.cancel()
                s.beating = nil
            }
        }
    }

    public var subscriberCount: Int { state.withLock { $0.subscribers.count } }
}
