import GeoCore
import TwinStore

/// The TileJSON 3.0 `vector_layers` description of store layers: what a map client needs to
/// know about each MVT layer (id, description, field types, zoom range). One description serves
/// the TileJSON endpoint and the PMTiles/MBTiles metadata.
public enum VectorLayers {
    /// Property name → TileJSON field type (`Number`, `Boolean`, `String`) from a layer's schema.
    public static func fieldTypes(_ definition: LayerDefinition) -> [String: String] {
        definition.schema.properties.mapValues { rule in
            switch rule.scalarType {
            case .integer, .number: "Number"
            case .boolean: "Boolean"
            default: "String"
            }
        }
    }

    /// One `vector_layers` entry.
    public static func entry(_ definition: LayerDefinition, minZoom: Int, maxZoom: Int) -> JSONValue {
        ["id": .string(definition.id), "description": .string(definition.title.en),
         "fields": .object(fieldTypes(definition).mapValues(JSONValue.string)),
         "minzoom": .integer(Int64(minZoom)), "maxzoom": .integer(Int64(maxZoom))]
    }
}
