import Foundation
import Logging
import PostgresNIO

/// The PostGIS store's postgres-nio client with a bound on the wait for a connection: an
/// operation that gets no connection within `connectionWait` fails with
/// `StoreError(.unavailable)`. The same calls as `PostgresClient` (`query`, `withConnection`,
/// `withTransaction`), so the store's code reads as before.
///
/// Why: with PostgreSQL stopped or unreachable the pool keeps every lease request queued while it
/// retries connecting (for a minute, until its circuit breaker opens), so server requests, the
/// health check and a graceful shutdown waiting for them all hung. Only the wait for a connection
/// is bounded: once a connection is leased, a statement runs as long as it needs (a bulk import,
/// a whole-layer download).
struct PostGISPool: Sendable {
    let client: PostgresClient
    /// How long an operation may wait for a connection (and, for `query`, for the statement's
    /// first answer) before the store reports itself unavailable.
    let connectionWait: Duration
    /// The work running on each connection, given up when it closes (`watching`).
    let closes = ConnectionWatch()
    /// The queries `query` sends while a recording runs (tests' `EXPLAIN` checks).
    let statements = StatementLog<PostgresQuery>()

    init(client: PostgresClient, connectionWait: Duration) {
        self.client = client
        self.connectionWait = connectionWait
    }

    /// `PostgresClient.query`: the lease is cancelled when no connection came within
    /// `connectionWait`. A statement already sent keeps running and its rows stand.
    @discardableResult
    func query(_ query: PostgresQuery, logger: Logger? = nil, file: String = #fileID, line: Int = #line) async throws -> PostgresRowSequence {
        let client = client
        statements.record(query)
        return try await leasing { try await client.query(query, logger: logger, file: file, line: line) }
    }

    /// Runs `operation` (a statement on a leased connection) with the wait bounded by
    /// `connectionWait`, errors that mean the database cannot be reached as `StoreError(.unavailable)`.
    func leasing<T: Sendable>(_ operation: @escaping @Sendable () async throws -> T) async throws -> T {
        do {
            return try await withDeadline(connectionWait, expired: { [connectionWait] in Self.noConnection(within: connectionWait) }, operation)
        } catch {
            if Task.isCancelled { throw CancellationError() }
            throw Self.unavailable(error) ?? error
        }
    }

    /// `PostgresClient.withConnection`: waits at most `connectionWait` for the connection, then
    /// runs `body` on it without a time limit. The lease is held by a task of its own and handed
    /// over, so that only the wait can be cancelled, never `body`'s work.
    ///
    /// While `body` runs, the connection is watched: when PostgreSQL closes it (a restart, a
    /// crash, a terminated session) `body` has `lostConnectionGrace` to end with its own error,
    /// then it is abandoned and `StoreError(.unavailable)` thrown. A statement postgres-nio
    /// writes to a connection that closed a moment before is never answered (the `ROLLBACK` its
    /// `withTransaction` sends after a failed statement, or the next statement of a transaction):
    /// without the watch such a request hung until the client gave up. Nothing is half applied:
    /// PostgreSQL rolls back a transaction whose connection is gone, and a write it committed just
    /// before answers 503 without being acknowledged.
    func withConnection<T: Sendable>(_ body: @escaping @Sendable (PostgresConnection) async throws -> T) async throws -> T {
        let handoff = ConnectionHandoff()
        let (client, wait) = (client, connectionWait)
        // The lease is held by a task of its own until `release`; the shared clock ends the wait.
        let holder = Task {
            do {
                try await client.withConnection { await handoff.hold($0) }
            } catch {
                handoff.fail(Task.isCancelled ? CancellationError() : Self.unavailable(error) ?? error)
            }
        }
        let timer = DeadlineClock.shared.schedule(after: wait) { _ in
            handoff.fail(Self.noConnection(within: wait))  // no effect once the connection was handed over
            return nil
        }
        let connection: PostgresConnection
        do {
            connection = try await withTaskCancellationHandler {
                try await handoff.connection()
            } onCancel: {
                handoff.fail(CancellationError())
            }
            DeadlineClock.shared.cancel(timer)
        } catch {
            DeadlineClock.shared.cancel(timer)
            holder.cancel()  // withdraws the lease request (a connection that comes anyway goes straight back)
            handoff.release()
            throw error
        }
        defer { handoff.release() }
        return try await watching(connection) { try await body(connection) }
    }

    /// How long work on a connection PostgreSQL closed may take to end by itself before it is abandoned.
    static let lostConnectionGrace: Duration = .milliseconds(500)

    /// Runs `work` (on `connection`) in a task of its own and answers with its outcome, or with
    /// `StoreError(.unavailable)` `lostConnectionGrace` after the connection closed if it has not
    /// ended by then. The caller's cancellation is passed on to `work`.
    func watching<T: Sendable>(_ connection: PostgresConnection, _ work: @escaping @Sendable () async throws -> T) async throws -> T {
        let outcome = FirstOutcome<T>()
        let task = Task {
            do { outcome.settle(.success(try await work())) } catch { outcome.settle(.failure(error)) }
        }
        let token = closes.watch(connection) {
            Task {
                try? await Task.sleep(for: Self.lostConnectionGrace)
                if outcome.settle(.failure(StoreError(.unavailable, "the connection to PostgreSQL was lost")), byOperation: false) {
                    task.cancel()
                }
            }
        }
        defer { closes.end(connection, token) }
        return try await withTaskCancellationHandler {
            try await outcome.value()
        } onCancel: {
            task.cancel()
        }
    }

