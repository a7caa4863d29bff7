import GeoCore
import Hummingbird
import TwinStore

/// `/collections/{collectionId}/queryables` (OGC API Features Part 3).
struct QueryablesRoutes: OperationCollection {
    let site: SiteLinks
    let layers: LayerDirectory
    /// `/collections/{collectionId}/queryables` (OGC API Features Part 3).
    var operations: [APIOperation] {
        [
            APIOperation(
                id: "getQueryables", method: .get, path: "/collections/{collectionId}/queryables",
                summary: "The properties a filter (and a queryable query parameter) may name, as a JSON Schema 2020-12 document; attributes masked for the caller are not listed.",
                tag: "Data", parameters: [.collectionID, .f],
                responses: [.ok("The queryables.", [(MediaTypeName.schemaJSON, "Queryables"), ("text/html", "HTML")]),
                            .problem(404, "No such collection (or not visible to the caller).")] + APIResponse.standardProblems
            ) { [self] request, context, query in
                let format = try OutputFormat.negotiate(query, request)
                let id = try pathParameter(context, "collectionId")
                let layer = try await layers.definition(id, for: context.caller)
                let doc = queryablesDocument(layer, for: context.caller)
                return render(doc, title: "Queryables · \(layer.title.zh)", format: format, mediaType: MediaTypeName.schemaJSON)
            },
        ]
    }

    /// The queryables of `layer` for `caller`: `$id` is the resource URI; every property has a
    /// `type` (temporal ones `format: date` or `date-time`); the geometry has a `format`
    /// `geometry-…` from the layer's geometry type.
    func queryablesDocument(_ layer: LayerDefinition, for caller: Caller) -> JSONValue {
        let queryables = FilterParameter.queryables(layer, for: caller)
        let declared = layer.schema.json["properties"]?.objectValue ?? [:]
        var properties: [String: JSONValue] = [:]
        for (name, type) in queryables.properties {
            if type == .geometry {
                properties[name] = ["title": "Geometry 几何", "format": .string(Self.geometryFormat(layer.geometryType)),
                                    "x-ogc-role": "primary-geometry"]
                continue
            }
            // The layer's own JSON Schema for the property, reduced to what a queryable states.
            var o: [String: JSONValue] = [:]
            for key in ["title", "description", "enum", "minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum", "maxLength", "pattern"] {
                if let v = declared[name]?[key] { o[key] = v }
            }
            switch type {
            case .string: o["type"] = "string"
            case .integer: o["type"] = "integer"
            case .number: o["type"] = "number"
            case .boolean: o["type"] = "boolean"
            case .date: o["type"] = "string"; o["format"] = "date"
            case .dateTime: o["type"] = "string"; o["format"] = "date-time"
            case .any, .geometry:
                o["type"] = declared[name]?["type"] ?? ["string", "number", "integer", "boolean", "object", "array", "null"]
            }
            if let temporal = layer.temporal {
                if temporal.end == nil, temporal.start == name { o["x-ogc-role"] = "primary-instant" }
                if temporal.end != nil, temporal.start == name { o["x-ogc-role"] = "primary-interval-start" }
                if temporal.end == name { o["x-ogc-role"] = "primary-interval-end" }
            }
            properties[name] = .object(o)
        }
        return [
            "$schema": "https://json-schema.org/draft/2020-12/schema",
            "$id": .string(site.url("/collections/\(layer.id)/queryables")),
            "type": "object",
            "title": .string("\(layer.title.zh) \(layer.title.en)"),
            "properties": .object(properties),
            "additionalProperties": false,
            "links": [
                site.link("/collections/\(layer.id)/queryables", rel: "self", type: MediaTypeName.schemaJSON, title: "The queryables"),
                site.link("/collections/\(layer.id)", rel: "collection", type: MediaTypeName.json, title: layer.title.zh),
            ],
        ]
    }

    /// Part 3's geometry formats: `geometry-point` … `geometry-any`.
    static func geometryFormat(_ type: GeometryType?) -> String {
        switch type {
        case .point?: "geometry-point"
        case .multiPoint?: "geometry-multipoint"
        case .lineString?: "geometry-linestring"
        case .multiLineString?: "geometry-multilinestring"
        case .polygon?: "geometry-polygon"
        case .multiPolygon?: "geometry-multipolygon"
        case .geometryCollection?: "geometry-geometrycollection"
        case nil: "geometry-any"
        }
    }
}
