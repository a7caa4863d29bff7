/// `Codable` for users who hold geometries and features inside their own `Codable` types.
///
/// Both directions go through the one GeoJSON reader and writer (`GeoJSON.decode`/`encode`), so
/// the rules and error messages are the same: decoding throws `GeometryError` whose `position`
/// is the full JSON path, coding path included (`$.layers[2].geometry.coordinates[0]`); encoding
/// applies the right-hand rule. For large layers call `GeoJSON.decode`/`encode` directly: they
/// skip the intermediate `JSONValue` tree that `Codable` needs.
extension Geometry: Codable {
    public init(from decoder: any Decoder) throws {
        guard case .geometry(let g) = try GeoJSONCodableBridge.decode(from: decoder) else {
            throw GeometryError(.parse, "expected a GeoJSON geometry object", position: GeoJSONCodableBridge.path(decoder.codingPath))
        }
        self = g
    }

    public func encode(to encoder: any Encoder) throws {
        try GeoJSONCodableBridge.encode(.geometry(self), to: encoder)
    }
}

extension Feature: Codable {
    public init(from decoder: any Decoder) throws {
        guard case .feature(let f) = try GeoJSONCodableBridge.decode(from: decoder) else {
            throw GeometryError(.parse, "expected a GeoJSON Feature", position: GeoJSONCodableBridge.path(decoder.codingPath))
        }
        self = f
    }

    public func encode(to encoder: any Encoder) throws {
        try GeoJSONCodableBridge.encode(.feature(self), to: encoder)
    }
}

extension FeatureCollection: Codable {
    public init(from decoder: any Decoder) throws {
        guard case .featureCollection(let c) = try GeoJSONCodableBridge.decode(from: decoder) else {
            throw GeometryError(.parse, "expected a GeoJSON FeatureCollection", position: GeoJSONCodableBridge.path(decoder.codingPath))
        }
        self = c
    }

    public func encode(to encoder: any Encoder) throws {
        try GeoJSONCodableBridge.encode(.featureCollection(self), to: encoder)
    }
}

extension FeatureID: Codable {
    /// A string or a number; a number with a fraction is kept as the string it was written as.
    public init(from decoder: any Decoder) throws {
        let c = try decoder.singleValueContainer()
        if let s = try? c.decode(String.self) {
            self = .string(s)
        } else if let m = try? c.decode(Int64.self) {
            self = .integer(m)
        } else if let d = try? c.decode(Double.self), d.isFinite {
            self = .string(NumberText.text(d))
        } else {
            throw GeometryError(.parse, "id must be a string or a number", position: GeoJSONCodableBridge.path(decoder.codingPath))
        }
    }

    public func encode(to encoder: any Encoder) throws {
        var c = encoder.singleValueContainer()
        switch self {
        case .string(let s): try c.encode(s)
        case .integer(let m): try c.encode(m)
        }
    }
}

extension GeoJSONObject: Codable {
    public init(from decoder: any Decoder) throws {
        self = try GeoJSONCodableBridge.decode(from: decoder)
    }

    public func encode(to encoder: any Encoder) throws {
        try GeoJSONCodableBridge.encode(self, to: encoder)
    }
}

/// Moves GeoJSON between `Codable` containers and the byte-level codec via `JSONValue`.
enum GeoJSONCodableBridge {
    static func path(_ codingPath: [any CodingKey]) -> String {
        var s = "$"
        for key in codingPath {
            if let k = key.intValue { s += "[\(k)]" } else { s += "." + key.stringValue }
        }
        return s
    }

    static func decode(from decoder: any Decoder) throws -> GeoJSONObject {
        let tree = try decoder.singleValueContainer().decode(JSONValue.self)
        var writer = GeoJSONWriter(options: GeoJSONWriteOptions())
        writer.value(tree)
        do {
            return try GeoJSON.decodeBytes(writer.out)
        } catch var error as GeometryError {
            let prefix = path(decoder.codingPath)
            if prefix != "$", let inner = error.position, inner.hasPrefix("$") {
                error.position = prefix + inner.dropFirst()
            }
            throw error
        }
    }

    static func encode(_ object: GeoJSONObject, to encoder: any Encoder) throws {
        let bytes = GeoJSON.encodeBytes(object)
        let tree = try bytes.withUnsafeBytes { raw in
            var parser = GeoJSONParser(raw)
            return try parser.value(depth: 0)
        }
        var c = encoder.singleValueContainer()
        try c.encode(tree)
    }
}

extension GeoJSON {
    static func decodeBytes(_ bytes: [UInt8]) throws -> GeoJSONObject {
        try bytes.withUnsafeBytes { try decode(raw: $0) }
    }
}
