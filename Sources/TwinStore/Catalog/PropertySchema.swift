import Foundation
import GeoCore

/// The JSON type names of JSON Schema.
public enum JSONType: String, Sendable, Hashable, CaseIterable {
    case string, number, integer, boolean, object, array, null

    // Compared and hashed by case, not through the raw text (the `RawRepresentable` default
    // hashes the string): schema checks look a type up for every value of every feature.
    public static func == (a: JSONType, b: JSONType) -> Bool { a.ordinal == b.ordinal }
    public func hash(into hasher: inout Hasher) { hasher.combine(ordinal) }

    private var ordinal: UInt8 {
        switch self {
        case .string: 0
        case .number: 1
        case .integer: 2
        case .boolean: 3
        case .object: 4
        case .array: 5
        case .null: 6
        }
    }

    func matches(_ v: JSONValue) -> Bool {
        switch (self, v) {
        case (.null, .null), (.boolean, .bool), (.string, .string), (.array, .array), (.object, .object): true
        case (.number, .integer), (.number, .number): true
        case (.integer, .integer): true
        case (.integer, .number(let d)): d.rounded() == d && d.isFinite
        default: false
        }
    }
}

/// The scalar type a backend should read a property as (PostGIS casts `props->>'x'` with it).
public enum PropertyType: Sendable, Hashable {
    case string, number, integer, boolean, dateTime, date
    /// Unknown or mixed: compared as the backend's JSON value.
    case json
}

/// A regular expression compiled once per definition. `NSRegularExpression` is documented as
/// safe to use from several threads for matching.
final class CompiledPattern: @unchecked Sendable, Hashable {
    let source: String
    let regex: NSRegularExpression
    init(_ source: String) throws {
        self.source = source
        self.regex = try NSRegularExpression(pattern: source)
    }
    func matches(_ s: String) -> Bool {
        regex.firstMatch(in: s, range: NSRange(s.startIndex..., in: s)) != nil
    }
    static func == (a: CompiledPattern, b: CompiledPattern) -> Bool { a.source == b.source }
    func hash(into h: inout Hasher) { h.combine(source) }
}

/// The rules for one property: the JSON Schema 2020-12 keywords CityTwin supports
/// (`type`, `enum`, `const`, `minimum`, `maximum`, `exclusiveMinimum`, `exclusiveMaximum`,
/// `minLength`, `maxLength`, `pattern`, `format: date | date-time`), and for structured values
/// an array's `items`, `minItems` and `maxItems` and an object's `properties`, `required` and
/// `additionalProperties`, to any depth (a signal's lane groups, a warehouse's stock).
public struct PropertyRule: Sendable, Hashable {
    public var types: Set<JSONType>?
    public var allowed: [JSONValue]?
    public var minimum: Double?
    public var maximum: Double?
    public var exclusiveMinimum: Double?
    public var exclusiveMaximum: Double?
    public var minLength: Int?
    public var maxLength: Int?
    public var minItems: Int?
    public var maxItems: Int?
    public var format: String?
    var pattern: CompiledPattern?
    /// What each element of an array must be, and the schema of an object's members.
    var nested: NestedRules?

    /// The scalar type to read this property as.
    public var scalarType: PropertyType {
        if format == "date-time" { return .dateTime }
        if format == "date" { return .date }
        let t = (types ?? []).subtracting([.null])
        guard t.count == 1, let only = t.first else {
            if t == [.integer, .number] { return .number }
            return .json
        }
        switch only {
        case .string: return .string
        case .number: return .number
        case .integer: return .integer
        case .boolean: return .boolean
        default: return .json
        }
    }

