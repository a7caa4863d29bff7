import Foundation
import GeoCore

/// Compiles a `FilterExpression` to a boolean SQL expression with bound parameters, for any
/// `SQLDialect`. Property names are bound as JSON paths, literals as parameters: no input
/// text ever becomes SQL text.
struct FilterCompiler {
    let table: FeatureTable

    private var layer: LayerDefinition { table.layer }

    /// The boolean SQL of `e`. So that the SQL of any filter the parsers accept (at most
    /// `FilterExpression.maximumDepth` deep) stays within SQLite's parser stack (about 100
    /// pending symbols: 43 nested `(NOT …)` overflowed it), the SQL does not nest as the filter
    /// does: `NOT` is pushed down to the predicates (De Morgan's laws and `NOT NOT x = x` hold in
    /// SQL's three-valued logic, so the rows are the same), and the deepest operand of `AND`, `OR`,
    /// `+` and `*` comes first, so that the parser reduces it before it reads the others (one
    /// pending symbol per level instead of three).
    /// - Throws: `StoreError` `.invalidQuery` for a filter deeper than the limits (built by code:
    ///   the parsers refuse one first).
    func compile(_ e: FilterExpression, into b: inout SQLBuilder) throws -> String {
        do {
            try FilterExpression.requireDepth(e)
        } catch let error as CQLError {
            throw StoreError(.invalidQuery, error.message, layer: layer.id, field: "filter")
        }
        return try compile(e, negated: false, into: &b)
    }

    /// `e`, or `NOT e` when `negated`, with the negation pushed down to the predicates.
    private func compile(_ e: FilterExpression, negated: Bool, into b: inout SQLBuilder) throws -> String {
        let d = b.dialect
        switch e {
        case .and(let xs):
            return try junction(xs, or: negated, negated: negated, into: &b)
        case .or(let xs):
            return try junction(xs, or: !negated, negated: negated, into: &b)
        case .not(let x):
            return try compile(x, negated: !negated, into: &b)
        case .constant(let v):
            return d.boolean(negated ? !v : v)
        default:
            let predicate = try compile(predicate: e, into: &b)
            return negated ? "(NOT " + predicate + ")" : predicate
        }
    }

    /// `xs` joined by OR (`or`) or AND, each negated when `negated`, the deepest first. No
    /// operand: TRUE for AND, FALSE for OR.
    private func junction(_ xs: [FilterExpression], or: Bool, negated: Bool, into b: inout SQLBuilder) throws -> String {
        guard !xs.isEmpty else { return b.dialect.boolean(!or) }
        let depths = xs.map(\.depth)
        let order = xs.indices.sorted { depths[$0] != depths[$1] ? depths[$0] > depths[$1] : $0 < $1 }
        let parts = try order.map { try compile(xs[$0], negated: negated, into: &b) }
        return "(" + parts.joined(separator: or ? " OR " : " AND ") + ")"
    }

    /// A predicate (no `AND`, `OR`, `NOT` or constant at its top).
    private func compile(predicate e: FilterExpression, into b: inout SQLBuilder) throws -> String {
        let d = b.dialect
        switch e {
        case .and, .or, .not, .constant:
            return try compile(e, negated: false, into: &b)
        case .comparison(let op, let l, let r):
            let hint = typeHint(l) ?? typeHint(r)
            let ls = try scalar(l, hint: hint, into: &b)
            let rs = try scalar(r, hint: hint, into: &b)
            return "(\(ls) \(op.rawValue) \(rs))"
        case .like(let x, let pattern, let ci):
            let xs = try scalar(x, hint: .string, into: &b)
            let p = b.bind(.text(d.likePattern(pattern, caseInsensitive: ci)))
            return d.like(xs, pattern: p, caseInsensitive: ci)
        case .between(let x, let lo, let hi):
            let hint = typeHint(x) ?? typeHint(lo) ?? typeHint(hi)
            let xs = try scalar(x, hint: hint, into: &b)
            let los = try scalar(lo, hint: hint, into: &b)
            let his = try scalar(hi, hint: hint, into: &b)
            return "(\(xs) BETWEEN \(los) AND \(his))"
        case .in(let x, let list):
            guard !list.isEmpty else { return d.boolean(false) }
            let hint = typeHint(x) ?? list.lazy.compactMap(typeHint).first
            let xs = try scalar(x, hint: hint, into: &b)
            let items = try list.map { try scalar($0, hint: hint, into: &b) }
            return "(\(xs) IN (\(items.joined(separator: ", "))))"
        case .isNull(let x):
            return "(\(try scalar(x, hint: nil, into: &b)) IS NULL)"
        case .spatial(let predicate, let geometry):
            guard layer.hasGeometry else {
                throw StoreError(.invalidQuery, "layer \"\(layer.id)\" has no geometry for a spatial filter", layer: layer.id)
            }
            return d.spatial(predicate, geometry, table: table, into: &b)
        case .temporal(let predicate, let property, let value):
            // A predicate that can never hold binds nothing (SQLite counts parameters by the highest one used).
            if Self.neverHolds(predicate, value) { return d.boolean(false) }
            let x = d.instant(d.property(property, type: .string, into: &b))
            return temporal(predicate, x, value, into: &b)
        }
    }

