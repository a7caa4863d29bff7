import Foundation
import GeoCore

/// Checks a parsed CQL2 expression against the queryables and compiles it into the store's
/// `FilterExpression`: the one place that gives cql2-text and cql2-json their meaning.
struct CQL2Compiler {
    let queryables: Queryables?
    /// The CRS geometry literals are written in (OGC API Features Part 3 `filter-crs`).
    let filterCRS: CoordinateReferenceSystem

    typealias ValueType = Queryables.ValueType

    func fail(_ message: String, _ n: CQL2Node) -> CQLError {
        CQLError("\(message) at \(n.position)", position: n.position, token: n.token)
    }

    func arguments(_ n: CQL2Node, _ name: String, _ args: [CQL2Node], _ count: Int) throws {
        guard args.count == count else {
            throw fail("\(name.uppercased()) takes \(count) argument\(count == 1 ? "" : "s"), found \(args.count)", n)
        }
    }

    // MARK: - Predicates

    /// The whole filter `n`: its predicate, unless that nests deeper than
    /// `FilterExpression.maximumDepth`, or its arithmetic deeper than
    /// `FilterExpression.maximumArithmeticDepth` (the error names the limit and the depth found).
    func filter(_ n: CQL2Node) throws -> FilterExpression {
        let e = try predicate(n)
        try FilterExpression.requireDepth(e, position: n.position)
        return e
    }

    func predicate(_ n: CQL2Node) throws -> FilterExpression {
        switch n.kind {
        case .boolean(let v):
            return .constant(v)
        case .op(let name, let args):
            switch name {
            case "and", "or":
                guard args.count >= 2 else { throw fail("\(name.uppercased()) takes at least 2 arguments, found \(args.count)", n) }
                var items = [FilterExpression]()
                for a in args {
                    let x = try predicate(a)
                    switch (name, x) {
                    case ("and", .and(let inner)), ("or", .or(let inner)): items.append(contentsOf: inner)
                    default: items.append(x)
                    }
                }
                return name == "and" ? .and(items) : .or(items)
            case "not":
                try arguments(n, name, args, 1)
                return .not(try predicate(args[0]))
            case _ where CQL2Syntax.comparisonOperators[name] != nil:
                try arguments(n, name, args, 2)
                return try comparison(CQL2Syntax.comparisonOperators[name] ?? .equal, args[0], args[1], n)
            case "like":
                try arguments(n, name, args, 2)
                return try like(args[0], args[1])
            case "between":
                try arguments(n, name, args, 3)
                let (x, tx) = try scalar(args[0])
                let (lo, tl) = try scalar(args[1])
                let (hi, th) = try scalar(args[2])
                try compatible(args[0], tx, args[1], tl)
                try compatible(args[0], tx, args[2], th)
                return .between(x, low: lo, high: hi)
            case "in":
                try arguments(n, name, args, 2)
                let (x, tx) = try scalar(args[0])
                guard case .list(let items) = args[1].kind else {
                    throw fail("IN takes a list of values as its second argument", args[1])
                }
                var list = [ScalarExpression]()
                for item in items {
                    let (v, tv) = try scalar(item)
                    try compatible(args[0], tx, item, tv)
                    list.append(v)
                }
                return .in(x, list)
            case "isnull":
                try arguments(n, "IS NULL", args, 1)
                if case .property(let p) = args[0].kind, try type(of: p, args[0]) == .geometry {
                    return .isNull(.property(p))
                }
                return .isNull(try scalar(args[0]).0)
            case _ where CQL2Syntax.spatialFunctions[name] != nil:
                try arguments(n, name, args, 2)
                return try spatial(CQL2Syntax.spatialFunctions[name] ?? .intersects, args[0], args[1], n)
            case _ where CQL2Syntax.temporalFunctions.contains(name):
                try arguments(n, name, args, 2)
                return try temporal(name, args[0], args[1], n)
            case _ where CQL2Syntax.arrayFunctions.contains(name):
                throw fail("unsupported function '\(n.token)': array functions are not supported", n)
            case "casei", "accenti", "+", "-", "*", "/", "%", "div", "^":
                throw fail("expected a predicate, found the scalar expression '\(n.token)'", n)
            default:
                throw fail("unsupported function '\(n.token)'", n)
            }
        case .property(let p):
            _ = try type(of: p, n)
            throw fail("expected a predicate, found property '\(p)' (compare it, e.g. \(p) = TRUE)", n)
        default:
            throw fail("expected a predicate, found '\(n.token)'", n)
        }
    }

    // MARK: - Comparisons

