import Foundation
import GeoCore

/// The store's job table: process runs that a server submits and any worker sharing the store
/// (the server's in-process runner, or `citytwin worker` processes on PostGIS) claims, runs and
/// finishes. Both backends implement it with the same behaviour; a job is claimed by exactly
/// one worker (SpatiaLite: an immediate transaction; PostGIS: `FOR UPDATE SKIP LOCKED`).
///
/// Life of a job: `accepted` → (`claimNextJob` / `claimJob`) `running` → (`finishJob`)
/// `successful` or `failed` (or, from a stopping worker, `returnJob` → `accepted` again); `dismissJob` moves any state to `dismissed`, drops the result,
/// and makes the running worker's next `reportProgress` answer `false`.
public protocol JobStore: Sendable {
    /// The time this store's job table reads (the wall clock unless a test advanced it).
    var jobClock: JobClock { get }

    /// Adds an `accepted` job for `process` acting for `caller`.
    func submitJob(process: String, inputs: JSONValue, caller: Caller) async throws -> JobRecord

    /// Adds an `accepted` job with the given `id` unless a job with that id exists already; the
    /// job with `id` as it is now (the existing one untouched). A parent job's children
    /// (`JobFanOut`) have ids derived from the parent's, so a worker that takes the parent over
    /// finds the children its dead predecessor submitted instead of submitting them twice.
    func submitJob(id: String, process: String, inputs: JSONValue, caller: Caller) async throws -> JobRecord

    /// The job with `id` (any status, dismissed included), or `nil`.
    func job(id: String) async throws -> JobRecord?

    /// Jobs `caller` may see (`JobRecord.isVisible(to:)`), newest first, dismissed ones left out.
    /// - Parameter limit: at most this many (1…10,000).
    func jobs(visibleTo caller: Caller, limit: Int) async throws -> [JobRecord]

    /// Claims the oldest job of one of `processes` for `worker` (status `running`): an `accepted`
    /// one, or a `running` one whose worker has not reported for `lease` (it died: its job is
    /// taken over, and the old worker's later reports and outcome are refused); `nil` when there
    /// is none. Concurrent claimers never get the same job.
    func claimNextJob(worker: String, processes: [String], lease: Duration) async throws -> JobRecord?

    /// Renews `worker`'s lease on a running job without changing its progress. `false` when the
    /// job is no longer running for `worker` (dismissed, or taken over after a lapsed lease).
    func renewLease(jobID: String, worker: String) async throws -> Bool

    /// Claims the `accepted` job `id` for `worker`; `nil` when another worker has it or it was dismissed.
    func claimJob(id: String, worker: String) async throws -> JobRecord?

    /// Hands a job `worker` runs back to the queue (`accepted`, unclaimed, progress 0), for the
    /// next worker to claim at once instead of after the lease: a worker stopping (SIGTERM) does
    /// this with the job it cancelled. `false` when the job no longer runs for `worker`.
    func returnJob(id: String, worker: String) async throws -> Bool

    /// Records the progress (percent, clamped to 0…100) of a job `worker` runs. `false` when the
    /// job is no longer running for `worker` (dismissed): the worker should stop.
    func reportProgress(jobID: String, worker: String, percent: Double) async throws -> Bool

    /// Ends a job `worker` runs with its outcome (progress 100 when successful). `false` when the
    /// job was dismissed meanwhile: the outcome is dropped.
    func finishJob(id: String, worker: String, outcome: JobOutcome) async throws -> Bool

    /// Dismisses a job that is not yet dismissed; the record as it is now, or `nil` when there is
    /// no such job or it was already dismissed.
    func dismissJob(id: String) async throws -> JobRecord?
}

extension JobStore {
    /// How long a running job's worker may stay silent before another worker takes the job over.
    /// Workers renew it every third of that (`ProcessWorker`).
    public static var defaultLease: Duration { .seconds(300) }

    /// `claimNextJob(worker:processes:lease:)` with the default lease.
    public func claimNextJob(worker: String, processes: [String]) async throws -> JobRecord? {
        try await claimNextJob(worker: worker, processes: processes, lease: Self.defaultLease)
    }

    /// The `updated_at` (microseconds since 1970) before which a running job's lease has lapsed.
    static func lapsedBefore(_ now: Int64, lease: Duration) -> Int64 {
        let (seconds, attoseconds) = lease.components
        return now - seconds * 1_000_000 - attoseconds / 1_000_000_000_000
    }

    static func checkLimit(_ limit: Int) throws {
        guard (1...FeatureQuery.maximumLimit).contains(limit) else {
            throw StoreError(.invalidQuery, "limit must be between 1 and \(FeatureQuery.maximumLimit)", field: "limit")
        }
    }

    static func clamp(_ percent: Double) -> Double {
        percent.isFinite ? min(100, max(0, percent)) : 0
    }
}
