import Foundation
import GeoCore

/// Evaluates a `SensingFilter` against one entity. Paths are answered by `resolve` (the
/// entity's own properties, and navigation targets the server loaded beforehand).
///
/// Semantics follow OData: a comparison with `null` on one side is false (except `eq null`),
/// strings compare by code points, a string compared with a date-time literal is read as an
/// instant (an interval `start/end` by its start), geometries compare with GEOS predicates in
/// the coordinates they are stored in (CRS84 degrees; `geo.distance` in degrees, as FROST).
public enum SensingFilterEvaluator {
    public typealias Resolver = ([String]) throws -> SensingValue

    /// Whether the entity `resolve` describes passes `filter`.
    /// - Parameter now: the instant `now()` stands for, microseconds since 1970 UTC.
    public static func matches(_ filter: SensingFilter, now: Int64, resolve: Resolver) throws -> Bool {
        if case .bool(true) = try evaluate(filter, now: now, resolve: resolve) { return true }
        return false
    }

    /// A filter value from a JSON value: GeoJSON geometries become geometries.
    public static func value(_ json: JSONValue?) -> SensingValue {
        switch json {
        case nil, .null?: return .null
        case .bool(let b)?: return .bool(b)
        case .integer(let i)?: return .number(Double(i))
        case .number(let d)?: return .number(d)
        case .string(let s)?: return .string(s)
        case .object(let o)?:
            if let g = geometry(o) { return .geometry(g) }
            return .string(CanonicalJSON.text(.object(o)))
        case .array(let a)?: return .string(CanonicalJSON.text(.array(a)))
        }
    }

    /// The geometry of a GeoJSON geometry or feature object, else `nil`.
    public static func geometry(_ o: [String: JSONValue]) -> Geometry? {
        if o["type"]?.stringValue == "Feature", let g = o["geometry"]?.objectValue { return geometry(g) }
        guard o["coordinates"] != nil || o["geometries"] != nil,
              case .geometry(let g)? = try? GeoJSON.decode(CanonicalJSON.text(.object(o))) else { return nil }
        return g
    }

    /// The value of an expression (`$orderby` keys).
    public static func evaluate(_ f: SensingFilter, now: Int64, resolve: Resolver) throws -> SensingValue {
        switch f {
        case .literal(let v): return v
        case .path(let p): return try resolve(p)
        case .unary(let op, let e):
            let v = try evaluate(e, now: now, resolve: resolve)
            switch (op, v) {
            case ("not", .bool(let b)): return .bool(!b)
            case ("not", _): return .bool(false)
            case ("-", .number(let n)): return .number(-n)
            default: return .null
            }
        case .binary(let op, let l, let r):
            if op == "and" || op == "or" {
                let a = truth(try evaluate(l, now: now, resolve: resolve))
                if op == "and", !a { return .bool(false) }
                if op == "or", a { return .bool(true) }
                return .bool(truth(try evaluate(r, now: now, resolve: resolve)))
            }
            let a = try evaluate(l, now: now, resolve: resolve), b = try evaluate(r, now: now, resolve: resolve)
            return try binary(op, a, b)
        case .call(let name, let args):
            let values = try args.map { try evaluate($0, now: now, resolve: resolve) }
            return try call(name, values, now: now)
        }
    }

    static func truth(_ v: SensingValue) -> Bool {
        if case .bool(true) = v { return true }
        return false
    }

    /// An instant from a time value or a string holding an RFC 3339 instant or interval.
    static func instant(_ v: SensingValue) -> Int64? {
        switch v {
        case .time(let t): return t
        case .string(let s):
            let start = s.split(separator: "/", maxSplits: 1).first.map(String.init) ?? s
            return RFC3339.dateTime(start).map(RFC3339.microseconds)
        default: return nil
        }
    }

    /// -1, 0 or 1 for two values that compare (numbers, strings, instants, booleans); `nil` otherwise.
    public static func order(_ a: SensingValue, _ b: SensingValue) -> Int? { compare(a, b) }

    static func compare(_ a: SensingValue, _ b: SensingValue) -> Int? {
        switch (a, b) {
        case (.number(let x), .number(let y)): return x < y ? -1 : (x > y ? 1 : 0)
        case (.bool(let x), .bool(let y)): return x == y ? 0 : (!x ? -1 : 1)
        case (.time, _), (_, .time):
            guard let x = instant(a), let y = instant(b) else { return nil }
            return x < y ? -1 : (x > y ? 1 : 0)
        case (.string(let x), .string(let y)):
            let xs = Array(x.unicodeScalars.map(\.value)), ys = Array(y.unicodeScalars.map(\.value))
            return xs.lexicographicallyPrecedes(ys) ? -1 : (xs == ys ? 0 : 1)
        case (.geometry(let x), .geometry(let y)):
            return (try? x.equals(y)) == true ? 0 : nil
        default: return nil
        }
    }

    static func binary(_ op: String, _ a: SensingValue, _ b: SensingValue) throws -> SensingValue {
        switch op {
        case "eq", "ne":
            let equal: Bool
            switch (a, b) {
            case (.null, .null): equal = true
            case (.null, _), (_, .null): equal = false
            default: equal = compare(a, b) == 0
            }
            return .bool(op == "eq" ? equal : !equal)
        case "gt", "ge", "lt", "le":
            guard let c = compare(a, b) else { return .bool(false) }
            switch op {
            case "gt": return .bool(c > 0)
            case "ge": return .bool(c >= 0)
            case "lt": return .bool(c < 0)
            default: return .bool(c <= 0)
            }
        default:
            guard case .number(let x) = a, case .number(let y) = b else { return .null }
            switch op {
            case "add": return .number(x + y)
            case "sub": return .number(x - y)
            case "mul": return .number(x * y)
            case "div": return y == 0 ? .null : .number(x / y)
            case "mod": return y == 0 ? .null : .number(x.truncatingRemainder(dividingBy: y))
            default: return .null
            }
        }
    }

