import Foundation
import Geocoding
import GeoCore

/// The API definition, generated from the server's operation table (`CityTwinServer.operations`):
/// the OpenAPI document at `/api` and its HTML page at `/api.html`. The landing routes serve it;
/// the server hands it the table once it has composed every collection, the landing one included.
final class APIDefinition: @unchecked Sendable {
    /// The base URL, the document's one server.
    let baseURL: String
    private let lock = NSLock()
    private var table: [APIOperation] = []

    init(baseURL: String) {
        self.baseURL = baseURL
    }

    /// Sets the operations the definition describes (`CityTwinServer.init`, once).
    func describe(_ operations: [APIOperation]) {
        lock.withLock { table = operations }
    }

    /// The operations described, in document order.
    var operations: [APIOperation] { lock.withLock { table } }

    /// The OpenAPI 3.0 document, generated from `operations`: every path, every parameter,
    /// every response. Self-contained: its only `$ref`s point inside it (`#/components/…`),
    /// so offline tools (schemathesis, the OGC ETS) can use it.
    var document: JSONValue {
        var paths: [String: JSONValue] = [:]
        var parameters: [String: JSONValue] = [:]
        for op in operations {
            var responses: [String: JSONValue] = [:]
            for r in op.responses {
                var content: [String: JSONValue] = [:]
                for (type, schema) in r.content { content[type] = ["schema": ["$ref": .string("#/components/schemas/\(schema)")]] }
                responses[String(r.status)] = ["description": .string(r.description), "content": .object(content)]
            }
            var refs: [JSONValue] = []
            for p in op.parameters {
                let key = p.componentKey
                var o: [String: JSONValue] = [
                    "name": .string(p.name), "in": .string(p.location.rawValue), "description": .string(p.description),
                    "required": .bool(p.required), "schema": p.schema,
                ]
                if p.isCommaList { o["style"] = "form"; o["explode"] = false }
                parameters[key] = .object(o)
                refs.append(["$ref": .string("#/components/parameters/\(key)")])
            }
            var operation: [String: JSONValue] = [
                "operationId": .string(op.id), "summary": .string(op.summary), "tags": [.string(op.tag)],
                "parameters": .array(refs), "responses": .object(responses),
            ]
            if let body = op.requestBody {
                var content: [String: JSONValue] = [:]
                for (type, schema) in body.content { content[type] = ["schema": ["$ref": .string("#/components/schemas/\(schema)")]] }
                operation["requestBody"] = ["description": .string(body.description), "required": true, "content": .object(content)]
            }
            if op.acceptsQueryables {
                operation["description"] = "Each simple queryable of the collection (see /collections/{collectionId}/queryables) is also accepted as a query parameter selecting features whose value equals it."
            }
            var item = paths[op.path]?.objectValue ?? [:]
            item[op.method.rawValue.lowercased()] = .object(operation)
            paths[op.path] = .object(item)
        }
        return [
            "openapi": "3.0.3",
            "info": [
                "title": "CityTwin OGC API",
                "version": .string(CityTwinVersion.current),
                "description": "OGC API Features Part 1 (core, GeoJSON, HTML, OpenAPI 3.0), Part 2 (CRS by reference), Part 3 (CQL2 filtering, queryables) and Part 4 (create, replace, update, delete; ETags) over the layers of the city's one map. Writes need a bearer token of the department that owns the layer. Errors are RFC 9457 problem details.",
            ],
            "servers": [["url": .string(baseURL)]],
            "tags": [["name": "Capabilities"], ["name": "Data"], ["name": "Tiles"], ["name": "Processes"], ["name": "Scenarios"], ["name": "Service"]],
            "paths": .object(paths),
            "components": [
                "parameters": .object(parameters), "schemas": .object(Self.schemas.merging(TileRoutes.tileSchemas) { a, _ in a }.merging(JobRoutes.processSchemas) { a, _ in a }
                    .merging(ScenarioRoutes.scenarioSchemas) { a, _ in a }.merging(FloodRunRoutes.floodRunSchemas) { a, _ in a }
                    .merging(WMSRoutes.wmsSchemas) { a, _ in a }.merging(WFSRoutes.schemas) { a, _ in a }),
                "securitySchemes": ["bearer": ["type": "http", "scheme": "bearer", "bearerFormat": "JWT"]],
            ],
            "security": [[:], ["bearer": []]],
        ]
    }

