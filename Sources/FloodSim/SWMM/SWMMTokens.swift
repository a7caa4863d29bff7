import Foundation

/// One data line of a `.inp` section, split into tokens the way SWMM 5 does (whitespace
/// separated, `"double quoted"` tokens may hold spaces, `;` starts a comment), with typed
/// accessors whose errors name the line, section and field.
struct SWMMLine: Sendable {
    var number: Int
    var section: String
    var tokens: [String]

    var count: Int { tokens.count }

    func error(_ field: String?, _ reason: String) -> SWMMInputError {
        SWMMInputError(line: number, section: section, field: field, reason: reason)
    }

    /// Splits a raw line (comment already removed or not) into tokens.
    static func tokenize(_ text: Substring) -> [String] {
        var tokens: [String] = []
        var current = ""
        var inQuotes = false
        var hadQuotes = false
        for ch in text {
            if inQuotes {
                if ch == "\"" { inQuotes = false } else { current.append(ch) }
                continue
            }
            if ch == ";" { break }
            if ch == "\"" { inQuotes = true; hadQuotes = true; continue }
            if ch == " " || ch == "\t" || ch == "\r" {
                if !current.isEmpty || hadQuotes { tokens.append(current) }
                current = ""
                hadQuotes = false
                continue
            }
            current.append(ch)
        }
        if !current.isEmpty || hadQuotes { tokens.append(current) }
        return tokens
    }

    /// Writes a token so that `tokenize` gives it back (quotes around empty tokens and spaces).
    static func quoted(_ token: String) -> String {
        if token.isEmpty || token.contains(where: { $0 == " " || $0 == "\t" || $0 == ";" }) { return "\"\(token)\"" }
        return token
    }

    func require(_ n: Int, _ fields: [String]) throws {
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

    func number(_ i: Int, _ field: String) throws -> Double {
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
    func clockHours(_ i: Int, _ field: String) throws -> Double {
        let token = try string(i, field)
        guard let h = Self.hours(clock: token) else { throw error(field, "not a time (h:mm[:ss] or decimal hours): \(token)") }
        return h
    }

    static func hours(clock token: String) -> Double? {
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
