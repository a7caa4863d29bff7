import Foundation
import GeoCore

/// A typed filter over a layer's features: what CQL2 (text or JSON) compiles into, and what
/// every backend compiles to SQL with bound parameters through a `SQLDialect`.
public indirect enum FilterExpression: Hashable, Sendable {
    case and([FilterExpression])
    case or([FilterExpression])
    case not(FilterExpression)
    /// `lhs op rhs`; either side may be a property, a literal or arithmetic.
    case comparison(ComparisonOperator, ScalarExpression, ScalarExpression)
    /// CQL2 `LIKE`: `%` any run, `_` one character, `\` escapes; `caseInsensitive` is `CASEI`.
    case like(ScalarExpression, pattern: String, caseInsensitive: Bool)
    /// `value BETWEEN low AND high` (inclusive).
    case between(ScalarExpression, low: ScalarExpression, high: ScalarExpression)
    /// `value IN (list)`.
    case `in`(ScalarExpression, [ScalarExpression])
    /// The property is absent or JSON null.
    case isNull(ScalarExpression)
    /// The feature's geometry against a literal geometry in EPSG:4490 lon/lat degrees.
    case spatial(SpatialPredicate, Geometry)
    /// A date-time property against an instant or interval.
    case temporal(TemporalPredicate, property: String, TemporalValue)
    /// `TRUE` / `FALSE`.
    case constant(Bool)

    /// The deepest nesting a filter may have (`depth`): every parser's filter (CQL2 text and
    /// JSON, WFS's FES 2.0, SensorThings' `$filter`) deeper than this is refused (400 naming the
    /// limit). Far above what people write (a few levels); the SQL the store compiles a filter of
    /// this depth into runs on SQLite, whose parser holds about 100 pending symbols (43 nested
    /// `NOT` overflowed it when the filter's SQL nested as the filter did), and on PostgreSQL.
    public static let maximumDepth = 32

    /// How deeply the expression nests: a comparison, `LIKE`, `BETWEEN`, `IN`, `IS NULL`, spatial
    /// or temporal predicate, or constant is 1 (plus the nesting of the arithmetic in it), and each
    /// `AND`, `OR` (a chain of one operator is one level) and `NOT` around it adds one.
    public var depth: Int {
        switch self {
        case .and(let xs), .or(let xs): 1 + (xs.lazy.map(\.depth).max() ?? 0)
        case .not(let x): 1 + x.depth
        case .comparison(_, let a, let b): 1 + max(a.depth, b.depth)
        case .like(let a, _, _), .isNull(let a): 1 + a.depth
        case .between(let a, let l, let h): 1 + max(a.depth, l.depth, h.depth)
        case .in(let a, let list): 1 + max(a.depth, list.lazy.map(\.depth).max() ?? 0)
        case .spatial, .temporal, .constant: 1
        }
    }

    /// The deepest arithmetic a filter may hold (`ScalarExpression.depth`), within `maximumDepth`:
    /// SQL nests arithmetic more expensively than predicates (`a / (b / …)` keeps three symbols
    /// pending per level in SQLite's parser, which overflowed at 29 such levels).
    public static let maximumArithmeticDepth = 16

    /// Throws `CQLError` (at `position`) when `e` nests deeper than `maximumDepth`, or its
    /// arithmetic deeper than `maximumArithmeticDepth`: the message names the limit.
    public static func requireDepth(_ e: FilterExpression, position: String = "$") throws {
        let depth = e.depth
        guard depth <= maximumDepth else {
            throw CQLError("the filter nests \(depth) levels deep (NOT, AND, OR, arithmetic around a comparison); at most \(maximumDepth) are allowed",
                           position: position)
        }
        let arithmetic = e.arithmeticDepth
        guard arithmetic <= maximumArithmeticDepth else {
            throw CQLError("the filter's arithmetic nests \(arithmetic) levels deep; at most \(maximumArithmeticDepth) are allowed",
                           position: position)
        }
    }

    /// The deepest arithmetic in the expression (0 without arithmetic).
    public var arithmeticDepth: Int {
        switch self {
        case .and(let xs), .or(let xs): xs.lazy.map(\.arithmeticDepth).max() ?? 0
        case .not(let x): x.arithmeticDepth
        case .comparison(_, let a, let b): max(a.depth, b.depth)
        case .like(let a, _, _), .isNull(let a): a.depth
        case .between(let a, let l, let h): max(a.depth, l.depth, h.depth)
        case .in(let a, let list): max(a.depth, list.lazy.map(\.depth).max() ?? 0)
        case .spatial, .temporal, .constant: 0
        }
    }

    /// Every property name the expression reads.
    public var propertyNames: Set<String> {
        var out = Set<String>()
        collect(into: &out)
        return out
    }

    private func collect(into out: inout Set<String>) {
        switch self {
        case .and(let xs), .or(let xs): for x in xs { x.collect(into: &out) }
        case .not(let x): x.collect(into: &out)
        case .comparison(_, let a, let b): a.collect(into: &out); b.collect(into: &out)
        case .like(let a, _, _), .isNull(let a): a.collect(into: &out)
        case .between(let a, let l, let h): a.collect(into: &out); l.collect(into: &out); h.collect(into: &out)
        case .in(let a, let list): a.collect(into: &out); for x in list { x.collect(into: &out) }
        case .spatial, .constant: break
        case .temporal(_, let p, _): out.insert(p)
        }
    }
}

