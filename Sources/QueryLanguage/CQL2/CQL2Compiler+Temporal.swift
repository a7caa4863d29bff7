import Foundation
import GeoCore

/// CQL2's temporal functions on an instant-valued property (`T_AFTER(built, DATE('2000-01-01'))`).
///
/// CQL2 defines each function on intervals by their starts and ends (OGC 21-065 §7.11); an
/// instant is an interval whose start and end coincide, and an open end (`'..'`) is unbounded.
/// With the property an instant `a` and the literal `[s, e]`, each reduces to what
/// `FilterExpression.temporal` offers; the relations impossible for an instant (`T_CONTAINS`,
/// `T_OVERLAPS`, …) become `FALSE`.
extension CQL2Compiler {
    static let converse: [String: String] = [
        "t_after": "t_before", "t_before": "t_after", "t_contains": "t_during", "t_during": "t_contains",
        "t_finishedby": "t_finishes", "t_finishes": "t_finishedby", "t_startedby": "t_starts",
        "t_starts": "t_startedby", "t_meets": "t_metby", "t_metby": "t_meets",
        "t_overlaps": "t_overlappedby", "t_overlappedby": "t_overlaps",
    ]

    func temporal(_ name: String, _ a: CQL2Node, _ b: CQL2Node, _ n: CQL2Node) throws -> FilterExpression {
        let function: String, property: String, value: TemporalValue
        if case .property(let p) = a.kind, !isProperty(b) {
            (function, property, value) = (name, try temporalProperty(p, a), try temporalValue(b))
        } else if case .property(let p) = b.kind, !isProperty(a) {
            (function, property, value) = (Self.converse[name] ?? name, try temporalProperty(p, b), try temporalValue(a))
        } else {
            throw fail("\(n.token) compares one date or date-time property with a date, timestamp or interval literal; other forms are not supported", n)
        }
        func at(_ p: TemporalPredicate, _ d: Date) -> FilterExpression { .temporal(p, property: property, .instant(d)) }
        func all(_ parts: [FilterExpression?]) -> FilterExpression {
            let xs = parts.compactMap { $0 }
            return xs.count == 1 ? xs[0] : .and(xs)
        }
        let s = value.start, e = value.end
        switch function {
        case "t_after": return .temporal(.after, property: property, value)
        case "t_before": return .temporal(.before, property: property, value)
        case "t_disjoint":
            return .or([.temporal(.before, property: property, value), .temporal(.after, property: property, value)])
        case "t_equals":
            guard let s, s == e else { return .constant(false) }
            return at(.equals, s)
        case "t_intersects":
            if case .instant(let d) = value { return at(.equals, d) }
            return .temporal(.during, property: property, value)
        case "t_during":
            guard case .interval = value else { return .constant(false) }
            if s == nil && e == nil { return .temporal(.during, property: property, value) }
            return all([s.map { at(.after, $0) }, e.map { at(.before, $0) }])
        case "t_starts":
            guard let s, case .interval = value else { return .constant(false) }
            return all([at(.equals, s), e.map { at(.before, $0) }])
        case "t_finishes":
            guard let e, case .interval = value else { return .constant(false) }
            return all([s.map { at(.after, $0) }, at(.equals, e)])
        case "t_meets":
            guard let s else { return .constant(false) }
            return at(.equals, s)
        case "t_metby":
            guard let e else { return .constant(false) }
            return at(.equals, e)
        default:
            // t_contains, t_startedby, t_finishedby, t_overlaps, t_overlappedby: an instant has
            // no interior to contain or overlap with.
            return .constant(false)
        }
    }

    func temporalProperty(_ p: String, _ n: CQL2Node) throws -> String {
        if let t = try type(of: p, n), !t.isTemporal, t != .any {
            throw fail("property '\(p)' is \(t.phrase), not a date or date-time, for \(n.token)", n)
        }
        return p
    }

    func temporalValue(_ n: CQL2Node) throws -> TemporalValue {
        switch n.kind {
        case .date, .timestamp:
            return .instant(try instant(n))
        case .interval(let a, let b):
            let start = try intervalEnd(a), end = try intervalEnd(b)
            if let start, let end, start > end {
                throw fail("the interval starts after it ends", n)
            }
            return .interval(start: start, end: end)
        default:
            throw fail("expected DATE(...), TIMESTAMP(...) or INTERVAL(...), found '\(n.token)'", n)
        }
    }

    /// A DATE is its day's first instant (00:00 UTC).
    func instant(_ n: CQL2Node) throws -> Date {
        switch n.kind {
        case .date(let s), .string(let s):
            if RFC3339.isDate(s), let d = RFC3339.dateTime(s + "T00:00:00Z") { return d }
            if case .string = n.kind, let d = RFC3339.dateTime(s) { return d }
            throw fail("'\(s)' is not a valid RFC 3339 date (YYYY-MM-DD)\(isString(n) ? " or date-time" : "")", n)
        case .timestamp(let s):
            guard let d = RFC3339.dateTime(s) else {
                throw fail("TIMESTAMP('\(s)') is not a valid RFC 3339 date-time (e.g. 2024-05-01T08:00:00Z)", n)
            }
            return d
        default:
            throw fail("expected a date or timestamp, found '\(n.token)'", n)
        }
    }

    func isString(_ n: CQL2Node) -> Bool {
        if case .string = n.kind { return true }
        return false
    }

    func intervalEnd(_ n: CQL2Node) throws -> Date? {
        switch n.kind {
        case .string(".."): return nil
        case .property(let p):
            throw fail("an INTERVAL with property '\(p)' as an end is not supported (only literal ends)", n)
        default: return try instant(n)
        }
    }
}
