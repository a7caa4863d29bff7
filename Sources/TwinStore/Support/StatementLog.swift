import Synchronization

/// The statements a store sends to its database while a recording runs, as sent (SpatiaLite: the
/// SQL with its bound values expanded in place, as SQLite reports it; PostGIS: the query with its
/// bindings). Tests read it to check the plans of the store's own request-path queries (`EXPLAIN`
/// checks, issue 57) without copying the SQL; off unless started, when it costs one lock per statement.
final class StatementLog<Statement: Sendable>: Sendable {
    private let recorded = Mutex<[Statement]?>(nil)

    /// Starts (or restarts) a recording.
    func start() {
        recorded.withLock { $0 = [] }
    }

    /// Ends the recording and returns what it holds.
    func stop() -> [Statement] {
        recorded.withLock { r in
            defer { r = nil }
            return r ?? []
        }
    }

    func record(_ statement: @autoclosure () -> Statement) {
        recorded.withLock { r in
            if r != nil { r!.append(statement()) }
        }
    }
}
