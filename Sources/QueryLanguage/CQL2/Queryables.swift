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

    /// The names, sorted, for "unknown property" messages (at most `limit`, then "...").
    func listing(limit: Int = 8) -> String {
        let names = properties.keys.sorted()
        let shown = names.prefix(limit).joined(separator: ", ")
        return names.count > limit ? shown + ", ..." : shown
    }
}
