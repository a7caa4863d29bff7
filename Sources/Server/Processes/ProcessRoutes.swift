import Foundation
import GeoCore
import Hummingbird
import ProcessRuntime
import Scenarios
import TwinStore

/// OGC API Processes Part 1: the processes the server runs, described and executed
/// synchronously or as jobs (`ProcessJobs`).
struct ProcessRoutes: OperationCollection {
    let store: any FeatureStore
    let site: SiteLinks
    /// The processes this server offers (`ServerOptions.processes`).
    let processes: ProcessRegistry
    let jobs: ProcessJobs

    /// OGC API Processes Part 1: `/processes`, `/processes/{processId}`, `/processes/{processId}/execution`.
    var operations: [APIOperation] {
        let common = APIResponse.standardProblems
        let noProcess = APIResponse.problem(404, "No such process (OGC exception type no-such-process).")
        return [
            APIOperation(
                id: "getProcesses", method: .get, path: "/processes", summary: "The processes (analyses and simulations) the server runs.",
                tag: "Processes", parameters: [.f],
                responses: [.ok("The process list.", [(MediaTypeName.json, "ProcessList"), ("text/html", "HTML")])] + common
            ) { [self] request, _, query in
                let format = try OutputFormat.negotiate(query, request)
                let doc: JSONValue = [
                    "processes": .array(processes.processes.map { processSummary($0) }),
                    "links": .array(site.selfAndAlternate("/processes", query: query, format: format, jsonType: MediaTypeName.json)),
                ]
                guard format == .html else { return .json(doc) }
                return .html(DataPages.processesPage(processes, links: doc["links"]?.arrayValue ?? []))
            },
            APIOperation(
                id: "getProcessDescription", method: .get, path: "/processes/{processId}",
                summary: "A process: its inputs and outputs (JSON Schema) and how it may be executed.",
                tag: "Processes", parameters: [.processID, .f],
                responses: [.ok("The process description.", [(MediaTypeName.json, "Process"), ("text/html", "HTML")]), noProcess] + common
            ) { [self] request, context, query in
                let format = try OutputFormat.negotiate(query, request)
                let process = try requestedProcess(context)
                var doc = processSummary(process).objectValue ?? [:]
                doc["inputs"] = .object(process.inputs.mapValues { Self.parameterDocument($0, isInput: true) })
                doc["outputs"] = .object(process.outputs.mapValues { Self.parameterDocument($0, isInput: false) })
                var links = site.selfAndAlternate("/processes/\(process.id)", query: query, format: format, jsonType: MediaTypeName.json)
                links.append(site.link("/processes/\(process.id)/execution", rel: "http://www.opengis.net/def/rel/ogc/1.0/execute",
                                       type: MediaTypeName.json, title: "Execute the process"))
                doc["links"] = .array(links)
                return render(.object(doc), title: process.title, format: format)
            },
            APIOperation(
                id: "execute", method: .post, path: "/processes/{processId}/execution",
                summary: "Runs a process: synchronously (200 with the results) or, with 'Prefer: respond-async', as a job (201, Location of the job).",
                tag: "Processes", parameters: [.processID, .prefer],
                responses: [.ok("The results (synchronous execution): output id to value.", [(MediaTypeName.json, "Results")]),
                            APIResponse(status: 201, description: "A job was created (asynchronous execution); Location names it.",
                                        content: [(MediaTypeName.json, "StatusInfo")]),
                            noProcess] + common,
                requestBody: .execute
            ) { [self] request, context, _ in
                try await execute(request, context)
            },
        ]
    }

    /// RFC 7240 `Prefer` and `Preference-Applied`.
    static let preferField = HTTPFields.Element.Name("Prefer")!
    static let preferenceAppliedField = HTTPFields.Element.Name("Preference-Applied")!

    private func requestedProcess(_ context: CityTwinRequestContext) throws -> any OGCProcess {
        let id = try pathParameter(context, "processId")
        guard let process = processes[id] else { throw Problem(.noSuchProcess, "no process '\(id)'") }
        return process
    }

