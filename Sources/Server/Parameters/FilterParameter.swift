import Foundation
import GeoCore
import TwinStore

/// OGC API Features Part 3 on `/items`: `filter` in `filter-lang` (cql2-text by default, or
/// cql2-json) with geometry literals in `filter-crs` (CRS84 by default), and every simple
/// queryable as an equality parameter (`?kind=固定`). Both are ANDed with `bbox`, `datetime`
/// and each other. What a caller may filter on is what it may see: attributes masked for it
/// are not queryables, so a filter cannot probe a hidden value one comparison at a time.
enum FilterParameter {
    /// The `filter-lang` values, the first being the default.
    static let languages = ["cql2-text", "cql2-json"]

    /// The name the queryables give the feature geometry.
    static let geometryName = "geometry"

    /// The queryables of `layer` as `caller` may use them: its schema properties minus the
    /// attributes masked for the caller, plus `geometry` when the layer has one.
    static func queryables(_ layer: LayerDefinition, for caller: Caller) -> Queryables {
        var q = Queryables(layer: layer, geometryName: geometryName)
        for s in layer.sensitive where !AccessPolicy.seesClearValue(of: s, in: layer, caller) {
            q.properties[s.attribute] = nil
        }
        return q
    }

    /// The selection of `filter` and of the queryable parameters, or `nil` when there is none.
    /// - Parameter declared: the operation's own parameters; any other name must be a simple
    ///   queryable, else it is an `unknown-parameter` problem.
    static func selection(_ p: QueryParameters, declared: Set<String>, queryables: Queryables) throws -> FilterExpression? {
        var parts: [FilterExpression] = []
        if let filter = try parse(p, queryables: queryables) { parts.append(filter) }
        for (name, value) in p.pairs where !declared.contains(name) {
            parts.append(try equality(name, value, queryables: queryables, declared: declared))
        }
        switch parts.count {
        case 0: return nil
        case 1: return parts[0]
        default: return .and(parts)
        }
    }

    /// `filter` compiled against the queryables; `filter-lang` and `filter-crs` without a
    /// `filter` are still checked.
    static func parse(_ p: QueryParameters, queryables: Queryables) throws -> FilterExpression? {
        let language = p["filter-lang"] ?? languages[0]
        guard languages.contains(language) else {
            throw Problem.invalid("filter-lang", "'\(language)' is not one of \(languages.joined(separator: ", "))")
        }
        let crs = try p["filter-crs"].map { try CRSParameter.parse($0, parameter: "filter-crs") }
        guard let text = p["filter"] else { return nil }
        guard !text.trimmingCharacters(in: .whitespaces).isEmpty else { throw Problem.invalid("filter", "is empty") }
        if language == "cql2-json" {
            return try CQL2.parseJSON(Data(text.utf8), queryables: queryables, filterCRS: crs)
        }
        return try CQL2.parseText(text, queryables: queryables, filterCRS: crs)
    }

    /// `name=value` for a simple (string, number, integer or boolean) queryable.
    static func equality(_ name: String, _ value: String, queryables: Queryables, declared: Set<String>) throws -> FilterExpression {
        let literal: JSONValue
        switch queryables.properties[name] {
        case .string?:
            literal = .string(value)
        case .integer?:
            guard let i = Int64(value.trimmingCharacters(in: .whitespaces)) else {
                throw Problem.invalid(name, "'\(value)' is not an integer")
            }
            literal = .integer(i)
        case .number?:
            guard let d = Double(value.trimmingCharacters(in: .whitespaces)), d.isFinite else {
                throw Problem.invalid(name, "'\(value)' is not a finite number")
            }
            literal = .number(d)
        case .boolean?:
            switch value.lowercased() {
            case "true": literal = .bool(true)
            case "false": literal = .bool(false)
            default: throw Problem.invalid(name, "'\(value)' is not true or false")
            }
        default:
            let simple = queryables.properties.filter { [.string, .integer, .number, .boolean].contains($0.value) }.keys
            throw Problem(.unknownParameter,
                          "parameter '\(name)' is not supported here; supported: \(declared.union(simple).sorted().joined(separator: ", "))",
                          parameter: name)
        }
        return .comparison(.equal, .property(name), .literal(literal))
    }
}
