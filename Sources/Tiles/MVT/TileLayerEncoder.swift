import Foundation
import GeoCore

/// Writes one MVT `Layer` message feature by feature: each feature's tags and geometry
/// commands are encoded as it is added, and its keys and values go straight into the layer's
/// deduplicated tables, so no attribute dictionary is built per feature.
///
/// Tags are written in key-table order; keys a feature brings that the table does not hold
/// yet are added in UTF-8 byte order, so the same features in the same order always give the
/// same bytes (and the same tile ETag).
struct TileLayerEncoder {
    /// Unique in the tile.
    let name: String
    /// Tile units across the tile.
    let extent: Int
    /// Features written so far (a geometry without commands writes none).
    private(set) var featureCount = 0

    private var features = ProtobufWriter()
    private var keyTable = ProtobufWriter()
    private var valueTable = ProtobufWriter()
    private var keyIndex: [TagBytes: UInt32] = [:]
    private var valueIndex: [TagBytes: UInt32] = [:]
    // Per-feature scratch, kept to reuse its storage.
    private var known: [(key: UInt32, value: TileValue)] = []
    private var fresh: [(key: String, value: TileValue)] = []
    private var tags: [UInt32] = []
    private var message = ProtobufWriter()

    init(name: String, extent: Int) {
        self.name = name
        self.extent = extent
    }

    /// Adds a store feature with its cut geometry (tile units, oriented for MVT). Numeric ids
    /// (integers ≥ 0, or strings of digits) become the MVT id; other ids are kept as an `id`
    /// attribute unless the feature has a non-null one, since MVT ids are unsigned integers.
    /// Attributes convert as `TileValue(_:)` says; JSON nulls are left out.
    mutating func append(_ feature: Feature, geometry: Geometry) {
        let commands = TileGeometryCommands.encode(geometry)
        guard !commands.isEmpty else { return }
        for (key, json) in feature.properties {
            if let value = TileValue(json) { collect(key, value) }
        }
        var id: UInt64?
        func keepAsAttribute(_ value: TileValue) {
            if feature.properties["id"].flatMap(TileValue.init) == nil { collect("id", value) }
        }
        switch feature.id {
        case .integer(let i) where i >= 0: id = UInt64(i)
        case .string(let s):
            if let n = UInt64(s) { id = n } else { keepAsAttribute(.string(s)) }
        case .integer(let i): keepAsAttribute(.sint(i))
        case nil: break
        }
        write(id: id, type: TileGeometryType(geometry), commands: commands)
    }

    /// Adds a tile feature as it is (geometry in tile units, oriented for MVT).
    mutating func append(_ feature: TileFeature) {
        let commands = TileGeometryCommands.encode(feature.geometry)
        guard !commands.isEmpty else { return }
        for (key, value) in feature.properties { collect(key, value) }
        write(id: feature.id, type: feature.geometryType, commands: commands)
    }

    /// Appends the layer as field 3 of a `Tile` message: version 2, name, features, keys,
    /// values, extent.
    func write(to tile: inout ProtobufWriter) {
        var head = ProtobufWriter(), tail = ProtobufWriter()
        head.varintField(15, 2)
        head.stringField(1, name)
        tail.varintField(5, UInt64(extent))
        let parts = [head.bytes, features.bytes, keyTable.bytes, valueTable.bytes, tail.bytes]
        tile.key(3, .lengthDelimited)
        tile.varint(UInt64(parts.reduce(0) { $0 + $1.count }))
        for part in parts { tile.bytes.append(contentsOf: part) }
    }

    /// Notes one attribute of the feature being added (keys are unique within a feature).
    private mutating func collect(_ key: String, _ value: TileValue) {
        if let k = keyIndex[TagBytes(key)] { known.append((k, value)) } else { fresh.append((key, value)) }
    }

    /// Writes the feature whose attributes were collected, then clears the scratch.
    private mutating func write(id: UInt64?, type: TileGeometryType, commands: [UInt32]) {
        if !fresh.isEmpty {
            fresh.sort { $0.key.utf8.lexicographicallyPrecedes($1.key.utf8) }
            for (key, value) in fresh {
                let k = UInt32(keyIndex.count)
                keyIndex[TagBytes(key)] = k
                keyTable.stringField(3, key)
                known.append((k, value))
            }
            fresh.removeAll(keepingCapacity: true)
        }
        known.sort { $0.key < $1.key }
        tags.removeAll(keepingCapacity: true)
        for (k, value) in known {
            tags.append(k)
            tags.append(index(of: value))
        }
        known.removeAll(keepingCapacity: true)
        message.bytes.removeAll(keepingCapacity: true)
        if let id { message.varintField(1, id) }
        if !tags.isEmpty { message.packedField(2, tags) }
        message.varintField(3, type.rawValue)
        message.packedField(4, commands)
        features.bytesField(2, message.bytes)
        featureCount += 1
    }

    /// The value's index in the value table, adding it when new.
    private mutating func index(of value: TileValue) -> UInt32 {
        let bytes = TagBytes(value)
        if let v = valueIndex[bytes] { return v }
        let v = UInt32(valueIndex.count)
        valueIndex[bytes] = v
        var entry = ProtobufWriter()
        value.write(to: &entry)
        valueTable.bytesField(4, entry.bytes)
        return v
    }
}

/// A key or value as the layer's dedup tables compare it: by its encoded bytes (UTF-8 for text).
/// `String` hashing and equality normalize Unicode first, which made Chinese attribute values the
/// costliest part of encoding; MVT stores bytes, so byte equality is also the right notion of
/// "the same".
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
        guard a.kind == b.kind, a.bits == b.bits else { return false }
        let equal = a.text.utf8.withContiguousStorageIfAvailable { x in
            b.text.utf8.withContiguousStorageIfAvailable { y in
                x.count == y.count && (x.count == 0 || memcmp(x.baseAddress!, y.baseAddress!, x.count) == 0)
            }
        }
        return (equal ?? nil) ?? a.text.utf8.elementsEqual(b.text.utf8)
    }

    func hash(into hasher: inout Hasher) {
        hasher.combine(kind)
        hasher.combine(bits)
        let hashed: Void? = text.utf8.withContiguousStorageIfAvailable { hasher.combine(bytes: UnsafeRawBufferPointer($0)) }
        if hashed == nil {
            for byte in text.utf8 { hasher.combine(byte) }
        }
    }
}
