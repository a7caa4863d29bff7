import Foundation
import GeoCore
import Governance
import Hummingbird
import ProcessRuntime
import TwinStore

/// `POST /collections/{collectionId}/aggregate`: the sandbox (数据可用不可见). A department runs an
/// approved aggregate query (count, sum, mean, min, max; by administrative division or grid; an
/// optional CQL2 filter) on a layer it may not read row by row, and gets a GeoJSON
/// FeatureCollection of groups with small counts suppressed, never rows. Every query, answered
/// or refused, is audited in the layer's log (`Sandbox`).
struct SandboxRoutes: OperationCollection {
    let sandbox: Sandbox

    var operations: [APIOperation] {
        [
            APIOperation(
                id: "aggregateCollection", method: .post, path: "/collections/{collectionId}/aggregate",
                summary: "The sandbox: aggregates (count, sum, mean, min, max of numeric attributes) of a layer offered through the sandbox (sharing method sandbox) or readable by the caller, as a whole, by administrative division or by a grid of cellSize metres, optionally filtered (CQL2 text). Groups with fewer than k features (the layer's sharing.k, at least the server's --sandbox-k, default 5) are suppressed, and further groups with them so that no suppressed group is the difference of released figures (suppressedBecause says why); a query that would isolate rows (a filter on the id, the layer's key or a masked attribute, a selection of 1…k−1 features, a selection differing by 1…k−1 records from one released to the same department within a year, in any grouping or filter, or from the layer's whole) is refused (403). Departments and the admin only; every query is audited in the layer's log.",
                tag: "Data", parameters: [.collectionID],
                responses: [.ok("A FeatureCollection of groups (geometry: the division or cell; properties: key, name, count, the aggregates, suppressed) with the whole selection in total.",
                                [(MediaTypeName.geoJSON, "SandboxAnswer")]),
                            .problem(401, "No token."), .problem(403, "Refused: the query would isolate rows, or the layer is not offered through the sandbox."),
                            .problem(404, "No such collection.")] + APIResponse.standardProblems,
                requestBody: APIRequestBody(
                    description: "{\"aggregates\": [{\"op\": \"count\"}, {\"op\": \"sum\", \"property\": \"residents\"}], \"groupBy\": \"none\" | \"admin-division\" | \"grid\", \"cellSize\": metres (grid, 50…10000), \"level\": division level (admin-division), \"filter\": CQL2 text}",
                    content: [(MediaTypeName.json, "SandboxQuery")])
            ) { [sandbox] request, context, _ in
                let id = context.parameters.get("collectionId") ?? ""
                let body = try await APIRequestBody.json(request, context: context)
                let answer = try await sandbox.aggregate(layer: id, try AggregateRequest(json: body), by: context.caller)
                return .json(Self.document(answer), mediaType: MediaTypeName.geoJSON)
            },
        ]
    }

    /// The answer as GeoJSON: one feature per group, the whole selection under `total`.
    static func document(_ answer: SandboxAnswer) -> JSONValue {
        func properties(_ g: SandboxGroup) -> JSONValue {
            var p: [String: JSONValue] = ["key": .string(g.key), "count": g.count.map { .integer(Int64($0)) } ?? .null,
                                          "suppressed": .bool(g.suppressed)]
            if let name = g.name { p["name"] = .string(name) }
            if let why = g.suppressedBecause { p["suppressedBecause"] = .string(why) }
            for (k, v) in g.values { p[k] = v.map(JSONValue.number) ?? .null }
            return .object(p)
        }
        let features: [JSONValue] = answer.groups.map { g in
            ["type": "Feature", "id": .string(g.key), "geometry": g.geometry.flatMap { try? ProcessInputs.json($0) } ?? .null, "properties": properties(g)]
        }
        return ["type": "FeatureCollection", "collection": .string(answer.collection), "k": .integer(Int64(answer.k)),
                "query": .string(answer.request.subject), "suppressedGroups": .integer(Int64(answer.suppressedGroups)),
                "total": properties(answer.total), "features": .array(features)]
    }
}
