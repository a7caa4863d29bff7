import Flood
import Foundation
import GeoCore
import Hummingbird
import ProcessRuntime
import Scenarios
import TwinStore

/// `/scenarios`: planners' scenarios as a resource, run as jobs of process `scenario-run`.
struct ScenarioRoutes: OperationCollection {
    let store: any FeatureStore
    let site: SiteLinks
    let processes: ProcessRegistry
    let jobs: ProcessJobs
    /// Where runs keep their rasters (`ServerOptions.rasters`): a finished scenario links its depth over time.
    let rasters: ResultRasters?
    let depthLinks: DepthMapLinks

    /// `/scenarios`: planners' scenarios as a resource (`ScenarioCatalog`): list and create,
    /// `/scenarios/{scenarioId}` to read one with links to its results, and
    /// `/scenarios/{scenarioId}/run` to run it as a job of process `scenario-run` (201 and the
    /// job's Location, as OGC API Processes' asynchronous execution). Creating and running need a
    /// token of a department that may write the scenarios and their results (the water authority
    /// for flood scenarios); every write is a versioned, audited feature of layer `scenarios`.
    /// Compare two scenarios with process `compare-scenarios`.
    ///
    /// A scenario's results are a what-if with the flood runs' lifecycle (`ResultLifecycle`): a
    /// run leaves them a draft, seen by the owner department alone (the scenario is not listed to
    /// others, its layers are `not-shared`); `POST /scenarios/{id}/publish` shares them with every
    /// department, marked 情景（非实况） (`whatIf: true`, `conditions`), `POST /scenarios/{id}/archive`
    /// takes them back. Only the owner's editors (or the admin) change the state: 401 for the
    /// public, 403 for another department.
    var operations: [APIOperation] {
        let common = APIResponse.standardProblems
        let refused: [APIResponse] = [
            .problem(401, "Creating or running a scenario needs a bearer token."),
            .problem(403, "The caller's department may not write the scenarios or their results."),
        ]
        let noScenario = APIResponse.problem(404, "No such scenario (a draft is its owner's alone).")
        let lifecycleRefused: [APIResponse] = [
            .problem(401, "Publishing or archiving a scenario needs a bearer token."),
            .problem(403, "Only the owner's editors (or the admin) publish or archive a scenario."),
        ]
        return [
            APIOperation(
                id: "getScenarios", method: .get, path: "/scenarios",
                summary: "The scenarios the caller may see (every one for the owner, the published and archived ones for other departments): base map instant, sandbox changes, model parameters, status, state and results of each, each a what-if.",
                tag: "Scenarios", parameters: [],
                responses: [.ok("The scenario list.", [(MediaTypeName.json, "ScenarioList")])] + common
            ) { [self] _, context, _ in
                let list = try await scenarioCatalog.list(by: context.caller)
                return .json([
                    "scenarios": .array(list.map { scenarioDocument($0, for: context.caller) }),
                    "links": [site.link("/scenarios", rel: "self", type: MediaTypeName.json),
                              site.link("/processes/compare-scenarios", rel: "related", type: MediaTypeName.json, title: "Compare two scenarios")],
                ])
            },
            APIOperation(
                id: "createScenario", method: .post, path: "/scenarios",
                summary: "Creates a scenario: {id, title, kind (flood, signal, parking), district, base (RFC 3339), parameters (flood: {model, durationScale, demCoarsening, outputIntervalMinutes, start}; signal: {period}; parking: {guidance, drivers, seed}), changes [{layer, op: upsert|delete, feature|id}]}.",
                tag: "Scenarios", parameters: [],
                responses: [APIResponse(status: 201, description: "Created; Location names it.", content: [(MediaTypeName.json, "Scenario")]),
                            .problem(409, "A scenario with this id exists.")] + refused + common,
                requestBody: APIRequestBody(description: "The scenario document.", content: [(MediaTypeName.json, "Scenario")])
            ) { [self] request, context, _ in
                let bytes = try await FeatureBody.bytes(request, accepted: [MediaTypeName.json], context: context)
                guard let body = try? JSONDecoder().decode(JSONValue.self, from: Data(bytes)) else {
                    throw Problem(.invalidBody, "the body is not JSON", position: "$")
                }
                let scenario = try await scenarioCatalog.create(body, by: context.caller, flood: processes.floodScenario)
                var representation = Representation.json(scenarioDocument(scenario, for: context.caller), status: .created)
                representation.headers[.location] = site.url("/scenarios/\(scenario.id)")
                return representation
            },
            APIOperation(
                id: "getScenario", method: .get, path: "/scenarios/{scenarioId}",
                summary: "A scenario with its status and links to its job, result layers, depth map tiles per time step and series.",
                tag: "Scenarios", parameters: [.scenarioID],
                responses: [.ok("The scenario.", [(MediaTypeName.json, "Scenario")]), noScenario] + common
            ) { [self] _, context, _ in
                let id = try pathParameter(context, "scenarioId")
                return .json(scenarioDocument(try await scenarioCatalog.scenario(id, by: context.caller, field: "scenarioId"), for: context.caller))
            },
            APIOperation(
                id: "runScenario", method: .post, path: "/scenarios/{scenarioId}/run",
                summary: "Runs the scenario as a job (process scenario-run): 201 with the job's status and Location. The live layers are not touched.",
                tag: "Scenarios", parameters: [.scenarioID],
                responses: [APIResponse(status: 201, description: "The job was created; Location names it.", content: [(MediaTypeName.json, "StatusInfo")]),
                            noScenario, .problem(409, "The scenario is running already.")] + refused + common
            ) { [self] _, context, _ in
                let id = try pathParameter(context, "scenarioId")
                let catalog = scenarioCatalog
                guard let process = processes["scenario-run"] else { throw Problem(.internalError, "this server has no process scenario-run") }
                // The caller's rights first (401/403 naming the layer), then the scenario (404) and its inputs.
                let inputs: [String: JSONValue] = ["scenario": .string(id)]
                _ = try await process.layers(inputs).check(process: process.id, store: store, caller: context.caller)
                let scenario = try await catalog.scenario(id, by: context.caller, field: "scenarioId")
                if scenario.isRunning, let job = scenario.job, let record = try await jobs.table().job(id: job),
                   record.status == .accepted || record.status == .running {
                    throw Problem(.conflict, "scenario '\(id)' is running already (job \(job), \(Int(record.progress)) %)", parameter: "scenarioId")
                }
                try await processes.validate(inputs, for: process, store: store, caller: context.caller)
                try await catalog.update(id, by: context.caller, field: "scenarioId") {
                    $0.status = .accepted
                    $0.job = nil
                }
                let job = try await jobs.submit(process, inputs, caller: context.caller)
                // The job may have started (and moved the status on) meanwhile, in a worker of another
                // process too: only the job id is added, to the record as it is when the write lands.
                try await catalog.update(id, by: context.caller, field: "scenarioId") { $0.job = job.id }
                var representation = Representation.json(jobs.statusInfo(job), status: .created)
                representation.headers[.location] = site.url("/jobs/\(job.id)")
                return representation
            },
            APIOperation(
                id: "publishScenario", method: .post, path: "/scenarios/{scenarioId}/publish",
                summary: "Publishes a finished scenario's results: its result layers are shared with every department, marked 情景（非实况） (what-if), never on by default in the web map and never the current state.",
                tag: "Scenarios", parameters: [.scenarioID],
                responses: [.ok("The scenario as published.", [(MediaTypeName.json, "Scenario")]), noScenario,
                            .problem(409, "The scenario's last run has not finished successfully.")] + lifecycleRefused + common
            ) { [self] _, context, _ in
                let id = try pathParameter(context, "scenarioId")
                return .json(scenarioDocument(try await scenarioCatalog.publish(id, by: context.caller), for: context.caller))
            },
            APIOperation(
                id: "archiveScenario", method: .post, path: "/scenarios/{scenarioId}/archive",
                summary: "Archives a scenario: its record stays (listed as archived), its result layers are the owner's alone again.",
                tag: "Scenarios", parameters: [.scenarioID],
                responses: [.ok("The scenario as archived.", [(MediaTypeName.json, "Scenario")]), noScenario] + lifecycleRefused + common
            ) { [self] _, context, _ in
                let id = try pathParameter(context, "scenarioId")
                return .json(scenarioDocument(try await scenarioCatalog.archive(id, by: context.caller), for: context.caller))
            },
        ]
    }

