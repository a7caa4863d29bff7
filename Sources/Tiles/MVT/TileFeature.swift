import GeoCore

/// MVT geometry types (`GeomType`).
public enum TileGeometryType: UInt64, Hashable, Sendable {
    case unknown = 0, point = 1, lineString = 2, polygon = 3
}

/// One feature in tile space: integer coordinates (stored as `Double`), origin top-left, y
/// down, 0…extent across the tile. For encoding, polygons must already be oriented the MVT
/// way (`TileGeometry.cut` does it); decoded polygons are grouped by ring orientation.
public struct TileFeature: Hashable, Sendable {
    /// Optional MVT feature id (uint64), unique in the layer when present.
    public var id: UInt64?
    /// Point/MultiPoint, LineString/MultiLineString or Polygon/MultiPolygon in tile units.
    public var geometry: Geometry
    /// Attributes; keys at most once (a dictionary guarantees it).
    public var properties: [String: TileValue]

    public init(id: UInt64? = nil, geometry: Geometry, properties: [String: TileValue] = [:]) {
        self.id = id
        self.geometry = geometry
        self.properties = properties
    }

    /// The MVT type of the geometry (`.unknown` for collections and empty geometries).
    public var geometryType: TileGeometryType {
        switch geometry {
        case .point, .multiPoint: .point
        case .lineString, .multiLineString: .lineString
        case .polygon, .multiPolygon: .polygon
        case .geometryCollection: .unknown
        }
    }
}

/// One named layer of a tile: features plus the per-layer key and value tables, built with
/// deduplication as features are added.
public struct VectorTileLayer: Sendable {
    /// Unique in the tile.
    public let name: String
    /// Tile units across the tile (4096 by default).
    public let extent: Int
    public private(set) var features: [TileFeature] = []

    public init(name: String, extent: Int = 4096) {
        self.name = name
        self.extent = extent
    }

    /// Adds a feature (its geometry in tile units, oriented for MVT).
    public mutating func append(_ feature: TileFeature) { features.append(feature) }

    /// The `Layer` message bytes: version 2, name, features, deduplicated keys and values, extent.
    func encoded() -> [UInt8] {
        var keys: [String] = [], keyIndex: [TagBytes: UInt32] = [:]
        var values: [TileValue] = [], valueIndex: [TagBytes: UInt32] = [:]
        var w = ProtobufWriter()
        w.varintField(15, 2)
        w.stringField(1, name)
        for feature in features {
            let commands = TileGeometryCommands.encode(feature.geometry)
            guard !commands.isEmpty else { continue }
            var tags: [UInt32] = []
            tags.reserveCapacity(feature.properties.count * 2)
            for key in feature.properties.keys.sorted() {
                guard let value = feature.properties[key] else { continue }
                let k: UInt32
                let keyBytes = TagBytes(key)
                if let i = keyIndex[keyBytes] { k = i } else { k = UInt32(keys.count); keys.append(key); keyIndex[keyBytes] = k }
                let v: UInt32
                let valueBytes = TagBytes(value)
                if let i = valueIndex[valueBytes] { v = i } else { v = UInt32(values.count); values.append(value); valueIndex[valueBytes] = v }
                tags.append(k)
                tags.append(v)
            }
            var f = ProtobufWriter()
            if let id = feature.id { f.varintField(1, id) }
            if !tags.isEmpty { f.packedField(2, tags) }
            f.varintField(3, feature.geometryType.rawValue)
            f.packedField(4, commands)
            w.bytesField(2, f.bytes)
        }
        for key in keys { w.stringField(3, key) }
        for value in values {
            var v = ProtobufWriter()
            value.write(to: &v)
            w.bytesField(4, v.bytes)
        }
        w.varintField(5, UInt64(extent))
        return w.bytes
    }
}

/// A key or value as the layer's dedup tables compare it: by its encoded bytes (UTF-8 for text).
/// `String` hashing normalizes Unicode first, which made Chinese attribute values the costliest
/// part of encoding; MVT stores bytes, so byte equality is also the right notion of "the same".
struct TagBytes: Hashable {
    private var kind: UInt8
    private var text: String
    private var bits: UInt64

    init(_ key: String) { kind = 0; text = key; bits = 0 }

    init(_ value: TileValue) {
        switch value {
        case .string(let s): kind = 1; text = s; bits = 0
        case .float(let f): kind = 2; text = ""; bits = UInt64(f.bitPattern)
        case .double(let d): kind = 3; text = ""; bits = d.bitPattern
        case .int(let i): kind = 4; text = ""; bits = UInt64(bitPattern: i)
        case .uint(let u): kind = 5; text = ""; bits = u
        case .sint(let i): kind = 6; text = ""; bits = UInt64(bitPattern: i)
        case .bool(let b): kind = 7; text = ""; bits = b ? 1 : 0
        }
    }

