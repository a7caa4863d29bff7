import Foundation
import GeoCore
import GRDB

/// The job table in SpatiaLite. Claims run in `BEGIN IMMEDIATE` transactions, so two
/// processes sharing the file (a server and a `citytwin worker`) cannot claim the same job.
extension SpatiaLiteStore: JobStore {
    static let jobColumns = "id, process, status, progress, inputs, result, created_at, updated_at, claimed_by"

    static func jobRecord(_ row: Row) throws -> JobRecord {
        try JobRecord(id: row[0], process: row[1], status: row[2], progress: row[3], inputs: row[4], result: row[5],
                      createdAt: row[6], updatedAt: row[7], claimedBy: row[8])
    }

    public func submitJob(process: String, inputs: JSONValue, caller: Caller) async throws -> JobRecord {
        try await submitJob(id: UUID().uuidString.lowercased(), process: process, inputs: inputs, caller: caller)
    }

    public func submitJob(id: String, process: String, inputs: JSONValue, caller: Caller) async throws -> JobRecord {
        let now = RFC3339.microseconds(jobClock.now)
        let text = JobRecord.inputsColumn(inputs, caller: caller)
        return try await mapErrors(layer: nil) {
            try await pool.write { db in
                try db.execute(sql: """
                    INSERT OR IGNORE INTO jobs (id, process, status, progress, inputs, created_at, updated_at)
                    VALUES (?, ?, 'accepted', 0, ?, ?, ?)
                    """, arguments: [id, process, text, now, now])
                guard let job = try Self.fetchJob(db, id) else {
                    throw StoreError(.backend, "job \(id) vanished after its insert")
                }
                return job
            }
        }
    }

    private static func fetchJob(_ db: Database, _ id: String) throws -> JobRecord? {
        try Row.fetchOne(db, sql: "SELECT \(jobColumns) FROM jobs WHERE id = ?", arguments: [id]).map(jobRecord)
    }

    public func job(id: String) async throws -> JobRecord? {
        try await mapErrors(layer: nil) {
            try await pool.read { db in try Self.fetchJob(db, id) }
        }
    }

    public func jobs(visibleTo caller: Caller, limit: Int) async throws -> [JobRecord] {
        try Self.checkLimit(limit)
        return try await mapErrors(layer: nil) {
            try await pool.read { db in
                let rows = try Row.fetchCursor(db, sql: """
                    SELECT \(Self.jobColumns) FROM jobs WHERE status <> 'dismissed' ORDER BY created_at DESC, id DESC
                    """)
                var out = [JobRecord]()
                while out.count < limit, let row = try rows.next() {
                    let job = try Self.jobRecord(row)
                    if job.isVisible(to: caller) { out.append(job) }
                }
                return out
            }
        }
    }

    public func claimNextJob(worker: String, processes: [String], lease: Duration) async throws -> JobRecord? {
        guard !processes.isEmpty else { return nil }
        let marks = Array(repeating: "?", count: processes.count).joined(separator: ", ")
        let lapsed = Self.lapsedBefore(RFC3339.microseconds(jobClock.now), lease: lease)
        return try await claim(worker: worker) { db in
            try String.fetchOne(db, sql: """
                SELECT id FROM jobs WHERE (status = 'accepted' OR (status = 'running' AND updated_at < ?)) AND process IN (\(marks))
                ORDER BY created_at, id LIMIT 1
                """, arguments: StatementArguments([lapsed]) + StatementArguments(processes))
        }
    }

    public func renewLease(jobID: String, worker: String) async throws -> Bool {
        let now = RFC3339.microseconds(jobClock.now)
        return try await mapErrors(layer: nil) {
            try await pool.write { db in
                try db.execute(sql: "UPDATE jobs SET updated_at = ? WHERE id = ? AND status = 'running' AND claimed_by = ?",
                               arguments: [now, jobID, worker])
                return db.changesCount == 1
            }
        }
    }

    public func claimJob(id: String, worker: String) async throws -> JobRecord? {
        try await claim(worker: worker) { db in
            try String.fetchOne(db, sql: "SELECT id FROM jobs WHERE id = ? AND status = 'accepted'", arguments: [id])
        }
    }

    /// Picks a job with `pick` and marks it running for `worker`, in one immediate transaction.
    private func claim(worker: String, pick: @escaping @Sendable (Database) throws -> String?) async throws -> JobRecord? {
        let now = RFC3339.microseconds(jobClock.now)
        return try await mapErrors(layer: nil) {
            try await pool.writeWithoutTransaction { db in
                var claimed: JobRecord?
                try db.inTransaction(.immediate) {
                    guard let id = try pick(db) else { return .commit }
                    try db.execute(sql: """
                        UPDATE jobs SET status = 'running', claimed_by = ?, updated_at = ? WHERE id = ? AND status IN ('accepted', 'running')
                        """, arguments: [worker, now, id])
                    if db.changesCount == 1 { claimed = try Self.fetchJob(db, id) }
                    return .commit
                }
                return claimed
            }
        }
    }

    public func returnJob(id: String, worker: String) async throws -> Bool {
        let now = RFC3339.microseconds(jobClock.now)
        return try await mapErrors(layer: nil) {
            try await pool.write { db in
                try db.execute(sql: """
                    UPDATE jobs SET status = 'accepted', claimed_by = NULL, progress = 0, updated_at = ?
                    WHERE id = ? AND status = 'running' AND claimed_by = ?
                    """, arguments: [now, id, worker])
                return db.changesCount == 1
            }
        }
    }

    public func reportProgress(jobID: String, worker: String, percent: Double) async throws -> Bool {
        let now = RFC3339.microseconds(jobClock.now)
        let value = Self.clamp(percent)
        return try await mapErrors(layer: nil) {
            try await pool.write { db in
                try db.execute(sql: """
                    UPDATE jobs SET progress = ?, updated_at = ? WHERE id = ? AND status = 'running' AND claimed_by = ?
                    """, arguments: [value, now, jobID, worker])
                return db.changesCount == 1
            }
        }
    }

    public func finishJob(id: String, worker: String, outcome: JobOutcome) async throws -> Bool {
        let now = RFC3339.microseconds(jobClock.now)
        let status: JobStatus = if case .successful = outcome { .successful } else { .failed }
        let progress = status == .successful ? "100" : "progress"
        let text = JobRecord.resultColumn(outcome)
        return try await mapErrors(layer: nil) {
            try await pool.write { db in
                try db.execute(sql: """
                    UPDATE jobs SET status = ?, result = ?, progress = \(progress), updated_at = ?
                    WHERE id = ? AND status = 'running' AND claimed_by = ?
                    """, arguments: [status.rawValue, text, now, id, worker])
                return db.changesCount == 1
            }
        }
    }

    public func dismissJob(id: String) async throws -> JobRecord? {
        let now = RFC3339.microseconds(jobClock.now)
        return try await mapErrors(layer: nil) {
            try await pool.write { db in
                try db.execute(sql: """
                    UPDATE jobs SET status = 'dismissed', result = NULL, updated_at = ? WHERE id = ? AND status <> 'dismissed'
                    """, arguments: [now, id])
                return db.changesCount == 1 ? try Self.fetchJob(db, id) : nil
            }
        }
    }
}
