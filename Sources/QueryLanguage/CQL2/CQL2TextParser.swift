import Foundation
import GeoCore

/// A recursive-descent parser for cql2-text (OGC 21-065 Annex A BNF) into `CQL2Node`s.
///
/// One precedence ladder serves boolean and scalar expressions alike (OR < AND < NOT <
/// comparison predicates < `+ -` < `* / % DIV` < `^` < unary `-`), so `(a + 1) > 2` and
/// `(a > 1)` both parse; the compiler then checks each operand has the kind its place needs.
/// Keywords are case-insensitive; `"double quoted"` names are always properties. Offsets are
/// counted in Unicode scalars from 0.
struct CQL2TextParser {
    enum TokenKind: Equatable {
        /// An unquoted identifier or keyword, as written.
        case word(String)
        /// A `"double-quoted"` identifier, unescaped.
        case quoted(String)
        /// A `'single-quoted'` string, unescaped.
        case string(String)
        case number(Double)
        /// Punctuation or an operator: `( ) , = <> < <= > >= + - * / % ^`.
        case symbol(String)
        case end
    }

    struct Token {
        var kind: TokenKind
        var start: Int
        var end: Int
        var text: String

        /// The upper-cased word, or nil for other tokens.
        var keyword: String? {
            if case .word(let w) = kind { return w.uppercased() }
            return nil
        }
        func isSymbol(_ s: String) -> Bool { kind == .symbol(s) }
    }

    static let reserved: Set<String> = ["AND", "OR", "NOT", "LIKE", "BETWEEN", "IN", "IS", "NULL", "DIV", "TRUE", "FALSE"]
    static let geometryKeywords: Set<String> = [
        "POINT", "LINESTRING", "POLYGON", "MULTIPOINT", "MULTILINESTRING", "MULTIPOLYGON", "GEOMETRYCOLLECTION",
    ]

    let s: [Unicode.Scalar]
    var i = 0
    var lookahead: Token?
    var depth = 0

    init(_ text: String) {
        s = Array(text.unicodeScalars)
    }

    /// Parses the whole input as one expression.
    mutating func parse() throws -> CQL2Node {
        let e = try orExpression()
        let t = try peek()
        guard t.kind == .end else {
            throw expected(t.isSymbol(")") ? "end of input (unbalanced ')')" : "end of input", found: t)
        }
        return e
    }

    // MARK: - Errors

    func describe(_ t: Token) -> String {
        t.kind == .end ? "end of input" : "'\(t.text)'"
    }

    func expected(_ what: String, found t: Token) -> CQLError {
        CQLError("expected \(what) at offset \(t.start), found \(describe(t))", position: "offset \(t.start)",
                 token: t.kind == .end ? nil : t.text)
    }

    func error(_ message: String, at offset: Int, token: String?) -> CQLError {
        CQLError("\(message) at offset \(offset)", position: "offset \(offset)", token: token)
    }

    /// `n`, unless operator chains have made the tree deeper than the nesting limit.
    func bounded(_ n: CQL2Node) throws -> CQL2Node {
        guard n.height <= CQL2Syntax.maximumNesting else {
            throw CQLError("expression nested deeper than \(CQL2Syntax.maximumNesting) levels at \(n.position)",
                           position: n.position, token: n.token)
        }
        return n
    }

    mutating func enter(_ t: Token) throws {
        depth += 1
        if depth > CQL2Syntax.maximumNesting {
            throw error("expression nested deeper than \(CQL2Syntax.maximumNesting) levels", at: t.start, token: t.text)
        }
    }

    // MARK: - Lexer

    static func isIdentifierStart(_ c: Unicode.Scalar) -> Bool {
        c == "_" || c == ":" || c.properties.isAlphabetic
    }

    static func isIdentifierPart(_ c: Unicode.Scalar) -> Bool {
        isIdentifierStart(c) || c == "." || ("0"..."9").contains(c) || c.properties.generalCategory == .nonspacingMark
    }

    func text(_ a: Int, _ b: Int) -> String {
        var out = String.UnicodeScalarView()
        out.append(contentsOf: s[a..<b])
        return String(out)
    }

    mutating func skipSpace() {
        while i < s.count, s[i].properties.isWhitespace { i += 1 }
    }

    mutating func peek() throws -> Token {
        if let t = lookahead { return t }
        let t = try lex()
        lookahead = t
        return t
    }

    @discardableResult
    mutating func next() throws -> Token {
        let t = try peek()
        lookahead = nil
        return t
    }

