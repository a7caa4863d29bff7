import Foundation

/// A byte-level JSON parser that builds GeoJSON values directly (no intermediate JSON tree for
/// coordinates) and keeps the JSON path of what it is reading, so every error can name the
/// member that is wrong: `$.features[3].geometry.coordinates[0][2]`.
struct GeoJSONParser {
    enum PathComponent {
        case key(String)
        case index(Int)
    }

    /// Deepest JSON nesting accepted anywhere (properties included); deeper input is an error,
    /// not a stack overflow.
    static let maximumNesting = 256

    nonisolated(unsafe) private static let emptyInput = UnsafeMutablePointer<UInt8>.allocate(capacity: 1)

    let p: UnsafePointer<UInt8>
    let n: Int
    var i = 0
    var path: [PathComponent] = []

    init(_ raw: UnsafeRawBufferPointer) {
        p = raw.baseAddress.map { UnsafePointer($0.assumingMemoryBound(to: UInt8.self)) }
            ?? UnsafePointer(GeoJSONParser.emptyInput)
        n = raw.count
        path.reserveCapacity(16)
    }

    // MARK: - Errors

    var pathString: String {
        var s = "$"
        for c in path {
            switch c {
            case .key(let k): s += "." + k
            case .index(let k): s += "[\(k)]"
            }
        }
        return s
    }

    func describeFound(at index: Int) -> String {
        guard index < n else { return "end of input" }
        let b = p[index]
        if b >= 0x21 && b < 0x7F { return "'\(Character(Unicode.Scalar(b)))'" }
        if b == 0x20 { return "' '" }
        return "byte 0x" + String(b, radix: 16, uppercase: true)
    }

    /// Malformed JSON.
    func syntax(_ expected: String) -> GeometryError {
        GeometryError(.parse, "invalid JSON: expected \(expected) but found \(describeFound(at: i)) at byte \(i)",
                      position: pathString)
    }

    /// Well-formed JSON that is not the GeoJSON expected here.
    func structure(_ message: String) -> GeometryError {
        GeometryError(.parse, message, position: pathString)
    }

    func invalid(_ message: String) -> GeometryError {
        GeometryError(.invalidGeometry, message, position: pathString)
    }

    /// What kind of JSON value starts at the cursor, for messages.
    var foundKind: String {
        guard i < n else { return "end of input" }
        switch p[i] {
        case UInt8(ascii: "["): return "an array"
        case UInt8(ascii: "{"): return "an object"
        case UInt8(ascii: "\""): return "a string"
        case UInt8(ascii: "t"), UInt8(ascii: "f"): return "a boolean"
        case UInt8(ascii: "n"): return "null"
        case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"): return "a number"
        default: return describeFound(at: i)
        }
    }

    // MARK: - Lexing

    @inline(__always)
    mutating func skipSpace() {
        while i < n {
            let b = p[i]
            if b == 0x20 || b == 0x0A || b == 0x0D || b == 0x09 { i += 1 } else { return }
        }
    }

    @inline(__always)
    func peek(_ c: UInt8) -> Bool { i < n && p[i] == c }

    @inline(__always)
    mutating func expect(_ c: UInt8, _ description: String) throws {
        skipSpace()
        guard i < n, p[i] == c else { throw syntax(description) }
        i += 1
    }

    mutating func literal(_ word: StaticString) throws {
        let count = word.utf8CodeUnitCount
        guard n - i >= count, memcmp(p + i, word.utf8Start, count) == 0 else { throw syntax("a JSON value") }
        i += count
    }