    /// Reads one property schema; a malformed keyword throws naming `<base>.<keyword>`.
    static func read(_ d: [String: JSONValue], at base: String, layer: String?) throws -> PropertyRule {
        func fail(_ field: String, _ why: String) -> StoreError {
            StoreError(.invalidLayerDefinition, why, layer: layer, field: field)
        }
        var r = PropertyRule()
        switch d["type"] {
        case nil: break
        case .string(let s)?:
            guard let t = JSONType(rawValue: s) else { throw fail(base + ".type", "unknown type \"\(s)\"") }
            r.types = [t]
        case .array(let a)?:
            var set = Set<JSONType>()
            for v in a {
                guard let s = v.stringValue, let t = JSONType(rawValue: s) else {
                    throw fail(base + ".type", "type must list JSON type names")
                }
                set.insert(t)
            }
            r.types = set
        default: throw fail(base + ".type", "type must be a string or an array of strings")
        }
        if let e = d["enum"] {
            guard let a = e.arrayValue else { throw fail(base + ".enum", "enum must be an array") }
            r.allowed = a
        }
        if let c = d["const"] { r.allowed = [c] }
        func number(_ k: String) throws -> Double? {
            guard let v = d[k] else { return nil }
            guard let x = v.doubleValue else { throw fail(base + "." + k, "\(k) must be a number") }
            return x
        }
        func count(_ k: String) throws -> Int? {
            guard let v = d[k] else { return nil }
            guard let x = v.integerValue, x >= 0 else { throw fail(base + "." + k, "\(k) must be a non-negative integer") }
            return Int(x)
        }
        r.minimum = try number("minimum")
        r.maximum = try number("maximum")
        r.exclusiveMinimum = try number("exclusiveMinimum")
        r.exclusiveMaximum = try number("exclusiveMaximum")
        r.minLength = try count("minLength")
        r.maxLength = try count("maxLength")
        r.minItems = try count("minItems")
        r.maxItems = try count("maxItems")
        if let p = d["pattern"] {
            guard let s = p.stringValue else { throw fail(base + ".pattern", "pattern must be a string") }
            do { r.pattern = try CompiledPattern(s) } catch {
                throw fail(base + ".pattern", "pattern is not a valid regular expression: \(s)")
            }
        }
        if let f = d["format"] {
            guard let s = f.stringValue else { throw fail(base + ".format", "format must be a string") }
            r.format = s
        }
        var nested = NestedRules()
        switch d["items"] {
        case nil, .bool(true)?: break
        case .bool(false)?: r.maxItems = 0
        case .object(let o)?: nested.items = [try read(o, at: base + ".items", layer: layer)]
        default: throw fail(base + ".items", "items must be a schema (an object, or true or false)")
        }
        if d["properties"] != nil || d["required"] != nil || d["additionalProperties"] == .bool(false) {
            nested.members = [try PropertySchema(object: d, layer: layer, at: base)]
        }
        if nested.items != nil || nested.members != nil { r.nested = nested }
        return r
    }

    /// Why `v`, at `field` (`lane_groups[2].lanes`), breaks this rule, or `nil` when it does not.
    func problem(_ field: String, _ v: JSONValue) -> (field: String, why: String)? {
        func at(_ why: String) -> (field: String, why: String) { (field, why) }
        if let types, !types.contains(where: { $0.matches(v) }) {
            return at("\"\(field)\" must be of type \(types.map(\.rawValue).sorted().joined(separator: " or "))")
        }
        if let allowed, !allowed.contains(where: { PropertySchema.jsonEqual($0, v) }) {
            return at("\"\(field)\" must be one of the enumerated values")
        }
        if let x = v.doubleValue {
            if let m = minimum, x < m { return at("\"\(field)\" must be ≥ \(m)") }
            if let m = maximum, x > m { return at("\"\(field)\" must be ≤ \(m)") }
            if let m = exclusiveMinimum, x <= m { return at("\"\(field)\" must be > \(m)") }
            if let m = exclusiveMaximum, x >= m { return at("\"\(field)\" must be < \(m)") }
        }
        if case .string(let s) = v {
            if maxLength != nil || minLength != nil {
                let n = s.unicodeScalars.count
                if let m = maxLength, n > m { return at("\"\(field)\" must be at most \(m) characters") }
                if let m = minLength, n < m { return at("\"\(field)\" must be at least \(m) characters") }
            }
            if let p = pattern, !p.matches(s) { return at("\"\(field)\" must match the pattern \(p.source)") }
            switch format {
            case "date"?: if !RFC3339.isDate(s) { return at("\"\(field)\" must be an RFC 3339 date (YYYY-MM-DD)") }
            case "date-time"?: if RFC3339.dateTime(s) == nil { return at("\"\(field)\" must be an RFC 3339 date-time") }
            default: break
            }
        }
        if case .array(let elements) = v {
            if let m = minItems, elements.count < m { return at("\"\(field)\" must have at least \(m) items") }
            if let m = maxItems, elements.count > m { return at("\"\(field)\" must have at most \(m) items") }
        }
        if let nested {
            if let item = nested.items?.first, case .array(let elements) = v {
                for (i, e) in elements.enumerated() {
                    if let p = item.problem("\(field)[\(i)]", e) { return p }
                }
            }
            if let members = nested.members?.first, case .object(let o) = v {
                return members.problem(in: o, prefix: field + ".")
            }
        }
        return nil
    }
}

/// The rules inside a structured property, each held in a one-element array so that rules nest.
struct NestedRules: Sendable, Hashable {
    var items: [PropertyRule]?
    var members: [PropertySchema]?
}