    static func call(_ name: String, _ v: [SensingValue], now: Int64) throws -> SensingValue {
        func str(_ i: Int) -> String? { if case .string(let s) = v[i] { s } else { nil } }
        func num(_ i: Int) -> Double? { if case .number(let n) = v[i] { n } else { nil } }
        func geom(_ i: Int) -> Geometry? { if case .geometry(let g) = v[i] { g } else { nil } }
        func parts(_ i: Int) -> DateComponents? {
            guard let t = instant(v[i]) else { return nil }
            var cal = Calendar(identifier: .gregorian)
            cal.timeZone = TimeZone(identifier: "UTC")!
            return cal.dateComponents([.year, .month, .day, .hour, .minute, .second, .nanosecond], from: RFC3339.date(microseconds: t))
        }
        func spatial(_ test: (Geometry, Geometry) throws -> Bool) -> SensingValue {
            guard let a = geom(0), let b = geom(1) else { return .bool(false) }
            return .bool((try? test(a, b)) ?? false)
        }
        switch name {
        case "substringof": guard let a = str(0), let b = str(1) else { return .bool(false) }; return .bool(b.contains(a))
        case "contains": guard let a = str(0), let b = str(1) else { return .bool(false) }; return .bool(a.contains(b))
        case "startswith": guard let a = str(0), let b = str(1) else { return .bool(false) }; return .bool(a.hasPrefix(b))
        case "endswith": guard let a = str(0), let b = str(1) else { return .bool(false) }; return .bool(a.hasSuffix(b))
        case "length": guard let a = str(0) else { return .null }; return .number(Double(a.count))
        case "indexof":
            guard let a = str(0), let b = str(1) else { return .null }
            guard let r = a.range(of: b) else { return .number(-1) }
            return .number(Double(a.distance(from: a.startIndex, to: r.lowerBound)))
        case "substring":
            guard let a = str(0), let s = num(1), s >= 0 else { return .null }
            let chars = Array(a)
            // Clamped as doubles: an index beyond any Int (1e30) is past the end, not a trap.
            let start = Int(min(s, Double(chars.count)))
            var end = chars.count
            if v.count == 3 {
                guard let n = num(2), n >= 0 else { return .null }
                end = start + Int(min(n, Double(chars.count - start)))
            }
            return .string(String(chars[start..<end]))
        case "tolower": return str(0).map { .string($0.lowercased()) } ?? .null
        case "toupper": return str(0).map { .string($0.uppercased()) } ?? .null
        case "trim": return str(0).map { .string($0.trimmingCharacters(in: .whitespaces)) } ?? .null
        case "concat": guard let a = str(0), let b = str(1) else { return .null }; return .string(a + b)
        case "year": return parts(0).map { .number(Double($0.year!)) } ?? .null
        case "month": return parts(0).map { .number(Double($0.month!)) } ?? .null
        case "day": return parts(0).map { .number(Double($0.day!)) } ?? .null
        case "hour": return parts(0).map { .number(Double($0.hour!)) } ?? .null
        case "minute": return parts(0).map { .number(Double($0.minute!)) } ?? .null
        case "second": return parts(0).map { .number(Double($0.second!)) } ?? .null
        case "fractionalseconds": return parts(0).map { .number(Double($0.nanosecond!) / 1e9) } ?? .null
        case "date":
            guard let t = instant(v[0]) else { return .null }
            let day: Int64 = 86_400_000_000
            return .time(t >= 0 ? t / day * day : ((t - day + 1) / day) * day)
        case "time":
            guard let t = instant(v[0]) else { return .null }
            let day: Int64 = 86_400_000_000
            return .number(Double(((t % day) + day) % day) / 1e6)
        case "totaloffsetminutes": return instant(v[0]) == nil ? .null : .number(0)
        case "now": return .time(now)
        case "mindatetime": return .time(RFC3339.microseconds(RFC3339.dateTime("0001-01-01T00:00:00Z")!))
        case "maxdatetime": return .time(RFC3339.microseconds(RFC3339.dateTime("9999-12-31T23:59:59.999999Z")!))
        case "round": return num(0).map { .number($0.rounded(.toNearestOrAwayFromZero)) } ?? .null
        case "floor": return num(0).map { .number($0.rounded(.down)) } ?? .null
        case "ceiling": return num(0).map { .number($0.rounded(.up)) } ?? .null
        case "geo.distance":
            guard let a = geom(0), let b = geom(1), let d = try? a.distance(to: b) else { return .null }
            return .number(d)
        case "geo.length":
            guard let g = geom(0), let l = try? g.length else { return .null }
            return .number(l)
        case "geo.intersects", "st_intersects": return spatial { try $0.intersects($1) }
        case "st_equals": return spatial { try $0.equals($1) }
        case "st_disjoint": return spatial { try $0.disjoint($1) }
        case "st_touches": return spatial { try $0.touches($1) }
        case "st_within": return spatial { try $0.within($1) }
        case "st_overlaps": return spatial { try $0.overlaps($1) }
        case "st_crosses": return spatial { try $0.crosses($1) }
        case "st_contains": return spatial { try $0.contains($1) }
        case "st_relate":
            guard let p = str(2) else { return .bool(false) }
            return spatial { try $0.relate($1, pattern: p) }
        default: return .null
        }
    }
}
