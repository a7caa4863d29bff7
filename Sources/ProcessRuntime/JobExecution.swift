import Foundation
import GeoCore
import Logging
import TwinStore

/// Runs claimed jobs: the server's in-process runner and `citytwin worker` share it, so a job
/// runs the same way wherever it is claimed, through `ProcessRegistry.run` (its inputs checked
/// again: a job may run long after it was accepted). Progress goes to the job row; a dismissed job
/// stops at its next progress report; every error ends the job as `failed` with its
/// `JobFailure` (the kind and text a synchronous execution would answer with), and goes to the
/// worker's log with the job id.
public struct ProcessWorker: Sendable {
    /// The name written to `claimed_by`, e.g. `worker-<host>-<pid>`.
    public let name: String
    public let store: any FeatureStore
    public let jobs: any JobStore
    public let registry: ProcessRegistry
    /// How long this worker may go without renewing its claim on a running job before another
    /// worker may take the job over; renewed every third of it while the job runs.
    public let lease: Duration
    /// Where failed jobs' errors go, with the job id, process and worker.
    public let logger: Logger

    public init(name: String, store: any FeatureStore, jobs: any JobStore, registry: ProcessRegistry,
                lease: Duration = .seconds(300), logger: Logger = Logger(label: "citytwin.worker")) {
        self.name = name
        self.store = store
        self.jobs = jobs
        self.registry = registry
        self.lease = lease
        self.logger = logger
    }

    /// A worker over a store that keeps jobs (both backends do); `nil` for one that does not.
    public init?(name: String, store: any FeatureStore, registry: ProcessRegistry, lease: Duration = .seconds(300),
                 logger: Logger = Logger(label: "citytwin.worker")) {
        guard let jobs = store as? any JobStore else { return nil }
        self.init(name: name, store: store, jobs: jobs, registry: registry, lease: lease, logger: logger)
    }

    /// Claims the oldest waiting job of a known process and runs it to its end; the job as it
    /// ended, or `nil` when none was waiting.
    public func runNext() async throws -> JobRecord? {
        guard let job = try await jobs.claimNextJob(worker: name, processes: registry.ids, lease: lease) else { return nil }
        return try await run(job)
    }

    /// Claims and runs jobs until the task is cancelled, waiting `idle` when none is waiting.
    /// - Parameter finished: called with each job as it ended.
    public func run(idle: Duration = .seconds(1), finished: (JobRecord) -> Void = { _ in }) async throws {
        while !Task.isCancelled {
            if let job = try await runNext() {
                finished(job)
            } else {
                try? await Task.sleep(for: idle)
            }
        }
    }

    /// Runs a job this worker has claimed; the job as it ended.
    @discardableResult
    public func run(_ job: JobRecord) async throws -> JobRecord {
        let outcome: JobOutcome
        if registry[job.process] != nil {
            let (jobs, name, id) = (self.jobs, self.name, job.id)
            var inputs = job.inputs.objectValue ?? [:]
            // A child of a fanned-out job (`JobFanOut`) stops when its parent has ended without success.
            let parent = inputs.removeValue(forKey: JobFanOut.parentInput)?.stringValue
            let progress = JobProgress { report in
                guard try await jobs.reportProgress(jobID: id, worker: name, percent: report.percent) else { throw CancellationError() }
                if let parent, let status = try await jobs.job(id: parent)?.status, status == .failed || status == .dismissed {
                    _ = try await jobs.dismissJob(id: id)
                    throw CancellationError()
                }
            }
            // Renew the lease while the process runs, so a long step between progress reports
            // does not look like a dead worker.
            let renewal = Task {
                while !Task.isCancelled {
                    try? await Task.sleep(for: lease / 3)
                    if Task.isCancelled { break }
                    guard (try? await jobs.renewLease(jobID: id, worker: name)) == true else { break }
                }
            }
            defer { renewal.cancel() }
            do {
                let (registry, store) = (self.registry, self.store)
                outcome = .successful(try await JobFanOut.$current.withValue(JobFanOut(jobID: id, worker: self)) {
                    try await registry.run(job.process, inputs: inputs, caller: job.caller, store: store, progress: progress)
                })
            } catch let error where error is CancellationError || Task.isCancelled {
                // Dismissed (its progress report said stop), or this worker is stopping (SIGTERM,
                // SIGINT): a job still running for this worker goes back to the queue for the
                // next worker at once, not after its lease. Outside this task, which is cancelled.
                let returned = Task { try await jobs.returnJob(id: id, worker: name) }
                if try await returned.value {
                    logger.notice("job returned to the queue: its worker is stopping", metadata: [
                        "job": .string(id), "process": .string(job.process), "worker": .string(name)])
                }
                return try await Task { try await jobs.job(id: id) }.value ?? job
            } catch let e as StoreError where e.code == .unavailable {
                throw e  // not the job's fault: it stays claimed, to be taken over when its lease lapses
            } catch {
                outcome = failed(job, JobFailure(error, worker: name), error: error)
            }
        } else {
            let failure = JobFailure(.internal, "this worker does not know process '\(job.process)'")
            outcome = failed(job, failure, error: failure)
        }
        // Recorded even when the worker is stopping meanwhile (outside this task, which may be cancelled).
        let (jobs, name, id) = (self.jobs, self.name, job.id)
        _ = try await Task { try await jobs.finishJob(id: id, worker: name, outcome: outcome) }.value
        return try await Task { try await jobs.job(id: id) }.value ?? job
    }

    /// Logs why `job` failed (the error itself, which the job's failure may only point to) and
    /// returns the outcome to record.
    private func failed(_ job: JobRecord, _ failure: JobFailure, error: any Error) -> JobOutcome {
        logger.error("job failed", metadata: ["job": .string(job.id), "process": .string(job.process), "worker": .string(name),
                                              "failure": .string(failure.kind.rawValue), "error": .string("\(type(of: error)): \(error)")])
        return failure.outcome
    }
}
