extension Geometry {
    /// Parses OGC Well-Known Text: the seven types, `EMPTY` at any level, `Z` (tagged, as in
    /// `POINT Z (1 2 3)`, or three numbers without the tag), both `MULTIPOINT ((1 2), (3 4))` and
    /// `MULTIPOINT (1 2, 3 4)`, keywords in any case. An EWKT `SRID=n;` prefix is accepted and
    /// dropped (use `parseEWKT` to keep it). M coordinates are rejected.
    ///
    /// - Throws: `GeometryError(.parse)` with `position: "offset N"` (a character offset) saying
    ///   what was expected and what was found; `GeometryError(.invalidGeometry)` for an unclosed
    ///   or short ring, a one-position line string, or a non-finite coordinate.
    public init(wkt: String) throws {
        self = try Geometry.parseEWKT(wkt).geometry
    }

    /// Parses Extended WKT as PostGIS writes it (`SRID=4490;POINT (114.3 30.6)`), returning the
    /// geometry and the SRID (an EPSG code), or `nil` when there is no prefix.
    public static func parseEWKT(_ text: String) throws -> (geometry: Geometry, srid: Int32?) {
        var text = text
        return try text.withUTF8 { buffer in
            guard let base = buffer.baseAddress, buffer.count > 0 else {
                throw GeometryError(.parse, "expected a geometry keyword but found end of input", position: "offset 0")
            }
            var parser = WKTParser(p: base, n: buffer.count)
            let srid = try parser.sridPrefix()
            let geometry = try parser.geometry(depth: 0)
            parser.skipSpace()
            if parser.i < parser.n { throw parser.unexpected("end of input") }
            return (geometry, srid)
        }
    }
}

/// A recursive-descent WKT parser over UTF-8 bytes.
struct WKTParser {
    let p: UnsafePointer<UInt8>
    let n: Int
    var i = 0

    init(p: UnsafePointer<UInt8>, n: Int) {
        self.p = p
        self.n = n
    }

    // MARK: Errors

    /// The character offset of byte `index` (equal to it for ASCII input).
    func characterOffset(_ index: Int) -> Int {
        String(decoding: UnsafeBufferPointer(start: p, count: min(index, n)), as: UTF8.self).count
    }

    func describeFound(at index: Int) -> String {
        guard index < n else { return "end of input" }
        let b = p[index]
        if b >= 0x21 && b < 0x7F { return "'\(Character(Unicode.Scalar(b)))'" }
        if b < 0x80 { return Self.controlName(b) }
        // A non-ASCII character: decode the scalar that starts here.
        var end = index + 1
        while end < n && end < index + 4 && p[end] & 0xC0 == 0x80 { end += 1 }
        return "'\(String(decoding: UnsafeBufferPointer(start: p + index, count: end - index), as: UTF8.self))'"
    }

    private static func controlName(_ b: UInt8) -> String {
        switch b {
        case 0x20: "' '"
        case 0x09: "tab"
        case 0x0A: "newline"
        default: "byte 0x" + String(b, radix: 16, uppercase: true)
        }
    }

    func unexpected(_ expected: String, at index: Int? = nil) -> GeometryError {
        let at = index ?? i
        return GeometryError(.parse, "expected \(expected) but found \(describeFound(at: at))",
                             position: "offset \(characterOffset(at))")
    }

    func invalid(_ message: String, at index: Int) -> GeometryError {
        GeometryError(.invalidGeometry, message, position: "offset \(characterOffset(index))")
    }

    // MARK: Lexing

    @inline(__always)
    mutating func skipSpace() {
        while i < n {
            let b = p[i]
            if b == 0x20 || b == 0x0A || b == 0x0D || b == 0x09 { i += 1 } else { break }
        }
    }

    @inline(__always)
    static func isLetter(_ b: UInt8) -> Bool { (b | 0x20) &- UInt8(ascii: "a") < 26 }

    /// Reads a run of letters (lower-cased) at the cursor.
    mutating func word() -> [UInt8] {
        var w: [UInt8] = []
        while i < n && WKTParser.isLetter(p[i]) {
            w.append(p[i] | 0x20)
            i += 1
        }
        return w
    }

    /// Whether the next token is `EMPTY` (consumed if so).
    @inline(__always)
    mutating func takeEmpty() -> Bool {
        skipSpace()
        guard i + 5 <= n, p[i] | 0x20 == UInt8(ascii: "e") else { return false }
        let save = i
        if word() == Array("empty".utf8) { return true }
        i = save
        return false
    }

    @inline(__always)
    mutating func expect(_ c: UInt8, _ description: String) throws {
        skipSpace()
        guard i < n, p[i] == c else { throw unexpected(description) }
        i += 1
    }

    /// After an item in a list: `true` when a `,` follows, `false` at the closing `)`.
    @inline(__always)
    mutating func nextInList() throws -> Bool {
        skipSpace()
        if i < n {
            if p[i] == UInt8(ascii: ",") { i += 1; return true }
            if p[i] == UInt8(ascii: ")") { i += 1; return false }
        }
        throw unexpected("',' or ')'")
    }

