import Foundation

/// A math expression of a SWMM 5.2 `[CONTROLS]` `EXPRESSION` line: numbers, named variables,
/// `+ - * / ^`, parentheses, unary minus and SWMM's functions (`mathexpr.c`: COS SIN TAN COT ABS
/// SGN SQRT LOG EXP ASIN ACOS ATAN ACOT SINH COSH TANH COTH LOG10 STEP).
indirect enum ControlExpression: Sendable {
    case number(Double)
    /// A named variable, by its index in `ControlRules.variables`.
    case variable(Int)
    case negate(ControlExpression)
    case binary(Character, ControlExpression, ControlExpression)
    case function(String, ControlExpression)

    static let functions: Set<String> = ["COS", "SIN", "TAN", "COT", "ABS", "SGN", "SQRT", "LOG", "EXP", "ASIN", "ACOS",
                                         "ATAN", "ACOT", "SINH", "COSH", "TANH", "COTH", "LOG10", "STEP"]

    /// The value with each variable read by `value(of:)`; nil when a variable has no value now
    /// (SWMM's MISSING, which makes the premise false).
    func evaluate(_ value: (Int) -> Double?) -> Double? {
        switch self {
        case .number(let x): return x
        case .variable(let k): return value(k)
        case .negate(let e): return e.evaluate(value).map { -$0 }
        case .binary(let op, let l, let r):
            guard let a = l.evaluate(value), let b = r.evaluate(value) else { return nil }
            switch op {
            case "+": return a + b
            case "-": return a - b
            case "*": return a * b
            case "/": return b == 0 ? 0 : a / b
            default: return pow(a, b)
            }
        case .function(let name, let e):
            guard let x = e.evaluate(value) else { return nil }
            switch name {
            case "COS": return cos(x)
            case "SIN": return sin(x)
            case "TAN": return tan(x)
            case "COT": return x == 0 ? 0 : 1 / tan(x)
            case "ABS": return abs(x)
            case "SGN": return x < 0 ? -1 : (x > 0 ? 1 : 0)
            case "SQRT": return x < 0 ? 0 : x.squareRoot()
            case "LOG": return x <= 0 ? 0 : log(x)
            case "EXP": return exp(x)
            case "ASIN": return asin(x)
            case "ACOS": return acos(x)
            case "ATAN": return atan(x)
            case "ACOT": return x == 0 ? 0 : atan(1 / x)
            case "SINH": return sinh(x)
            case "COSH": return cosh(x)
            case "TANH": return tanh(x)
            case "COTH": return x == 0 ? 0 : 1 / tanh(x)
            case "LOG10": return x <= 0 ? 0 : log10(x)
            default: return x <= 0 ? 0 : 1   // STEP
            }
        }
    }

    /// Parses `text`; `variable` gives the index of a named variable or nil.
    /// - Throws: a reason string naming what does not read.
    static func parse(_ text: String, variable: @escaping (String) -> Int?) throws -> ControlExpression {
        var p = Parser(chars: Array(text.uppercased()), variable: variable)
        let e = try p.sum()
        p.skipBlanks()
        if p.i < p.chars.count { throw ExpressionError("unexpected '\(String(p.chars[p.i...]))'") }
        return e
    }

    struct ExpressionError: Error { var reason: String; init(_ r: String) { reason = r } }

    private struct Parser {
        var chars: [Character]
        var variable: (String) -> Int?
        var i = 0

        mutating func skipBlanks() { while i < chars.count && chars[i].isWhitespace { i += 1 } }

        mutating func peek() -> Character? { skipBlanks(); return i < chars.count ? chars[i] : nil }

        mutating func sum() throws -> ControlExpression {
            var e = try product()
            while let c = peek(), c == "+" || c == "-" {
                i += 1
                e = .binary(c, e, try product())
            }
            return e
        }

        mutating func product() throws -> ControlExpression {
            var e = try power()
            while let c = peek(), c == "*" || c == "/" {
                i += 1
                e = .binary(c, e, try power())
            }
            return e
        }

        mutating func power() throws -> ControlExpression {
            let base = try unary()
            if peek() == "^" {
                i += 1
                return .binary("^", base, try power())
            }
            return base
        }

        mutating func unary() throws -> ControlExpression {
            if peek() == "-" { i += 1; return .negate(try unary()) }
            if peek() == "+" { i += 1; return try unary() }
            return try atom()
        }

        mutating func atom() throws -> ControlExpression {
            guard let c = peek() else { throw ExpressionError("the expression ends early") }
            if c == "(" {
                i += 1
                let e = try sum()
                guard peek() == ")" else { throw ExpressionError("a parenthesis is not closed") }
                i += 1
                return e
            }
            if c.isNumber || c == "." {
                let start = i
                while i < chars.count && (chars[i].isNumber || chars[i] == ".") { i += 1 }
                if i < chars.count && chars[i] == "E" {
                    var k = i + 1
                    if k < chars.count && (chars[k] == "+" || chars[k] == "-") { k += 1 }
                    if k < chars.count && chars[k].isNumber {
                        i = k
                        while i < chars.count && chars[i].isNumber { i += 1 }
                    }
                }
                guard let x = Double(String(chars[start..<i])) else { throw ExpressionError("'\(String(chars[start..<i]))' is not a number") }
                return .number(x)
            }
            if c.isLetter || c == "_" {
                let start = i
                while i < chars.count && (chars[i].isLetter || chars[i].isNumber || chars[i] == "_") { i += 1 }
                let name = String(chars[start..<i])
                if ControlExpression.functions.contains(name) && peek() == "(" {
                    i += 1
                    let arg = try sum()
                    guard peek() == ")" else { throw ExpressionError("\(name)( is not closed") }
                    i += 1
                    return .function(name, arg)
                }
                guard let k = variable(name) else { throw ExpressionError("\(name) is neither a VARIABLE defined above nor a function") }
                return .variable(k)
            }
            throw ExpressionError("unexpected '\(c)'")
        }
    }
}