    mutating func string() throws -> String {
        guard peek(UInt8(ascii: "\"")) else { throw syntax("a string") }
        i += 1
        let start = i
        while i < n {
            let b = p[i]
            if b == UInt8(ascii: "\"") {
                let s = String(decoding: UnsafeBufferPointer(start: p + start, count: i - start), as: UTF8.self)
                i += 1
                return s
            }
            if b == UInt8(ascii: "\\") || b < 0x20 { break }
            i += 1
        }
        // Escapes: decode into a byte buffer.
        var bytes = Array(UnsafeBufferPointer(start: p + start, count: i - start))
        while i < n {
            let b = p[i]
            if b == UInt8(ascii: "\"") {
                i += 1
                return String(decoding: bytes, as: UTF8.self)
            }
            if b < 0x20 { throw syntax("an escaped control character in a string") }
            if b != UInt8(ascii: "\\") {
                bytes.append(b)
                i += 1
                continue
            }
            i += 1
            guard i < n else { break }
            let e = p[i]
            i += 1
            switch e {
            case UInt8(ascii: "\""), UInt8(ascii: "\\"), UInt8(ascii: "/"): bytes.append(e)
            case UInt8(ascii: "b"): bytes.append(0x08)
            case UInt8(ascii: "f"): bytes.append(0x0C)
            case UInt8(ascii: "n"): bytes.append(0x0A)
            case UInt8(ascii: "r"): bytes.append(0x0D)
            case UInt8(ascii: "t"): bytes.append(0x09)
            case UInt8(ascii: "u"):
                var scalar = try hex4()
                if scalar >= 0xD800 && scalar < 0xDC00 {
                    // A high surrogate must pair with a following \u low surrogate.
                    if n - i >= 6 && p[i] == UInt8(ascii: "\\") && p[i + 1] == UInt8(ascii: "u") {
                        let save = i
                        i += 2
                        let low = try hex4()
                        if low >= 0xDC00 && low < 0xE000 {
                            scalar = 0x10000 + ((scalar - 0xD800) << 10) + (low - 0xDC00)
                        } else {
                            i = save
                            scalar = 0xFFFD
                        }
                    } else {
                        scalar = 0xFFFD
                    }
                } else if scalar >= 0xDC00 && scalar < 0xE000 {
                    scalar = 0xFFFD
                }
                bytes.append(contentsOf: String(Character(Unicode.Scalar(scalar) ?? "\u{FFFD}")).utf8)
            default:
                i -= 1
                throw syntax("a valid escape (\\\" \\\\ \\/ \\b \\f \\n \\r \\t \\uXXXX)")
            }
        }
        throw syntax("'\"' closing the string")
    }

    private mutating func hex4() throws -> UInt32 {
        guard n - i >= 4 else { throw syntax("4 hex digits") }
        var v: UInt32 = 0
        for _ in 0..<4 {
            let b = p[i]
            let d: UInt32
            switch b {
            case UInt8(ascii: "0")...UInt8(ascii: "9"): d = UInt32(b - UInt8(ascii: "0"))
            case UInt8(ascii: "a")...UInt8(ascii: "f"): d = UInt32(b - UInt8(ascii: "a") + 10)
            case UInt8(ascii: "A")...UInt8(ascii: "F"): d = UInt32(b - UInt8(ascii: "A") + 10)
            default: throw syntax("a hex digit")
            }
            v = v << 4 | d
            i += 1
        }
        return v
    }

    /// Whether the cursor is at `NaN`, `Infinity` or `-Infinity`, which JSON does not have.
    var atNonFiniteLiteral: Bool {
        guard i < n else { return false }
        let b = p[i]
        if b == UInt8(ascii: "N") || b == UInt8(ascii: "I") { return true }
        return b == UInt8(ascii: "-") && i + 1 < n && p[i + 1] == UInt8(ascii: "I")
    }

    /// A coordinate: a finite JSON number.
    @inline(__always)
    mutating func coordinate() throws -> Double {
        if let (v, end) = NumberText.scan(p, n, at: i, json: true) {
            guard v.isFinite else { throw invalid("coordinate is not finite (it overflows a Double)") }
            i = end
            return v
        }
        if atNonFiniteLiteral { throw invalid("coordinate is not finite: NaN and Infinity are not allowed") }
        throw structure("position needs 2 or 3 numbers; found \(foundKind)")
    }

    // MARK: - Generic values (properties, ids, skipped members)

    /// Skips any JSON value, checking its syntax.
    mutating func skipValue(depth: Int) throws {
        skipSpace()
        guard i < n else { throw syntax("a JSON value") }
        switch p[i] {
        case UInt8(ascii: "{"):
            if depth >= GeoJSONParser.maximumNesting { throw tooDeep() }
            try members { me, _ in try me.skipValue(depth: depth + 1) }
        case UInt8(ascii: "["):
            if depth >= GeoJSONParser.maximumNesting { throw tooDeep() }
            try elements(tracking: false) { me, _ in try me.skipValue(depth: depth + 1) }
        case UInt8(ascii: "\""):
            // Skip without building the string.
            i += 1
            while i < n {
                let b = p[i]
                if b == UInt8(ascii: "\"") { i += 1; return }
                if b == UInt8(ascii: "\\") { i += 2; continue }
                if b < 0x20 { throw syntax("an escaped control character in a string") }
                i += 1
            }
            throw syntax("'\"' closing the string")
        case UInt8(ascii: "t"): try literal("true")
        case UInt8(ascii: "f"): try literal("false")
        case UInt8(ascii: "n"): try literal("null")
        default:
            guard let (_, end) = NumberText.scan(p, n, at: i, json: true) else {
                if atNonFiniteLiteral { throw invalid("NaN and Infinity are not JSON numbers") }
                throw syntax("a JSON value")
            }
            i = end
        }
    }

