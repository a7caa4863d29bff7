import GeoCore

/// Features as CSV (RFC 4180): UTF-8 with a byte-order mark, so that Excel (zh-CN Windows
/// defaults to GBK otherwise) opens Chinese text correctly; CRLF line ends; every field that
/// holds a comma, a quote, CR or LF is quoted, quotes doubled.
///
/// The header is `id`, the property columns, then `geometry` as WKT in the output CRS (and its
/// axis order). Objects and arrays are written as compact JSON text; null and missing as empty.
struct CSVWriter {
    /// The property columns, in order.
    let columns: [String]
    /// Decimals of the WKT coordinates (7 for degrees, 3 for metres).
    let precision: Int
    /// Whether the layer has a geometry column (a table layer has no `geometry` column).
    let hasGeometry: Bool
    private(set) var bytes: [UInt8] = []

    /// The UTF-8 byte-order mark.
    static let byteOrderMark: [UInt8] = [0xEF, 0xBB, 0xBF]

    /// Starts the document: BOM and header row.
    init(columns: [String], precision: Int, hasGeometry: Bool) {
        self.columns = columns
        self.precision = precision
        self.hasGeometry = hasGeometry
        bytes = Self.byteOrderMark
        row(["id"] + columns + (hasGeometry ? ["geometry"] : []))
    }

    /// Appends one feature (already in the output CRS).
    mutating func append(_ feature: Feature) {
        var fields = [feature.id?.description ?? ""]
        fields.reserveCapacity(columns.count + 2)
        for c in columns { fields.append(Self.text(feature.properties[c])) }
        if hasGeometry { fields.append(feature.geometry?.wkt(precision: precision) ?? "") }
        row(fields)
    }

    /// Takes the bytes written so far (for streaming in chunks).
    mutating func takeBytes() -> [UInt8] {
        defer { bytes.removeAll(keepingCapacity: true) }
        return bytes
    }

    private mutating func row(_ fields: [String]) {
        for (i, f) in fields.enumerated() {
            if i > 0 { bytes.append(UInt8(ascii: ",")) }
            Self.appendField(f, to: &bytes)
        }
        bytes.append(0x0D)
        bytes.append(0x0A)
    }

    static func appendField(_ s: String, to out: inout [UInt8]) {
        let needsQuotes = s.utf8.contains { $0 == UInt8(ascii: ",") || $0 == UInt8(ascii: "\"") || $0 == 0x0D || $0 == 0x0A }
        guard needsQuotes else {
            out += s.utf8
            return
        }
        out.append(UInt8(ascii: "\""))
        for b in s.utf8 {
            if b == UInt8(ascii: "\"") { out.append(b) }
            out.append(b)
        }
        out.append(UInt8(ascii: "\""))
    }

    /// A property value as cell text.
    static func text(_ v: JSONValue?) -> String {
        switch v {
        case nil, .null?: ""
        case .bool(let b)?: b ? "true" : "false"
        case .integer(let i)?: String(i)
        case .number(let d)?: String(d)
        case .string(let s)?: s
        case let other?: String(decoding: JSONText.bytes(other), as: UTF8.self)
        }
    }
}
