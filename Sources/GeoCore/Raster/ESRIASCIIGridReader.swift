/// Parser for the ESRI ASCII grid format (GDAL driver `AAIGrid`): a header of `key value` lines
/// (`ncols`, `nrows`, `xllcorner`|`xllcenter`, `yllcorner`|`yllcenter`, `cellsize` or GDAL's
/// `dx`/`dy`, optional `NODATA_value`; keys case-insensitive, any order) followed by `nrows × ncols`
/// numbers, top row first, separated by any whitespace (rows may wrap over lines).
///
/// Scans bytes directly: no per-value `String`, one allocation for the values. Numbers with at
/// most 19 significant digits and a decimal exponent within ±22 (every value GDAL writes) take
/// an exact fast path — the decimal is rounded once to Double and then to Float, as GDAL's
/// reader (`strtod` then a cast) does; anything else goes through Swift's `Double(_:)`.
struct ESRIASCIIGridReader {
    private let bytes: UnsafeBufferPointer<UInt8>
    private var index = 0
    /// 1-based line number of `index`, and the offset where that line starts.
    private var line = 1
    private var lineStart = 0

    init(_ bytes: UnsafeBufferPointer<UInt8>) {
        self.bytes = bytes
        // A UTF-8 byte-order mark, as some Windows tools write.
        if bytes.count >= 3, bytes[0] == 0xEF, bytes[1] == 0xBB, bytes[2] == 0xBF { index = 3 }
    }

    private struct Token {
        var start: Int
        var end: Int
        var line: Int
        var column: Int
        var position: String { "line \(line), column \(column)" }
    }

    private enum Key: String, CaseIterable {
        case ncols, nrows, xllcorner, xllcenter, yllcorner, yllcenter, cellsize, dx, dy
        case nodata = "nodata_value"

        /// The keys, for a message naming what a header may hold.
        static var expected: String { allCases.map(\.rawValue).joined(separator: ", ") }
    }

    // MARK: - Tokens

    @inline(__always)
    private static func isSpace(_ b: UInt8) -> Bool {
        b == 0x20 || (b >= 0x09 && b <= 0x0D)   // space, \t \n \v \f \r
    }

    /// Moves past whitespace, counting lines.
    @inline(__always)
    private mutating func skipSpace() {
        while index < bytes.count {
            let b = bytes[index]
            if b == 0x0A {
                index += 1
                line += 1
                lineStart = index
            } else if ESRIASCIIGridReader.isSpace(b) {
                index += 1
            } else {
                return
            }
        }
    }

    /// The next whitespace-delimited token, or `nil` at the end of input.
    @inline(__always)
    private mutating func nextToken() -> Token? {
        skipSpace()
        guard index < bytes.count else { return nil }
        let start = index
        while index < bytes.count && !ESRIASCIIGridReader.isSpace(bytes[index]) { index += 1 }
        return Token(start: start, end: index, line: line, column: start - lineStart + 1)
    }

    private func text(_ t: Token, limit: Int = 40) -> String {
        let end = Swift.min(t.end, t.start + limit)
        let s = String(decoding: UnsafeBufferPointer(rebasing: bytes[t.start..<end]), as: UTF8.self)
        return t.end > end ? s + "…" : s
    }

    // MARK: - Header

    /// The header key the token spells, ASCII case-insensitively.
    private func key(_ t: Token) -> Key? {
        guard t.end - t.start <= 12 else { return nil }
        let name = String(decoding: bytes[t.start..<t.end].map { $0 >= 0x41 && $0 <= 0x5A ? $0 | 0x20 : $0 }, as: UTF8.self)
        return Key(rawValue: name)
    }

    private struct Header {
        var values: [Key: (value: Double, line: Int)] = [:]
        func has(_ k: Key) -> Bool { values[k] != nil }
        subscript(_ k: Key) -> Double? { values[k]?.value }
    }