    private mutating func lex() throws -> Token {
        skipSpace()
        let start = i
        guard i < s.count else { return Token(kind: .end, start: i, end: i, text: "") }
        let c = s[i]
        if Self.isIdentifierStart(c) {
            i += 1
            while i < s.count, Self.isIdentifierPart(s[i]) { i += 1 }
            let w = text(start, i)
            return Token(kind: .word(w), start: start, end: i, text: w)
        }
        if ("0"..."9").contains(c) || (c == "." && i + 1 < s.count && ("0"..."9").contains(s[i + 1])) {
            return try number(start)
        }
        if c == "'" || c == "\"" {
            var out = String.UnicodeScalarView()
            i += 1
            while true {
                guard i < s.count else {
                    let what = c == "'" ? "string" : "quoted identifier"
                    throw error("unterminated \(what) starting", at: start, token: text(start, i))
                }
                if s[i] == c {
                    if i + 1 < s.count, s[i + 1] == c { out.append(c); i += 2; continue }
                    i += 1
                    break
                }
                out.append(s[i])
                i += 1
            }
            let value = String(out)
            return Token(kind: c == "'" ? .string(value) : .quoted(value), start: start, end: i, text: text(start, i))
        }
        let two = i + 1 < s.count ? text(i, i + 2) : ""
        if two == "<>" || two == "<=" || two == ">=" {
            i += 2
            return Token(kind: .symbol(two), start: start, end: i, text: two)
        }
        if "(),=<>+-*/%^".unicodeScalars.contains(c) {
            i += 1
            return Token(kind: .symbol(String(c)), start: start, end: i, text: String(c))
        }
        throw error("unexpected character '\(c)'", at: start, token: String(c))
    }

    private mutating func number(_ start: Int) throws -> Token {
        func digits() { while i < s.count, ("0"..."9").contains(s[i]) { i += 1 } }
        digits()
        if i < s.count, s[i] == "." { i += 1; digits() }
        if i < s.count, s[i] == "e" || s[i] == "E" {
            var j = i + 1
            if j < s.count, s[j] == "+" || s[j] == "-" { j += 1 }
            if j < s.count, ("0"..."9").contains(s[j]) { i = j; digits() }
        }
        let t = text(start, i)
        guard let d = Double(t), d.isFinite else {
            throw error("number \(t) is out of range", at: start, token: t)
        }
        if i < s.count, Self.isIdentifierStart(s[i]) {
            throw error("unexpected character '\(s[i])' after number \(t)", at: i, token: String(s[i]))
        }
        return Token(kind: .number(d), start: start, end: i, text: t)
    }

    // MARK: - Boolean levels

    mutating func orExpression() throws -> CQL2Node {
        let first = try andExpression()
        var items = [first]
        while try peek().keyword == "OR" {
            try next()
            items.append(try andExpression())
        }
        return items.count == 1 ? first : try bounded(CQL2Node(.op("or", items), at: first.position, token: "OR"))
    }

    mutating func andExpression() throws -> CQL2Node {
        let first = try notExpression()
        var items = [first]
        while try peek().keyword == "AND" {
            try next()
            items.append(try notExpression())
        }
        return items.count == 1 ? first : try bounded(CQL2Node(.op("and", items), at: first.position, token: "AND"))
    }

    mutating func notExpression() throws -> CQL2Node {
        let t = try peek()
        guard t.keyword == "NOT" else { return try predicate() }
        try next()
        try enter(t)
        defer { depth -= 1 }
        let x = try notExpression()
        return CQL2Node(.op("not", [x]), at: "offset \(t.start)", token: t.text)
    }

