import Foundation
import GeoCore
import Hummingbird
import ProcessRuntime
import Scenarios
import TwinStore

/// OGC API Processes Part 1 jobs: the list, a job's status and results, dismissal.
struct JobRoutes: OperationCollection {
    let site: SiteLinks
    let jobs: ProcessJobs

    /// OGC API Processes Part 1 jobs: `/jobs` (job-list), `/jobs/{jobId}`, `/jobs/{jobId}/results`,
    /// DELETE `/jobs/{jobId}` (dismiss). A caller sees only its own jobs (its department's, or
    /// the anonymous ones); the admin sees all.
    var operations: [APIOperation] {
        let common = APIResponse.standardProblems
        let noJob = APIResponse.problem(404, "No such job (OGC exception type no-such-job).")
        return [
            APIOperation(
                id: "getJobs", method: .get, path: "/jobs", summary: "The caller's jobs, newest first.",
                tag: "Processes", parameters: [.limit, .f],
                responses: [.ok("The job list.", [(MediaTypeName.json, "JobList"), ("text/html", "HTML")])] + common
            ) { [self] request, context, query in
                let format = try OutputFormat.negotiate(query, request)
                var limit = 100
                if let text = query["limit"] {
                    guard let n = Int(text), n >= 1 else { throw Problem.invalid("limit", "must be an integer ≥ 1") }
                    limit = min(n, FeatureQuery.maximumLimit)
                }
                let list = try await jobs.table().jobs(visibleTo: context.caller, limit: limit)
                let doc: JSONValue = [
                    "jobs": .array(list.map(jobs.statusInfo)),
                    "links": .array(site.selfAndAlternate("/jobs", query: query, format: format, jsonType: MediaTypeName.json)),
                ]
                var answer = format == .html ? Representation.html(DataPages.jobsPage(list, links: doc["links"]?.arrayValue ?? [])) : .json(doc)
                answer.headers[.cacheControl] = "no-cache"  // jobs move on; a copy is checked before use
                return answer
            },
            APIOperation(
                id: "getStatus", method: .get, path: "/jobs/{jobId}", summary: "The status of a job, with its progress in percent.",
                tag: "Processes", parameters: [.jobID, .f],
                responses: [.ok("The job status.", [(MediaTypeName.json, "StatusInfo"), ("text/html", "HTML")]), noJob] + common
            ) { [self] request, context, query in
                let format = try OutputFormat.negotiate(query, request)
                let job = try await visibleJob(context)
                let doc = jobs.statusInfo(job)
                var answer = format == .html ? Representation.html(DataPages.jobPage(job, document: doc)) : .json(doc)
                answer.headers[.cacheControl] = "no-cache"
                return answer
            },
            APIOperation(
                id: "getResult", method: .get, path: "/jobs/{jobId}/results", summary: "The results of a successful job: output id to value.",
                tag: "Processes", parameters: [.jobID],
                responses: [.ok("The results.", [(MediaTypeName.json, "Results")]),
                            .problem(404, "No such job, or its results are not ready (OGC exception types no-such-job, result-not-ready)."),
                            .problem(400, "The job failed on a bad input (invalid-input naming it)."),
                            .problem(422, "The job failed: the analysis could not answer from the district's data; detail says why."),
                            .problem(500, "The job failed on an internal error; detail says which worker's log has it.")] + common
            ) { [self] _, context, _ in
                let job = try await visibleJob(context)
                switch job.status {
                case .successful: return .json(job.result ?? .object([:]))
                case .failed:
                    // The job's own error, as a synchronous run would have answered it.
                    var problem = Problem(mapping: JobFailure(job: job))
                    problem.detail = "job '\(job.id)' failed: \(problem.detail)"
                    throw problem
                default: throw Problem(.resultNotReady, "job '\(job.id)' is \(job.status.rawValue) (\(Int(job.progress)) %); its results are not ready")
                }
            },
            APIOperation(
                id: "dismiss", method: .delete, path: "/jobs/{jobId}",
                summary: "Dismisses a job: a waiting or running job is cancelled, a finished job's results are deleted.",
                tag: "Processes", parameters: [.jobID],
                responses: [.ok("The job, now dismissed.", [(MediaTypeName.json, "StatusInfo")]), noJob] + common
            ) { [self] _, context, _ in
                let job = try await visibleJob(context)
                guard let dismissed = try await jobs.table().dismissJob(id: job.id) else { throw noSuchJob(job.id) }
                return .json(jobs.statusInfo(dismissed))
            },
        ]
    }

    private func noSuchJob(_ id: String) -> Problem {
        Problem(.noSuchJob, "no job '\(id)'")
    }

    /// The job of the path if the caller may see it and it is not dismissed; else `no-such-job`.
    private func visibleJob(_ context: CityTwinRequestContext) async throws -> JobRecord {
        let id = try pathParameter(context, "jobId")
        guard let job = try await jobs.table().job(id: id), job.status != .dismissed, job.isVisible(to: context.caller) else {
            throw noSuchJob(id)
        }
        return job
    }

    /// Schemas of the Processes documents for the OpenAPI document (inline, no external refs).
    static let processSchemas: [String: JSONValue] = {
        let links: JSONValue = ["type": "array", "items": ["$ref": "#/components/schemas/Link"]]
        let summary: JSONValue = [
            "type": "object", "required": ["id", "version"],
            "properties": ["id": ["type": "string"], "title": ["type": "string"], "description": ["type": "string"],
                           "version": ["type": "string"],
                           "jobControlOptions": ["type": "array", "items": ["type": "string", "enum": ["sync-execute", "async-execute", "dismiss"]]],
                           "outputTransmission": ["type": "array", "items": ["type": "string"]], "links": links],
        ]
        var process = summary.objectValue ?? [:]
        var properties = process["properties"]?.objectValue ?? [:]
        properties["inputs"] = ["type": "object", "additionalProperties": ["type": "object"]]
        properties["outputs"] = ["type": "object", "additionalProperties": ["type": "object"]]
        process["properties"] = .object(properties)
        let statusInfo: JSONValue = [
            "type": "object", "required": ["jobID", "status", "type"],
            "properties": ["jobID": ["type": "string"], "processID": ["type": "string"], "type": ["type": "string", "enum": ["process"]],
                           "status": ["type": "string", "enum": ["accepted", "running", "successful", "failed", "dismissed"]],
                           "message": ["type": "string"], "progress": ["type": "integer", "minimum": 0, "maximum": 100],
                           "created": ["type": "string", "format": "date-time"], "updated": ["type": "string", "format": "date-time"],
                           "links": links],
        ]
        return [
            "ProcessSummary": summary,
            "ProcessList": ["type": "object", "required": ["processes", "links"],
                            "properties": ["processes": ["type": "array", "items": ["$ref": "#/components/schemas/ProcessSummary"]],
                                           "links": links]],
            "Process": .object(process),
            "Execute": ["type": "object", "properties": ["inputs": ["type": "object", "additionalProperties": [:]],
                                                         "outputs": ["type": "object"], "response": ["type": "string", "enum": ["document", "raw"]]]],
            "Results": ["type": "object", "additionalProperties": [:]],
            "StatusInfo": statusInfo,
            "JobList": ["type": "object", "required": ["jobs", "links"],
                        "properties": ["jobs": ["type": "array", "items": ["$ref": "#/components/schemas/StatusInfo"]], "links": links]],
        ]
    }()
}
