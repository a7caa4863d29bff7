import Flood
import Foundation
import GeoCore
import Hummingbird
import ProcessRuntime
import Scenarios
import TwinStore

/// `/flood-runs`: the runs of the flood scenarios, each its own result set, published, archived or deleted.
struct FloodRunRoutes: OperationCollection {
    let site: SiteLinks
    let floodRuns: FloodRunCatalog
    /// Where runs keep their rasters (`ServerOptions.rasters`): deleting a run deletes its rasters.
    let rasters: ResultRasters?

    /// `/flood-runs`: every run of a flood scenario is its own result set (`FloodRunCatalog`), with
    /// its inputs, who ran it and when. The water authority's editors (and the admin) see every run
    /// and publish one as the current run (its layers then shared with every department; the map
    /// and the hazard overlay answer from it), archive or delete runs; other departments see the
    /// published and archived runs. Every change is a versioned, audited write of the run's record.
    var operations: [APIOperation] {
        let common = APIResponse.standardProblems
        let refused: [APIResponse] = [
            .problem(401, "Changing a flood run needs a bearer token."),
            .problem(403, "Only the water authority's editors (or the admin) change flood runs."),
        ]
        let noRun = APIResponse.problem(404, "No such run (a draft is its owner's alone).")
        return [
            APIOperation(
                id: "getFloodRuns", method: .get, path: "/flood-runs",
                summary: "The flood runs the caller may see, newest first, and the current published run.",
                tag: "Scenarios", parameters: [],
                responses: [.ok("The runs.", [(MediaTypeName.json, "FloodRunList")])] + common
            ) { [self] _, context, _ in
                let runs = try await floodRuns.list(by: context.caller)
                return .json([
                    "runs": .array(runs.map(floodRunDocument)),
                    "current": runs.first { $0.current && $0.state == .published }.map { .string($0.id) } ?? .null,
                    "links": [site.link("/flood-runs", rel: "self", type: MediaTypeName.json)],
                ])
            },
            APIOperation(
                id: "getFloodRun", method: .get, path: "/flood-runs/{runId}",
                summary: "One flood run: inputs, who ran it and when, state, its layers and summary.",
                tag: "Scenarios", parameters: [.runID],
                responses: [.ok("The run.", [(MediaTypeName.json, "FloodRun")]), noRun] + common
            ) { [self] _, context, _ in
                .json(floodRunDocument(try await floodRuns.run(try pathParameter(context, "runId"), by: context.caller, field: "runId")))
            },
            APIOperation(
                id: "publishFloodRun", method: .post, path: "/flood-runs/{runId}/publish",
                summary: "Publishes a finished run as the current one: its layers are shared with every department; the map and the hazard overlay answer from it.",
                tag: "Scenarios", parameters: [.runID],
                responses: [.ok("The run as published.", [(MediaTypeName.json, "FloodRun")]), noRun,
                            .problem(409, "The run has not finished successfully.")] + refused + common
            ) { [self] _, context, _ in
                try requireFloodRunEditor(context.caller)
                return .json(floodRunDocument(try await floodRuns.publish(try pathParameter(context, "runId"), by: context.caller)))
            },
            APIOperation(
                id: "archiveFloodRun", method: .post, path: "/flood-runs/{runId}/archive",
                summary: "Archives a run: its record stays, its layers become the water authority's alone, it is no longer current.",
                tag: "Scenarios", parameters: [.runID],
                responses: [.ok("The run as archived.", [(MediaTypeName.json, "FloodRun")]), noRun] + refused + common
            ) { [self] _, context, _ in
                try requireFloodRunEditor(context.caller)
                return .json(floodRunDocument(try await floodRuns.archive(try pathParameter(context, "runId"), by: context.caller)))
            },
            APIOperation(
                id: "deleteFloodRun", method: .delete, path: "/flood-runs/{runId}",
                summary: "Deletes a run: its layers, rasters and record (audited).",
                tag: "Scenarios", parameters: [.runID],
                responses: [APIResponse(status: 204, description: "Deleted.", content: []), noRun,
                            .problem(409, "The run is still running.")] + refused + common
            ) { [self] _, context, _ in
                try requireFloodRunEditor(context.caller)
                try await floodRuns.delete(try pathParameter(context, "runId"), rasters: rasters, by: context.caller)
                return Representation(status: .noContent, mediaType: "", body: [])
            },
        ]
    }

    /// 401 for the public, 403 for a department that does not own the runs.
    private func requireFloodRunEditor(_ caller: Caller) throws {
        if caller == .anonymous { throw Problem(.unauthorized, "changing a flood run needs a bearer token of \(FloodRunCatalog.owner)") }
        guard AccessPolicy.canWrite(owner: FloodRunCatalog.owner, caller) else {
            throw Problem(.forbidden, "only an editor of \(FloodRunCatalog.owner) or an admin changes flood runs")
        }
    }

    func floodRunDocument(_ run: FloodRun) -> JSONValue {
        var doc = run.document.objectValue ?? [:]
        var links: [JSONValue] = [site.link("/flood-runs/\(run.id)", rel: "self", type: MediaTypeName.json)]
        for layer in run.layers {
            links.append(site.link("/collections/\(layer)", rel: "related", type: MediaTypeName.json, title: "Result layer \(layer)"))
        }
        doc["links"] = .array(links)
        return .object(doc)
    }

    static let floodRunSchemas: [String: JSONValue] = [
        "FloodRun": [
            "type": "object", "required": ["id", "scenario", "stem", "state", "current", "status", "inputs", "run_by", "started_at", "layers"],
            "properties": ["id": ["type": "string"], "scenario": ["type": "string"], "title": ["type": "string"], "stem": ["type": "string"],
                           "state": ["type": "string", "enum": ["draft", "published", "archived"]], "current": ["type": "boolean"],
                           "status": ["type": "string", "enum": ["running", "successful", "failed"]], "inputs": ["type": "object"],
                           "run_by": ["type": "string"], "department": ["type": "string", "nullable": true],
                           "started_at": ["type": "string", "format": "date-time"],
                           "finished_at": ["type": "string", "format": "date-time", "nullable": true],
                           "layers": ["type": "array", "items": ["type": "string"]], "summary": ["type": "object", "nullable": true],
                           "error": ["type": "string", "nullable": true], "published_by": ["type": "string", "nullable": true],
                           "published_at": ["type": "string", "nullable": true], "links": ["type": "array"]],
        ],
        "FloodRunList": ["type": "object", "required": ["runs", "current"],
                         "properties": ["runs": ["type": "array", "items": ["$ref": "#/components/schemas/FloodRun"]],
                                        "current": ["type": "string", "nullable": true], "links": ["type": "array"]]],
    ]
}

extension APIParameter {
    static let runID = APIParameter("runId", in: .path, "Identifier of a flood run (<scenario>-<n>, e.g. p50-waterlogging-2).")
}

extension ProcessRegistry {
    /// The flood process whose files (DEM, storm catalogue, rasters) scenarios and flood runs use.
    var floodScenario: FloodScenarioProcess {
        (self["flood-scenario"] as? FloodScenarioProcess) ?? FloodScenarioProcess()
    }
}
