import Foundation
import GeoCore
import TwinStore

/// The checks of one feature at a time and of features against each other: geometry validity,
/// completeness, value ranges, code lists, other schema rules, duplicate keys and geometries,
/// and positions outside the city's extent. Plain values in, findings out.
struct FeatureChecks {
    let definition: LayerDefinition
    let rules: QualityRules
    /// The allowed extent (EPSG:4490 degrees); nil when the city has none yet.
    let extent: CityExtent?

    private var keyOwners: [JSONValue: String] = [:]
    private var geometryOwners: [Geometry: String] = [:]

    init(definition: LayerDefinition, rules: QualityRules, extent: CityExtent?) {
        self.definition = definition
        self.rules = rules
        self.extent = extent
    }

    /// The checks this layer gets.
    var kinds: Set<QualityCheckKind> {
        var k: Set<QualityCheckKind> = [.completeness, .valueRange, .codeList, .schema]
        if definition.hasGeometry { k.formUnion([.geometryValidity, .outsideExtent]) }
        if definition.hasGeometry && !rules.sharedPositions { k.insert(.duplicateGeometries) }
        if rules.key != nil { k.insert(.duplicateKeys) }
        if !rules.attributeRules.isEmpty { k.insert(.rules) }
        return k
    }

    mutating func check(_ feature: Feature, into findings: inout QualityFindings) {
        let id = feature.id.map { "\($0)" } ?? "?"
        checkGeometry(feature.geometry, id, &findings)
        let reported = checkValues(feature.properties, id, &findings)
        for rule in rules.attributeRules {
            for problem in rule.problems(feature.properties, reported: reported) { findings.add(.rules, id, problem) }
        }
        if let key = rules.key, let v = feature.properties[key], !v.isNull {
            if let first = keyOwners[v] {
                findings.add(.duplicateKeys, id, "\(key) \(Self.text(v)) is also the key of \(first)")
            } else {
                keyOwners[v] = id
            }
        }
    }

    private mutating func checkGeometry(_ geometry: Geometry?, _ id: String, _ findings: inout QualityFindings) {
        guard definition.hasGeometry else { return }
        guard let g = geometry else {
            findings.add(.completeness, id, "the feature has no geometry")
            return
        }
        do {
            let report = try g.validityReason()
            if !report.isValid {
                let at = report.location.map { String(format: " at [%.6f, %.6f]", $0.x, $0.y) } ?? ""
                findings.add(.geometryValidity, id, report.reason + at)
            }
        } catch {
            findings.add(.geometryValidity, id, "GEOS cannot read the geometry: \(error)")
        }
        if !rules.sharedPositions {
            if let first = geometryOwners[g] {
                findings.add(.duplicateGeometries, id, "the same geometry as \(first)")
            } else {
                geometryOwners[g] = id
            }
        }
        if let extent, let p = extent.outside(g) {
            findings.add(.outsideExtent, id, String(format: "position [%.6f, %.6f] lies outside the city's extent", p.x, p.y))
        }
    }

    /// The schema's checks of the values; returns the properties they found at fault.
    private func checkValues(_ values: [String: JSONValue], _ id: String, _ findings: inout QualityFindings) -> Set<String> {
        let schema = definition.schema
        var reported = Set<String>()
        for name in schema.required {
            switch values[name] {
            case nil: findings.add(.completeness, id, "\(name) is missing")
            // A required attribute whose type allows null states "none" with it (the root of the
            // address tree has no parent); null where the type does not allow it is a gap.
            case .null? where schema.properties[name]?.types.map({ !$0.contains(.null) }) ?? false:
                findings.add(.completeness, id, "\(name) is null")
            case .string(let s)? where s.trimmingCharacters(in: .whitespacesAndNewlines).isEmpty:
                findings.add(.completeness, id, "\(name) is blank")
            default: continue
            }
            reported.insert(name)
        }
        for (name, rule) in schema.properties.sorted(by: { $0.key < $1.key }) {
            guard let v = values[name], !v.isNull else { continue }
            if let allowed = rule.allowed, !allowed.contains(where: { Self.same($0, v) }) {
                findings.add(.codeList, id, "\(name) \(Self.text(v)) is not one of \(allowed.map(Self.text).joined(separator: ", "))")
                reported.insert(name)
            }
            if let x = v.doubleValue, let why = Self.rangeProblem(x, rule) {
                findings.add(.valueRange, id, "\(name) \(Self.text(v)) \(why)")
                reported.insert(name)
            }
        }
        // Whatever else the schema says (type, pattern, length): its first problem, unless it
        // names a property already reported above.
        do {
            try schema.validate(values, layer: definition.id, feature: id)
        } catch let e as StoreError {
            let property = e.field.map { String($0.prefix { $0 != "." && $0 != "[" }) }
            if property.map({ !reported.contains($0) }) ?? true { findings.add(.schema, id, e.message) }
            if let property { reported.insert(property) }
        } catch {
            findings.add(.schema, id, "\(error)")
        }
        return reported
    }

    static func rangeProblem(_ x: Double, _ rule: PropertyRule) -> String? {
        rangeProblem(x, minimum: rule.minimum, maximum: rule.maximum, exclusiveMinimum: rule.exclusiveMinimum, exclusiveMaximum: rule.exclusiveMaximum)
    }

    /// Why `x` lies outside the bounds given, or nil when it lies within them.
    static func rangeProblem(_ x: Double, minimum: Double?, maximum: Double?, exclusiveMinimum: Double?, exclusiveMaximum: Double?) -> String? {
        if let m = minimum, x < m { return "is below the minimum \(text(.number(m)))" }
        if let m = maximum, x > m { return "is above the maximum \(text(.number(m)))" }
        if let m = exclusiveMinimum, x <= m { return "must exceed \(text(.number(m)))" }
        if let m = exclusiveMaximum, x >= m { return "must stay below \(text(.number(m)))" }
        return nil
    }

    static func same(_ a: JSONValue, _ b: JSONValue) -> Bool {
        if let x = a.doubleValue, let y = b.doubleValue { return x == y }
        return a == b
    }

    /// A value as a report shows it: text quoted, numbers without a trailing `.0`.
    static func text(_ v: JSONValue) -> String {
        switch v {
        case .string(let s): return "'\(s)'"
        case .number(let d) where d.rounded() == d && abs(d) < 1e15: return String(Int64(d))
        case .number(let d): return String(d)
        case .integer(let i): return String(i)
        case .bool(let b): return String(b)
        case .null: return "null"
        default: return String(describing: v)
        }
    }
}