    static func == (a: TagBytes, b: TagBytes) -> Bool {
        a.kind == b.kind && a.bits == b.bits && a.text.utf8.elementsEqual(b.text.utf8)
    }

    func hash(into hasher: inout Hasher) {
        hasher.combine(kind)
        hasher.combine(bits)
        var text = text
        text.withUTF8 { hasher.combine(bytes: UnsafeRawBufferPointer($0)) }
    }
}

/// Mapbox Vector Tile 2.1 encoding and decoding of whole tiles.
public enum VectorTile {
    /// The `Tile` message bytes of the layers (layers without features are left out; an
    /// empty array when none has any).
    public static func encode(_ layers: [VectorTileLayer]) -> [UInt8] {
        var w = ProtobufWriter()
        for layer in layers where !layer.features.isEmpty {
            w.bytesField(3, layer.encoded())
        }
        return w.bytes
    }

    /// A decoded tile's layers.
    /// - Throws: `TileError.malformedTile` naming the byte offset and the broken rule.
    public static func decode(_ bytes: [UInt8]) throws -> [VectorTileLayer] {
        var r = ProtobufReader(bytes[...])
        var layers: [VectorTileLayer] = []
        while !r.isAtEnd {
            let (field, wire) = try r.key()
            if field == 3, wire == 2 {
                layers.append(try decodeLayer(try r.lengthDelimited()))
            } else {
                try r.skip(wire)
            }
        }
        return layers
    }

    private struct RawFeature {
        var id: UInt64?
        var tags: [UInt32] = []
        var type: UInt64 = 0
        var geometry: [UInt32] = []
    }

    private static func decodeLayer(_ bytes: ArraySlice<UInt8>) throws -> VectorTileLayer {
        var r = ProtobufReader(bytes)
        var name: String?, extent = 4096, version: UInt64 = 1
        var keys: [String] = [], values: [TileValue] = [], raw: [RawFeature] = []
        while !r.isAtEnd {
            let (field, wire) = try r.key()
            switch (field, wire) {
            case (15, 0): version = try r.varint()
            case (1, 2):
                guard let s = String(validating: try r.lengthDelimited(), as: UTF8.self) else { throw r.malformed("layer name is not UTF-8") }
                name = s
            case (2, 2): raw.append(try decodeFeature(try r.lengthDelimited()))
            case (3, 2):
                guard let s = String(validating: try r.lengthDelimited(), as: UTF8.self) else { throw r.malformed("layer key is not UTF-8") }
                keys.append(s)
            case (4, 2): values.append(try TileValue.read(try r.lengthDelimited()))
            case (5, 0):
                let e = try r.varint()
                guard e > 0, e <= 1 << 30 else { throw r.malformed("layer extent \(e) is not positive") }
                extent = Int(e)
            default: try r.skip(wire)
            }
        }
        guard let name else { throw r.malformed("layer without a name") }
        guard version == 2 || version == 1 else { throw r.malformed("layer '\(name)' has version \(version), expected 2") }
        var layer = VectorTileLayer(name: name, extent: extent)
        for (n, f) in raw.enumerated() {
            guard f.tags.count % 2 == 0 else { throw TileError(.malformedTile, "layer '\(name)' feature \(n): odd number of tags") }
            var properties: [String: TileValue] = [:]
            for i in stride(from: 0, to: f.tags.count, by: 2) {
                let k = Int(f.tags[i]), v = Int(f.tags[i + 1])
                guard k < keys.count, v < values.count else {
                    throw TileError(.malformedTile, "layer '\(name)' feature \(n): tag (\(k), \(v)) outside the key/value tables")
                }
                properties[keys[k]] = values[v]
            }
            guard let type = TileGeometryType(rawValue: f.type) else {
                throw TileError(.malformedTile, "layer '\(name)' feature \(n): unknown geometry type \(f.type)")
            }
            let geometry = try TileGeometryCommands.decode(f.geometry, type: type, context: "layer '\(name)' feature \(n)")
            layer.append(TileFeature(id: f.id, geometry: geometry, properties: properties))
        }
        return layer
    }

    private static func decodeFeature(_ bytes: ArraySlice<UInt8>) throws -> RawFeature {
        var r = ProtobufReader(bytes)
        var f = RawFeature()
        while !r.isAtEnd {
            let (field, wire) = try r.key()
            switch (field, wire) {
            case (1, 0): f.id = try r.varint()
            case (2, 2): f.tags = try r.packedUInt32()
            case (3, 0): f.type = try r.varint()
            case (4, 2): f.geometry = try r.packedUInt32()
            default: try r.skip(wire)
            }
        }
        return f
    }
}
