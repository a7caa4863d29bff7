import Foundation
import GeoCore

/// What a style expression is evaluated against: one feature's properties, its geometry type
/// (`Point`, `LineString`, `Polygon`, as MapLibre's `geometry-type` names them) and the map's zoom.
public struct ExpressionContext: Sendable {
    public var properties: [String: JSONValue]
    public var geometryType: String
    public var zoom: Double

    public init(properties: [String: JSONValue] = [:], geometryType: String = "Point", zoom: Double) {
        self.properties = properties
        self.geometryType = geometryType
        self.zoom = zoom
    }
}

/// MapLibre style expressions (style spec v8) as the web map's style writes them — `get`,
/// `match`, `coalesce`, `step`, `interpolate` (linear, exponential) over `zoom` or a property,
/// comparisons, `all`/`any`/`!`, `to-string`, arithmetic — and the legacy literals a paint
/// property may be (a number, a colour string, an array of numbers such as a dash pattern).
public enum StyleExpression {
    /// The value of `expression` for `context`.
    /// - Throws: `MapRenderingError` `.style` naming an operator the renderer does not know or
    ///   an expression of the wrong shape.
    public static func evaluate(_ expression: JSONValue, _ context: ExpressionContext) throws -> JSONValue {
        guard case .array(let items) = expression, let first = items.first else { return expression }
        guard case .string(let op) = first else { return expression }  // a literal array of numbers
        let args = Array(items.dropFirst())
        func arg(_ i: Int) throws -> JSONValue {
            guard i < args.count else { throw MapRenderingError(.style, "'\(op)' needs \(i + 1) argument(s): \(expression)") }
            return try evaluate(args[i], context)
        }
        switch op {
        case "literal": return args.first ?? .null
        case "get":
            guard case .string(let key) = try arg(0) else { throw MapRenderingError(.style, "'get' takes a property name: \(expression)") }
            return context.properties[key] ?? .null
        case "has":
            guard case .string(let key) = try arg(0) else { throw MapRenderingError(.style, "'has' takes a property name: \(expression)") }
            return .bool(context.properties[key].map { !$0.isNull } ?? false)
        case "zoom": return .number(context.zoom)
        case "geometry-type": return .string(context.geometryType)
        case "coalesce":
            for i in args.indices { let v = try arg(i); if !v.isNull { return v } }
            return .null
        case "match": return try match(args, context, expression)
        case "case":
            var i = 0
            while i + 1 < args.count {
                if truthy(try arg(i)) { return try arg(i + 1) }
                i += 2
            }
            return try arg(args.count - 1)
        case "step": return try step(args, context, expression)
        case "interpolate": return try interpolate(args, context, expression)
        case "==", "!=":
            let equal = same(try arg(0), try arg(1))
            return .bool(op == "==" ? equal : !equal)
        case "<", "<=", ">", ">=":
            guard let a = try arg(0).doubleValue, let b = try arg(1).doubleValue else { return .bool(false) }
            switch op {
            case "<": return .bool(a < b)
            case "<=": return .bool(a <= b)
            case ">": return .bool(a > b)
            default: return .bool(a >= b)
            }
        case "all": return .bool(try args.indices.allSatisfy { truthy(try arg($0)) })
        case "any": return .bool(try args.indices.contains { truthy(try arg($0)) })
        case "!": return .bool(!truthy(try arg(0)))
        case "to-string": return .string(text(try arg(0)))
        case "to-number": return .number(number(try arg(0)) ?? 0)
        case "concat": return .string(try args.indices.map { text(try arg($0)) }.joined())
        case "max", "min", "+", "*":
            let values = try args.indices.map { i -> Double in
                guard let v = try arg(i).doubleValue else { throw MapRenderingError(.style, "'\(op)' of a non-number: \(expression)") }
                return v
            }
            guard let head = values.first else { throw MapRenderingError(.style, "'\(op)' needs arguments: \(expression)") }
            switch op {
            case "max": return .number(values.max() ?? head)
            case "min": return .number(values.min() ?? head)
            case "+": return .number(values.reduce(0, +))
            default: return .number(values.reduce(1, *))
            }
        case "-", "/":
            guard let a = try arg(0).doubleValue, let b = try arg(1).doubleValue else {
                throw MapRenderingError(.style, "'\(op)' of a non-number: \(expression)")
            }
            return .number(op == "-" ? a - b : a / b)
        default:
            throw MapRenderingError(.style, "expression operator '\(op)' is not drawn by the server renderer: \(expression)")
        }
    }