    private var scenarioCatalog: ScenarioCatalog { ScenarioCatalog(store: store) }

    /// A scenario as `/scenarios/{id}` shows it to `caller`, with links: its results' layers
    /// while the caller may read them (the owner always, others while it is published); the run,
    /// lifecycle and history links for the owner's editors.
    func scenarioDocument(_ scenario: Scenario, for caller: Caller) -> JSONValue {
        var doc = scenario.document.objectValue ?? [:]
        let owner = ResultLifecycle.mayChange(owner: ScenarioCatalog.owner, caller)
        let seesResults = scenario.state == .published || ResultLifecycle.sees(.draft, owner: ScenarioCatalog.owner, caller)
        var links: [JSONValue] = [site.link("/scenarios/\(scenario.id)", rel: "self", type: MediaTypeName.json)]
        if owner {
            links += [
                site.link("/scenarios/\(scenario.id)/run", rel: "http://www.opengis.net/def/rel/ogc/1.0/execute", type: MediaTypeName.json, title: "Run the scenario (POST)"),
                site.link("/scenarios/\(scenario.id)/publish", rel: "related", type: MediaTypeName.json, title: "Publish the results as a what-if (POST)"),
                site.link("/scenarios/\(scenario.id)/archive", rel: "related", type: MediaTypeName.json, title: "Archive the results (POST)"),
                site.link("/collections/\(ScenarioCatalog.layerID)/items/\(scenario.id)/history", rel: "version-history", type: MediaTypeName.json,
                          title: "Versions of the scenario"),
            ]
        }
        if owner, let job = scenario.job { links.append(site.link("/jobs/\(job)", rel: "monitor", type: MediaTypeName.json, title: "The last run's job")) }
        guard seesResults else {
            doc["links"] = .array(links)
            return .object(doc)
        }
        for layer in scenario.resultLayers {
            links.append(site.link("/collections/\(layer)", rel: "related", type: MediaTypeName.json,
                                   title: "Result layer \(layer) (\(LayerConditions.whatIfLabel.en))"))
        }
        if scenario.status == .successful, let rasters = rasters, let steps = FloodTimeSteps.read(layer: scenario.depthLayer, rasters: rasters) {
            doc["timeSteps"] = depthLinks.timeSteps(steps)
            links.append(depthLinks.tileLink(scenario.depthLayer))
        }
        doc["links"] = .array(links)
        return .object(doc)
    }

