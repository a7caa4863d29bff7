import Synchronization

/// At most `limit` writes of a process at once, the rest waiting in line (first come, first
/// served) before they take anything else.
///
/// Why (issue 57): every PostGIS write runs under one lock (`pg_advisory_xact_lock` on the
/// schema's write key, which orders the audit chain and the change feed), so writes run one at
/// a time whatever holds them back. A write waiting for that lock inside PostgreSQL holds a pooled
/// connection while it waits: under the mixed load half of the pool's 8 connections sat in the
/// lock's queue and the reads waited for the rest. With two slots, one write holds the lock and
/// the next waits for it already in its transaction (no round trip lost at the hand-over); the
/// others wait here, holding no connection. The lock stays: it orders the writes of every process
/// on the schema (servers, workers).
final class WriterSlots: Sendable {
    private struct Waiter {
        let id: UInt64
        let turn: CheckedContinuation<Void, any Error>
    }

    private struct State {
        var free: Int
        var line: [Waiter] = []
        var issued: UInt64 = 0
    }

    private let state: Mutex<State>

    /// - Parameter limit: writes at once (at least 1).
    init(limit: Int) {
        state = Mutex(State(free: max(1, limit)))
    }

    /// Runs `body` in a slot, waiting in line for one first, at most `wait` when given: past it
    /// the write leaves the line with `expired()` (a database that is down holds every slot's
    /// write for its whole wait for a connection, and the line behind it must not wait for each
    /// in turn). A task cancelled while it waits leaves the line with `CancellationError`.
    /// Either way nothing of `body` runs.
    func run<T: Sendable>(within wait: Duration?, expired: @escaping @Sendable () -> any Error,
                          _ body: () async throws -> T) async throws -> T {
        try await enter(within: wait, expired: expired)
        defer { leave() }
        return try await body()
    }

    private func enter(within wait: Duration?, expired: @escaping @Sendable () -> any Error) async throws {
        let id = state.withLock { (s: inout State) -> UInt64 in
            s.issued += 1
            return s.issued
        }
        let timer = wait.map { wait in
            DeadlineClock.shared.schedule(after: wait) { [self] _ in
                leaveLine(id)?.turn.resume(throwing: expired())
                return nil
            }
        }
        defer { if let timer { DeadlineClock.shared.cancel(timer) } }
        try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (turn: CheckedContinuation<Void, any Error>) in
                enum Outcome { case enter, wait, cancelled }
                let outcome = state.withLock { (s: inout State) -> Outcome in
                    if s.free > 0, s.line.isEmpty {
                        s.free -= 1
                        return .enter
                    }
                    // A cancellation that came before the waiter joined the line found nothing to remove.
                    if Task.isCancelled { return .cancelled }
                    s.line.append(Waiter(id: id, turn: turn))
                    return .wait
                }
                switch outcome {
                case .enter: turn.resume()
                case .cancelled: turn.resume(throwing: CancellationError())
                case .wait: break
                }
            }
        } onCancel: {
            leaveLine(id)?.turn.resume(throwing: CancellationError())
        }
    }

    /// The waiter `id`, taken out of the line (nil: it has its slot, or never joined).
    private func leaveLine(_ id: UInt64) -> Waiter? {
        state.withLock { (s: inout State) -> Waiter? in
            guard let i = s.line.firstIndex(where: { $0.id == id }) else { return nil }
            return s.line.remove(at: i)
        }
    }

    /// Hands the slot to the first in line, or frees it.
    private func leave() {
        let next = state.withLock { (s: inout State) -> Waiter? in
            if s.line.isEmpty {
                s.free += 1
                return nil
            }
            return s.line.removeFirst()
        }
        next?.turn.resume()
    }
}
