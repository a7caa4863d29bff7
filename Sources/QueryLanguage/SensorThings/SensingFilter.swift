import Foundation
import GeoCore

/// A parsed SensorThings `$filter` (OData 4 subset of STA 1.1 §9.3.3.5): comparison, logical
/// and arithmetic operators, string, date, math and geospatial functions, literals including
/// `2024-05-01T08:00:00Z`, `'text'` and `geography'POINT (114.3 30.6)'`.
public indirect enum SensingFilter: Sendable, Hashable {
    case literal(SensingValue)
    /// A property path: `result`, `properties/level`, `Datastream/id`, `Thing/Locations/location`.
    case path([String])
    case unary(String, SensingFilter)
    case binary(String, SensingFilter, SensingFilter)
    case call(String, [SensingFilter])

    /// Parses `text`. - Throws: `SensingFilterError` with the character offset of the fault.
    public static func parse(_ text: String) throws -> SensingFilter {
        var p = SensingFilterParser(text)
        return try p.parseAll()
    }

    /// Every property path the filter reads (to load navigation targets before evaluating).
    public var paths: [[String]] {
        switch self {
        case .literal: []
        case .path(let p): [p]
        case .unary(_, let e): e.paths
        case .binary(_, let l, let r): l.paths + r.paths
        case .call(_, let args): args.flatMap(\.paths)
        }
    }

    /// How deeply the filter nests, as `FilterExpression.depth` counts: a comparison or a function
    /// is one level more than its operands (a literal or path is 0), `not` and unary minus one more
    /// than theirs, and a chain of one `and` or `or` operator one level; parentheses none.
    public var depth: Int { depth(within: nil) }

    private func depth(within chain: String?) -> Int {
        switch self {
        case .literal, .path: 0
        case .unary(_, let e): 1 + e.depth
        case .binary(let op, let l, let r) where op == "and" || op == "or":
            // The operands of the same operator are the same level.
            (op == chain ? 0 : 1) + max(l.depth(within: op), r.depth(within: op))
        case .binary(_, let l, let r): 1 + max(l.depth, r.depth)
        case .call(_, let args): 1 + (args.lazy.map(\.depth).max() ?? 0)
        }
    }

    /// The conjuncts of a top-level `and` chain.
    public var conjuncts: [SensingFilter] {
        if case .binary("and", let l, let r) = self { return l.conjuncts + r.conjuncts }
        return [self]
    }
}

/// A value in a filter: what literals are and what expressions evaluate to.
public enum SensingValue: Sendable, Hashable {
    case null
    case bool(Bool)
    case number(Double)
    case string(String)
    /// An instant, microseconds since 1970 UTC.
    case time(Int64)
    case geometry(Geometry)
}

/// A malformed `$filter`: what is wrong and where (a character offset into the text, from 0).
public struct SensingFilterError: Error, Sendable, Hashable, CustomStringConvertible {
    public var message: String
    public var offset: Int
    public init(_ message: String, at offset: Int) {
        self.message = message
        self.offset = offset
    }
    public var description: String { "\(message) at character \(offset)" }
}

/// The functions `$filter` knows, with their arity.
enum SensingFunctions {
    static let arity: [String: ClosedRange<Int>] = [
        "substringof": 2...2, "endswith": 2...2, "startswith": 2...2, "contains": 2...2, "length": 1...1, "indexof": 2...2,
        "substring": 2...3, "tolower": 1...1, "toupper": 1...1, "trim": 1...1, "concat": 2...2,
        "year": 1...1, "month": 1...1, "day": 1...1, "hour": 1...1, "minute": 1...1, "second": 1...1, "fractionalseconds": 1...1,
        "date": 1...1, "time": 1...1, "totaloffsetminutes": 1...1, "now": 0...0, "mindatetime": 0...0, "maxdatetime": 0...0,
        "round": 1...1, "floor": 1...1, "ceiling": 1...1,
        "geo.distance": 2...2, "geo.length": 1...1, "geo.intersects": 2...2,
        "st_equals": 2...2, "st_disjoint": 2...2, "st_touches": 2...2, "st_within": 2...2, "st_overlaps": 2...2,
        "st_crosses": 2...2, "st_intersects": 2...2, "st_contains": 2...2, "st_relate": 3...3,
    ]
}

struct SensingFilterParser {
    enum Token: Equatable {
        case word(String)  // identifiers, keywords, paths segments, function names (may contain '.')
        case number(Double)
        case string(String)
        case time(Int64)
        case geography(String)
        case open, close, comma, slash, minus
        case end
    }

    let chars: [Character]
    var pos = 0
    var token: Token = .end
    var tokenStart = 0
    /// Nesting guard of the parser: a filter of thousands of parentheses is refused, not a stack
    /// overflow (parentheses, `not` and unary minus each nest a level; CQL2's guard). The filter's
    /// own depth is then held to the one limit of every filter parser, `FilterExpression.maximumDepth`
    /// (`SensingFilter.depth`).
    var depth = 0
    static var maximumNesting: Int { CQL2Syntax.maximumNesting }
    /// Binary operators form left-deep chains that evaluation walks recursively: a bound keeps
    /// that recursion shallow too.
    var operators = 0
    static let maximumOperators = 500