    /// The response schemas, inline (no schemas.opengis.net references).
    static let schemas: [String: JSONValue] = {
        let link: JSONValue = [
            "type": "object", "required": ["href", "rel"],
            "properties": ["href": ["type": "string"], "rel": ["type": "string"], "type": ["type": "string"], "title": ["type": "string"]],
        ]
        let links: JSONValue = ["type": "array", "items": ["$ref": "#/components/schemas/Link"]]
        let geometry: JSONValue = [
            "type": "object", "nullable": true, "required": ["type"],
            "properties": ["type": ["type": "string", "enum": ["Point", "LineString", "Polygon", "MultiPoint", "MultiLineString", "MultiPolygon", "GeometryCollection"]],
                           "coordinates": ["type": "array", "items": [:]],
                           "geometries": ["type": "array", "items": ["type": "object"]]],
        ]
        return [
            "Link": link,
            "Problem": [
                "type": "object", "required": ["type", "title", "status"],
                "properties": ["type": ["type": "string", "format": "uri"], "title": ["type": "string"], "status": ["type": "integer"],
                               "detail": ["type": "string"], "instance": ["type": "string"], "parameter": ["type": "string"]],
            ],
            "LandingPage": ["type": "object", "required": ["links"],
                            "properties": ["title": ["type": "string"], "description": ["type": "string"], "links": links]],
            "Conformance": ["type": "object", "required": ["conformsTo"],
                            "properties": ["conformsTo": ["type": "array", "items": ["type": "string"]]]],
            "Collection": [
                "type": "object", "required": ["id", "links"],
                "properties": ["id": ["type": "string"], "title": ["type": "string"], "description": ["type": "string"],
                               "itemType": ["type": "string"], "crs": ["type": "array", "items": ["type": "string"]],
                               "storageCrs": ["type": "string"], "extent": ["type": "object"], "links": links,
                               "whatIf": ["type": "boolean", "description": "Present and true on a what-if's results (a scenario's): 情景（非实况）."],
                               "conditions": ["$ref": "#/components/schemas/Conditions"]],
            ],
            "Collections": ["type": "object", "required": ["collections", "links"],
                            "properties": ["collections": ["type": "array", "items": ["$ref": "#/components/schemas/Collection"]],
                                           "crs": ["type": "array", "items": ["type": "string"]], "links": links]],
            "Geometry": geometry,
            "Feature": [
                "type": "object", "required": ["type", "geometry", "properties"],
                "properties": ["type": ["type": "string", "enum": ["Feature"]], "id": ["oneOf": [["type": "string"], ["type": "integer"]]],
                               "geometry": ["$ref": "#/components/schemas/Geometry"], "properties": ["type": "object", "nullable": true],
                               "links": links, "whatIf": ["type": "boolean"], "conditions": ["$ref": "#/components/schemas/Conditions"]],
            ],
            "FeatureCollection": [
                "type": "object", "required": ["type", "features"],
                "properties": ["type": ["type": "string", "enum": ["FeatureCollection"]],
                               "features": ["type": "array", "items": ["$ref": "#/components/schemas/Feature"]],
                               "links": links, "numberReturned": ["type": "integer", "minimum": 0],
                               "numberMatched": ["type": "integer", "minimum": 0], "timeStamp": ["type": "string", "format": "date-time"],
                               "whatIf": ["type": "boolean"], "conditions": ["$ref": "#/components/schemas/Conditions"]],
            ],
            "FeaturePatch": [
                "type": "object", "description": "RFC 7396 merge patch of a feature.",
                "properties": ["type": ["type": "string", "enum": ["Feature"]], "id": ["oneOf": [["type": "string"], ["type": "integer"]]],
                               "geometry": ["$ref": "#/components/schemas/Geometry"], "properties": ["type": "object", "nullable": true]],
            ],
            "Queryables": [
                "type": "object", "required": ["$schema", "$id", "type", "properties"],
                "properties": ["$schema": ["type": "string"], "$id": ["type": "string", "format": "uri"], "type": ["type": "string"],
                               "title": ["type": "string"], "properties": ["type": "object"], "additionalProperties": ["type": "boolean"]],
            ],
            "RasterList": ["type": "object", "required": ["rasters", "links"],
                           "properties": ["rasters": ["type": "array", "items": [
                               "type": "object", "required": ["name", "type", "href"],
                               "properties": ["name": ["type": "string"], "type": ["type": "string"], "href": ["type": "string", "format": "uri"]],
                           ]], "links": links]],
            "Raster": ["type": "string", "format": "binary"],
            "ManagedRaster": ["type": "object", "required": ["id", "kind", "format", "crs", "width", "height", "bbox", "links"],
                              "properties": ["id": ["type": "string"], "title": ["type": "string"], "kind": ["type": "string", "enum": ["dem"]],
                                             "format": ["type": "string"], "crs": ["type": "string"], "width": ["type": "integer"],
                                             "height": ["type": "integer"], "cellSize": ["type": "array", "items": ["type": "number"]],
                                             "bbox": ["type": "array", "items": ["type": "number"]], "bytes": ["type": "integer"],
                                             "sha256": ["type": "string"], "createdBy": ["type": "string"], "createdAt": ["type": "string"],
                                             "links": links]],
            "ManagedRasterList": ["type": "object", "required": ["rasters", "links"],
                                  "properties": ["rasters": ["type": "array", "items": ["$ref": "#/components/schemas/ManagedRaster"]], "links": links]],
            "Health": ["type": "object", "required": ["status"], "properties": ["status": ["type": "string"]]],
            "ParkingCoverage": ["type": "object", "required": ["public_berths", "detected_berths", "share", "target", "meets_target"],  // parking
                                "properties": ["public_berths": ["type": "integer"], "detected_berths": ["type": "integer"], "share": ["type": "number"],
                                               "target": ["type": "number"], "meets_target": ["type": "boolean"], "divisions": ["type": "array"]]],
            "FeatureHistory": ["type": "object", "required": ["id", "versions"],
                               "properties": ["id": ["type": "string"], "collection": ["type": "string"], "versions": ["type": "array"], "links": ["type": "array"]]],
            "LayerDiff": ["type": "object", "required": ["added", "removed", "changed"],
                          "properties": ["added": ["type": "array"], "removed": ["type": "array"], "changed": ["type": "array"]]],
            "SensorThingsEntity": ["type": "object", "description": "A SensorThings API 1.1 entity (Thing, Location, HistoricalLocation, Datastream, Sensor, ObservedProperty, Observation, FeatureOfInterest) with @iot.id and @iot.selfLink, or a set of them: {value, @iot.count, @iot.nextLink}."],
            "ParkingEvents": ["type": "string", "description": "Server-Sent Events: `event:` sign or availability, `id:` the feature id, `data:` the GeoJSON feature (a parking_guidance_signs feature with its content, or a parking_availability feature)."],
            "AlertEvents": ["type": "string", "description": "Server-Sent Events: `event: alert`, `id:` the alert id, `data:` the GeoJSON feature of alerts."],
            "ChangeEvents": ["type": "string", "description": "Server-Sent Events: `id:` the change-feed sequence, `event:` position, insert, update or delete, `data:` one JSON object {sequence, collection, id, kind, at, feature (GeoJSON as the caller may read it now, or null)}."],
            "Tileset3D": ["type": "object", "required": ["asset", "geometricError", "root"],  // 3D Tiles 1.1 tileset.json
                          "description": "An OGC 3D Tiles 1.1 tileset: asset (version 1.1), geometricError and the root tile (boundingVolume, transform to ECEF, children, content uris).",
                          "properties": ["asset": ["type": "object"], "geometricError": ["type": "number"], "root": ["type": "object"],
                                         "schema": ["type": "object"], "extensionsUsed": ["type": "array", "items": ["type": "string"]]]],
            "GLB": ["type": "string", "format": "binary", "description": "A binary glTF 2.0 tile (EXT_mesh_features, EXT_structural_metadata)."],
            "QualityReport": ["type": "object", "required": ["collection", "checkedAt", "features", "checks"],  // governance
                              "properties": ["collection": ["type": "string"], "checkedAt": ["type": "string", "format": "date-time"],
                                             "features": ["type": "integer"], "updateFrequency": ["type": "string"],
                                             "lastWritten": ["type": "string", "format": "date-time"], "lastChange": ["type": "integer"],
                                             "checks": ["type": "array", "items": [
                                                 "type": "object", "required": ["check", "count", "findings", "omitted"],
                                                 "properties": ["check": ["type": "string"], "description": ["type": "string"],
                                                                "count": ["type": "integer"], "omitted": ["type": "integer"],
                                                                "findings": ["type": "array", "items": [
                                                                    "type": "object", "properties": ["id": ["type": "string"], "detail": ["type": "string"]]]]]]]]],
            "SandboxQuery": ["type": "object", "required": ["aggregates"],
                             "properties": ["aggregates": ["type": "array", "minItems": 1, "items": [
                                                "type": "object", "required": ["op"],
                                                "properties": ["op": ["type": "string", "enum": ["count", "sum", "mean", "min", "max"]],
                                                               "property": ["type": "string"]]]],
                                            "groupBy": ["type": "string", "enum": ["none", "admin-division", "grid"]],
                                            "cellSize": ["type": "number", "minimum": 50, "maximum": 10000], "level": ["type": "string"],
                                            "filter": ["type": "string"]]],
            "SandboxAnswer": ["type": "object", "required": ["type", "features", "total", "k"],
                              "properties": ["type": ["type": "string", "enum": ["FeatureCollection"]], "features": ["type": "array"],
                                             "total": ["type": "object"], "k": ["type": "integer"], "suppressedGroups": ["type": "integer"],
                                             "collection": ["type": "string"], "query": ["type": "string"]]],
            "AuditTrail": ["type": "object", "required": ["entries"], "properties": ["entries": ["type": "array"], "next_after": ["type": "integer"]]],
            "AddressMatch": [
                "type": "object", "required": ["input", "address_code", "match_level", "confidence", "matched_address", "lon", "lat"],
                "properties": ["input": [:], "address_code": ["type": "string"], "match_level": ["type": "string"],
                               "confidence": ["type": "number", "minimum": 0, "maximum": 1], "matched_address": ["type": "string"],
                               "lon": ["type": "number"], "lat": ["type": "number"], "distance_m": ["type": "number"],
                               "fallback": ["type": "object"],
                               "index_rebuilding": ["type": "boolean", "description": "Present (true) when the standard addresses changed and the previous address index answered while the new one builds."]],
            ],
            "OpenAPI": ["type": "object"],
            "HTML": ["type": "string"],
            "CSVText": ["type": "string", "contentMediaType": "text/csv"],
            "WhoAmI": ["type": "object", "required": ["caller", "mapRole"],
                       "properties": ["caller": ["type": "string", "enum": ["anonymous", "department", "admin"]], "department": ["type": "string"],
                                      "role": ["type": "string"], "user": ["type": "string"],
                                      "mapRole": ["type": "string", "enum": ["public", "emergency", "fire", "traffic", "water", "planner"]], "mapRoleTitle": ["type": "string"]]],
            "GlyphRange": ["type": "string", "format": "binary"],
            "PrometheusText": ["type": "string"],
        ]
    }()

    /// `/api.html`: the operations and their parameters, generated from the same table.
    var page: String {
        var page = HTMLPage(title: "CityTwin API")
        page.raw("<p><a href=\"/api\">OpenAPI 3.0 document (JSON)</a></p>")
        for op in operations {
            var s = "<h2><code>\(HTMLPage.escape(op.method.rawValue)) \(HTMLPage.escape(op.path))</code></h2>"
            s += "<p>\(HTMLPage.escape(op.summary))</p>"
            if !op.parameters.isEmpty {
                s += "<table><tr><th>parameter</th><th>in</th><th>required</th><th>description</th></tr>"
                for p in op.parameters {
                    s += "<tr><td><code>\(HTMLPage.escape(p.name))</code></td><td>\(p.location.rawValue)</td>"
                        + "<td>\(p.required ? "yes" : "no")</td><td>\(HTMLPage.escape(p.description))</td></tr>"
                }
                s += "</table>"
            }
            s += "<p>responses: " + op.responses.map { String($0.status) }.joined(separator: ", ") + "</p>"
            page.raw(s)
        }
        return page.text
    }
}
