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

    // MARK: - GeoJSON objects

    /// A GeoJSON object at the cursor: geometry, feature or feature collection. `collections`
    /// counts enclosing geometry collections.
    mutating func object(depth: Int, collections: Int = 0) throws -> GeoJSONObject {
        skipSpace()
        guard peek(UInt8(ascii: "{")) else { throw structure("expected a GeoJSON object but found \(foundKind)") }
        if depth >= GeoJSONParser.maximumNesting { throw tooDeep() }
        var type: String?
        var coordinatesAt: Int?
        var geometriesAt: Int?
        var parsed: Geometry?
        var geometry: Geometry?
        var properties: [String: JSONValue]?
        var id: FeatureID?
        var features: [Feature]?
        try members { me, key in
            switch key {
            case "type":
                guard me.peek(UInt8(ascii: "\"")) else {
                    me.path.append(.key("type"))
                    throw me.structure("'type' must be a string but is \(me.foundKind)")
                }
                type = try me.string()
            case "coordinates":
                if let t = type.flatMap(GeometryType.init(rawValue:)), t != .geometryCollection {
                    me.path.append(.key("coordinates"))
                    parsed = try me.coordinates(t)
                    me.path.removeLast()
                } else {
                    coordinatesAt = me.i
                    try me.skipValue(depth: depth + 1)
                }
            case "geometries":
                if type == GeometryType.geometryCollection.rawValue {
                    me.path.append(.key("geometries"))
                    parsed = try me.geometries(depth: depth + 1, collections: collections + 1)
                    me.path.removeLast()
                } else {
                    geometriesAt = me.i
                    try me.skipValue(depth: depth + 1)
                }
            case "geometry":
                me.path.append(.key("geometry"))
                geometry = try me.optionalGeometry(depth: depth + 1)
                me.path.removeLast()
            case "properties":
                me.path.append(.key("properties"))
                if me.peek(UInt8(ascii: "n")) {
                    try me.literal("null")
                } else if me.peek(UInt8(ascii: "{")) {
                    properties = try me.objectValue(depth: depth + 1)
                } else {
                    throw me.structure("properties must be an object or null but is \(me.foundKind)")
                }
                me.path.removeLast()
            case "id":
                me.path.append(.key("id"))
                id = try me.featureID()
                me.path.removeLast()
            case "features":
                me.path.append(.key("features"))
                features = try me.features(depth: depth + 1)
                me.path.removeLast()
            default:
                // bbox, crs and foreign members: checked for syntax, then ignored.
                try me.skipValue(depth: depth + 1)
            }
        }
        guard let type else { throw structure("missing member 'type'") }
        switch type {
        case "Feature":
            return .feature(Feature(id: id, geometry: geometry, properties: properties ?? [:]))
        case "FeatureCollection":
            guard let features else { throw structure("missing member 'features'") }
            return .featureCollection(FeatureCollection(features))
        default:
            guard let t = GeometryType(rawValue: type) else {
                path.append(.key("type"))
                throw structure("unknown geometry type '\(type)'")
            }
            if let parsed {
                // Duplicate "type" members that disagree: the coordinates were read for another type.
                guard parsed.type == t else { throw structure("'type' is given twice with different values") }
                return .geometry(parsed)
            }
            // The type came after the coordinates: go back and read them now that it is known.
            let end = i
            defer { i = end }
            if t == .geometryCollection {
                if collections >= ShapeRule.maximumCollectionDepth { throw structure(ShapeRule.tooDeepMessage()) }
                guard let at = geometriesAt else { throw structure("missing member 'geometries'") }
                i = at
                path.append(.key("geometries"))
                let g = try geometries(depth: depth + 1, collections: collections + 1)
                path.removeLast()
                return .geometry(g)
            }
            guard let at = coordinatesAt else { throw structure("missing member 'coordinates'") }
            i = at
            path.append(.key("coordinates"))
            let g = try coordinates(t)
            path.removeLast()
            return .geometry(g)
        }
    }

    /// A feature's `geometry`: a geometry object or `null`.
    mutating func optionalGeometry(depth: Int) throws -> Geometry? {
        if peek(UInt8(ascii: "n")) {
            try literal("null")
            return nil
        }
        guard case .geometry(let g) = try object(depth: depth) else {
            throw structure("geometry must be a geometry object or null")
        }
        return g
    }

    mutating func featureID() throws -> FeatureID {
        if peek(UInt8(ascii: "\"")) { return .string(try string()) }
        let start = i
        guard let (_, end) = NumberText.scan(p, n, at: i, json: true) else {
            throw structure("id must be a string or a number but is \(foundKind)")
        }
        if case .integer(let m) = try numberValue() { return .integer(m) }
        // A fractional or huge numeric id: kept exactly as written.
        return .string(String(decoding: UnsafeBufferPointer(start: p + start, count: end - start), as: UTF8.self))
    }

    mutating func features(depth: Int) throws -> [Feature] {
        guard peek(UInt8(ascii: "[")) else { throw structure("features must be an array but is \(foundKind)") }
        var list: [Feature] = []
        try elements(tracking: true) { me, _ in
            guard case .feature(let f) = try me.object(depth: depth + 1) else {
                throw me.structure("features must contain only Feature objects")
            }
            list.append(f)
        }
        return list
    }

    mutating func geometries(depth: Int, collections: Int) throws -> Geometry {
        if collections > ShapeRule.maximumCollectionDepth { throw structure(ShapeRule.tooDeepMessage()) }
        guard peek(UInt8(ascii: "[")) else { throw structure("geometries must be an array but is \(foundKind)") }
        var members: [Geometry] = []
        try elements(tracking: true) { me, _ in
            guard case .geometry(let g) = try me.object(depth: depth + 1, collections: collections) else {
                throw me.structure("geometries must contain only geometry objects")
            }
            members.append(g)
        }
        return .geometryCollection(GeometryCollection(members))
    }

    // MARK: - Coordinates

    mutating func coordinates(_ type: GeometryType) throws -> Geometry {
        guard peek(UInt8(ascii: "[")) else { throw structure("coordinates must be an array but is \(foundKind)") }
        switch type {
        case .point:
            return .point(Point(try optionalPosition()))
        case .lineString:
            return .lineString(LineString(try lineString()))
        case .polygon:
            return .polygon(try polygon())
        case .multiPoint:
            var points: [Point] = []
            try elements(tracking: true) { me, _ in points.append(Point(try me.optionalPosition())) }
            return .multiPoint(MultiPoint(points))
        case .multiLineString:
            var lines: [LineString] = []
            try elements(tracking: true) { me, _ in lines.append(LineString(try me.lineString())) }
            return .multiLineString(MultiLineString(lines))
        case .multiPolygon:
            var polygons: [Polygon] = []
            try elements(tracking: true) { me, _ in polygons.append(try me.polygon()) }
            return .multiPolygon(MultiPolygon(polygons))
        case .geometryCollection:
            throw structure("a GeometryCollection has 'geometries', not 'coordinates'")
        }
    }

    /// `[x, y]` or `[x, y, z]`; `[]` is the empty point.
    mutating func optionalPosition() throws -> Position? {
        guard peek(UInt8(ascii: "[")) else {
            throw structure("expected a position (an array of 2 or 3 numbers) but found \(foundKind)")
        }
        var probe = i + 1
        while probe < n && (p[probe] == 0x20 || p[probe] == 0x0A || p[probe] == 0x0D || p[probe] == 0x09) { probe += 1 }
        if probe < n && p[probe] == UInt8(ascii: "]") {
            i = probe + 1
            return nil
        }
        return try position()
    }

    @inline(__always)
    mutating func position() throws -> Position {
        guard peek(UInt8(ascii: "[")) else {
            throw structure("expected a position (an array of 2 or 3 numbers) but found \(foundKind)")
        }
        i += 1
        var values = (0.0, 0.0, 0.0)
        var count = 0
        while true {
            skipSpace()
            if count == 0 && peek(UInt8(ascii: "]")) { break }
            let v = try coordinate()
            switch count {
            case 0: values.0 = v
            case 1: values.1 = v
            case 2: values.2 = v
            default: throw structure("position needs 2 or 3 numbers; found more")
            }
            count += 1
            skipSpace()
            guard i < n else { throw syntax("',' or ']'") }
            if p[i] == UInt8(ascii: ",") { i += 1; continue }
            if p[i] == UInt8(ascii: "]") { break }
            throw syntax("',' or ']'")
        }
        i += 1
        guard count >= 2 else { throw structure("position needs 2 or 3 numbers; found \(count)") }
        return Position(x: values.0, y: values.1, z: count == 3 ? values.2 : nil)
    }

    mutating func positions() throws -> [Position] {
        guard peek(UInt8(ascii: "[")) else {
            throw structure("expected an array of positions but found \(foundKind)")
        }
        var list: [Position] = []
        try elements(tracking: true) { me, _ in list.append(try me.position()) }
        return list
    }

    mutating func lineString() throws -> [Position] {
        let list = try positions()
        if let problem = ShapeRule.lineStringProblem(count: list.count) { throw invalid(problem) }
        return list
    }

    mutating func polygon() throws -> Polygon {
        guard peek(UInt8(ascii: "[")) else { throw structure("expected an array of rings but found \(foundKind)") }
        var rings: [[Position]] = []
        try elements(tracking: true) { me, k in
            let ring = try me.positions()
            if let problem = ShapeRule.ringProblem(ring, name: ShapeRule.ringName(k)) { throw me.invalid(problem) }
            rings.append(ring)
        }
        guard !rings.isEmpty else { return Polygon(exterior: []) }
        let exterior = rings.removeFirst()
        return Polygon(exterior: exterior, interiors: rings)
    }
}
