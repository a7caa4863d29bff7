import Foundation
import GeoCore
import TwinStore

/// A layer's own rules on its attributes, from `quality.rules` of its definition: what a design
/// standard or the layer's meaning asks of a feature beyond its schema, each a data defect when
/// broken (a hydrant without a pressure class, a lane recorded as a fire lane but narrower than
/// GB 50016's 4 m, a violation closed without a closing time):
///
/// ```json
/// "rules": [{"standard": "GB 50016-2014 §7.1.8", "rule": "a fire lane at least 4 m wide",
///            "when": [{"property": "kind", "in": ["消防车道"]}],
///            "require": [{"property": "width_m", "minimum": 4}]}]
/// ```
///
/// - `standard`: what the rule comes from, cited in every finding (a standard's clause, or the
///   layer's own consistency);
/// - `rule`: the rule in words;
/// - `when` (optional): conditions that must all hold for the rule to apply;
/// - `require`: conditions that must hold where it applies; each one broken is a finding.
///
/// A condition names a `property` and any of `in` (a list of values), `minimum`, `maximum`,
/// `exclusiveMinimum`, `exclusiveMaximum` (numbers) and `present` (default true; false: the
/// property must be missing or null). A condition on a missing or null property holds only when it
/// says `"present": false`.
public struct AttributeRule: Sendable, Hashable {
    public var standard: String
    public var rule: String
    public var when: [Condition]
    public var require: [Condition]

    public struct Condition: Sendable, Hashable {
        public var property: String
        public var values: [JSONValue]?
        public var minimum: Double?
        public var maximum: Double?
        public var exclusiveMinimum: Double?
        public var exclusiveMaximum: Double?
        public var present = true

        /// Why `properties` break the condition, or nil when they keep it.
        func problem(_ properties: [String: JSONValue]) -> String? {
            // Missing and null alike are "no value" (JSONValue reads a bare nil as .null, hence the explicit optional).
            let stored = properties[property]
            let v: JSONValue? = stored.map(\.isNull) == false ? stored : Optional<JSONValue>.none
            guard present else { return v.map { "\(property) is \(FeatureChecks.text($0)), where it should be empty" } }
            guard let v else { return "\(property) is missing" }
            if let values, !values.contains(where: { FeatureChecks.same($0, v) }) {
                return "\(property) \(FeatureChecks.text(v)) is not \(values.map(FeatureChecks.text).joined(separator: " or "))"
            }
            guard minimum != nil || maximum != nil || exclusiveMinimum != nil || exclusiveMaximum != nil else { return nil }
            guard let x = v.doubleValue else { return "\(property) \(FeatureChecks.text(v)) is not a number" }
            return FeatureChecks.rangeProblem(x, minimum: minimum, maximum: maximum, exclusiveMinimum: exclusiveMinimum,
                                              exclusiveMaximum: exclusiveMaximum).map { "\(property) \(FeatureChecks.text(v)) \($0)" }
        }
    }

    /// The findings' details for `properties`: one per broken requirement where the rule applies,
    /// leaving out requirements on the properties in `reported` (already a schema finding).
    func problems(_ properties: [String: JSONValue], reported: Set<String> = []) -> [String] {
        guard when.allSatisfy({ $0.problem(properties) == nil }) else { return [] }
        return require.filter { !reported.contains($0.property) }.compactMap { $0.problem(properties) }.map { "\($0) (\(standard): \(rule))" }
    }

    /// The rules of a `quality.rules` array; `fail(field, why)` makes the error for a malformed one.
    static func parse(_ value: JSONValue, properties: Set<String>, fail: (String, String) -> StoreError) throws -> [AttributeRule] {
        guard let list = value.arrayValue else { throw fail("rules", "\"rules\" must be an array of rules") }
        return try list.enumerated().map { i, item in
            let at = "rules[\(i)]"
            guard let o = item.objectValue else { throw fail(at, "a rule must be an object") }
            guard let standard = o["standard"]?.stringValue, !standard.isEmpty else { throw fail(at + ".standard", "\"standard\" must name what the rule comes from") }
            guard let rule = o["rule"]?.stringValue, !rule.isEmpty else { throw fail(at + ".rule", "\"rule\" must say the rule in words") }
            func conditions(_ key: String) throws -> [Condition] {
                guard let v = o[key], !v.isNull else { return [] }
                guard let a = v.arrayValue else { throw fail("\(at).\(key)", "\"\(key)\" must be an array of conditions") }
                return try a.enumerated().map { try condition($1, "\(at).\(key)[\($0)]") }
            }
            func condition(_ v: JSONValue, _ at: String) throws -> Condition {
                guard let c = v.objectValue else { throw fail(at, "a condition must be an object") }
                guard let name = c["property"]?.stringValue, properties.contains(name) else {
                    throw fail(at + ".property", "\"property\" must name a property of the layer's schema")
                }
                func number(_ k: String) throws -> Double? {
                    guard let n = c[k], !n.isNull else { return nil }
                    guard let x = n.doubleValue, x.isFinite else { throw fail("\(at).\(k)", "\"\(k)\" must be a number") }
                    return x
                }
                var out = Condition(property: name, minimum: try number("minimum"), maximum: try number("maximum"),
                                    exclusiveMinimum: try number("exclusiveMinimum"), exclusiveMaximum: try number("exclusiveMaximum"))
                if let values = c["in"], !values.isNull {
                    guard let a = values.arrayValue, !a.isEmpty else { throw fail(at + ".in", "\"in\" must list the values allowed") }
                    out.values = a
                }
                switch c["present"] {
                case nil, .null?: break
                case .bool(let b)?: out.present = b
                default: throw fail(at + ".present", "\"present\" must be true or false")
                }
                let unknown = Set(c.keys).subtracting(["property", "in", "minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum", "present"])
                if let k = unknown.sorted().first { throw fail("\(at).\(k)", "unknown condition \"\(k)\"") }
                return out
            }
            let require = try conditions("require")
            guard !require.isEmpty else { throw fail(at + ".require", "\"require\" must list at least one condition") }
            return AttributeRule(standard: standard, rule: rule, when: try conditions("when"), require: require)
        }
    }
}
