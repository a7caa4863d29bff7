import Foundation
import GeoCore
import Governance
import Hummingbird
import TwinStore

/// `GET /collections/{collectionId}/quality`: a layer's data-quality report (geometry validity,
/// completeness, value ranges and code lists, duplicates, network topology, freshness, positions
/// outside the city), checked now as the caller may read the layer; its summary is kept for the
/// collection's metadata (`QualityLedger`).
struct QualityRoutes: OperationCollection {
    let layers: LayerDirectory
    let inspector: QualityInspector
    let ledger: QualityLedger

    var operations: [APIOperation] {
        [
            APIOperation(
                id: "getCollectionQuality", method: .get, path: "/collections/{collectionId}/quality",
                summary: "The layer's data-quality report: per check (geometry-validity, completeness, value-range, code-list, schema, duplicate-keys, duplicate-geometries, dangling-ends, disconnected-parts, flow-against-inverts, freshness, outside-extent, rules) the count of offending features and the first of them with the reason. Checked now, on the features the caller may read.",
                tag: "Data",
                parameters: [.collectionID,
                             APIParameter("limit", "Findings listed per check (1…1000, default 100); counts cover them all.",
                                          schema: ["type": "integer", "minimum": 1, "maximum": 1000, "default": 100])],
                responses: [.ok("The report.", [(MediaTypeName.json, "QualityReport")]),
                            .problem(404, "No such collection.")] + APIResponse.standardProblems
            ) { [layers, inspector, ledger] _, context, query in
                let id = context.parameters.get("collectionId") ?? ""
                _ = try await layers.definition(id, for: context.caller)
                guard let limit = Int(query["limit"] ?? "100"), (1...1000).contains(limit) else { throw Problem.invalid("limit", "must be 1…1000") }
                var checker = inspector
                checker.findingsCap = limit
                let report = try await checker.report(layer: id, by: context.caller)
                ledger.record(report)
                return .json(try JSONValue.encoding(report))
            },
        ]
    }
}

extension JSONValue {
    /// `value` as JSON, through its `Encodable` conformance.
    static func encoding(_ value: some Encodable) throws -> JSONValue {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        return try JSONDecoder().decode(JSONValue.self, from: encoder.encode(value))
    }
}

extension QualityLedger {
    /// A collection's `quality` member: where its report is and, when the layer has not changed
    /// since it was last checked, the report's summary.
    func metadata(_ info: LayerInfo, site: SiteLinks) -> JSONValue {
        var o: [String: JSONValue] = ["href": .string(site.url("/collections/\(info.definition.id)/quality"))]
        if let summary = summary(of: info.definition.id, lastChange: info.lastChange),
           let encoded = try? JSONValue.encoding(summary) {
            o["summary"] = encoded
        }
        return .object(o)
    }
}