    /// Reads the whole grid.
    mutating func read() throws -> Grid {
        var header = Header()
        var firstValue: Token?
        while let token = nextToken() {
            let first = bytes[token.start] | 0x20   // ASCII lower case
            guard first >= 0x61 && first <= 0x7A else { firstValue = token; break }   // not a letter: data
            guard let key = key(token) else {
                // With the header complete, a word such as `nan` or `inf` is a value.
                if header.has(.ncols) && header.has(.nrows) && parseFloat(token) != nil {
                    firstValue = token
                    break
                }
                // The message names what was expected, never the file's text: a grid read from a
                // file nobody meant to share must not leak its lines through an error.
                throw GeometryError(.parse, "not an ESRI ASCII grid header key (expected \(Key.expected))",
                                    position: "line \(token.line)")
            }
            guard header.values[key] == nil else {
                throw GeometryError(.parse, "header key '\(key.rawValue)' appears twice", position: "line \(token.line)")
            }
            guard let valueToken = nextToken(), valueToken.line == token.line else {
                throw GeometryError(.parse, "header key '\(key.rawValue)' has no value", position: "line \(token.line)")
            }
            let valueText = text(valueToken, limit: 64)
            guard !valueText.contains(where: { $0 == "x" || $0 == "X" }),   // no hexadecimal floats
                  let value = Double(valueText), value.isFinite else {
                throw GeometryError(.parse, "header key '\(key.rawValue)' has a non-numeric value",
                                    position: "line \(token.line)")
            }
            header.values[key] = (value, token.line)
        }
        let dataLine = firstValue?.line ?? line
        let (width, height, transform) = try geometry(of: header, dataLine: dataLine)
        let noData = header[.nodata].map { Float($0) }
        if let noData, !noData.isFinite, let line = header.values[.nodata]?.line {
            // The cells are 32-bit floats: a marker beyond their range could never match one.
            throw GeometryError(.parse, "header key 'nodata_value' is outside the range of the grid's 32-bit cell values",
                                position: "line \(line)")
        }

        let expected = width * height   // both ≤ Int32.max: cannot overflow on 64-bit
        let values: [Float]
        if let firstValue {
            // Each value needs a byte and a separator: a header promising more than the input can
            // hold is answered by counting rather than by allocating (a 10⁶ × 10⁶ header in a
            // 100-byte file must not exhaust memory).
            let remaining = bytes.count - firstValue.start
            if expected > remaining / 2 + 1 {
                var found = 1
                while nextToken() != nil { found += 1 }
                throw GeometryError(.parse, "expected \(expected) values (\(height) rows of \(width)), found \(found)",
                                    position: "line \(line)")
            }
            values = try readValues(first: firstValue, count: expected, width: width)
        } else {
            throw GeometryError(.parse, "expected \(expected) values (\(height) rows of \(width)), found 0",
                                position: "line \(line)")
        }
        // Anything after the last value is an error too.
        if let extra = nextToken() {
            var found = expected + 1
            while nextToken() != nil { found += 1 }
            throw GeometryError(.parse, "expected \(expected) values (\(height) rows of \(width)), found \(found)",
                                position: extra.position)
        }
        return Grid(unchecked: width, height, transform, noData, values)
    }

    private func geometry(of header: Header, dataLine: Int) throws -> (Int, Int, GeoTransform) {
        let at = "line \(dataLine)"
        func size(_ key: Key) throws -> Int {
            guard let entry = header.values[key] else {
                throw GeometryError(.parse, "missing header key '\(key.rawValue)'", position: at)
            }
            guard entry.value == entry.value.rounded(), entry.value >= 1, entry.value <= Double(Int32.max) else {
                throw GeometryError(.parse, "'\(key.rawValue)' must be a positive whole number, got \(entry.value)",
                                    position: "line \(entry.line)")
            }
            return Int(entry.value)
        }
        let width = try size(.ncols)
        let height = try size(.nrows)

        func cell(_ key: Key) throws -> Double? {
            guard let entry = header.values[key] else { return nil }
            guard entry.value > 0 else {
                throw GeometryError(.parse, "'\(key.rawValue)' must be positive, got \(entry.value)",
                                    position: "line \(entry.line)")
            }
            return entry.value
        }
        let cellSize = try cell(.cellsize)
        let dx = try cell(.dx), dy = try cell(.dy)
        let cellWidth: Double, cellHeight: Double
        switch (cellSize, dx, dy) {
        case let (size?, nil, nil): (cellWidth, cellHeight) = (size, size)
        case let (nil, x?, y?): (cellWidth, cellHeight) = (x, y)
        case (nil, nil, nil):
            throw GeometryError(.parse, "missing header key 'cellsize' (or 'dx' and 'dy')", position: at)
        case (nil, nil, _?): throw GeometryError(.parse, "missing header key 'dx' (given 'dy')", position: at)
        case (nil, _?, nil): throw GeometryError(.parse, "missing header key 'dy' (given 'dx')", position: at)
        case (_?, _, _):
            throw GeometryError(.parse, "header has both 'cellsize' and 'dx'/'dy'",
                                position: "line \(header.values[.cellsize]!.line)")
        }

        func lowerLeft(corner: Key, center: Key, cell: Double) throws -> Double {
            switch (header.values[corner], header.values[center]) {
            case let (c?, nil): return c.value
            case let (nil, c?): return c.value - cell / 2
            case (nil, nil):
                throw GeometryError(.parse, "missing header key '\(corner.rawValue)' (or '\(center.rawValue)')", position: at)
            case let (_?, c?):
                throw GeometryError(.parse, "header has both '\(corner.rawValue)' and '\(center.rawValue)'",
                                    position: "line \(c.line)")
            }
        }
        let west = try lowerLeft(corner: .xllcorner, center: .xllcenter, cell: cellWidth)
        let south = try lowerLeft(corner: .yllcorner, center: .yllcenter, cell: cellHeight)
        let north = south + Double(height) * cellHeight
        guard north.isFinite, (west + Double(width) * cellWidth).isFinite else {
            throw GeometryError(.parse, "grid extent overflows: \(width) x \(height) cells of \(cellWidth) x \(cellHeight)",
                                position: at)
        }
        return (width, height, .northUp(west: west, north: north, cellWidth: cellWidth, cellHeight: cellHeight))
    }

    // MARK: - Values

