/// Runs `operation` for at most `limit`: when it has not returned by then it is cancelled and
/// `expired()` is thrown in place of whatever the cancelled operation throws. An operation that
/// returns a value despite the cancellation (a statement already sent to PostgreSQL does not stop
/// for it) keeps its value: the deadline gives up on waiting, never on work that completed.
///
/// Why: waits that nothing bounds (a postgres-nio pool asked for a connection while PostgreSQL is
/// down queues the request while it keeps reconnecting) honour task cancellation, so cancelling
/// them is how a store or a health check stops waiting. A caller's own cancellation passes through
/// as `CancellationError`.
/// - Parameters:
///   - limit: how long to wait (a `Duration`, e.g. `.seconds(5)`).
///   - expired: the error thrown when the time is up, e.g. `StoreError(.unavailable, …)`.
public func withDeadline<T: Sendable>(_ limit: Duration, expired: @escaping @Sendable () -> any Error,
                                      _ operation: @escaping @Sendable () async throws -> T) async throws -> T {
    try await withThrowingTaskGroup(of: DeadlineOutcome<T>.self) { group in
        group.addTask { .finished(try await operation()) }
        group.addTask {
            try await Task.sleep(for: limit)
            return .timeUp
        }
        var timeUp = false
        do {
            while let outcome = try await group.next() {
                switch outcome {
                case .finished(let value):
                    group.cancelAll()
                    return value
                case .timeUp:
                    timeUp = true
                    group.cancelAll()
                }
            }
        } catch {
            guard timeUp, !Task.isCancelled else { throw error }
        }
        throw expired()
    }
}

/// Which of `withDeadline`'s two tasks ended first.
private enum DeadlineOutcome<T: Sendable>: Sendable {
    case finished(T)
    case timeUp
}

extension Duration {
    /// The duration in seconds (command-line options and messages speak seconds).
    public var seconds: Double {
        Double(components.seconds) + Double(components.attoseconds) / 1e18
    }
}