    /// `PostgresClient.withTransaction`: `body` in a transaction on a connection obtained and
    /// watched as `withConnection` does.
    func withTransaction<T: Sendable>(logger: Logger, file: String = #file, line: Int = #line,
                                      _ body: @escaping @Sendable (PostgresConnection) async throws -> T) async throws -> T {
        try await withConnection { connection in
            try await connection.withTransaction(logger: logger, file: file, line: line) { try await body($0) }
        }
    }

    static func noConnection(within wait: Duration) -> StoreError {
        StoreError(.unavailable, "PostgreSQL gave no connection within \(String(format: "%g", wait.seconds)) s (the database is down, unreachable or saturated)")
    }

    /// The `unavailable` error for an error that means the database cannot be reached (a lost
    /// connection, a server shutting down or starting, a closed pool, the pool's circuit breaker),
    /// else `nil`.
    static func unavailable(_ error: any Error) -> StoreError? {
        if let e = error as? StoreError { return e.code == .unavailable ? e : nil }
        if let e = error as? PostgresTransactionError {
            return [e.beginError, e.closureError, e.commitError].lazy.compactMap { $0.flatMap(unavailable) }.first
        }
        if let e = error as? PSQLError {
            switch e.code {
            case .connectionError, .serverClosedConnection, .clientClosedConnection, .uncleanShutdown, .poolClosed:
                return StoreError(.unavailable, "the connection to PostgreSQL was lost (\(e.code))")
            case .server:
                // 08: connection exception; 57P01-57P03: the server is shutting down, crashed or starting.
                guard let state = e.serverInfo?[.sqlState], state.hasPrefix("08") || ["57P01", "57P02", "57P03"].contains(state) else {
                    return nil
                }
                return StoreError(.unavailable, "PostgreSQL cannot serve requests now (\(state): \(e.serverInfo?[.message] ?? "no message"))")
            default:
                return nil
            }
        }
        // postgres-nio's pool reports an open circuit breaker (connections failing for a minute)
        // and a shut-down pool with its own error type, which it does not export.
        if String(describing: type(of: error)) == "ConnectionPoolError" {
            let text = String(describing: error)
            if text.contains("CircuitBreaker") {
                return StoreError(.unavailable, "PostgreSQL cannot be reached (connecting has failed for a minute; still retrying)")
            }
            if text.contains("poolShutdown") { return StoreError(.unavailable, "the store's connection pool is closed") }
        }
        return nil
    }
}

/// Work on pooled connections to be told when its connection closes, with one close callback
/// per connection (a callback per use would pile up on a connection that lives for hours).
final class ConnectionWatch: @unchecked Sendable {
    private let lock = NSLock()
    private var open: Set<PostgresConnection.ID> = []
    private var watchers: [PostgresConnection.ID: [UUID: @Sendable () -> Void]] = [:]

    /// Calls `lost` once `connection` is closed (at once if it is already), unless `end` came first.
    func watch(_ connection: PostgresConnection, _ lost: @escaping @Sendable () -> Void) -> UUID {
        let token = UUID()
        let id = connection.id
        let first = lock.withLock { () -> Bool in
            watchers[id, default: [:]][token] = lost
            return open.insert(id).inserted
        }
        if first {
            connection.closeFuture.whenComplete { [self] _ in
                let callbacks = lock.withLock { () -> [@Sendable () -> Void] in
                    open.remove(id)
                    return Array((watchers.removeValue(forKey: id) ?? [:]).values)
                }
                for callback in callbacks { callback() }
            }
        }
        return token
    }

    /// The work behind `token` ended: no call for it any more.
    func end(_ connection: PostgresConnection, _ token: UUID) {
        lock.withLock {
            watchers[connection.id]?[token] = nil
            if watchers[connection.id]?.isEmpty == true { watchers[connection.id] = nil }
        }
    }
}

/// One connection passed from the task holding its lease to the task using it.
private final class ConnectionHandoff: @unchecked Sendable {
    private let lock = NSLock()
    private var outcome: Result<PostgresConnection, any Error>?
    private var waiter: CheckedContinuation<PostgresConnection, any Error>?
    private var released = false
    private var holder: CheckedContinuation<Void, Never>?

    /// The lease holder: hands `connection` over, then keeps the lease until `release()`
    /// (whether or not its task is cancelled meanwhile).
    func hold(_ connection: PostgresConnection) async {
        settle(.success(connection))
        await withCheckedContinuation { (k: CheckedContinuation<Void, Never>) in
            let done = lock.withLock { () -> Bool in
                if released { return true }
                holder = k
                return false
            }
            if done { k.resume() }
        }
    }

    /// No connection: the user's wait ends with `error` (ignored once a connection was handed over).
    func fail(_ error: any Error) {
        settle(.failure(error))
    }

    private func settle(_ result: Result<PostgresConnection, any Error>) {
        let waiting = lock.withLock { () -> CheckedContinuation<PostgresConnection, any Error>? in
            guard outcome == nil else { return nil }
            outcome = result
            defer { waiter = nil }
            return waiter
        }
        waiting?.resume(with: result)
    }

    /// The user: the connection, or the error that ended the wait.
    func connection() async throws -> PostgresConnection {
        try await withCheckedThrowingContinuation { (k: CheckedContinuation<PostgresConnection, any Error>) in
            let ready = lock.withLock { () -> Result<PostgresConnection, any Error>? in
                if let outcome { return outcome }
                waiter = k
                return nil
            }
            if let ready { k.resume(with: ready) }
        }
    }

    /// The user is done: the holder gives the connection back to the pool.
    func release() {
        let k = lock.withLock { () -> CheckedContinuation<Void, Never>? in
            released = true
            defer { holder = nil }
            return holder
        }
        k?.resume()
    }
}