    func processSummary(_ process: any OGCProcess) -> JSONValue {
        [
            "id": .string(process.id), "title": .string(process.title), "description": .string(process.description),
            "version": .string(process.version),
            "jobControlOptions": .array(process.jobControlOptions.map { .string($0.rawValue) }),
            "outputTransmission": ["value"],
            "links": [site.link("/processes/\(process.id)", rel: "self", type: MediaTypeName.json, title: "Process description")],
        ]
    }

    static func parameterDocument(_ p: ProcessParameter, isInput: Bool) -> JSONValue {
        var o: [String: JSONValue] = ["title": .string(p.title), "description": .string(p.description), "schema": p.schema]
        if isInput {
            o["minOccurs"] = .integer(Int64(p.minOccurs))
            o["maxOccurs"] = 1
        }
        return .object(o)
    }

    private func execute(_ request: Request, _ context: CityTwinRequestContext) async throws -> Representation {
        let process = try requestedProcess(context)
        let bytes = try await FeatureBody.bytes(request, accepted: [MediaTypeName.json], context: context)
        let body: JSONValue
        do {
            body = try JSONDecoder().decode(JSONValue.self, from: Data(bytes))
        } catch {
            throw Problem(.invalidBody, "the body is not JSON", position: "$")
        }
        guard let members = body.objectValue else {
            throw Problem(.invalidBody, "the body must be an execute request object with 'inputs'", position: "$")
        }
        let inputs: [String: JSONValue]
        switch members["inputs"] {
        case nil, .null?: inputs = [:]
        case .object(let o)?: inputs = o
        default: throw Problem(.invalidBody, "member 'inputs' must be an object of input id to value", position: "$.inputs")
        }
        let prefersAsync = request.headers[values: Self.preferField].contains { $0.lowercased().contains("respond-async") }
        let control = process.jobControlOptions
        let runsAsJob = control.contains(.asyncExecute) && (prefersAsync || !control.contains(.syncExecute))
        guard runsAsJob else {
            let result = try await processes.run(process.id, inputs: inputs, caller: context.caller, store: store)
            return .json(result)
        }
        try await processes.validate(inputs, for: process, store: store, caller: context.caller)
        let job = try await jobs.submit(process, inputs, caller: context.caller)
        var representation = Representation.json(jobs.statusInfo(job), status: .created)
        representation.headers[.location] = site.url("/jobs/\(job.id)")
        representation.headers[Self.preferenceAppliedField] = "respond-async"
        return representation
    }

    /// OGC API Processes Part 1 conformance classes (what `Processes/` implements).
    static let processesConformance: [String] = [
        "http://www.opengis.net/spec/ogcapi-processes-1/1.0/conf/core",
        "http://www.opengis.net/spec/ogcapi-processes-1/1.0/conf/ogc-process-description",
        "http://www.opengis.net/spec/ogcapi-processes-1/1.0/conf/json",
        "http://www.opengis.net/spec/ogcapi-processes-1/1.0/conf/oas30",
        "http://www.opengis.net/spec/ogcapi-processes-1/1.0/conf/job-list",
        "http://www.opengis.net/spec/ogcapi-processes-1/1.0/conf/dismiss",
    ]
}

extension APIParameter {
    static let processID = APIParameter("processId", in: .path, "Identifier of a process.")
    static let jobID = APIParameter("jobId", in: .path, "Identifier of a job.")
    static let prefer = APIParameter("Prefer", in: .header, "'respond-async' runs the process as a job (RFC 7240); without it the server answers synchronously when the process allows.")
}

extension APIRequestBody {
    /// An OGC API Processes execute request.
    static let execute = APIRequestBody(
        description: "An execute request: {\"inputs\": {input id: value}}; see the process description for the inputs.",
        content: [(MediaTypeName.json, "Execute")])
}