    func tooDeep() -> GeometryError {
        GeometryError(.parse, "JSON nested deeper than \(GeoJSONParser.maximumNesting) levels", position: pathString)
    }

    /// Any JSON value, as properties carry it.
    mutating func value(depth: Int) throws -> JSONValue {
        skipSpace()
        guard i < n else { throw syntax("a JSON value") }
        switch p[i] {
        case UInt8(ascii: "{"):
            if depth >= GeoJSONParser.maximumNesting { throw tooDeep() }
            return .object(try objectValue(depth: depth + 1))
        case UInt8(ascii: "["):
            if depth >= GeoJSONParser.maximumNesting { throw tooDeep() }
            var array: [JSONValue] = []
            try elements(tracking: false) { me, _ in array.append(try me.value(depth: depth + 1)) }
            return .array(array)
        case UInt8(ascii: "\""): return .string(try string())
        case UInt8(ascii: "t"): try literal("true"); return .bool(true)
        case UInt8(ascii: "f"): try literal("false"); return .bool(false)
        case UInt8(ascii: "n"): try literal("null"); return .null
        default: return try numberValue()
        }
    }

    mutating func objectValue(depth: Int) throws -> [String: JSONValue] {
        // Room for a typical attribute set up front: growing 1 → 2 → 4 → 8 rehashes every key.
        var object: [String: JSONValue] = [:]
        object.reserveCapacity(8)
        try members { me, key in object[key] = try me.value(depth: depth) }
        return object
    }

    /// A number, kept as an integer when written without fraction or exponent and in range.
    mutating func numberValue() throws -> JSONValue {
        let start = i
        guard let (v, end) = NumberText.scan(p, n, at: i, json: true) else {
            if atNonFiniteLiteral { throw invalid("NaN and Infinity are not JSON numbers") }
            throw syntax("a JSON value")
        }
        i = end
        var integral = true
        for k in start..<end where p[k] == UInt8(ascii: ".") || p[k] | 0x20 == UInt8(ascii: "e") {
            integral = false
            break
        }
        if integral {
            let negative = p[start] == UInt8(ascii: "-")
            let digitsStart = negative ? start + 1 : start
            if end - digitsStart <= 18 {
                var m: Int64 = 0
                for k in digitsStart..<end { m = m * 10 + Int64(p[k] - UInt8(ascii: "0")) }
                return .integer(negative ? -m : m)
            }
            let text = String(decoding: UnsafeBufferPointer(start: p + start, count: end - start), as: UTF8.self)
            if let m = Int64(text) { return .integer(m) }
        }
        guard v.isFinite else { throw invalid("number overflows a Double") }
        return .number(v)
    }

    /// Iterates the members of the object at the cursor, leaving the cursor on each value.
    @inline(__always)
    mutating func members(_ body: (inout GeoJSONParser, String) throws -> Void) throws {
        skipSpace()
        guard peek(UInt8(ascii: "{")) else { throw syntax("'{'") }
        i += 1
        skipSpace()
        if peek(UInt8(ascii: "}")) { i += 1; return }
        while true {
            skipSpace()
            let key = try string()
            try expect(UInt8(ascii: ":"), "':'")
            skipSpace()
            try body(&self, key)
            skipSpace()
            guard i < n else { throw syntax("',' or '}'") }
            if p[i] == UInt8(ascii: ",") { i += 1; continue }
            if p[i] == UInt8(ascii: "}") { i += 1; return }
            throw syntax("',' or '}'")
        }
    }

    /// Iterates the elements of the array at the cursor; with `tracking`, each element's index
    /// is on the path while `body` reads it.
    @inline(__always)
    mutating func elements(tracking: Bool, _ body: (inout GeoJSONParser, Int) throws -> Void) throws {
        guard peek(UInt8(ascii: "[")) else { throw syntax("'['") }
        i += 1
        skipSpace()
        if peek(UInt8(ascii: "]")) { i += 1; return }
        var k = 0
        while true {
            skipSpace()
            if tracking { path.append(.index(k)) }
            try body(&self, k)
            if tracking { path.removeLast() }
            k += 1
            skipSpace()
            guard i < n else { throw syntax("',' or ']'") }
            if p[i] == UInt8(ascii: ",") { i += 1; continue }
            if p[i] == UInt8(ascii: "]") { i += 1; return }
            throw syntax("',' or ']'")
        }
    }
}
