import Foundation

/// One data line of a `.inp` section, split into tokens the way SWMM 5 does (`tokenize`: whitespace
/// separated, `"double quoted"` tokens may hold spaces, `;` starts a comment), with typed
/// accessors whose errors name the line, section and field. `package`: FloodSim reads SWMM's
/// external time-series and rain files with the same tokens.
package struct SWMMLine: Sendable {
    package var number: Int
    package var section: String
    package var tokens: [String]

    package init(number: Int, section: String, tokens: [String]) {
        self.number = number
        self.section = section
        self.tokens = tokens
    }

    var count: Int { tokens.count }

    func error(_ field: String?, _ reason: String) -> SWMMInputError {
        SWMMInputError(line: number, section: section, field: field, reason: reason)
    }

    /// Splits a raw line into tokens the way SWMM 5's `getTokens` does, scalar by scalar (not by
    /// grapheme, so a combining mark after a space never glues two tokens together):
    /// - the line ends at the first `;`, even inside quotes;
    /// - tokens are separated by space, tab, CR or LF;
    /// - a token that *starts* with `"` runs to the next `"` (or the end of the line) and may hold
    ///   separators or be empty (`""`); the character after the closing quote starts a new token;
    /// - a `"` inside an unquoted token is an ordinary character.
    package static func tokenize(_ text: Substring) -> [String] {
        let scalars = text.unicodeScalars
        let end = scalars.firstIndex(of: ";") ?? scalars.endIndex
        var tokens: [String] = []
        var i = scalars.startIndex
        while i < end {
            let c = scalars[i]
            if isSeparator(c) {
                i = scalars.index(after: i)
            } else if c == "\"" {
                let start = scalars.index(after: i)
                let close = scalars[start..<end].firstIndex(of: "\"") ?? end
                tokens.append(String(scalars[start..<close]))
                i = close < end ? scalars.index(after: close) : end
            } else {
                var j = scalars.index(after: i)
                while j < end, !isSeparator(scalars[j]) { j = scalars.index(after: j) }
                tokens.append(String(scalars[i..<j]))
                i = j
            }
        }
        return tokens
    }

    /// SWMM's token separators: space, tab, CR, LF.
    static func isSeparator(_ c: Unicode.Scalar) -> Bool { c == " " || c == "\t" || c == "\r" || c == "\n" }

    /// Writes a row of tokens as one data line that `tokenize` splits back into the same tokens.
    static func line(_ tokens: [String]) -> String {
        tokens.enumerated().map { quoted($1, first: $0 == 0) }.joined(separator: "  ")
    }

    /// Writes a token so that `tokenize` gives it back: in double quotes when it is empty or holds
    /// a separator, and as the first token of a line when it starts with `[` (the line would read
    /// as a section header). Every token `tokenize` returns is written faithfully (a first token
    /// starting with `[` came from quotes, so holds no `"`); a token holding `;`, starting with
    /// `"`, or holding a `"` and a separator has no spelling in SWMM's syntax.
    static func quoted(_ token: String, first: Bool = false) -> String {
        guard let head = token.unicodeScalars.first else { return "\"\"" }
        if first && head == "[" || token.unicodeScalars.contains(where: isSeparator) { return "\"\(token)\"" }
        return token
    }

    package func require(_ n: Int, _ fields: [String]) throws {
        if tokens.count < n {
            let missing = n - 1 < fields.count ? fields[tokens.count] : nil
            throw error(missing, "expected at least \(n) fields, found \(tokens.count)")
        }
    }

    func string(_ i: Int, _ field: String) throws -> String {
        guard i < tokens.count else { throw error(field, "missing") }
        return tokens[i]
    }

    func optionalString(_ i: Int) -> String? { i < tokens.count ? tokens[i] : nil }

    package func number(_ i: Int, _ field: String) throws -> Double {
        guard i < tokens.count else { throw error(field, "missing") }
        return try Self.parseNumber(tokens[i], field: field, line: self)
    }

    func number(_ i: Int, _ field: String, default value: Double) throws -> Double {
        guard i < tokens.count, !tokens[i].isEmpty else { return value }
        return try Self.parseNumber(tokens[i], field: field, line: self)
    }

    func optionalNumber(_ i: Int, _ field: String) throws -> Double? {
        guard i < tokens.count else { return nil }
        return try Self.parseNumber(tokens[i], field: field, line: self)
    }

    func nonNegative(_ i: Int, _ field: String, default value: Double? = nil) throws -> Double {
        let x: Double
        if let value { x = try number(i, field, default: value) } else { x = try number(i, field) }
        if x < 0 { throw error(field, "must not be negative, found \(tokens[i])") }
        return x
    }

    /// A barrel count: a whole number 1…10⁶ (1 when the field is missing or empty).
    func barrels(_ i: Int) throws -> Int {
        let x = try number(i, "Barrels", default: 1)
        guard x >= 1, x <= 1e6, x == x.rounded() else { throw error("Barrels", "must be a whole number from 1 to 1000000, found \(tokens[i])") }
        return Int(x)
    }

    func flag(_ i: Int, _ field: String, default value: Bool = false) throws -> Bool {
        guard i < tokens.count else { return value }
        switch tokens[i].uppercased() {
        case "YES", "TRUE", "ON": return true
        case "NO", "FALSE", "OFF": return false
        default: throw error(field, "expected YES or NO, found \(tokens[i])")
        }
    }

    func keyword<K: RawRepresentable & CaseIterable>(_ i: Int, _ field: String, _ type: K.Type) throws -> K where K.RawValue == String {
        let token = try string(i, field)
        guard let k = K(rawValue: token.uppercased()) else {
            throw error(field, "unknown keyword \(token); expected one of \(K.allCases.map(\.rawValue).joined(separator: ", "))")
        }
        return k
    }

    static func parseNumber(_ token: String, field: String, line: SWMMLine) throws -> Double {
        guard let x = Double(token), x.isFinite else { throw line.error(field, "not a number: \(token)") }
        return x
    }

    /// A clock time `h:mm`, `h:mm:ss` or decimal hours, in hours. Written back as decimal hours
    /// (`number(_:)`), which reads back as the identical Double.
    package func clockHours(_ i: Int, _ field: String) throws -> Double {
        let token = try string(i, field)
        guard let h = Self.hours(clock: token) else { throw error(field, "not a time (h:mm[:ss] or decimal hours): \(token)") }
        return h
    }

    package static func hours(clock token: String) -> Double? {
        let parts = token.split(separator: ":", omittingEmptySubsequences: false)
        if parts.count == 1 {
            guard let h = Double(token), h.isFinite else { return nil }
            return h
        }
        guard parts.count <= 3 else { return nil }
        var total = 0.0
        for (k, p) in parts.enumerated() {
            guard let v = Double(p), v.isFinite, v >= 0 else { return nil }
            total += v / [1.0, 60, 3600][k]
        }
        return total
    }

    /// The shortest text that reads back as the same Double.
    static func number(_ x: Double) -> String {
        if x == x.rounded(), abs(x) < 1e15 { return String(Int64(x)) }
        return "\(x)"
    }
}
