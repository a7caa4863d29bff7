import Foundation

extension JSONValue {
    /// Parses JSON text (RFC 8259) with GeoCore's byte-level reader — the one GeoJSON uses —
    /// several times faster than `JSONDecoder` with `Codable`. Numbers written without fraction
    /// or exponent that fit an `Int64` become `.integer`, all others `.number` (so `1.0` stays a
    /// number); nesting deeper than 256 is an error.
    /// - Throws: `GeometryError` `.parse` naming the JSON path (`$.a[2]`) and what was expected.
    public init(json text: String) throws {
        var text = text
        self = try text.withUTF8 { try JSONValue(json: UnsafeRawBufferPointer($0)) }
    }

    /// Parses UTF-8 JSON bytes; see `init(json:)` for a `String`.
    public init(json bytes: UnsafeRawBufferPointer) throws {
        var parser = GeoJSONParser(bytes)
        self = try parser.value(depth: 0)
        parser.skipSpace()
        if parser.i < parser.n { throw parser.syntax("end of input") }
    }
}