    mutating func sridPrefix() throws -> Int32? {
        skipSpace()
        guard i + 5 <= n, p[i] | 0x20 == UInt8(ascii: "s") else { return nil }
        let start = i
        guard word() == Array("srid".utf8) else { i = start; return nil }
        try expect(UInt8(ascii: "="), "'=' after SRID")
        skipSpace()
        let numberStart = i
        var value: Int64 = 0
        var negative = false
        if i < n && p[i] == UInt8(ascii: "-") { negative = true; i += 1 }
        let digitsStart = i
        while i < n && NumberText.isDigit(p[i]) {
            value = value * 10 + Int64(p[i] - UInt8(ascii: "0"))
            i += 1
            if value > Int64(Int32.max) { throw GeometryError(.parse, "SRID is out of range", position: "offset \(characterOffset(numberStart))") }
        }
        if i == digitsStart { throw unexpected("an SRID number") }
        try expect(UInt8(ascii: ";"), "';' after the SRID")
        return Int32(negative ? -value : value)
    }

    // MARK: Grammar

    /// The dimension tag after a type keyword: `Z`, or nothing. `M`/`ZM` are rejected.
    mutating func dimensionTag(keywordSuffix: [UInt8], at index: Int) throws -> Bool {
        func reject(_ at: Int) -> GeometryError {
            GeometryError(.parse, "M coordinates are not supported (CityTwin carries x, y and an optional z only)",
                          position: "offset \(characterOffset(at))")
        }
        switch keywordSuffix {
        case []: break
        case [UInt8(ascii: "z")]: return true
        case [UInt8(ascii: "m")], [UInt8(ascii: "z"), UInt8(ascii: "m")]: throw reject(index)
        default: throw unexpected("a geometry keyword", at: index)
        }
        skipSpace()
        guard i < n, WKTParser.isLetter(p[i]) else { return false }
        let save = i
        let tag = word()
        switch tag {
        case [UInt8(ascii: "z")]: return true
        case [UInt8(ascii: "m")], [UInt8(ascii: "z"), UInt8(ascii: "m")]: throw reject(save)
        default:
            i = save // probably EMPTY
            return false
        }
    }

    static let keywords: [([UInt8], GeometryType)] = [
        (Array("geometrycollection".utf8), .geometryCollection),
        (Array("multilinestring".utf8), .multiLineString),
        (Array("multipolygon".utf8), .multiPolygon),
        (Array("multipoint".utf8), .multiPoint),
        (Array("linestring".utf8), .lineString),
        (Array("polygon".utf8), .polygon),
        (Array("point".utf8), .point),
    ]

    mutating func geometry(depth: Int) throws -> Geometry {
        skipSpace()
        let start = i
        let w = word()
        guard let (keyword, type) = WKTParser.keywords.first(where: { w.starts(with: $0.0) }) else {
            throw unexpected("a geometry keyword (POINT, LINESTRING, POLYGON, MULTIPOINT, MULTILINESTRING, MULTIPOLYGON, GEOMETRYCOLLECTION)", at: start)
        }
        let z = try dimensionTag(keywordSuffix: Array(w[keyword.count...]), at: start)
        switch type {
        case .point:
            if takeEmpty() { return .point(Point(nil)) }
            try expect(UInt8(ascii: "("), "'(' or EMPTY")
            let q = try position(z: z)
            try expect(UInt8(ascii: ")"), "')'")
            return .point(Point(q))
        case .lineString:
            if takeEmpty() { return .lineString(LineString([])) }
            return .lineString(LineString(try lineStringBody(z: z)))
        case .polygon:
            if takeEmpty() { return .polygon(Polygon(exterior: [])) }
            return .polygon(try polygonBody(z: z))
        case .multiPoint:
            var points: [Point] = []
            if takeEmpty() { return .multiPoint(MultiPoint(points)) }
            try expect(UInt8(ascii: "("), "'(' or EMPTY")
            repeat {
                if takeEmpty() {
                    points.append(Point(nil))
                } else {
                    skipSpace()
                    if i < n && p[i] == UInt8(ascii: "(") {
                        i += 1
                        points.append(Point(try position(z: z)))
                        try expect(UInt8(ascii: ")"), "')'")
                    } else {
                        points.append(Point(try position(z: z)))
                    }
                }
            } while try nextInList()
            return .multiPoint(MultiPoint(points))
        case .multiLineString:
            var lines: [LineString] = []
            if takeEmpty() { return .multiLineString(MultiLineString(lines)) }
            try expect(UInt8(ascii: "("), "'(' or EMPTY")
            repeat {
                lines.append(LineString(takeEmpty() ? [] : try lineStringBody(z: z)))
            } while try nextInList()
            return .multiLineString(MultiLineString(lines))
        case .multiPolygon:
            var polygons: [Polygon] = []
            if takeEmpty() { return .multiPolygon(MultiPolygon(polygons)) }
            try expect(UInt8(ascii: "("), "'(' or EMPTY")
            repeat {
                polygons.append(takeEmpty() ? Polygon(exterior: []) : try polygonBody(z: z))
            } while try nextInList()
            return .multiPolygon(MultiPolygon(polygons))
        case .geometryCollection:
            var members: [Geometry] = []
            if takeEmpty() { return .geometryCollection(GeometryCollection(members)) }
            if depth >= ShapeRule.maximumCollectionDepth {
                throw GeometryError(.parse, ShapeRule.tooDeepMessage(), position: "offset \(characterOffset(start))")
            }
            try expect(UInt8(ascii: "("), "'(' or EMPTY")
            repeat {
                members.append(try geometry(depth: depth + 1))
            } while try nextInList()
            return .geometryCollection(GeometryCollection(members))
        }
    }

