import Foundation
import GeoCore
import Hummingbird
import TwinStore

/// A feature's versions, a layer's differences between two instants and its audit trail.
struct HistoryRoutes: OperationCollection {
    let store: any FeatureStore
    let site: SiteLinks
    let layers: LayerDirectory
    /// RFC 3339 with milliseconds: a version's `valid_from` given back as `from` selects it exactly.
    static let instantFormat = Date.ISO8601FormatStyle(includingFractionalSeconds: true)

    /// A feature's versions, a layer's differences between two instants, and the audit trail:
    /// what the store keeps, served (every answer masked as the caller may see it; the audit
    /// trail to the layer's owner and the admin only).
    var operations: [APIOperation] {
        [
            APIOperation(
                id: "getFeatureHistory", method: .get, path: "/collections/{collectionId}/items/{featureId}/history",
                summary: "Every version of one feature, oldest first: valid_from, valid_to (null while current), the writing department (the author for auditors), the content hash and the feature as it was.",
                tag: "Data", parameters: [.collectionID, .featureID],
                responses: [.ok("The versions.", [(MediaTypeName.json, "FeatureHistory")]),
                            .problem(404, "No such collection or feature.")] + APIResponse.standardProblems
            ) { [self] _, context, _ in
                let id = try pathParameter(context, "collectionId")
                let fid = try pathParameter(context, "featureId")
                _ = try await layers.definition(id, for: context.caller)
                let versions = try await store.history(layer: id, featureID: fid, by: context.caller)
                guard !versions.isEmpty else { throw Problem(.featureNotFound, "no feature '\(fid)' in collection '\(id)'") }
                let encoded: [JSONValue] = try versions.map { v in
                    let feature = try JSONDecoder().decode(JSONValue.self, from: GeoJSON.encode(.feature(v.feature), options: GeoJSONWriteOptions(precision: 9)))
                    return ["valid_from": .string(v.validFrom.formatted(Self.instantFormat)), "valid_to": v.validTo.map { .string($0.formatted(Self.instantFormat)) } ?? .null,
                            "department": v.department.map(JSONValue.string) ?? .null, "author": v.author.map(JSONValue.string) ?? .null,
                            "content_hash": .string(v.contentHash), "feature": feature]
                }
                let path = "/collections/\(id)/items/\(QueryParameters.escape(fid))"
                return .json(["id": .string(fid), "collection": .string(id), "versions": .array(encoded),
                              "links": [site.link(path + "/history", rel: "self", type: MediaTypeName.json, title: "This history"),
                                        site.link(path, rel: "item", type: MediaTypeName.geoJSON, title: "The current feature")]])
            },
            APIOperation(
                id: "getCollectionDiff", method: .get, path: "/collections/{collectionId}/diff",
                summary: "Ids of the features added, removed and changed (as the caller sees them) between two instants.",
                tag: "Data",
                parameters: [.collectionID,
                             APIParameter("from", "RFC 3339 date-time: the earlier instant.", required: true, schema: ["type": "string", "format": "date-time"]),
                             APIParameter("to", "RFC 3339 date-time: the later instant (default now).", schema: ["type": "string", "format": "date-time"])],
                responses: [.ok("The difference.", [(MediaTypeName.json, "LayerDiff")]),
                            .problem(404, "No such collection.")] + APIResponse.standardProblems
            ) { [self] _, context, query in
                let id = try pathParameter(context, "collectionId")
                _ = try await layers.definition(id, for: context.caller)
                guard let from = try AsOfParameter.instant(query, "from") else { throw Problem.invalid("from", "is required: the earlier instant") }
                let to = try AsOfParameter.instant(query, "to") ?? TwinClock.current.now
                guard from <= to else { throw Problem.invalid("to", "must not be before from") }
                let diff = try await store.diff(layer: id, from: from, to: to, by: context.caller)
                return .json(["collection": .string(id), "from": .string(from.formatted(Self.instantFormat)), "to": .string(to.formatted(Self.instantFormat)),
                              "added": .array(diff.added.map(JSONValue.string)), "removed": .array(diff.removed.map(JSONValue.string)),
                              "changed": .array(diff.changed.map(JSONValue.string))])
            },
            APIOperation(
                id: "getCollectionAudit", method: .get, path: "/collections/{collectionId}/audit",
                summary: "The audit trail of a layer's writes (who, when, what, the hashes before and after, the chained entry hash), for the owning department and the admin only.",
                tag: "Data",
                parameters: [.collectionID,
                             APIParameter("after", "Entries after this sequence number (default 0).", schema: ["type": "integer", "minimum": 0]),
                             APIParameter("limit", "At most this many entries (1…1000, default 100).", schema: ["type": "integer", "minimum": 1, "maximum": 1000])],
                responses: [.ok("The entries and the next sequence to ask after.", [(MediaTypeName.json, "AuditTrail")]),
                            .problem(401, "No token."), .problem(403, "Not the layer's owner or the admin."),
                            .problem(404, "No such collection.")] + APIResponse.standardProblems
            ) { [self] _, context, query in
                let id = try pathParameter(context, "collectionId")
                _ = try await layers.definition(id, for: context.caller)
                if case .anonymous = context.caller {
                    throw StoreError(.unauthenticated, "the audit trail of '\(id)' is for its owner department and the admin: send a bearer token", layer: id)
                }
                guard let after = Int64(query["after"] ?? "0"), after >= 0 else { throw Problem.invalid("after", "must be a sequence number ≥ 0") }
                guard let limit = Int(query["limit"] ?? "100"), (1...1000).contains(limit) else { throw Problem.invalid("limit", "must be 1…1000") }
                let entries = try await store.auditLog(layer: id, after: after, limit: limit, by: context.caller)
                let encoded: [JSONValue] = entries.map { e in
                    ["sequence": .integer(e.sequence), "at": .string(e.at.formatted(Self.instantFormat)), "actor": .string(e.actor),
                     "department": e.department.map(JSONValue.string) ?? .null, "role": .string(e.role), "feature": .string(e.featureID),
                     "kind": .string(e.kind.rawValue), "before_hash": e.beforeHash.map(JSONValue.string) ?? .null,
                     "after_hash": e.afterHash.map(JSONValue.string) ?? .null, "entry_hash": .string(e.entryHash)]
                }
                return .json(["collection": .string(id), "entries": .array(encoded),
                              "next_after": entries.last.map { .integer($0.sequence) } ?? .integer(after)])
            },
        ]
    }
}
