import Foundation

/// A small JSON reader for cql2-json: a tree that keeps each value's byte range (so a GeoJSON
/// geometry can be handed to GeoCore's decoder as written) and, on a syntax error, the byte
/// offset. Nesting is limited to `CQL2Syntax.maximumNesting`.
struct CQL2JSONReader {
    indirect enum Value {
        case null
        case bool(Bool)
        case number(Double)
        case string(String)
        case array([Node])
        /// Members in document order.
        case object([(key: String, value: Node)])
    }

    struct Node {
        var value: Value
        var range: Range<Int>

        subscript(key: String) -> Node? {
            if case .object(let members) = value { return members.first { $0.key == key }?.value }
            return nil
        }

        var kindName: String {
            switch value {
            case .null: "null"
            case .bool: "a boolean"
            case .number: "a number"
            case .string: "a string"
            case .array: "an array"
            case .object: "an object"
            }
        }
    }

    let b: [UInt8]
    var i = 0

    init(_ data: Data) { b = [UInt8](data) }

    static func parse(_ data: Data) throws -> (Node, [UInt8]) {
        var r = CQL2JSONReader(data)
        let v = try r.value(depth: 0)
        r.skipSpace()
        if r.i < r.b.count { throw r.syntax("end of input") }
        return (v, r.b)
    }

    func syntax(_ expected: String) -> CQLError {
        let found: String
        if i >= b.count { found = "end of input" } else if b[i] >= 0x21 && b[i] < 0x7F {
            found = "'\(Character(Unicode.Scalar(b[i])))'"
        } else { found = "byte 0x" + String(b[i], radix: 16, uppercase: true) }
        return CQLError("invalid JSON: expected \(expected) at byte \(i), found \(found)", position: "byte \(i)",
                        token: i < b.count ? String(decoding: b[i...].prefix(1), as: UTF8.self) : nil)
    }

    mutating func skipSpace() {
        while i < b.count, b[i] == 0x20 || b[i] == 0x0A || b[i] == 0x0D || b[i] == 0x09 { i += 1 }
    }

    mutating func value(depth: Int) throws -> Node {
        skipSpace()
        guard depth <= CQL2Syntax.maximumNesting else {
            throw CQLError("JSON nested deeper than \(CQL2Syntax.maximumNesting) levels at byte \(i)", position: "byte \(i)")
        }
        guard i < b.count else { throw syntax("a JSON value") }
        let start = i
        switch b[i] {
        case UInt8(ascii: "{"):
            i += 1
            var members = [(key: String, value: Node)]()
            skipSpace()
            if i < b.count, b[i] == UInt8(ascii: "}") { i += 1; return Node(value: .object(members), range: start..<i) }
            while true {
                skipSpace()
                guard i < b.count, b[i] == UInt8(ascii: "\"") else { throw syntax("a member name") }
                let key = try string()
                skipSpace()
                guard i < b.count, b[i] == UInt8(ascii: ":") else { throw syntax("':'") }
                i += 1
                members.append((key, try value(depth: depth + 1)))
                skipSpace()
                guard i < b.count else { throw syntax("',' or '}'") }
                if b[i] == UInt8(ascii: ",") { i += 1; continue }
                guard b[i] == UInt8(ascii: "}") else { throw syntax("',' or '}'") }
                i += 1
                return Node(value: .object(members), range: start..<i)
            }
        case UInt8(ascii: "["):
            i += 1
            var items = [Node]()
            skipSpace()
            if i < b.count, b[i] == UInt8(ascii: "]") { i += 1; return Node(value: .array(items), range: start..<i) }
            while true {
                items.append(try value(depth: depth + 1))
                skipSpace()
                guard i < b.count else { throw syntax("',' or ']'") }
                if b[i] == UInt8(ascii: ",") { i += 1; continue }
                guard b[i] == UInt8(ascii: "]") else { throw syntax("',' or ']'") }
                i += 1
                return Node(value: .array(items), range: start..<i)
            }
        case UInt8(ascii: "\""):
            return Node(value: .string(try string()), range: start..<i)
        case UInt8(ascii: "t"): try word("true"); return Node(value: .bool(true), range: start..<i)
        case UInt8(ascii: "f"): try word("false"); return Node(value: .bool(false), range: start..<i)
        case UInt8(ascii: "n"): try word("null"); return Node(value: .null, range: start..<i)
        case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"):
            return Node(value: .number(try number()), range: start..<i)
        default:
            throw syntax("a JSON value")
        }
    }

