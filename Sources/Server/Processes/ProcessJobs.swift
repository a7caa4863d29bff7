import Foundation
import GeoCore
import Logging
import ProcessRuntime
import Scenarios
import TwinStore

/// The jobs of the processes: submitted to the store's job table and, on a SpatiaLite store, run in
/// this process; described as OGC `statusInfo` documents. Shared by the processes, jobs and
/// scenarios routes.
struct ProcessJobs: Sendable {
    let store: any FeatureStore
    let site: SiteLinks
    let processes: ProcessRegistry
    let logger: Logger

    /// The store's job table; every CityTwin store keeps one.
    func table() throws -> any JobStore {
        guard let jobs = store as? any JobStore else {
            throw Problem(.internalError, "this store keeps no jobs")
        }
        return jobs
    }

    /// Whether accepted jobs run in this server process. SpatiaLite: yes (one machine). PostGIS:
    /// no — they wait in the job table for `citytwin worker` processes, which claim them with
    /// `FOR UPDATE SKIP LOCKED` (ARCHITECTURE.md "Scaling out").
    var runsJobsInProcess: Bool { !(store is PostGISStore) }

    /// Submits a job of `process` for `caller` (inputs already validated) and, on a SpatiaLite
    /// store, starts running it in this process; on PostGIS it waits for a `citytwin worker`.
    func submit(_ process: any OGCProcess, _ inputs: [String: JSONValue], caller: Caller) async throws -> JobRecord {
        let jobs = try table()
        let job = try await jobs.submitJob(process: process.id, inputs: .object(inputs), caller: caller)
        if runsJobsInProcess {
            let worker = ProcessWorker(name: "server-\(ProcessInfo.processInfo.processIdentifier)", store: store, jobs: jobs,
                                       registry: processes, logger: logger)
            let logger = logger
            Task.detached {
                do {
                    if let claimed = try await jobs.claimJob(id: job.id, worker: worker.name) {
                        try await worker.run(claimed)
                    }
                } catch {
                    logger.error("job failed to run", metadata: ["job": .string(job.id), "error": .string(String(describing: error))])
                }
            }
        }
        return job
    }

    /// The OGC `statusInfo` document of a job.
    func statusInfo(_ job: JobRecord) -> JSONValue {
        var o: [String: JSONValue] = [
            "jobID": .string(job.id), "processID": .string(job.process), "type": "process",
            "status": .string(job.status.rawValue), "progress": .integer(Int64(job.progress.rounded(.down))),
            "created": .string(Self.timestamp(job.created)), "updated": .string(Self.timestamp(job.updated)),
        ]
        if let message = job.message { o["message"] = .string(message) }
        var links = [site.link("/jobs/\(job.id)", rel: "self", type: MediaTypeName.json, title: "This job's status")]
        if job.status == .successful {
            links.append(site.link("/jobs/\(job.id)/results", rel: "http://www.opengis.net/def/rel/ogc/1.0/results",
                                   type: MediaTypeName.json, title: "The job's results"))
        }
        o["links"] = .array(links)
        return .object(o)
    }

    private static func timestamp(_ date: Date) -> String {
        date.formatted(.iso8601)
    }
}