    init(_ text: String) { chars = Array(text) }

    mutating func parseAll() throws -> SensingFilter {
        try advance()
        if token == .end { throw SensingFilterError("the filter is empty", at: 0) }
        let e = try parseOr()
        guard token == .end else { throw SensingFilterError("unexpected \(describe(token))", at: tokenStart) }
        let depth = e.depth
        guard depth <= FilterExpression.maximumDepth else {
            throw SensingFilterError("the filter nests \(depth) levels deep (not, and, or, comparisons, arithmetic, functions); at most \(FilterExpression.maximumDepth) are allowed",
                                     at: 0)
        }
        return e
    }

    func describe(_ t: Token) -> String {
        switch t {
        case .word(let w): "'\(w)'"
        case .number(let n): "number \(n)"
        case .string: "string literal"
        case .time: "date-time literal"
        case .geography: "geography literal"
        case .open: "'('"
        case .close: "')'"
        case .comma: "','"
        case .slash: "'/'"
        case .minus: "'-'"
        case .end: "end of filter"
        }
    }

    // MARK: Tokens

    mutating func advance() throws {
        while pos < chars.count, chars[pos].isWhitespace { pos += 1 }
        tokenStart = pos
        guard pos < chars.count else { token = .end; return }
        let c = chars[pos]
        switch c {
        case "(": pos += 1; token = .open
        case ")": pos += 1; token = .close
        case ",": pos += 1; token = .comma
        case "/": pos += 1; token = .slash
        case "-": pos += 1; token = .minus
        case "'": token = .string(try quoted())
        default:
            if c.isNumber, c.isASCII {
                if let t = try dateTime() { token = .time(t); return }
                token = .number(try number())
            } else if c.isLetter || c == "_" || c == "@" || c == "$" {
                var w = ""
                while pos < chars.count, chars[pos].isLetter || chars[pos].isNumber || "_.@$".contains(chars[pos]) {
                    w.append(chars[pos]); pos += 1
                }
                if pos < chars.count, chars[pos] == "'", ["geography", "geometry"].contains(w.lowercased()) {
                    token = .geography(try quoted())
                } else {
                    token = .word(w)
                }
            } else {
                throw SensingFilterError("unexpected character '\(c)'", at: pos)
            }
        }
    }

    /// A `'…'` literal with `''` for a quote; `pos` at the opening quote.
    mutating func quoted() throws -> String {
        let start = pos
        pos += 1
        var s = ""
        while true {
            guard pos < chars.count else { throw SensingFilterError("unterminated string literal", at: start) }
            if chars[pos] == "'" {
                if pos + 1 < chars.count, chars[pos + 1] == "'" { s.append("'"); pos += 2; continue }
                pos += 1
                return s
            }
            s.append(chars[pos]); pos += 1
        }
    }

    mutating func number() throws -> Double {
        let start = pos
        while pos < chars.count, chars[pos].isASCII, chars[pos].isNumber || chars[pos] == "." { pos += 1 }
        if pos < chars.count, chars[pos] == "e" || chars[pos] == "E" {
            pos += 1
            if pos < chars.count, chars[pos] == "+" || chars[pos] == "-" { pos += 1 }
            while pos < chars.count, chars[pos].isASCII, chars[pos].isNumber { pos += 1 }
        }
        // OData type suffixes (1.5d, 10L, 2.0f, 3m)
        if pos < chars.count, "dDfFmMlL".contains(chars[pos]) { pos += 1 }
        var text = String(chars[start..<pos])
        if let last = text.last, "dDfFmMlL".contains(last) { text.removeLast() }
        guard let v = Double(text), v.isFinite else { throw SensingFilterError("malformed number '\(text)'", at: start) }
        return v
    }

    /// A bare date-time literal (`2024-05-01T08:00:00Z`, `2024-05-01T08:00:00.5+08:00`) or a
    /// date (`2024-05-01`, midnight UTC) at `pos`; `nil` (pos unchanged) when the text there is a number.
    mutating func dateTime() throws -> Int64? {
        let start = pos
        var end = pos
        while end < chars.count, chars[end].isASCII, chars[end].isNumber || "-:.TtZz+".contains(chars[end]) { end += 1 }
        let text = String(chars[start..<end])
        guard text.count >= 10, text.count >= 5, Array(text)[4] == "-" else { return nil }
        if let d = RFC3339.dateTime(text) {
            pos = end
            return RFC3339.microseconds(d)
        }
        if text.count == 10, let day = RFC3339.startOfDay(text) {
            pos = end
            return RFC3339.microseconds(day)
        }
        throw SensingFilterError("malformed date-time literal '\(text)'", at: start)
    }

    // MARK: Grammar