    /// A filter's verdict: a missing filter passes; a value passes when truthy.
    public static func passes(_ filter: JSONValue?, _ context: ExpressionContext) throws -> Bool {
        guard let filter else { return true }
        return truthy(try evaluate(filter, context))
    }

    static func truthy(_ v: JSONValue) -> Bool {
        switch v {
        case .bool(let b): b
        case .null: false
        default: true
        }
    }

    /// Values compared as MapLibre does: numbers by value whatever their JSON kind.
    static func same(_ a: JSONValue, _ b: JSONValue) -> Bool {
        if let x = a.doubleValue, let y = b.doubleValue { return x == y }
        return a == b
    }

    /// The text of a value as `to-string` writes it (integers without a fraction).
    public static func text(_ v: JSONValue) -> String {
        switch v {
        case .null: ""
        case .bool(let b): b ? "true" : "false"
        case .integer(let i): String(i)
        case .number(let d): d.rounded() == d && abs(d) < 1e15 ? String(Int64(d)) : String(d)
        case .string(let s): s
        case .array, .object: "\(v)"
        }
    }

    static func number(_ v: JSONValue) -> Double? {
        if let d = v.doubleValue { return d }
        if case .string(let s) = v { return Double(s) }
        if case .bool(let b) = v { return b ? 1 : 0 }
        return nil
    }

    private static func match(_ args: [JSONValue], _ context: ExpressionContext, _ whole: JSONValue) throws -> JSONValue {
        guard args.count >= 2, args.count % 2 == 0 else { throw MapRenderingError(.style, "'match' needs input, label/output pairs and a fallback: \(whole)") }
        let input = try evaluate(args[0], context)
        var i = 1
        while i + 1 < args.count {
            let labels = args[i].arrayValue ?? [args[i]]
            if labels.contains(where: { same($0, input) }) { return try evaluate(args[i + 1], context) }
            i += 2
        }
        return try evaluate(args[args.count - 1], context)
    }

    private static func step(_ args: [JSONValue], _ context: ExpressionContext, _ whole: JSONValue) throws -> JSONValue {
        guard args.count >= 2, args.count % 2 == 0 else { throw MapRenderingError(.style, "'step' needs input, a base output and stop/output pairs: \(whole)") }
        let input = number(try evaluate(args[0], context))
        var result = args[1]
        var i = 2
        while i + 1 < args.count, let stop = args[i].doubleValue {
            guard let input, input >= stop else { break }
            result = args[i + 1]
            i += 2
        }
        return try evaluate(result, context)
    }

    private static func interpolate(_ args: [JSONValue], _ context: ExpressionContext, _ whole: JSONValue) throws -> JSONValue {
        guard args.count >= 4, args.count % 2 == 0, case .array(let kind) = args[0], case .string(let name)? = kind.first else {
            throw MapRenderingError(.style, "'interpolate' needs a type, an input and stop/output pairs: \(whole)")
        }
        let base: Double
        switch name {
        case "linear": base = 1
        case "exponential": base = kind.count > 1 ? (kind[1].doubleValue ?? 1) : 1
        default: throw MapRenderingError(.style, "interpolation '\(name)' is not drawn by the server renderer (linear, exponential): \(whole)")
        }
        guard let x = number(try evaluate(args[1], context)) else { return try evaluate(args[3], context) }
        var stops: [(Double, JSONValue)] = []
        var i = 2
        while i + 1 < args.count {
            guard let s = args[i].doubleValue else { throw MapRenderingError(.style, "an 'interpolate' stop is not a number: \(whole)") }
            stops.append((s, args[i + 1]))
            i += 2
        }
        if x <= stops[0].0 { return try evaluate(stops[0].1, context) }
        guard let upper = stops.firstIndex(where: { $0.0 > x }) else { return try evaluate(stops[stops.count - 1].1, context) }
        let (x0, v0) = stops[upper - 1], (x1, v1) = stops[upper]
        let a = try evaluate(v0, context), b = try evaluate(v1, context)
        guard let y0 = a.doubleValue, let y1 = b.doubleValue else { return a }  // colours step at the stops
        let span = x1 - x0, done = x - x0
        let t = base == 1 ? done / span : (pow(base, done) - 1) / (pow(base, span) - 1)
        return .number(y0 + (y1 - y0) * t)
    }
}