    static let scenarioSchemas: [String: JSONValue] = [
        "Scenario": [
            "type": "object", "required": ["id"],
            "properties": ["id": ["type": "string", "pattern": "^[a-z][a-z0-9-]{0,24}$"], "title": ["type": "string"],
                           "kind": ["type": "string", "enum": ["flood", "signal", "parking"]], "district": ["type": "string"],
                           "base": ["type": "string", "format": "date-time"], "parameters": ["type": "object"],
                           "changes": ["type": "array", "items": ["type": "object"]], "status": ["type": "string"],
                           "job": ["type": "string", "nullable": true], "result": ["type": "object", "nullable": true],
                           "state": ["type": "string", "enum": ["draft", "published", "archived"]],
                           "published_by": ["type": "string", "nullable": true], "published_at": ["type": "string", "nullable": true],
                           "whatIf": ["type": "boolean", "enum": [true]], "conditions": ["$ref": "#/components/schemas/Conditions"],
                           "links": ["type": "array"]],
        ],
        "Conditions": [
            "type": "object", "required": ["kind", "scenarios", "whatIf"],
            "description": "What a layer (or a scenario's results) describes when not the city as it stands: kind scenario is a what-if, marked 情景（非实况）.",
            "properties": ["kind": ["type": "string", "enum": ["scenario"]], "scenarios": ["type": "array", "items": ["type": "string"]],
                           "whatIf": ["type": "boolean"], "label": ["type": "string"], "labelEn": ["type": "string"]],
        ],
        "ScenarioList": ["type": "object", "required": ["scenarios"],
                         "properties": ["scenarios": ["type": "array", "items": ["$ref": "#/components/schemas/Scenario"]], "links": ["type": "array"]]],
        "TimeSteps": ["type": "object", "required": ["steps"],
                      "properties": ["layer": ["type": "string"], "start": ["type": "string"], "end": ["type": "string"],
                                     "clock": ["type": "string", "enum": ["storm", "wall"],
                                               "description": "storm: a design storm, its steps read as T+ from its start (not real times); wall: observed rain, real times"],
                                     "clock_note": ["type": "string"], "steps": ["type": "array"], "legend": ["type": "array"], "links": ["type": "array"]]],
        "PNG": ["type": "string", "format": "binary"],
    ]
}

extension APIParameter {
    static let scenarioID = APIParameter("scenarioId", in: .path, "Identifier of a scenario ([a-z][a-z0-9-]{0,24}).")
}