    mutating func predicate() throws -> CQL2Node {
        let lhs = try additive()
        var t = try peek()
        if case .symbol(let op) = t.kind, CQL2Syntax.comparisonOperators[op] != nil {
            try next()
            let rhs = try additive()
            return try bounded(CQL2Node(.op(op, [lhs, rhs]), at: lhs.position, token: op))
        }
        var negated = false
        var notToken = t
        if t.keyword == "NOT" {
            try next()
            negated = true
            notToken = t
            t = try peek()
            guard ["LIKE", "BETWEEN", "IN"].contains(t.keyword ?? "") else {
                throw expected("LIKE, BETWEEN or IN after NOT", found: t)
            }
        }
        var result: CQL2Node
        switch t.keyword {
        case "LIKE"?:
            try next()
            let pattern = try additive()
            result = CQL2Node(.op("like", [lhs, pattern]), at: lhs.position, token: t.text)
        case "BETWEEN"?:
            try next()
            let low = try additive()
            let and = try next()
            guard and.keyword == "AND" else { throw expected("AND in BETWEEN", found: and) }
            let high = try additive()
            result = CQL2Node(.op("between", [lhs, low, high]), at: lhs.position, token: t.text)
        case "IN"?:
            try next()
            let open = try next()
            guard open.isSymbol("(") else { throw expected("'(' after IN", found: open) }
            var items = [CQL2Node]()
            repeat {
                items.append(try additive())
            } while try skipComma()
            let close = try next()
            guard close.isSymbol(")") else { throw expected("')' or ',' in the IN list", found: close) }
            result = CQL2Node(.op("in", [lhs, CQL2Node(.list(items), at: "offset \(open.start)", token: "(")]),
                              at: lhs.position, token: t.text)
        case "IS"?:
            try next()
            var n = try next()
            var isNot = false
            if n.keyword == "NOT" { isNot = true; n = try next() }
            guard n.keyword == "NULL" else { throw expected(isNot ? "NULL" : "NULL or NOT NULL after IS", found: n) }
            result = CQL2Node(.op("isnull", [lhs]), at: lhs.position, token: "IS NULL")
            if isNot { result = CQL2Node(.op("not", [result]), at: lhs.position, token: "IS NOT NULL") }
            return result
        default:
            return lhs
        }
        if negated { result = CQL2Node(.op("not", [result]), at: "offset \(notToken.start)", token: notToken.text) }
        return result
    }

    /// Consumes a `,` if one is next.
    mutating func skipComma() throws -> Bool {
        guard try peek().isSymbol(",") else { return false }
        try next()
        return true
    }

    // MARK: - Arithmetic levels

    mutating func additive() throws -> CQL2Node {
        var lhs = try multiplicative()
        while case .symbol(let op) = try peek().kind, op == "+" || op == "-" {
            try next()
            let rhs = try multiplicative()
            lhs = try bounded(CQL2Node(.op(op, [lhs, rhs]), at: lhs.position, token: op))
        }
        return lhs
    }

    mutating func multiplicative() throws -> CQL2Node {
        var lhs = try power()
        while true {
            let t = try peek()
            let op: String
            switch t.kind {
            case .symbol("*"), .symbol("/"), .symbol("%"): op = t.text
            case .word where t.keyword == "DIV": op = "div"
            default: return lhs
            }
            try next()
            let rhs = try power()
            lhs = try bounded(CQL2Node(.op(op, [lhs, rhs]), at: lhs.position, token: t.text))
        }
    }

    mutating func power() throws -> CQL2Node {
        let base = try unary()
        let t = try peek()
        guard t.isSymbol("^") else { return base }
        try next()
        try enter(t)
        defer { depth -= 1 }
        let exponent = try power()
        return try bounded(CQL2Node(.op("^", [base, exponent]), at: base.position, token: "^"))
    }

    mutating func unary() throws -> CQL2Node {
        let t = try peek()
        guard t.isSymbol("-") || t.isSymbol("+") else { return try primary() }
        try next()
        try enter(t)
        defer { depth -= 1 }
        let x = try unary()
        if t.isSymbol("+") { return x }
        if case .number(let v) = x.kind, let d = v.doubleValue {
            return CQL2Node(.number(CQL2Syntax.number(-d)), at: "offset \(t.start)", token: "-" + x.token)
        }
        return CQL2Node(.op("*", [CQL2Node(.number(.integer(-1)), at: "offset \(t.start)", token: "-"), x]),
                        at: "offset \(t.start)", token: "-")
    }

    // MARK: - Primaries

