import GeoCore

/// MVT geometry types (`GeomType`).
public enum TileGeometryType: UInt64, Hashable, Sendable {
    case unknown = 0, point = 1, lineString = 2, polygon = 3

    /// The type of a geometry (`.unknown` for collections).
    public init(_ geometry: Geometry) {
        switch geometry {
        case .point, .multiPoint: self = .point
        case .lineString, .multiLineString: self = .lineString
        case .polygon, .multiPolygon: self = .polygon
        case .geometryCollection: self = .unknown
        }
    }
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

    /// The MVT type of the geometry (`.unknown` for collections).
    public var geometryType: TileGeometryType { TileGeometryType(geometry) }
}

/// One named layer of a tile as features with attribute dictionaries (what `VectorTile.decode`
/// returns); `VectorTile.encode` writes it with deduplicated key and value tables.
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
}

/// Mapbox Vector Tile 2.1 encoding and decoding of whole tiles.
public enum VectorTile {
    /// The `Tile` message bytes of the layers (layers without a feature to draw are left out;
    /// an empty array when none has one).
    public static func encode(_ layers: [VectorTileLayer]) -> [UInt8] {
        encode(layers.map { layer in
            var encoder = TileLayerEncoder(name: layer.name, extent: layer.extent)
            for feature in layer.features { encoder.append(feature) }
            return encoder
        })
    }

    /// The `Tile` message bytes of layers encoded feature by feature (layers that wrote no
    /// feature are left out; an empty array when none wrote any).
    static func encode(_ layers: [TileLayerEncoder]) -> [UInt8] {
        var w = ProtobufWriter()
        for layer in layers where layer.featureCount > 0 { layer.write(to: &w) }
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