    func comparison(_ op: ComparisonOperator, _ a: CQL2Node, _ b: CQL2Node, _ n: CQL2Node) throws -> FilterExpression {
        if wrapper(a) != nil || wrapper(b) != nil {
            // CASEI(x) = CASEI('text') is a case-insensitive LIKE with no wildcards.
            guard op == .equal || op == .notEqual else {
                throw fail("CASEI supports only = and <> (and LIKE), not '\(op.rawValue)'", n)
            }
            let (lhs, patternNode) = literalText(b) != nil ? (a, b) : (b, a)
            guard let text = literalText(patternNode) else {
                throw fail("CASEI comparisons need a text literal on one side", n)
            }
            let x = try likeOperand(lhs)
            let pattern = Self.escapeLike(text)
            let e = FilterExpression.like(x, pattern: pattern, caseInsensitive: true)
            return op == .equal ? e : .not(e)
        }
        let (l, tl) = try scalar(a)
        let (r, tr) = try scalar(b)
        try compatible(a, tl, b, tr)
        return .comparison(op, l, r)
    }

    /// `CASEI` or `ACCENTI` when `n` is that function call.
    func wrapper(_ n: CQL2Node) -> String? {
        if case .op(let name, _) = n.kind, name == "casei" || name == "accenti" { return name }
        return nil
    }

    /// The text of a string literal, bare or inside `CASEI(...)`.
    func literalText(_ n: CQL2Node) -> String? {
        switch n.kind {
        case .string(let s): return s
        case .op("casei", let args) where args.count == 1:
            if case .string(let s) = args[0].kind { return s }
            return nil
        default: return nil
        }
    }

    /// The left side of LIKE / a CASEI comparison: a string property, possibly in `CASEI(...)`.
    func likeOperand(_ n: CQL2Node) throws -> ScalarExpression {
        var inner = n
        if case .op(let name, let args) = n.kind, name == "casei" || name == "accenti" {
            if name == "accenti" {
                throw fail("unsupported function 'ACCENTI': accent-insensitive comparison is not supported", n)
            }
            guard args.count == 1 else { throw fail("CASEI takes 1 argument, found \(args.count)", n) }
            inner = args[0]
        }
        let (x, t) = try scalar(inner)
        if let t, t != .string, t != .any {
            throw fail("LIKE and CASEI need text, but \(describe(inner, t))", inner)
        }
        return x
    }

    func like(_ a: CQL2Node, _ b: CQL2Node) throws -> FilterExpression {
        if wrapper(b) == "accenti" || wrapper(a) == "accenti" {
            throw fail("unsupported function 'ACCENTI': accent-insensitive comparison is not supported", wrapper(a) != nil ? a : b)
        }
        let x = try likeOperand(a)
        guard let pattern = literalText(b) else {
            throw fail("LIKE needs a text literal pattern, found '\(b.token)'", b)
        }
        return .like(x, pattern: pattern, caseInsensitive: wrapper(a) == "casei" || wrapper(b) == "casei")
    }

    /// `text` as a LIKE pattern matching itself only.
    static func escapeLike(_ text: String) -> String {
        var out = ""
        for c in text {
            if c == "%" || c == "_" || c == "\\" { out.append("\\") }
            out.append(c)
        }
        return out
    }

    // MARK: - Scalars and types

    func type(of property: String, _ n: CQL2Node) throws -> ValueType? {
        guard let queryables else { return nil }
        guard let t = queryables.properties[property] else {
            throw CQLError("unknown property '\(property)' at \(n.position) (queryables: \(queryables.listing()))",
                           position: n.position, token: property)
        }
        return t
    }

    /// The operand and its type (`nil` when unknown).
    func scalar(_ n: CQL2Node) throws -> (ScalarExpression, ValueType?) {
        switch n.kind {
        case .property(let p):
            let t = try type(of: p, n)
            if t == .geometry { throw fail("property '\(p)' is a geometry; use a spatial function (S_INTERSECTS, ...)", n) }
            return (.property(p), t)
        case .string(let s):
            return (.literal(.string(s)), .string)
        case .number(let v):
            if case .integer = v { return (.literal(v), .integer) }
            return (.literal(v), .number)
        case .boolean(let b):
            return (.literal(.bool(b)), .boolean)
        case .date(let s):
            guard RFC3339.isDate(s) else { throw fail("DATE('\(s)') is not a valid RFC 3339 date (YYYY-MM-DD)", n) }
            return (.literal(.string(s)), .date)
        case .timestamp(let s):
            guard let d = RFC3339.dateTime(s) else {
                throw fail("TIMESTAMP('\(s)') is not a valid RFC 3339 date-time (e.g. 2024-05-01T08:00:00Z)", n)
            }
            return (.literal(.string(RFC3339.format(d))), .dateTime)
        case .op(let name, let args):
            if let op = CQL2Syntax.arithmeticOperators[name] {
                try arguments(n, name, args, 2)
                let (l, tl) = try scalar(args[0])
                let (r, tr) = try scalar(args[1])
                for (x, t) in [(args[0], tl), (args[1], tr)] where !(t.map { $0.isNumeric || $0 == .any } ?? true) {
                    throw fail("arithmetic needs numbers, but \(describe(x, t))", x)
                }
                return (.arithmetic(op, l, r), .number)
            }
            switch name {
            case "div", "%", "^":
                throw fail("unsupported arithmetic operator '\(n.token)': only + - * / are supported", n)
            case "casei":
                throw fail("CASEI is supported only as CASEI(property) = CASEI('text') or in LIKE", n)
            case "accenti":
                throw fail("unsupported function 'ACCENTI': accent-insensitive comparison is not supported", n)
            case _ where CQL2JSONParser.operatorNames.contains(name) || CQL2Syntax.standardFunctions.contains(name):
                throw fail("expected a value, found the predicate '\(n.token)'", n)
            default:
                throw fail("unsupported function '\(n.token)'", n)
            }
        case .geometry, .bbox:
            throw fail("a geometry literal can only be an argument of a spatial function", n)
        case .interval:
            throw fail("an INTERVAL can only be an argument of a temporal function", n)
        case .list:
            throw fail("a list can only follow IN", n)
        }
    }