    mutating func primary() throws -> CQL2Node {
        let t = try next()
        let at = "offset \(t.start)"
        switch t.kind {
        case .number(let d):
            return CQL2Node(.number(CQL2Syntax.number(d)), at: at, token: t.text)
        case .string(let v):
            return CQL2Node(.string(v), at: at, token: t.text)
        case .quoted(let name):
            return CQL2Node(.property(name), at: at, token: t.text)
        case .symbol("("):
            try enter(t)
            defer { depth -= 1 }
            let first = try orExpression()
            if try peek().isSymbol(",") {
                var items = [first]
                while try skipComma() { items.append(try orExpression()) }
                try expectClose()
                return CQL2Node(.list(items), at: at, token: "(")
            }
            try expectClose()
            return first
        case .word(let word):
            let key = word.uppercased()
            switch key {
            case "TRUE", "FALSE":
                return CQL2Node(.boolean(key == "TRUE"), at: at, token: t.text)
            case _ where Self.reserved.contains(key):
                throw expected("an expression", found: t)
            case _ where Self.geometryKeywords.contains(key):
                return try wkt(t)
            case "DATE", "TIMESTAMP":
                guard try peek().isSymbol("(") else { break }
                try next()
                let v = try next()
                guard case .string(let value) = v.kind else { throw expected("a quoted \(key.lowercased()) string", found: v) }
                try expectClose()
                return CQL2Node(key == "DATE" ? .date(value) : .timestamp(value), at: at, token: "\(key)('\(value)')")
            case "INTERVAL":
                guard try peek().isSymbol("(") else { break }
                try next()
                let a = try intervalEnd()
                let comma = try next()
                guard comma.isSymbol(",") else { throw expected("',' between the interval's ends", found: comma) }
                let b = try intervalEnd()
                try expectClose()
                return CQL2Node(.interval(a, b), at: at, token: "INTERVAL")
            case "BBOX":
                guard try peek().isSymbol("(") else { break }
                try next()
                var values = [Double]()
                repeat {
                    let n = try unary()
                    guard case .number(let v) = n.kind, let d = v.doubleValue else {
                        throw CQLError("BBOX takes numbers, found '\(n.token)' at \(n.position)", position: n.position, token: n.token)
                    }
                    values.append(d)
                } while try skipComma()
                try expectClose()
                return CQL2Node(.bbox(values), at: at, token: "BBOX")
            default:
                break
            }
            guard try peek().isSymbol("(") else {
                return CQL2Node(.property(word), at: at, token: word)
            }
            try next()
            try enter(t)
            defer { depth -= 1 }
            var args = [CQL2Node]()
            if try !peek().isSymbol(")") {
                repeat { args.append(try orExpression()) } while try skipComma()
            }
            try expectClose()
            let lower = word.lowercased()
            let name = CQL2Syntax.standardFunctions.contains(lower) ? lower : word
            return CQL2Node(.op(name, args), at: at, token: word)
        default:
            break
        }
        throw expected("an expression", found: t)
    }

    mutating func expectClose() throws {
        let c = try next()
        guard c.isSymbol(")") else { throw expected("')'", found: c) }
    }

    /// One end of `INTERVAL(...)`: a date or timestamp string (or `'..'`), `DATE(...)`,
    /// `TIMESTAMP(...)`, or a property.
    mutating func intervalEnd() throws -> CQL2Node {
        let t = try peek()
        if case .string(let v) = t.kind {
            try next()
            return CQL2Node(.string(v), at: "offset \(t.start)", token: t.text)
        }
        let x = try primary()
        switch x.kind {
        case .date, .timestamp, .property: return x
        default:
            throw CQLError("an interval end must be a date, a timestamp, '..' or a property, found '\(x.token)' at \(x.position)",
                           position: x.position, token: x.token)
        }
    }

    /// A WKT literal: the keyword, an optional dimension tag, then `EMPTY` or a balanced
    /// parenthesised body, handed whole to GeoCore's WKT reader.
    mutating func wkt(_ keyword: Token) throws -> CQL2Node {
        var j = keyword.end
        func skip() { while j < s.count, s[j].properties.isWhitespace { j += 1 } }
        func word() -> String {
            let a = j
            while j < s.count, s[j].properties.isAlphabetic { j += 1 }
            return text(a, j).uppercased()
        }
        skip()
        var save = j
        let tag = word()
        if tag == "EMPTY" {
            // done
        } else {
            if tag != "Z" && tag != "M" && tag != "ZM" { j = save }
            skip()
            save = j
            if word() != "EMPTY" {
                j = save
                guard j < s.count, s[j] == "(" else {
                    throw error("expected '(' or EMPTY after \(keyword.text)", at: j, token: j < s.count ? String(s[j]) : nil)
                }
                var level = 0
                repeat {
                    guard j < s.count else {
                        throw error("unterminated \(keyword.text) literal starting", at: keyword.start, token: keyword.text)
                    }
                    if s[j] == "(" { level += 1 } else if s[j] == ")" { level -= 1 }
                    j += 1
                } while level > 0
            }
        }
        let literal = text(keyword.start, j)
        i = j
        lookahead = nil
        do {
            let g = try Geometry(wkt: literal)
            return CQL2Node(.geometry(g), at: "offset \(keyword.start)", token: literal)
        } catch let e as GeometryError {
            var offset = keyword.start
            if let p = e.position, p.hasPrefix("offset "), let byte = Int(p.dropFirst(7)) {
                offset += String(decoding: Array(literal.utf8).prefix(byte), as: UTF8.self).unicodeScalars.count
            }
            throw CQLError("invalid geometry literal at offset \(offset): \(e.message)", position: "offset \(offset)", token: literal)
        }
    }
}
