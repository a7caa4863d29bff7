import Foundation
import Synchronization

/// Runs `operation` for at most `limit`: when it has not returned by then it is cancelled and
/// `expired()` is thrown in place of whatever the cancelled operation throws. An operation that
/// returns a value despite the cancellation within `abandonAfter` more (a statement already sent
/// to PostgreSQL does not stop for it) keeps its value: the deadline gives up on waiting, not on
/// work that completed. One that still has not ended then is abandoned, left to end (or not) in
/// its own task: the caller gets `expired()` at most `limit + abandonAfter` after it asked.
///
/// Why: waits that nothing bounds (a postgres-nio pool asked for a connection while PostgreSQL is
/// down queues the request while it keeps reconnecting) honour task cancellation, so cancelling
/// them is how a store or a health check stops waiting; a statement written to a connection that
/// PostgreSQL closed a moment before (a restart) is never answered and does not honour it, so
/// only abandoning it bounds the wait. A caller's own cancellation passes through as
/// `CancellationError` (at once when the operation does not end when cancelled).
/// - Parameters:
///   - limit: how long to wait (a `Duration`, e.g. `.seconds(5)`).
///   - abandonAfter: how long a cancelled operation may take to end before it is abandoned.
///   - expired: the error thrown when the time is up, e.g. `StoreError(.unavailable, …)`.
public func withDeadline<T: Sendable>(_ limit: Duration, abandonAfter: Duration = .seconds(1),
                                      expired: @escaping @Sendable () -> any Error,
                                      _ operation: @escaping @Sendable () async throws -> T) async throws -> T {
    let outcome = FirstOutcome<T>()
    let work = Task {
        do { outcome.settle(.success(try await operation())) } catch { outcome.settle(.failure(error)) }
    }
    // The time limit is an entry on the shared clock, not a sleeping task of its own (issue 57:
    // one timer task a store query, through dispatch's timer thread, cost about 6 % of `serve`'s CPU).
    let timer = DeadlineClock.shared.schedule(after: limit) { fired in
        if fired == 0 {
            work.cancel()
            return abandonAfter
        }
        outcome.settle(.failure(expired()), byOperation: false)
        return nil
    }
    defer { DeadlineClock.shared.cancel(timer) }
    do {
        return try await withTaskCancellationHandler {
            try await outcome.value()
        } onCancel: {
            work.cancel()
            outcome.settle(.failure(CancellationError()), byOperation: false)
        }
    } catch {
        // The operation's own error after the time was up (its cancellation) reads as the deadline's.
        if !Task.isCancelled, work.isCancelled, outcome.isSettledByOperation { throw expired() }
        throw error
    }
}

/// One clock for every deadline of the process: entries due at an instant, checked by one task
/// that wakes every `tick` while there are entries (and ends when there are none), so that
/// arming and disarming a deadline is a dictionary update under a lock. A deadline fires up to
/// one tick late.
final class DeadlineClock: Sendable {
    /// The process's clock (10 ms ticks).
    static let shared = DeadlineClock(tick: .milliseconds(10))

    /// What an entry does when due, told how many times it was due before: `nil` when done, or
    /// a duration after which it is due again.
    typealias Action = @Sendable (Int) -> Duration?

    private struct Entry {
        var due: ContinuousClock.Instant
        var action: Action
        var fired = 0
    }

    private struct State {
        var entries: [UInt64: Entry] = [:]
        var issued: UInt64 = 0
        var ticking = false
    }

    private let tick: Duration
    private let state = Mutex(State())

    init(tick: Duration) {
        self.tick = tick
    }

    /// Calls `action` (on the clock's task) once `delay` has passed, unless `cancel` came first.
    func schedule(after delay: Duration, _ action: @escaping Action) -> UInt64 {
        let entry = Entry(due: ContinuousClock.now + delay, action: action)
        let (id, start) = state.withLock { (s: inout State) -> (UInt64, Bool) in
            s.issued += 1
            s.entries[s.issued] = entry
            defer { s.ticking = true }
            return (s.issued, !s.ticking)
        }
        if start { Task.detached { await self.run() } }
        return id
    }

    /// Disarms the entry `id` (nothing when it has fired and is done).
    func cancel(_ id: UInt64) {
        _ = state.withLock { $0.entries.removeValue(forKey: id) }
    }

    private func run() async {
        while true {
            try? await Task.sleep(for: tick)
            let now = ContinuousClock.now
            let due = state.withLock { (s: inout State) -> [(UInt64, Entry)] in
                let due = s.entries.filter { $0.value.due <= now }.map { ($0.key, $0.value) }
                for (id, _) in due { s.entries[id] = nil }
                return due
            }
            for (id, entry) in due {
                if let again = entry.action(entry.fired) {
                    state.withLock { $0.entries[id] = Entry(due: now + again, action: entry.action, fired: entry.fired + 1) }
                }
            }
            let stop = state.withLock { (s: inout State) -> Bool in
                if s.entries.isEmpty { s.ticking = false }
                return !s.ticking
            }
            if stop { return }
        }
    }
}

/// The first of several outcomes (an operation's, a timer's, a cancellation's), handed to one waiter.
final class FirstOutcome<T: Sendable>: @unchecked Sendable {
    private let lock = NSLock()
    private var outcome: Result<T, any Error>?
    private var waiter: CheckedContinuation<T, any Error>?
    private var byOperation = false

    /// Whether the operation itself settled it (not a timer or a cancellation).
    var isSettledByOperation: Bool { lock.withLock { byOperation } }

    /// Settles with `result` unless something settled first; `false` then.
    @discardableResult
    func settle(_ result: Result<T, any Error>, byOperation operation: Bool = true) -> Bool {
        let k = lock.withLock { () -> CheckedContinuation<T, any Error>?? in
            guard outcome == nil else { return .none }
            outcome = result
            byOperation = operation
            defer { waiter = nil }
            return .some(waiter)
        }
        guard let k else { return false }
        k?.resume(with: result)
        return true
    }

    /// The outcome, once there is one.
    func value() async throws -> T {
        try await withCheckedThrowingContinuation { (k: CheckedContinuation<T, any Error>) in
            let ready = lock.withLock { () -> Result<T, any Error>? in
                if let outcome { return outcome }
                waiter = k
                return nil
            }
            if let ready { k.resume(with: ready) }
        }
    }
}

extension Duration {
    /// The duration in seconds (command-line options and messages speak seconds).
    public var seconds: Double {
        Double(components.seconds) + Double(components.attoseconds) / 1e18
    }
}