    mutating func word(_ w: String) throws {
        for c in w.utf8 {
            guard i < b.count, b[i] == c else { throw syntax("'\(w)'") }
            i += 1
        }
    }

    mutating func number() throws -> Double {
        let start = i
        func digits() -> Int {
            let a = i
            while i < b.count, b[i] >= 0x30, b[i] <= 0x39 { i += 1 }
            return i - a
        }
        if b[i] == UInt8(ascii: "-") { i += 1 }
        guard digits() > 0 else { throw syntax("a digit") }
        if i < b.count, b[i] == UInt8(ascii: ".") {
            i += 1
            guard digits() > 0 else { throw syntax("a digit after '.'") }
        }
        if i < b.count, b[i] == UInt8(ascii: "e") || b[i] == UInt8(ascii: "E") {
            i += 1
            if i < b.count, b[i] == UInt8(ascii: "+") || b[i] == UInt8(ascii: "-") { i += 1 }
            guard digits() > 0 else { throw syntax("a digit in the exponent") }
        }
        let text = String(decoding: b[start..<i], as: UTF8.self)
        guard let d = Double(text), d.isFinite else {
            throw CQLError("number \(text) is out of range at byte \(start)", position: "byte \(start)", token: text)
        }
        return d
    }

    mutating func string() throws -> String {
        i += 1
        var out = [UInt8]()
        while true {
            guard i < b.count else { throw syntax("'\"'") }
            let c = b[i]
            if c == UInt8(ascii: "\"") { i += 1; break }
            if c < 0x20 { throw syntax("a string character (control characters must be escaped)") }
            if c != UInt8(ascii: "\\") { out.append(c); i += 1; continue }
            i += 1
            guard i < b.count else { throw syntax("an escape") }
            let e = b[i]
            i += 1
            switch e {
            case UInt8(ascii: "\""), UInt8(ascii: "\\"), UInt8(ascii: "/"): out.append(e)
            case UInt8(ascii: "b"): out.append(0x08)
            case UInt8(ascii: "f"): out.append(0x0C)
            case UInt8(ascii: "n"): out.append(0x0A)
            case UInt8(ascii: "r"): out.append(0x0D)
            case UInt8(ascii: "t"): out.append(0x09)
            case UInt8(ascii: "u"):
                var scalar = try hex4()
                if (0xD800..<0xDC00).contains(scalar), i + 1 < b.count, b[i] == UInt8(ascii: "\\"), b[i + 1] == UInt8(ascii: "u") {
                    let save = i
                    i += 2
                    let low = try hex4()
                    if (0xDC00..<0xE000).contains(low) {
                        scalar = 0x10000 + ((scalar - 0xD800) << 10) + (low - 0xDC00)
                    } else { i = save }
                }
                out.append(contentsOf: String(Unicode.Scalar(scalar).map(Character.init) ?? "\u{FFFD}").utf8)
            default:
                i -= 1
                throw syntax("a valid escape")
            }
        }
        return String(decoding: out, as: UTF8.self)
    }

    mutating func hex4() throws -> UInt32 {
        var v: UInt32 = 0
        for _ in 0..<4 {
            guard i < b.count, let d = Character(Unicode.Scalar(b[i])).hexDigitValue else { throw syntax("a hex digit") }
            v = v * 16 + UInt32(d)
            i += 1
        }
        return v
    }
}