    mutating func keyword(_ names: Set<String>) -> String? {
        if case .word(let w) = token, names.contains(w.lowercased()) { return w.lowercased() }
        return nil
    }

    /// Counts one binary operator against `maximumOperators`.
    mutating func countOperator() throws {
        operators += 1
        guard operators <= Self.maximumOperators else {
            throw SensingFilterError("the filter has more than \(Self.maximumOperators) operators", at: tokenStart)
        }
    }

    mutating func nested<T>(_ body: (inout SensingFilterParser) throws -> T) throws -> T {
        depth += 1
        defer { depth -= 1 }
        guard depth <= Self.maximumNesting else { throw SensingFilterError("the filter nests deeper than \(Self.maximumNesting) levels", at: tokenStart) }
        return try body(&self)
    }

    mutating func parseOr() throws -> SensingFilter {
        var l = try parseAnd()
        while keyword(["or"]) != nil {
            try countOperator()
            try advance()
            l = .binary("or", l, try parseAnd())
        }
        return l
    }

    mutating func parseAnd() throws -> SensingFilter {
        var l = try parseNot()
        while keyword(["and"]) != nil {
            try countOperator()
            try advance()
            l = .binary("and", l, try parseNot())
        }
        return l
    }

    mutating func parseNot() throws -> SensingFilter {
        if keyword(["not"]) != nil {
            try advance()
            return try nested { .unary("not", try $0.parseNot()) }
        }
        return try parseComparison()
    }

    mutating func parseComparison() throws -> SensingFilter {
        let l = try parseAdditive()
        if let op = keyword(["eq", "ne", "gt", "ge", "lt", "le"]) {
            try advance()
            return .binary(op, l, try parseAdditive())
        }
        return l
    }

    mutating func parseAdditive() throws -> SensingFilter {
        var l = try parseMultiplicative()
        while let op = keyword(["add", "sub"]) {
            try countOperator()
            try advance()
            l = .binary(op, l, try parseMultiplicative())
        }
        return l
    }

    mutating func parseMultiplicative() throws -> SensingFilter {
        var l = try parseUnary()
        while let op = keyword(["mul", "div", "mod"]) {
            try countOperator()
            try advance()
            l = .binary(op, l, try parseUnary())
        }
        return l
    }

    mutating func parseUnary() throws -> SensingFilter {
        if token == .minus {
            try advance()
            if case .number(let n) = token {
                try advance()
                return .literal(.number(-n))
            }
            return try nested { .unary("-", try $0.parseUnary()) }
        }
        return try parsePrimary()
    }

    mutating func parsePrimary() throws -> SensingFilter {
        let start = tokenStart
        switch token {
        case .number(let n):
            try advance()
            return .literal(.number(n))
        case .string(let s):
            try advance()
            return .literal(.string(s))
        case .time(let t):
            try advance()
            return .literal(.time(t))
        case .geography(let wkt):
            let g: Geometry
            do { g = try Geometry(wkt: wkt) } catch {
                throw SensingFilterError("malformed geography literal: \(error)", at: start)
            }
            try advance()
            return .literal(.geometry(g))
        case .open:
            try advance()
            let e = try nested { try $0.parseOr() }
            guard token == .close else { throw SensingFilterError("expected ')' instead of \(describe(token))", at: tokenStart) }
            try advance()
            return e
        case .word(let w):
            try advance()
            switch w.lowercased() {
            case "true": return .literal(.bool(true))
            case "false": return .literal(.bool(false))
            case "null": return .literal(.null)
            default: break
            }
            if token == .open {
                let name = w.lowercased()
                guard let arity = SensingFunctions.arity[name] else { throw SensingFilterError("unknown function '\(w)'", at: start) }
                try advance()
                var args = [SensingFilter]()
                if token != .close {
                    while true {
                        args.append(try nested { try $0.parseOr() })
                        guard token == .comma else { break }
                        try advance()
                    }
                }
                guard token == .close else { throw SensingFilterError("expected ')' or ',' instead of \(describe(token))", at: tokenStart) }
                guard arity.contains(args.count) else {
                    throw SensingFilterError("\(name) takes \(arity.lowerBound == arity.upperBound ? "\(arity.lowerBound)" : "\(arity.lowerBound)–\(arity.upperBound)") argument(s), not \(args.count)", at: start)
                }
                try advance()
                return .call(name, args)
            }
            guard !["and", "or", "not", "eq", "ne", "gt", "ge", "lt", "le", "add", "sub", "mul", "div", "mod"].contains(w.lowercased()) else {
                throw SensingFilterError("operator '\(w)' where a value belongs", at: start)
            }
            var path = [w]
            while token == .slash {
                try advance()
                guard case .word(let next) = token else { throw SensingFilterError("expected a property name after '/'", at: tokenStart) }
                path.append(next)
                try advance()
            }
            return .path(path)
        default:
            throw SensingFilterError("expected a value instead of \(describe(token))", at: start)
        }
    }
}
