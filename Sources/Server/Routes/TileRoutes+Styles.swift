import Foundation
import GeoCore
import TwinStore

// Layer styles' fill colours (from a style's `fill` and the layer schema) and the tile operations' response schemas.
extension MapStyle {
    /// A layer style's `fill`: a colour, or `by-<property>`, which colours each value of that
    /// property's `enum` (in the layer schema) from a fixed palette, as a MapLibre `match`
    /// expression; anything else falls back to the layer colour.
    static func fillColor(_ fill: String?, _ definition: LayerDefinition, default color: String, colors: JSONValue? = nil) -> JSONValue {
        guard let fill else { return .string(color) }
        guard fill.hasPrefix("by-") else { return .string(fill) }
        let property = String(fill.dropFirst(3))
        // The style's own colours by value (e.g. level of service A–F), else a palette over the schema's values.
        if let given = colors?.objectValue, !given.isEmpty {
            var expression: [JSONValue] = ["match", ["get", .string(property)]]
            for (value, c) in given.sorted(by: { $0.key < $1.key }) {
                expression.append(.string(value))
                expression.append(c)
            }
            expression.append(.string(color))
            return .array(expression)
        }
        guard let values = definition.schema.properties[property]?.allowed, !values.isEmpty else { return .string(color) }
        let palette = ["#f4d03f", "#e67e22", "#e74c3c", "#8e44ad", "#3498db", "#1abc9c", "#27ae60", "#95a5a6",
                       "#d35400", "#2c3e50", "#16a085", "#c0392b"]
        var expression: [JSONValue] = ["match", ["get", .string(property)]]
        for (i, value) in values.enumerated() {
            expression.append(value)
            expression.append(.string(palette[i % palette.count]))
        }
        expression.append(.string(color))
        return .array(expression)
    }
}

extension TileRoutes {

    /// The schema name a tile response refers to (one of `tileSchemas`).
    static func tileSchema(_ name: String) -> String { name }

    /// Response schemas of the tile operations, merged into `#/components/schemas` of the
    /// OpenAPI document.
    static let tileSchemas: [String: JSONValue] = {
        let links: JSONValue = ["type": "array", "items": ["$ref": "#/components/schemas/Link"]]
        let tilesetSummary: JSONValue = [
            "type": "object", "required": ["dataType", "crs", "links"],
            "properties": ["title": ["type": "string"], "dataType": ["type": "string", "enum": ["map", "vector", "coverage"]],
                           "crs": ["type": "string", "format": "uri"], "tileMatrixSetURI": ["type": "string", "format": "uri"], "links": links],
        ]
        return [
            "TileMatrixSets": ["type": "object", "required": ["tileMatrixSets"],
                               "properties": ["tileMatrixSets": ["type": "array", "items": ["type": "object", "required": ["id", "links"],
                                   "properties": ["id": ["type": "string"], "title": ["type": "string"], "uri": ["type": "string"], "links": links]]],
                                              "links": links]],
            "TileMatrixSet": ["type": "object", "required": ["crs", "tileMatrices"],
                              "properties": ["id": ["type": "string"], "title": ["type": "string"], "uri": ["type": "string"],
                                             "crs": ["type": "string"], "orderedAxes": ["type": "array", "items": ["type": "string"]],
                                             "tileMatrices": ["type": "array", "items": ["type": "object",
                                                 "required": ["id", "scaleDenominator", "cellSize", "pointOfOrigin", "tileWidth", "tileHeight", "matrixWidth", "matrixHeight"]]],
                                             "links": links]],
            "TileSets": ["type": "object", "required": ["tilesets"],
                         "properties": ["tilesets": ["type": "array", "items": tilesetSummary], "links": links]],
            "TileSet": ["type": "object", "required": ["dataType", "crs", "links"],
                        "properties": ["title": ["type": "string"], "dataType": ["type": "string"], "crs": ["type": "string"],
                                       "tileMatrixSetURI": ["type": "string"], "layers": ["type": "array", "items": ["type": "object"]],
                                       "tileMatrixSetLimits": ["type": "array", "items": ["type": "object"]], "links": links]],
            "VectorTile": ["type": "string", "format": "binary"],
            "TileJSON": ["type": "object", "required": ["tilejson", "tiles", "vector_layers"],
                         "properties": ["tilejson": ["type": "string"], "tiles": ["type": "array", "items": ["type": "string"]],
                                        "vector_layers": ["type": "array", "items": ["type": "object"]]]],
            "MapLibreStyle": ["type": "object", "required": ["version", "sources", "layers"]],
        ]
    }()
}
