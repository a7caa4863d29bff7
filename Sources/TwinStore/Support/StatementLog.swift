import Synchronization

/// The statements a store sends to its database while a recording runs, as sent (SpatiaLite: the
/// SQL with its bound values expanded in place, as SQLite reports it; PostGIS: the query with its
/// bindings). Tests read it to check the plans of the store's own request-path queries (`EXPLAIN`
/// checks, issue 57) without copying the SQL; off unless a recording runs, when it costs one lock
/// per statement.
///
/// Recordings may overlap: a PostGIS pool is shared by the stores of several schemas, and tests
/// on them record at the same time. Each recording gets every statement sent while it runs (the
/// caller keeps those naming its own tables); one recording's start or stop never clears another's.
final class StatementLog<Statement: Sendable>: Sendable {
    /// A running recording, returned by `start()` and handed back to `stop(_:)`.
    struct Recording: Hashable, Sendable { fileprivate let id: Int }

    private struct State {
        var next = 0
        var running: [Int: [Statement]] = [:]
    }
    private let state = Mutex(State())

    /// Starts a recording.
    func start() -> Recording {
        state.withLock { s in
            defer { s.next += 1 }
            s.running[s.next] = []
            return Recording(id: s.next)
        }
    }

    /// Ends `recording` and returns what it holds.
    func stop(_ recording: Recording) -> [Statement] {
        state.withLock { $0.running.removeValue(forKey: recording.id) ?? [] }
    }

    func record(_ statement: @autoclosure () -> Statement) {
        state.withLock { s in
            guard !s.running.isEmpty else { return }
            let value = statement()
            for id in s.running.keys { s.running[id]!.append(value) }
        }
    }
}
