import GeoCore
import TwinStore

/// Features as CSV (RFC 4180): UTF-8 with a byte-order mark, so that Excel (zh-CN Windows
/// defaults to GBK otherwise) opens Chinese text correctly; CRLF line ends; every field written
/// by `CSVField`: quoted when it holds a comma, a quote, CR or LF (quotes doubled), and a text
/// field that a spreadsheet would take for a formula (`=`, `+`, `-`, `@`, tab, CR first) written
/// after a single quote. A number of a numeric column (schema type `integer` or `number`, or a
/// number in a column the schema does not type) is written as it is: `-3.5` stays a number.
///
/// The header is `id`, the property columns, then `geometry` as WKT in the output CRS (and its
/// axis order). Objects and arrays are written as compact JSON text; null and missing as empty.
struct CSVWriter {
    /// The property columns, in order.
    let columns: [String]
    /// Whether each column holds numbers (the schema's `integer` or `number`; `nil`: untyped, a
    /// number value is written as a number).
    let numeric: [Bool?]
    /// Decimals of the WKT coordinates (7 for degrees, 3 for metres).
    let precision: Int
    /// Whether the layer has a geometry column (a table layer has no `geometry` column).
    let hasGeometry: Bool
    private(set) var bytes: [UInt8] = []

    /// The UTF-8 byte-order mark.
    static let byteOrderMark: [UInt8] = [0xEF, 0xBB, 0xBF]

    /// Starts the document: BOM and header row.
    /// - Parameter schema: the layer's schema, whose types say which columns hold numbers.
    init(columns: [String], schema: PropertySchema? = nil, precision: Int, hasGeometry: Bool) {
        self.columns = columns
        numeric = columns.map { c -> Bool? in
            switch schema?.scalarType(of: c) ?? .json {
            case .integer, .number: true
            case .json: nil
            default: false
            }
        }
        self.precision = precision
        self.hasGeometry = hasGeometry
        bytes = Self.byteOrderMark
        row((["id"] + columns + (hasGeometry ? ["geometry"] : [])).map { ($0, .text) })
    }

    /// Appends one feature (already in the output CRS).
    mutating func append(_ feature: Feature) {
        var fields = [(feature.id?.description ?? "", CSVField.Kind.text)]
        fields.reserveCapacity(columns.count + 2)
        for (c, numeric) in zip(columns, numeric) {
            let v = feature.properties[c]
            let isNumber: Bool = switch v {
            case .integer?, .number?: numeric != false
            default: false
            }
            fields.append((Self.text(v), isNumber ? .number : .text))
        }
        if hasGeometry { fields.append((feature.geometry?.wkt(precision: precision) ?? "", .text)) }
        row(fields)
    }

    /// Takes the bytes written so far (for streaming in chunks).
    mutating func takeBytes() -> [UInt8] {
        defer { bytes.removeAll(keepingCapacity: true) }
        return bytes
    }

    private mutating func row(_ fields: [(String, CSVField.Kind)]) {
        for (i, (f, kind)) in fields.enumerated() {
            if i > 0 { bytes.append(UInt8(ascii: ",")) }
            CSVField.append(f, as: kind, to: &bytes)
        }
        bytes.append(0x0D)
        bytes.append(0x0A)
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
