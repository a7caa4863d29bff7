// The few protocol-buffer primitives the Mapbox Vector Tile schema needs (varints, zigzag,
// fixed 32/64-bit, length-delimited fields). The schema has four messages, so it is encoded
// by hand, as martin and PostGIS do, rather than through generated code.

/// Appends protocol-buffer fields to a byte array.
struct ProtobufWriter {
    enum WireType: UInt8 { case varint = 0, fixed64 = 1, lengthDelimited = 2, fixed32 = 5 }

    var bytes: [UInt8] = []

    mutating func varint(_ value: UInt64) {
        var v = value
        while v >= 0x80 {
            bytes.append(UInt8(truncatingIfNeeded: v) | 0x80)
            v >>= 7
        }
        bytes.append(UInt8(v))
    }

    mutating func key(_ field: Int, _ wire: WireType) {
        varint(UInt64(field) << 3 | UInt64(wire.rawValue))
    }

    mutating func varintField(_ field: Int, _ value: UInt64) {
        key(field, .varint)
        varint(value)
    }

    mutating func bytesField(_ field: Int, _ payload: [UInt8]) {
        key(field, .lengthDelimited)
        varint(UInt64(payload.count))
        bytes.append(contentsOf: payload)
    }

    mutating func stringField(_ field: Int, _ text: String) {
        key(field, .lengthDelimited)
        varint(UInt64(text.utf8.count))
        bytes.append(contentsOf: text.utf8)
    }

    mutating func doubleField(_ field: Int, _ value: Double) {
        key(field, .fixed64)
        withUnsafeBytes(of: value.bitPattern.littleEndian) { bytes.append(contentsOf: $0) }
    }

    mutating func floatField(_ field: Int, _ value: Float) {
        key(field, .fixed32)
        withUnsafeBytes(of: value.bitPattern.littleEndian) { bytes.append(contentsOf: $0) }
    }

    /// A packed repeated uint32 field, written in place (its length is counted first).
    mutating func packedField(_ field: Int, _ values: [UInt32]) {
        key(field, .lengthDelimited)
        varint(UInt64(values.reduce(0) { $0 + Self.varintSize(UInt64($1)) }))
        for v in values { varint(UInt64(v)) }
    }

    /// Bytes `varint(value)` writes.
    static func varintSize(_ value: UInt64) -> Int {
        (64 - value.leadingZeroBitCount + 6) / 7 + (value == 0 ? 1 : 0)
    }

    /// Zigzag encoding of a signed 64-bit integer (sint64).
    static func zigzag(_ v: Int64) -> UInt64 { UInt64(bitPattern: (v << 1) ^ (v >> 63)) }
}

/// Reads protocol-buffer fields from a byte slice; every read is bounds-checked and throws
/// `TileError.malformedTile` with the byte offset.
struct ProtobufReader {
    let bytes: ArraySlice<UInt8>
    var index: Int

    init(_ bytes: ArraySlice<UInt8>) {
        self.bytes = bytes
        self.index = bytes.startIndex
    }

    var isAtEnd: Bool { index >= bytes.endIndex }

    func malformed(_ reason: String) -> TileError {
        TileError(.malformedTile, "\(reason) at byte \(index)")
    }

    mutating func varint() throws -> UInt64 {
        var result: UInt64 = 0
        var shift: UInt64 = 0
        while true {
            guard index < bytes.endIndex else { throw malformed("truncated varint") }
            let b = bytes[index]
            index += 1
            guard shift < 64 else { throw malformed("varint longer than 10 bytes") }
            result |= UInt64(b & 0x7f) << shift
            if b & 0x80 == 0 { return result }
            shift += 7
        }
    }

    /// The next field's number and wire type.
    mutating func key() throws -> (field: Int, wire: UInt8) {
        let k = try varint()
        guard k >> 3 > 0, k >> 3 < 1 << 29 else { throw malformed("invalid field number \(k >> 3)") }
        return (Int(k >> 3), UInt8(k & 7))
    }

    mutating func lengthDelimited() throws -> ArraySlice<UInt8> {
        let n = try varint()
        guard n <= UInt64(bytes.endIndex - index) else { throw malformed("length \(n) runs past the end") }
        let slice = bytes[index..<(index + Int(n))]
        index += Int(n)
        return slice
    }

    mutating func fixed64() throws -> UInt64 {
        guard bytes.endIndex - index >= 8 else { throw malformed("truncated fixed64") }
        var v: UInt64 = 0
        for i in 0..<8 { v |= UInt64(bytes[index + i]) << (8 * UInt64(i)) }
        index += 8
        return v
    }

    mutating func fixed32() throws -> UInt32 {
        guard bytes.endIndex - index >= 4 else { throw malformed("truncated fixed32") }
        var v: UInt32 = 0
        for i in 0..<4 { v |= UInt32(bytes[index + i]) << (8 * UInt32(i)) }
        index += 4
        return v
    }

    /// Skips a field of an unknown number (forward compatibility).
    mutating func skip(_ wire: UInt8) throws {
        switch wire {
        case 0: _ = try varint()
        case 1: _ = try fixed64()
        case 2: _ = try lengthDelimited()
        case 5: _ = try fixed32()
        default: throw malformed("unsupported wire type \(wire)")
        }
    }

    /// A packed repeated uint32 field's values.
    mutating func packedUInt32() throws -> [UInt32] {
        var inner = ProtobufReader(try lengthDelimited())
        var out: [UInt32] = []
        while !inner.isAtEnd {
            let v = try inner.varint()
            guard v <= UInt64(UInt32.max) else { throw inner.malformed("packed value \(v) exceeds uint32") }
            out.append(UInt32(v))
        }
        return out
    }
}