    func describe(_ n: CQL2Node, _ t: ValueType?) -> String {
        let phrase = t?.phrase ?? "of unknown type"
        switch n.kind {
        case .property(let p): return "property '\(p)' is \(phrase)"
        case .op: return "expression '\(n.token)' is \(phrase)"
        default: return "literal \(n.token) is \(phrase)"
        }
    }

    /// Throws when the two operands can never compare equal in type (a number against text,
    /// a boolean against anything else, a date against a number).
    func compatible(_ a: CQL2Node, _ ta: ValueType?, _ b: CQL2Node, _ tb: ValueType?) throws {
        guard let ta, let tb, ta != .any, tb != .any, ta != tb else { return }
        if ta.isNumeric && tb.isNumeric { return }
        let textual: Set<ValueType> = [.string, .date, .dateTime]
        if textual.contains(ta) && textual.contains(tb) { return }
        let (first, firstType, second, secondType) = {
            if case .property = b.kind, !isProperty(a) { return (b, tb, a, ta) }
            return (a, ta, b, tb)
        }()
        throw CQLError("\(describe(first, firstType)), \(describe(second, secondType)) at \(second.position)",
                       position: second.position, token: second.token)
    }

    func isProperty(_ n: CQL2Node) -> Bool {
        if case .property = n.kind { return true }
        return false
    }

    // MARK: - Spatial

    func spatial(_ p: SpatialPredicate, _ a: CQL2Node, _ b: CQL2Node, _ n: CQL2Node) throws -> FilterExpression {
        let (property, literal, predicate): (CQL2Node, CQL2Node, SpatialPredicate)
        if isProperty(a), !isProperty(b) {
            (property, literal, predicate) = (a, b, p)
        } else if isProperty(b), !isProperty(a) {
            let converse: SpatialPredicate = p == .contains ? .within : p == .within ? .contains : p
            (property, literal, predicate) = (b, a, converse)
        } else {
            throw fail("\(n.token) compares the feature geometry (a property) with a geometry literal; other forms are not supported", n)
        }
        guard case .property(let name) = property.kind else { throw fail("expected a geometry property", property) }
        if let t = try type(of: name, property), t != .geometry, t != .any {
            throw fail("property '\(name)' is \(t.phrase), not a geometry", property)
        }
        return .spatial(predicate, try storageGeometry(literal))
    }

    /// The literal as a geometry in EPSG:4490 lon/lat degrees.
    func storageGeometry(_ n: CQL2Node) throws -> Geometry {
        do {
            let toStorage = try CoordinateTransformer.shared(from: filterCRS, to: .cgcs2000)
            switch n.kind {
            case .geometry(let g):
                return try toStorage.transform(try filterCRS.fromAuthorityOrder(g))
            case .bbox(let v):
                guard v.count == 4 || v.count == 6 else { throw fail("BBOX takes 4 or 6 numbers, found \(v.count)", n) }
                let h = v.count / 2
                var e = Envelope(minX: v[0], minY: v[1], maxX: v[h], maxY: v[h + 1])
                e = try filterCRS.fromAuthorityOrder(e)
                guard e.minX <= e.maxX, e.minY <= e.maxY else {
                    throw fail("BBOX minimum exceeds maximum (boxes across the antimeridian are not supported)", n)
                }
                e = try toStorage.transform(e)
                let ring = [Position(x: e.minX, y: e.minY), Position(x: e.maxX, y: e.minY), Position(x: e.maxX, y: e.maxY),
                            Position(x: e.minX, y: e.maxY), Position(x: e.minX, y: e.minY)]
                return .polygon(Polygon(exterior: ring))
            default:
                throw fail("expected a geometry literal (WKT, GeoJSON or BBOX), found '\(n.token)'", n)
            }
        } catch let e as GeometryError {
            throw fail("cannot use the geometry literal in filter-crs \(filterCRS): \(e.message)", n)
        }
    }
}
