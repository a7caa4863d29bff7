import Foundation

/// A PostgreSQL session holding an exclusive lock on a layer's table, so that every read of the
/// layer waits inside PostgreSQL: how the tests put a request or a job "in the middle" of its
/// work for as long as they need, with nothing simulated. `release` ends the session.
struct LayerLock {
    static let psql = "/usr/bin/psql"
    let url: String
    let application: String
    let session: CommandProcess

    /// Holds the lock on `citytwin.f_<layer>` (at most 120 s) once this returns.
    static func hold(_ layer: String, in url: String) async throws -> LayerLock {
        let application = "citytwin-test-lock-\(UUID().uuidString.prefix(8))"
        let session = try CommandProcess(psql, [
            "-X", "-q", "-d", url, "-c", "BEGIN; LOCK TABLE citytwin.f_\(layer) IN ACCESS EXCLUSIVE MODE; SELECT pg_sleep(120);",
        ], baseURL: nil, environment: ["PGAPPNAME": application])
        let lock = LayerLock(url: url, application: application, session: session)
        try await OutageHarness.eventually("the lock on citytwin.f_\(layer) is held") {
            try psqlValue(url, "SELECT count(*) FROM pg_locks l JOIN pg_stat_activity a USING (pid) WHERE a.application_name = '\(application)' AND l.granted AND l.mode = 'AccessExclusiveLock'") != "0"
        }
        return lock
    }

    /// Ends the session (its transaction rolls back, the lock goes).
    func release() throws {
        _ = try psqlValue(url, "SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE application_name = '\(application)'")
        session.kill()
    }
}

/// One value from a PostgreSQL database (`psql -At`).
func psqlValue(_ url: String, _ query: String) throws -> String {
    let p = Process()
    p.executableURL = URL(fileURLWithPath: LayerLock.psql)
    p.arguments = ["-X", "-At", "-v", "ON_ERROR_STOP=1", "-d", url, "-c", query]
    let out = Pipe()
    p.standardOutput = out
    p.standardError = FileHandle.nullDevice
    try p.run()
    let data = out.fileHandleForReading.readDataToEndOfFile()
    p.waitUntilExit()
    guard p.terminationStatus == 0 else { throw HarnessFailure("psql: \(query) exited \(p.terminationStatus)") }
    return String(decoding: data, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
}