/// A scalar operand: a property, a literal, or arithmetic over operands.
public indirect enum ScalarExpression: Hashable, Sendable, ExpressibleByStringLiteral {
    case property(String)
    case literal(JSONValue)
    case arithmetic(ArithmeticOperator, ScalarExpression, ScalarExpression)

    /// Levels of arithmetic: 0 for a property or a literal, one more for each operator around it.
    public var depth: Int {
        switch self {
        case .property, .literal: 0
        case .arithmetic(_, let a, let b): 1 + max(a.depth, b.depth)
        }
    }

    /// A string literal in source code names a property: `.comparison(.equal, "kind", .literal("固定"))`.
    public init(stringLiteral value: String) { self = .property(value) }

    func collect(into out: inout Set<String>) {
        switch self {
        case .property(let p): out.insert(p)
        case .literal: break
        case .arithmetic(_, let a, let b): a.collect(into: &out); b.collect(into: &out)
        }
    }
}

public enum ComparisonOperator: String, Hashable, Sendable, CaseIterable {
    case equal = "=", notEqual = "<>", less = "<", lessOrEqual = "<=", greater = ">", greaterOrEqual = ">="
}

public enum ArithmeticOperator: String, Hashable, Sendable, CaseIterable {
    case add = "+", subtract = "-", multiply = "*", divide = "/"
}

/// The DE-9IM predicates of CQL2's spatial functions (`S_INTERSECTS`, …).
public enum SpatialPredicate: String, Hashable, Sendable, CaseIterable {
    case intersects, contains, within, disjoint, equals, touches, overlaps, crosses
}

/// Temporal predicates on an instant-valued property.
public enum TemporalPredicate: String, Hashable, Sendable, CaseIterable {
    /// The property's instant is strictly before the value (an interval's start).
    case before
    /// The property's instant is strictly after the value (an interval's end).
    case after
    /// The property's instant lies within the interval (bounds inclusive; open ends allowed).
    case during
    /// The property's instant equals the instant.
    case equals
}

/// An instant or an interval with optional open ends (`..` in OGC API datetime).
public enum TemporalValue: Hashable, Sendable {
    case instant(Date)
    case interval(start: Date?, end: Date?)

    public var start: Date? {
        switch self {
        case .instant(let d): d
        case .interval(let s, _): s
        }
    }

    public var end: Date? {
        switch self {
        case .instant(let d): d
        case .interval(_, let e): e
        }
    }
}
