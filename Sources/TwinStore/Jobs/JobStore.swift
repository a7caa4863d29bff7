import Foundation
import GeoCore

/// The store's job table: process runs that a server submits and any worker sharing the store
/// (the server's in-process runner, or `citytwin worker` processes on PostGIS) claims, runs and
/// finishes. Both backends implement it with the same behaviour; a job is claimed by exactly
/// one worker (SpatiaLite: an immediate transaction; PostGIS: `FOR UPDATE SKIP LOCKED`).
///
/// Life of a job: `accepted` → (`claimNextJob` / `claimJob`) `running` → (`finishJob`)
/// `successful` or `failed`; `dismissJob` moves any state to `dismissed`, drops the result,
/// and makes the running worker's next `reportProgress` answer `false`.
public protocol JobStore: Sendable {
    /// Adds an `accepted` job for `process` acting for `caller`.
    func submitJob(process: String, inputs: JSONValue, caller: Caller) async throws -> JobRecord

    /// The job with `id` (any status, dismissed included), or `nil`.
    func job(id: String) async throws -> JobRecord?

    /// Jobs `caller` may see (`JobRecord.isVisible(to:)`), newest first, dismissed ones left out.
    /// - Parameter limit: at most this many (1…10,000).
    func jobs(visibleTo caller: Caller, limit: Int) async throws -> [JobRecord]

    /// Claims the oldest `accepted` job of one of `processes` for `worker` (status `running`);
    /// `nil` when there is none. Concurrent claimers never get the same job.
    func claimNextJob(worker: String, processes: [String]) async throws -> JobRecord?

    /// Claims the `accepted` job `id` for `worker`; `nil` when another worker has it or it was dismissed.
    func claimJob(id: String, worker: String) async throws -> JobRecord?

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
    static func checkLimit(_ limit: Int) throws {
        guard (1...FeatureQuery.maximumLimit).contains(limit) else {
            throw StoreError(.invalidQuery, "limit must be between 1 and \(FeatureQuery.maximumLimit)", field: "limit")
        }
    }

    static func clamp(_ percent: Double) -> Double {
        percent.isFinite ? min(100, max(0, percent)) : 0
    }
}
