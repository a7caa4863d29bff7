import Foundation

/// Any top-level GeoJSON object (RFC 7946): a bare geometry, a feature or a feature collection.
public enum GeoJSONObject: Hashable, Sendable {
    case geometry(Geometry)
    case feature(Feature)
    case featureCollection(FeatureCollection)

    /// The object's features: the collection's, the single feature, or the geometry wrapped
    /// in a feature without properties.
    public var features: [Feature] {
        switch self {
        case .geometry(let g): [Feature(geometry: g)]
        case .feature(let f): [f]
        case .featureCollection(let c): c.features
        }
    }
}

/// How `GeoJSON.encode` writes.
public struct GeoJSONWriteOptions: Hashable, Sendable {
    /// Decimals to round coordinates to (trailing zeros dropped): 7 is about 1 cm in degrees.
    /// `nil` writes the shortest text that reads back to the same `Double`.
    public var precision: Int?
    /// Orient polygon rings by RFC 7946 §3.1.6: exteriors counter-clockwise, holes clockwise.
    public var rightHandRule: Bool

    public init(precision: Int? = nil, rightHandRule: Bool = true) {
        self.precision = precision
        self.rightHandRule = rightHandRule
    }
}

/// The GeoJSON codec (RFC 7946, and RFC 8142 text sequences).
///
/// Reading tolerates either ring winding, ignores `bbox`, `crs` and foreign members (they never
/// become properties), rejects NaN and infinities, and names the JSON path of anything wrong,
/// e.g. `$.features[3].geometry.coordinates[0][2]`.
public enum GeoJSON {
    /// Reads one GeoJSON object.
    ///
    /// - Throws: `GeometryError(.parse)` for malformed JSON or GeoJSON structure, and
    ///   `GeometryError(.invalidGeometry)` for unclosed or short rings, one-position line strings
    ///   and non-finite numbers; `position` is the JSON path (`$.features[3].geometry`).
    public static func decode(_ data: Data) throws -> GeoJSONObject {
        try data.withUnsafeBytes { try decode(raw: $0) }
    }

    /// Reads one GeoJSON object from UTF-8 bytes; see `decode(_:)`.
    public static func decode(_ bytes: [UInt8]) throws -> GeoJSONObject {
        try bytes.withUnsafeBytes { try decode(raw: $0) }
    }

    /// Reads one GeoJSON object from text; see `decode(_:)`.
    public static func decode(_ text: String) throws -> GeoJSONObject {
        var text = text
        return try text.withUTF8 { try decode(raw: UnsafeRawBufferPointer($0)) }
    }

    /// Reads the GeoJSON object that starts at byte `offset` of `raw` (after any whitespace)
    /// and returns it with the offset just after it; what follows is not read. For a reader
    /// that walks the elements of a large array in place. Error positions count bytes from
    /// `offset`.
    public static func decodePrefix(_ raw: UnsafeRawBufferPointer, from offset: Int) throws -> (object: GeoJSONObject, end: Int) {
        var parser = GeoJSONParser(UnsafeRawBufferPointer(rebasing: raw[offset...]))
        parser.skipSpace()
        let object = try parser.object(depth: 0)
        return (object, offset + parser.i)
    }

    static func decode(raw: UnsafeRawBufferPointer) throws -> GeoJSONObject {
        var parser = GeoJSONParser(raw)
        parser.skipSpace()
        let object = try parser.object(depth: 0)
        parser.skipSpace()
        if parser.i < parser.n { throw parser.syntax("end of input") }
        return object
    }

    /// Reads a GeoJSON text sequence (RFC 8142: each record starts with the RS character 0x1E)
    /// or newline-delimited GeoJSON (one object per line). Records that are feature collections
    /// contribute all their features; bare geometries become features without properties.
    ///
    /// - Throws: the record's error, with `position` prefixed by `record N` (counting from 1).
    public static func decodeSequence(_ data: Data) throws -> [Feature] {
        try data.withUnsafeBytes { raw in
            let bytes = raw.bindMemory(to: UInt8.self)
            let separator: UInt8 = bytes.contains(0x1E) ? 0x1E : 0x0A
            var features: [Feature] = []
            var record = 0
            var start = 0
            func take(_ end: Int) throws {
                let slice = UnsafeRawBufferPointer(rebasing: raw[start..<end])
                // Blank records (the empty one before the first RS, blank lines) are skipped.
                if slice.contains(where: { $0 != 0x20 && $0 != 0x0A && $0 != 0x0D && $0 != 0x09 }) {
                    record += 1
                    do {
                        features.append(contentsOf: try decode(raw: slice).features)
                    } catch var error as GeometryError {
                        error.position = "record \(record): \(error.position ?? "$")"
                        throw error
                    }
                }
                start = end + 1
            }
            for k in 0..<bytes.count where bytes[k] == separator { try take(k) }
            try take(bytes.count)
            return features
        }
    }

    /// Writes a GeoJSON object as UTF-8.
    public static func encode(_ object: GeoJSONObject, options: GeoJSONWriteOptions = .init()) -> Data {
        Data(encodeBytes(object, options: options))
    }

    /// Writes a geometry object.
    public static func encode(_ geometry: Geometry, options: GeoJSONWriteOptions = .init()) -> Data {
        encode(.geometry(geometry), options: options)
    }

    /// Writes a feature.
    public static func encode(_ feature: Feature, options: GeoJSONWriteOptions = .init()) -> Data {
        encode(.feature(feature), options: options)
    }

    /// Writes a feature collection.
    public static func encode(_ collection: FeatureCollection, options: GeoJSONWriteOptions = .init()) -> Data {
        encode(.featureCollection(collection), options: options)
    }

    /// Compact JSON text (UTF-8) of any JSON value, written as feature properties are: keys
    /// sorted, no whitespace, whole numbers with `.0` (so they read back as numbers), control
    /// characters escaped. The one JSON writer for documents, attribute text and GeoJSON alike.
    public static func encodeBytes(_ value: JSONValue) -> [UInt8] {
        var writer = GeoJSONWriter(options: .init())
        writer.value(value)
        return writer.out
    }

    /// Writes the UTF-8 bytes of a GeoJSON object.
    public static func encodeBytes(_ object: GeoJSONObject, options: GeoJSONWriteOptions = .init()) -> [UInt8] {
        var writer = GeoJSONWriter(options: options)
        switch object {
        case .geometry(let g): writer.geometry(g)
        case .feature(let f): writer.feature(f)
        case .featureCollection(let c): writer.featureCollection(c)
        }
        return writer.out
    }

    /// Writes features as an RFC 8142 text sequence: each feature preceded by RS (0x1E) and
    /// followed by a line feed.
    public static func encodeSequence(_ features: [Feature], options: GeoJSONWriteOptions = .init()) -> Data {
        var writer = GeoJSONWriter(options: options)
        for f in features {
            writer.out.append(0x1E)
            writer.feature(f)
            writer.out.append(0x0A)
        }
        return Data(writer.out)
    }
}
