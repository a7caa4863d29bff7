import Foundation
import TestSupport

/// A PostgreSQL session holding an exclusive lock on a layer's table, so that every read of the
/// layer waits inside PostgreSQL: how the tests put a request or a job "in the middle" of its
/// work for as long as they need, with nothing simulated. `release` ends the session; `abandon` (for a
/// `defer`) kills the client alone, and the server ends the session within 0.1 s of noticing it gone.
struct LayerLock {
    static let psql = "/usr/bin/psql"
    let url: String
    let application: String
    let session: CommandProcess

    /// Holds the lock on `citytwin.f_<layer>` (at most 120 s) once this returns.
    static func hold(_ layer: String, in url: String) async throws -> LayerLock {
        let application = "citytwin-test-lock-\(UUID().uuidString.prefix(8))"
        let session = try await CommandProcess.start(psql, [
            "-X", "-q", "-d", url, "-c", "BEGIN; LOCK TABLE citytwin.f_\(layer) IN ACCESS EXCLUSIVE MODE; SELECT pg_sleep(120);",
        ], baseURL: nil, environment: ["PGAPPNAME": application, "PGOPTIONS": "-c client_connection_check_interval=100"])
        let lock = LayerLock(url: url, application: application, session: session)
        try await OutageHarness.eventually("the lock on citytwin.f_\(layer) is held") {
            try await psqlValue(url, "SELECT count(*) FROM pg_locks l JOIN pg_stat_activity a USING (pid) WHERE a.application_name = '\(application)' AND l.granted AND l.mode = 'AccessExclusiveLock'") != "0"
        }
        return lock
    }

    /// Ends the session (its transaction rolls back, the lock goes).
    func release() async throws {
        _ = try await psqlValue(url, "SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE application_name = '\(application)'")
        session.kill()
    }

    /// Kills the session's client (test clean-up, where nothing can wait): PostgreSQL checks for a
    /// client gone every 0.1 s during the session's sleep, and then rolls it back.
    func abandon() { session.kill() }
}

/// One value from a PostgreSQL database (`psql -At`).
func psqlValue(_ url: String, _ query: String) async throws -> String {
    let psql = try await CommandProcess.run(LayerLock.psql, ["-X", "-At", "-v", "ON_ERROR_STOP=1", "-d", url, "-c", query],
                                            separateErrors: true, within: 120)
    guard psql.exitStatus == 0 else { throw HarnessFailure("psql: \(query) exited \(psql.exitStatus): \(psql.errors)") }
    return psql.output.trimmingCharacters(in: .whitespacesAndNewlines)
}