    /// `x y` or `x y z` (exactly three when the Z tag was given).
    @inline(__always)
    mutating func position(z: Bool) throws -> Position {
        let start = i
        let x = try number()
        let y = try number()
        var zValue: Double? = nil
        if !atListEnd() {
            guard startsNumber() else { throw unexpected("',' or ')'") }
            zValue = try number()
            if !atListEnd() {
                if startsNumber() {
                    throw GeometryError(.parse, "a position has 4 numbers; M coordinates are not supported",
                                        position: "offset \(characterOffset(i))")
                }
                throw unexpected("',' or ')'")
            }
        } else if z {
            throw unexpected("a z coordinate (the geometry is tagged Z)")
        }
        let q = Position(x: x, y: y, z: zValue)
        if !q.isFinite { throw invalid("coordinate is not finite", at: start) }
        return q
    }

    /// Whether the cursor (after spaces) is at `,` or `)` or the end.
    @inline(__always)
    mutating func atListEnd() -> Bool {
        skipSpace()
        return i >= n || p[i] == UInt8(ascii: ",") || p[i] == UInt8(ascii: ")")
    }

    /// Whether a number (or a NaN/inf spelling) could start at the cursor.
    @inline(__always)
    func startsNumber() -> Bool {
        let b = p[i]
        return NumberText.isDigit(b) || b == UInt8(ascii: "-") || b == UInt8(ascii: "+") || b == UInt8(ascii: ".")
            || b | 0x20 == UInt8(ascii: "n") || b | 0x20 == UInt8(ascii: "i")
    }

    @inline(__always)
    mutating func number() throws -> Double {
        skipSpace()
        if let (v, end) = NumberText.scan(p, n, at: i, json: false) {
            if !v.isFinite {
                throw invalid("coordinate is not finite (\(describeFound(at: i)) overflows)", at: i)
            }
            // A number must end at a separator, not run into letters ("1x").
            if end < n && (WKTParser.isLetter(p[end]) || p[end] == UInt8(ascii: ".")) {
                throw unexpected("a separator after the number", at: end)
            }
            i = end
            return v
        }
        if i < n && WKTParser.isLetter(p[i]) {
            let save = i
            let w = word()
            if w == Array("nan".utf8) || w == Array("inf".utf8) || w == Array("infinity".utf8) {
                throw invalid("coordinate is not finite", at: save)
            }
            i = save
        } else if i + 1 < n && (p[i] == UInt8(ascii: "-") || p[i] == UInt8(ascii: "+")) && WKTParser.isLetter(p[i + 1]) {
            throw invalid("coordinate is not finite", at: i)
        }
        throw unexpected("a number")
    }

    /// `(x y, x y, ...)`
    mutating func positionList(z: Bool) throws -> [Position] {
        try expect(UInt8(ascii: "("), "'(' or EMPTY")
        var positions: [Position] = []
        repeat {
            positions.append(try position(z: z))
        } while try nextInList()
        return positions
    }

    mutating func lineStringBody(z: Bool) throws -> [Position] {
        skipSpace()
        let start = i
        let positions = try positionList(z: z)
        if let problem = ShapeRule.lineStringProblem(count: positions.count) { throw invalid(problem, at: start) }
        return positions
    }

    mutating func polygonBody(z: Bool) throws -> Polygon {
        try expect(UInt8(ascii: "("), "'(' or EMPTY")
        var rings: [[Position]] = []
        repeat {
            skipSpace()
            let start = i
            if takeEmpty() {
                throw invalid("\(ShapeRule.ringName(rings.count)) is EMPTY; a ring needs at least 4 positions", at: start)
            }
            let ring = try positionList(z: z)
            if let problem = ShapeRule.ringProblem(ring, name: ShapeRule.ringName(rings.count)) {
                throw invalid(problem, at: start)
            }
            rings.append(ring)
        } while try nextInList()
        let exterior = rings.removeFirst()
        return Polygon(exterior: exterior, interiors: rings)
    }
}
