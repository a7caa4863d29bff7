import Foundation
import GeoCore

/// Reads cql2-json (OGC 21-065 §8, the JSON Schema of Annex B) into `CQL2Node`s whose
/// positions are JSON paths (`$.args[1].args[0]`).
struct CQL2JSONParser {
    static let operatorNames: Set<String> = [
        "and", "or", "not", "=", "<>", "<", "<=", ">", ">=", "like", "between", "in", "isnull",
        "+", "-", "*", "/", "%", "div", "^",
    ]

    let bytes: [UInt8]

    static func parse(_ data: Data) throws -> CQL2Node {
        let (root, bytes) = try CQL2JSONReader.parse(data)
        return try CQL2JSONParser(bytes: bytes).node(root, path: "$")
    }

    func text(_ n: CQL2JSONReader.Node) -> String {
        let s = String(decoding: bytes[n.range], as: UTF8.self)
        return s.count > 60 ? String(s.prefix(57)) + "..." : s
    }

    func fail(_ message: String, _ path: String, _ n: CQL2JSONReader.Node) -> CQLError {
        CQLError("\(message) at \(path)", position: path, token: text(n))
    }

    func node(_ n: CQL2JSONReader.Node, path: String) throws -> CQL2Node {
        let token = text(n)
        switch n.value {
        case .null:
            throw fail("null is not a CQL2 value (use the isNull operator)", path, n)
        case .bool(let v):
            return CQL2Node(.boolean(v), at: path, token: token)
        case .number(let d):
            return CQL2Node(.number(CQL2Syntax.number(d)), at: path, token: token)
        case .string(let s):
            return CQL2Node(.string(s), at: path, token: token)
        case .array(let items):
            return CQL2Node(.list(try items.enumerated().map { try node($1, path: "\(path)[\($0)]") }), at: path, token: token)
        case .object(let members):
            if let op = n["op"] {
                guard case .string(let name) = op.value else { throw fail("\"op\" must be a string", path + ".op", op) }
                var args = [CQL2Node]()
                if let a = n["args"] {
                    guard case .array(let items) = a.value else { throw fail("\"args\" must be an array", path + ".args", a) }
                    args = try items.enumerated().map { try node($1, path: "\(path).args[\($0)]") }
                } else {
                    throw fail("operator \"\(name)\" has no \"args\"", path, n)
                }
                let lower = name.lowercased()
                let known = Self.operatorNames.contains(lower) || CQL2Syntax.standardFunctions.contains(lower)
                return CQL2Node(.op(known ? lower : name, args), at: path, token: name)
            }
            if let p = n["property"] {
                guard case .string(let name) = p.value else { throw fail("\"property\" must be a string", path + ".property", p) }
                return CQL2Node(.property(name), at: path, token: name)
            }
            if let d = n["date"] {
                guard case .string(let s) = d.value else { throw fail("\"date\" must be a string", path + ".date", d) }
                return CQL2Node(.date(s), at: path, token: token)
            }
            if let t = n["timestamp"] {
                guard case .string(let s) = t.value else { throw fail("\"timestamp\" must be a string", path + ".timestamp", t) }
                return CQL2Node(.timestamp(s), at: path, token: token)
            }
            if let iv = n["interval"] {
                guard case .array(let ends) = iv.value, ends.count == 2 else {
                    throw fail("\"interval\" must be an array of two ends", path + ".interval", iv)
                }
                var out = [CQL2Node]()
                for (k, e) in ends.enumerated() {
                    let p = "\(path).interval[\(k)]"
                    let x = try node(e, path: p)
                    switch x.kind {
                    case .string, .date, .timestamp, .property: out.append(x)
                    default: throw fail("an interval end must be a date, a timestamp, \"..\" or a property", p, e)
                    }
                }
                return CQL2Node(.interval(out[0], out[1]), at: path, token: token)
            }
            if let bb = n["bbox"] {
                guard case .array(let items) = bb.value else { throw fail("\"bbox\" must be an array of numbers", path + ".bbox", bb) }
                var values = [Double]()
                for (k, item) in items.enumerated() {
                    guard case .number(let d) = item.value else {
                        throw fail("\"bbox\" must be an array of numbers", "\(path).bbox[\(k)]", item)
                    }
                    values.append(d)
                }
                return CQL2Node(.bbox(values), at: path, token: token)
            }
            if n["type"] != nil {
                do {
                    guard case .geometry(let g) = try GeoJSON.decode(Data(bytes[n.range])) else {
                        throw fail("a GeoJSON Feature or FeatureCollection is not a CQL2 geometry literal", path, n)
                    }
                    return CQL2Node(.geometry(g), at: path, token: token)
                } catch let e as GeometryError {
                    let inner = (e.position ?? "$").dropFirst()
                    throw CQLError("invalid GeoJSON geometry at \(path)\(inner): \(e.message)", position: path + inner, token: token)
                }
            }
            let keys = members.map(\.key).joined(separator: ", ")
            throw fail("expected an object with op, property, date, timestamp, interval, bbox or a GeoJSON type (found keys: \(keys))",
                       path, n)
        }
    }
}
