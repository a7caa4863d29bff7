import Foundation

/// What a filter may name: a layer's queryable properties and their types (OGC API Features
/// Part 3, `/collections/{id}/queryables`). CQL2 parsing rejects unknown properties and literals
/// whose type cannot match the property's.
public struct Queryables: Sendable, Hashable {
    /// The type a queryable holds, as its JSON Schema says.
    public enum ValueType: String, Sendable, Hashable {
        case string, number, integer, boolean, date, dateTime = "date-time", geometry
        /// Mixed or undeclared: any literal is accepted.
        case any

        var isNumeric: Bool { self == .number || self == .integer }
        var isTemporal: Bool { self == .date || self == .dateTime }
        /// How messages name the type: "an integer", "a string".
        var phrase: String {
            switch self {
            case .integer: "an integer"
            case .any: "of any type"
            case .dateTime: "a date-time"
            default: "a " + rawValue
            }
        }
    }

    /// Property name → type; the geometry queryable(s) have type `.geometry`.
    public var properties: [String: ValueType]

    public init(properties: [String: ValueType]) {
        self.properties = properties
    }

    /// The queryables of a layer: every property of its schema, plus `geometryName` (the name
    /// the queryables document gives the feature geometry) when the layer has geometry.
    public init(layer: LayerDefinition, geometryName: String = "geometry") {
        var out = [String: ValueType]()
        for (name, rule) in layer.schema.properties {
            switch rule.scalarType {
            case .string: out[name] = .string
            case .number: out[name] = .number
            case .integer: out[name] = .integer
            case .boolean: out[name] = .boolean
            case .date: out[name] = .date
            case .dateTime: out[name] = .dateTime
            case .json: out[name] = .any
            }
        }
        if layer.hasGeometry { out[geometryName] = .geometry }
        self.properties = out
    }

    /// The names, sorted, for "unknown property" messages (at most `limit`, then "...").
    func listing(limit: Int = 8) -> String {
        let names = properties.keys.sorted()
        let shown = names.prefix(limit).joined(separator: ", ")
        return names.count > limit ? shown + ", ..." : shown
    }
}