    private mutating func readValues(first: Token, count: Int, width: Int) throws -> [Float] {
        var pending: Token? = first
        return try [Float](unsafeUninitializedCapacity: count) { buffer, initialized in
            while initialized < count {
                guard let token = pending ?? nextToken() else {
                    throw GeometryError(.parse, "expected \(count) values (\(count / width) rows of \(width)), found \(initialized)",
                                        position: "line \(line)")
                }
                pending = nil
                guard let value = parseFloat(token) else {
                    throw GeometryError(.parse,
                                        "non-numeric value for cell (column \(initialized % width), row \(initialized / width))",
                                        position: token.position)
                }
                buffer[initialized] = value
                initialized += 1
            }
        }
    }

    private static let powersOfTen: [Double] = (0...22).map { e in
        var p = 1.0
        for _ in 0..<e { p *= 10 }   // exact: every 10^e with e ≤ 22 is a Double
        return p
    }

    /// The token as a Float, or `nil` when it is not a number.
    ///
    /// Keeps the first 19 significant digits in a UInt64. When they are all the digits and fit
    /// 53 bits with |exponent| ≤ 22, Clinger's fast path gives the correctly rounded Double
    /// exactly. Otherwise (GDAL writes Float32 cells as their full exact decimal expansion, up
    /// to 25 digits) the Double is computed within a few ulps, and accepted only when rounding
    /// it to Float cannot depend on that error: both ends of a ±8 ulp bracket must round to the
    /// same Float. Everything else (ties, huge exponents, `nan`) takes the slow exact path.
    @inline(__always)
    private func parseFloat(_ t: Token) -> Float? {
        var i = t.start
        let end = t.end
        var negative = false
        if bytes[i] == UInt8(ascii: "-") || bytes[i] == UInt8(ascii: "+") {
            negative = bytes[i] == UInt8(ascii: "-")
            i += 1
        }
        var mantissa: UInt64 = 0
        var kept = 0          // significant digits in `mantissa`
        var truncated = false // a non-zero digit was dropped after the 19th
        var digits = 0
        var exponent = 0
        while i < end, case let d = bytes[i] &- 0x30, d < 10 {
            if kept < 19 {
                if mantissa != 0 || d != 0 { kept += 1 }
                mantissa = mantissa &* 10 &+ UInt64(d)
            } else {
                exponent += 1
                if d != 0 { truncated = true }
            }
            digits += 1
            i += 1
        }
        if i < end && bytes[i] == UInt8(ascii: ".") {
            i += 1
            while i < end, case let d = bytes[i] &- 0x30, d < 10 {
                if kept < 19 {
                    if mantissa != 0 || d != 0 { kept += 1 }
                    mantissa = mantissa &* 10 &+ UInt64(d)
                    exponent -= 1
                } else if d != 0 {
                    truncated = true
                }
                digits += 1
                i += 1
            }
        }
        if digits > 0 && i < end && (bytes[i] | 0x20) == UInt8(ascii: "e") {
            i += 1
            var exponentNegative = false
            if i < end && (bytes[i] == UInt8(ascii: "-") || bytes[i] == UInt8(ascii: "+")) {
                exponentNegative = bytes[i] == UInt8(ascii: "-")
                i += 1
            }
            var e = 0
            var exponentDigits = 0
            while i < end, case let d = bytes[i] &- 0x30, d < 10 {
                if e < 100_000 { e = e * 10 + Int(d) }
                exponentDigits += 1
                i += 1
            }
            guard exponentDigits > 0 else { return slowParse(t) }
            exponent += exponentNegative ? -e : e
        }
        guard digits > 0, i == end else { return slowParse(t) }
        if mantissa == 0 && !truncated { return negative ? -0.0 : 0.0 }
        guard exponent >= -44, exponent <= 44 else { return slowParse(t) }

        var value = Double(mantissa)
        if !truncated && mantissa <= 1 << 53 && exponent >= -22 && exponent <= 22 {
            // Exact operands, one rounding: the correctly rounded Double.
            value = exponent < 0 ? value / Self.powersOfTen[-exponent] : value * Self.powersOfTen[exponent]
            return Float(negative ? -value : value)
        }
        var e = exponent
        while e > 22 { value *= Self.powersOfTen[22]; e -= 22 }
        while e < -22 { value /= Self.powersOfTen[22]; e += 22 }
        value = e < 0 ? value / Self.powersOfTen[-e] : value * Self.powersOfTen[e]
        let margin = value * 0x1p-49
        let low = Float(value - margin), high = Float(value + margin)
        guard low == high else { return slowParse(t) }
        return negative ? -low : low
    }

    /// Long mantissas, big exponents, `nan`, `inf`: Swift's correctly rounded parser.
    private func slowParse(_ t: Token) -> Float? {
        guard t.end - t.start <= 400 else { return nil }
        let s = String(decoding: UnsafeBufferPointer(rebasing: bytes[t.start..<t.end]), as: UTF8.self)
        // Swift accepts hexadecimal floats; ESRI grids are decimal.
        guard !s.lowercased().contains("x"), let d = Double(s) else { return nil }
        return Float(d)
    }
}