    /// Whether `p` against `value` is false for every instant (an open end on the compared side).
    static func neverHolds(_ p: TemporalPredicate, _ value: TemporalValue) -> Bool {
        switch p {
        case .before: value.start == nil
        case .after: value.end == nil
        case .equals: if case .instant = value { false } else { true }
        case .during: false
        }
    }

    /// `x` (an instant expression) against `value`.
    private func temporal(_ p: TemporalPredicate, _ x: String, _ value: TemporalValue, into b: inout SQLBuilder) -> String {
        let d = b.dialect
        func at(_ date: Date) -> String { d.instant(b.bind(.text(RFC3339.format(date)))) }
        switch p {
        case .before:
            guard let s = value.start else { return d.boolean(false) }
            return "(\(x) < \(at(s)))"
        case .after:
            guard let e = value.end else { return d.boolean(false) }
            return "(\(x) > \(at(e)))"
        case .equals:
            guard case .instant(let i) = value else { return d.boolean(false) }
            return "(\(x) = \(at(i)))"
        case .during:
            var parts = ["(\(x) IS NOT NULL)"]
            if let s = value.start { parts.append("(\(x) >= \(at(s)))") }
            if let e = value.end { parts.append("(\(x) <= \(at(e)))") }
            return "(" + parts.joined(separator: " AND ") + ")"
        }
    }

    /// The OGC API `datetime` parameter against the layer's temporal properties.
    func datetime(_ value: TemporalValue, into b: inout SQLBuilder) throws -> String {
        guard let t = layer.temporal else {
            throw StoreError(.invalidQuery, "layer \"\(layer.id)\" has no temporal property for datetime", layer: layer.id)
        }
        let d = b.dialect
        let s = d.instant(d.property(t.start, type: .string, into: &b))
        guard let endProperty = t.end else {
            return temporal(.during, s, value, into: &b)
        }
        // Interval features overlap the query interval.
        let e = d.instant(d.property(endProperty, type: .string, into: &b))
        var parts = ["(\(s) IS NOT NULL)"]
        if let qe = value.end { parts.append("(\(s) <= \(d.instant(b.bind(.text(RFC3339.format(qe))))))") }
        if let qs = value.start { parts.append("(\(e) IS NULL OR \(e) >= \(d.instant(b.bind(.text(RFC3339.format(qs))))))") }
        return "(" + parts.joined(separator: " AND ") + ")"
    }

    private func typeHint(_ x: ScalarExpression) -> PropertyType? {
        switch x {
        case .property(let p):
            let t = layer.schema.scalarType(of: p)
            return t == .json ? nil : t
        case .literal(let v):
            switch v {
            case .integer: return .integer
            case .number: return .number
            case .bool: return .boolean
            case .string: return .string
            default: return nil
            }
        case .arithmetic: return .number
        }
    }

    func scalar(_ x: ScalarExpression, hint: PropertyType?, into b: inout SQLBuilder) throws -> String {
        let d = b.dialect
        switch x {
        case .property(let p):
            try Self.requireSafeName(p, layer: layer.id)
            var t = layer.schema.scalarType(of: p)
            if t == .json, let hint { t = hint }
            return d.property(p, type: t, of: layer, into: &b)
        case .literal(let v):
            return d.literal(v, type: hint, into: &b)
        case .arithmetic(let op, let l, let r):
            // The deeper operand first (see `compile`): `+` and `*` swap their operands, and
            // `l - r` is written `r * -1 + l` (the same value: IEEE 754 subtracts by adding the
            // negation). `/` keeps its order; its depth is bounded apart (`maximumArithmeticDepth`).
            if r.depth > l.depth, op != .divide {
                let rs = try scalar(r, hint: .number, into: &b)
                let ls = try scalar(l, hint: .number, into: &b)
                return op == .subtract ? "(\(rs) * -1 + \(ls))" : d.arithmetic(op, rs, ls)
            }
            let ls = try scalar(l, hint: .number, into: &b)
            let rs = try scalar(r, hint: .number, into: &b)
            return d.arithmetic(op, ls, rs)
        }
    }

    /// Property names become bound JSON paths; quotes and backslashes would need escaping in
    /// those paths, so they are refused.
    static func requireSafeName(_ name: String, layer: String) throws {
        guard !name.isEmpty, !name.contains("\""), !name.contains("\\") else {
            throw StoreError(.invalidQuery, "property name \"\(name)\" is not allowed", layer: layer, field: name)
        }
    }
}