/// A layer's attribute schema: a JSON Schema object (`type: object`, `properties`, `required`,
/// `additionalProperties`) with the subset of keywords in `PropertyRule`. Unknown keywords are
/// kept in `json` and ignored by validation.
public struct PropertySchema: Sendable, Hashable {
    /// The schema as written in the layer definition.
    public var json: JSONValue
    public var properties: [String: PropertyRule]
    public var required: [String]
    /// `false` when the schema says `"additionalProperties": false`.
    public var allowsAdditionalProperties: Bool

    /// Reads the supported subset; a malformed keyword throws naming `schema.properties.<name>.<keyword>`.
    public init(json: JSONValue, layer: String? = nil) throws {
        guard let root = json.objectValue else {
            throw StoreError(.invalidLayerDefinition, "the schema must be a JSON object", layer: layer, field: "schema")
        }
        if let t = root["type"], t != "object" {
            throw StoreError(.invalidLayerDefinition, "the schema's type must be \"object\"", layer: layer, field: "schema.type")
        }
        try self.init(object: root, layer: layer, at: "schema")
    }

    /// The members of an object schema at `base` (`schema`, or `schema.properties.lane_groups.items`
    /// for a nested one, whose `type` its `PropertyRule` checks).
    init(object root: [String: JSONValue], layer: String?, at base: String) throws {
        func fail(_ field: String, _ why: String) -> StoreError {
            StoreError(.invalidLayerDefinition, why, layer: layer, field: field)
        }
        self.json = .object(root)
        var rules = [String: PropertyRule]()
        if let props = root["properties"] {
            guard let obj = props.objectValue else { throw fail(base + ".properties", "properties must be an object") }
            for (name, def) in obj {
                let at = base + ".properties.\(name)"
                guard let d = def.objectValue else { throw fail(at, "a property schema must be an object") }
                rules[name] = try PropertyRule.read(d, at: at, layer: layer)
            }
        }
        self.properties = rules
        var req = [String]()
        if let r = root["required"] {
            guard let a = r.arrayValue else { throw fail(base + ".required", "required must be an array of names") }
            for v in a {
                guard let s = v.stringValue else { throw fail(base + ".required", "required must be an array of names") }
                req.append(s)
            }
        }
        self.required = req
        self.allowsAdditionalProperties = root["additionalProperties"] != .bool(false)
    }

    /// Checks `values` against the schema; the error names the feature and the first failing field
    /// (a nested one by its path, `lane_groups[2].lanes`).
    public func validate(_ values: [String: JSONValue], layer: String, feature: String) throws {
        if let (field, why) = problem(in: values, prefix: "") {
            throw StoreError(.invalidFeature, why, layer: layer, feature: feature, field: field)
        }
    }

    /// The first field of `values` (named after `prefix`) the schema refuses, and why.
    func problem(in values: [String: JSONValue], prefix: String) -> (field: String, why: String)? {
        for name in required where values[name] == nil {
            return (prefix + name, "required property \"\(prefix + name)\" is missing")
        }
        // In the dictionary's order first (no sort per feature); only a feature that fails is
        // walked again in name order, so the error names the same property whatever the order.
        guard values.contains(where: { problem(prefix, $0.key, $0.value) != nil }) else { return nil }
        for name in values.keys.sorted() {
            if let v = values[name], let p = problem(prefix, name, v) { return p }
        }
        return nil
    }

    /// Why property `name` may not hold `v`, or `nil` when it may.
    private func problem(_ prefix: String, _ name: String, _ v: JSONValue) -> (field: String, why: String)? {
        guard let rule = properties[name] else {
            return allowsAdditionalProperties ? nil : (prefix + name, "property \"\(prefix + name)\" is not in the layer schema")
        }
        return rule.problem(prefix + name, v)
    }

    /// JSON equality where `1` and `1.0` are the same number.
    static func jsonEqual(_ a: JSONValue, _ b: JSONValue) -> Bool {
        if let x = a.doubleValue, let y = b.doubleValue { return x == y }
        return a == b
    }

    /// The type to read `property` as; `.json` when the schema does not say.
    public func scalarType(of property: String) -> PropertyType {
        properties[property]?.scalarType ?? .json
    }
}

extension LayerDefinition {
    /// This definition with only `names` required (those the definition does not list as
    /// properties are left out): the layer as a source that cannot say the rest holds it — a city
    /// built from OpenStreetMap, whose fire stations carry no appliance count. The properties, their
    /// rules and everything else stay as they are.
    public func requiring(only names: [String]) throws -> LayerDefinition {
        guard var root = schema.json.objectValue else { return self }
        root["required"] = .array(names.filter { schema.properties[$0] != nil }.map { .string($0) })
        var copy = self
        copy.schema = try PropertySchema(json: .object(root), layer: id)
        return copy
    }
}
