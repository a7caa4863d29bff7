import Foundation

extension Grid {
    /// Parses an ESRI ASCII grid (GDAL's `AAIGrid`); see `ESRIASCIIGridReader` for the dialect.
    /// - Throws: `GeometryError` `.parse` naming the header key or the line and column of the bad
    ///   value: a missing or duplicated key, a zero or negative size, a non-numeric token, or
    ///   too few / too many values (`"expected 250000 values …, found 249999"`).
    public init(esriASCII text: String) throws {
        var text = text
        self = try text.withUTF8 { buffer in
            var reader = ESRIASCIIGridReader(buffer)
            return try reader.read()
        }
    }

    /// Parses an ESRI ASCII grid from its bytes (ASCII or UTF-8).
    public init(esriASCIIData data: Data) throws {
        self = try data.withUnsafeBytes { raw in
            var reader = ESRIASCIIGridReader(raw.bindMemory(to: UInt8.self))
            return try reader.read()
        }
    }

    /// Reads an `.asc` file (memory-mapped, so a 5000 × 5000 DEM is not copied before parsing).
    /// - Throws: Foundation's error when the file cannot be read, `GeometryError` `.parse` when
    ///   its content is not an ESRI ASCII grid.
    public static func read(esriASCIIAt url: URL) throws -> Grid {
        try Grid(esriASCIIData: Data(contentsOf: url, options: .mappedIfSafe))
    }

    /// Writes the grid as an `.asc` file, replacing any existing one atomically.
    /// - Parameter precision: as for `esriASCII(precision:)`.
    public func write(esriASCIITo url: URL, precision: Int? = nil) throws {
        let bytes = try esriASCIIBytes(precision: precision)
        // Written straight from the buffer: a 5000 × 5000 DEM is ~200 MB of text.
        try bytes.withUnsafeBytes { raw in
            guard let base = raw.baseAddress else { return }
            try Data(bytesNoCopy: UnsafeMutableRawPointer(mutating: base), count: raw.count, deallocator: .none)
                .write(to: url, options: .atomic)
        }
    }

    /// The grid as ESRI ASCII grid text. See `esriASCIIData(precision:)`.
    public func esriASCII(precision: Int? = nil) throws -> String {
        String(decoding: try esriASCIIBytes(precision: precision), as: UTF8.self)
    }

    /// The grid as ESRI ASCII grid bytes: the header GDAL writes (`cellsize`, or `dx`/`dy` for
    /// non-square cells; `NODATA_value` when set) and one text line per row.
    ///
    /// - Parameter precision: digits after the decimal point for every value (GDAL's
    ///   `DECIMAL_PRECISION`), 0...9; `nil` writes the shortest text that reads back as the
    ///   same Float, so a write–read round trip is exact.
    /// - Throws: `GeometryError` `.invalidArgument` when the grid is empty, not north-up (the
    ///   format has no rotation terms) or `precision` is out of range.
    public func esriASCIIData(precision: Int? = nil) throws -> Data {
        Data(try esriASCIIBytes(precision: precision))
    }

    func esriASCIIBytes(precision: Int?) throws -> [UInt8] {
        guard width > 0, height > 0 else {
            throw GeometryError(.invalidArgument, "an ESRI ASCII grid needs at least one cell, got \(width) x \(height)")
        }
        guard geoTransform.isNorthUp else {
            throw GeometryError(.invalidArgument,
                                "an ESRI ASCII grid must be north-up (no rotation, negative pixelHeight), got \(geoTransform.gdalCoefficients)")
        }
        if let precision, !(0...9).contains(precision) {
            throw GeometryError(.invalidArgument, "precision must be 0...9 digits, got \(precision)")
        }
        let cellWidth = geoTransform.pixelWidth, cellHeight = -geoTransform.pixelHeight
        var out = ESRIASCIIGridWriter(capacity: cellCount * 8 + 256, precision: precision)
        out.header("ncols", "\(width)")
        out.header("nrows", "\(height)")
        out.header("xllcorner", ESRIASCIIGridWriter.text(geoTransform.originX))
        out.header("yllcorner", ESRIASCIIGridWriter.text(geoTransform.originY - Double(height) * cellHeight))
        if cellWidth == cellHeight {
            out.header("cellsize", ESRIASCIIGridWriter.text(cellWidth))
        } else {
            out.header("dx", ESRIASCIIGridWriter.text(cellWidth))
            out.header("dy", ESRIASCIIGridWriter.text(cellHeight))
        }
        if let noData {
            out.bytes.append(contentsOf: "NODATA_value ".utf8)
            out.append(noData)
            out.bytes.append(0x0A)
        }
        values.withUnsafeBufferPointer { buffer in
            for row in 0..<height {
                let rowStart = row * width
                for column in 0..<width {
                    if column > 0 { out.bytes.append(0x20) }
                    out.append(buffer[rowStart + column])
                }
                out.bytes.append(0x0A)
            }
        }
        return out.bytes
    }
}

/// Formats header lines and values into one byte buffer.
struct ESRIASCIIGridWriter {
    var bytes: [UInt8] = []
    let precision: Int?
    private let scale: Double

    init(capacity: Int, precision: Int?) {
        bytes.reserveCapacity(capacity)
        self.precision = precision
        var s = 1.0
        for _ in 0..<(precision ?? 0) { s *= 10 }
        scale = s
    }

    mutating func header(_ key: String, _ value: String) {
        bytes.append(contentsOf: key.utf8)
        bytes.append(contentsOf: repeatElement(0x20, count: Swift.max(1, 14 - key.utf8.count)))
        bytes.append(contentsOf: value.utf8)
        bytes.append(0x0A)
    }

    /// Shortest round-trip text of a header number, without a trailing `.0`.
    static func text(_ value: Double) -> String {
        let s = value.description
        return s.hasSuffix(".0") ? String(s.dropLast(2)) : s
    }

    @inline(__always)
    mutating func append(_ value: Float) {
        guard let precision, value.isFinite else { return appendShortest(value) }
        let scaled = (Double(value) * scale).rounded()
        guard abs(scaled) < 9.0e15 else { return appendShortest(value) }   // beyond exact Int64 digits
        var n = Int64(scaled)
        if n < 0 || (n == 0 && value.sign == .minus && scaled != 0) { bytes.append(UInt8(ascii: "-")); n = -n }
        // Integer part, then `precision` fraction digits.
        var digits: (UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8,
                     UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8) =
            (0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0)
        var count = 0
        withUnsafeMutableBytes(of: &digits) { d in
            repeat {
                d[count] = UInt8(truncatingIfNeeded: n % 10) + 0x30
                n /= 10
                count += 1
            } while n > 0 || count <= precision
            for i in stride(from: count - 1, through: 0, by: -1) {
                if i == precision - 1 { bytes.append(UInt8(ascii: ".")) }
                bytes.append(d[i])
            }
        }
    }

    private mutating func appendShortest(_ value: Float) {
        var s = value.description   // "nan", "inf", "-inf", "1e-05", "12.5", "3.0"
        if s.hasSuffix(".0") { s.removeLast(2) }
        bytes.append(contentsOf: s.utf8)
    }
}
