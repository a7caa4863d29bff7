import Foundation
import GeoCore
import PostgresNIO

/// The job table in PostGIS. `claimNextJob` locks the oldest accepted row with
/// `FOR UPDATE SKIP LOCKED`, so any number of `citytwin worker` processes can claim from one
/// table without ever taking the same job, and without waiting on each other's locks.
extension PostGISStore: JobStore {
    private typealias JobRow = (String, String, String, Double, String, String?, Int64, Int64, String?)
    private static let jobColumns = "id, process, status, progress, inputs, result, created_at, updated_at, claimed_by"

    private func records(_ query: PostgresQuery, limit: Int = .max,
                         where keep: (JobRecord) -> Bool = { _ in true }) async throws -> [JobRecord] {
        try await mapErrors(layer: nil) {
            var out = [JobRecord]()
            for try await r in try await client.query(query, logger: logger).decode(JobRow.self) {
                let job = try JobRecord(id: r.0, process: r.1, status: r.2, progress: r.3, inputs: r.4, result: r.5,
                                        createdAt: r.6, updatedAt: r.7, claimedBy: r.8)
                if out.count < limit, keep(job) { out.append(job) }
            }
            return out
        }
    }

    public func submitJob(process: String, inputs: JSONValue, caller: Caller) async throws -> JobRecord {
        try await submitJob(id: UUID().uuidString.lowercased(), process: process, inputs: inputs, caller: caller)
    }

    public func submitJob(id: String, process: String, inputs: JSONValue, caller: Caller) async throws -> JobRecord {
        let now = RFC3339.microseconds(jobClock.now)
        let text = JobRecord.inputsColumn(inputs, caller: caller)
        _ = try await records("""
            INSERT INTO \(unescaped: schema).jobs (id, process, status, progress, inputs, created_at, updated_at)
            VALUES (\(id), \(process), 'accepted', 0, \(text), \(now), \(now))
            ON CONFLICT (id) DO NOTHING
            RETURNING \(unescaped: Self.jobColumns)
            """)
        guard let job = try await job(id: id) else { throw StoreError(.backend, "job \(id) vanished after its insert") }
        return job
    }

    public func job(id: String) async throws -> JobRecord? {
        try await records("SELECT \(unescaped: Self.jobColumns) FROM \(unescaped: schema).jobs WHERE id = \(id)").first
    }

    public func jobs(visibleTo caller: Caller, limit: Int) async throws -> [JobRecord] {
        try Self.checkLimit(limit)
        return try await records("""
            SELECT \(unescaped: Self.jobColumns) FROM \(unescaped: schema).jobs WHERE status <> 'dismissed'
            ORDER BY created_at DESC, id DESC
            """, limit: limit) { $0.isVisible(to: caller) }
    }

    public func claimNextJob(worker: String, processes: [String], lease: Duration) async throws -> JobRecord? {
        guard !processes.isEmpty else { return nil }
        let now = RFC3339.microseconds(jobClock.now)
        let lapsed = Self.lapsedBefore(now, lease: lease)
        let s = schema
        return try await records("""
            UPDATE \(unescaped: s).jobs SET status = 'running', claimed_by = \(worker), updated_at = \(now)
            WHERE id = (
                SELECT id FROM \(unescaped: s).jobs
                WHERE (status = 'accepted' OR (status = 'running' AND updated_at < \(lapsed))) AND process = ANY(\(processes))
                ORDER BY created_at, id LIMIT 1 FOR UPDATE SKIP LOCKED)
            RETURNING \(unescaped: Self.jobColumns)
            """).first
    }

    public func renewLease(jobID: String, worker: String) async throws -> Bool {
        let now = RFC3339.microseconds(jobClock.now)
        return try await !records("""
            UPDATE \(unescaped: schema).jobs SET updated_at = \(now)
            WHERE id = \(jobID) AND status = 'running' AND claimed_by = \(worker)
            RETURNING \(unescaped: Self.jobColumns)
            """).isEmpty
    }

    public func claimJob(id: String, worker: String) async throws -> JobRecord? {
        let now = RFC3339.microseconds(jobClock.now)
        return try await records("""
            UPDATE \(unescaped: schema).jobs SET status = 'running', claimed_by = \(worker), updated_at = \(now)
            WHERE id = \(id) AND status = 'accepted'
            RETURNING \(unescaped: Self.jobColumns)
            """).first
    }

    public func returnJob(id: String, worker: String) async throws -> Bool {
        let now = RFC3339.microseconds(jobClock.now)
        return try await !records("""
            UPDATE \(unescaped: schema).jobs SET status = 'accepted', claimed_by = NULL, progress = 0, updated_at = \(now)
            WHERE id = \(id) AND status = 'running' AND claimed_by = \(worker)
            RETURNING \(unescaped: Self.jobColumns)
            """).isEmpty
    }

    public func reportProgress(jobID: String, worker: String, percent: Double) async throws -> Bool {
        let now = RFC3339.microseconds(jobClock.now)
        let value = Self.clamp(percent)
        return try await !records("""
            UPDATE \(unescaped: schema).jobs SET progress = \(value), updated_at = \(now)
            WHERE id = \(jobID) AND status = 'running' AND claimed_by = \(worker)
            RETURNING \(unescaped: Self.jobColumns)
            """).isEmpty
    }

    public func finishJob(id: String, worker: String, outcome: JobOutcome) async throws -> Bool {
        let now = RFC3339.microseconds(jobClock.now)
        let status: JobStatus = if case .successful = outcome { .successful } else { .failed }
        let text = JobRecord.resultColumn(outcome)
        return try await !records("""
            UPDATE \(unescaped: schema).jobs
            SET status = \(status.rawValue), result = \(text), updated_at = \(now),
                progress = CASE WHEN \(status.rawValue) = 'successful' THEN 100 ELSE progress END
            WHERE id = \(id) AND status = 'running' AND claimed_by = \(worker)
            RETURNING \(unescaped: Self.jobColumns)
            """).isEmpty
    }

    public func dismissJob(id: String) async throws -> JobRecord? {
        let now = RFC3339.microseconds(jobClock.now)
        return try await records("""
            UPDATE \(unescaped: schema).jobs SET status = 'dismissed', result = NULL, updated_at = \(now)
            WHERE id = \(id) AND status <> 'dismissed'
            RETURNING \(unescaped: Self.jobColumns)
            """).first
    }
}
