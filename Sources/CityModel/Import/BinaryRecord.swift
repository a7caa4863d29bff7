import Foundation

/// Bounds-checked little/big-endian reads from a binary file's bytes (`.shp`, `.dbf`, GeoPackage
/// geometry blobs). Reads past the end throw instead of trapping, so a truncated file gives an error.
struct BinaryRecord {
    let bytes: Data

    struct Truncated: Error {
        var offset: Int
        var needed: Int
    }

    var count: Int { bytes.count }

    private func load<T: FixedWidthInteger>(_ offset: Int, _: T.Type) throws(Truncated) -> T {
        let size = MemoryLayout<T>.size
        guard offset >= 0, offset + size <= bytes.count else { throw Truncated(offset: offset, needed: size) }
        return bytes.withUnsafeBytes { $0.loadUnaligned(fromByteOffset: offset, as: T.self) }
    }

    func uint8(_ offset: Int) throws(Truncated) -> UInt8 { try load(offset, UInt8.self) }
    func uint16LE(_ offset: Int) throws(Truncated) -> UInt16 { UInt16(littleEndian: try load(offset, UInt16.self)) }
    func int32LE(_ offset: Int) throws(Truncated) -> Int32 { Int32(littleEndian: try load(offset, Int32.self)) }
    func int32BE(_ offset: Int) throws(Truncated) -> Int32 { Int32(bigEndian: try load(offset, Int32.self)) }
    func uint32LE(_ offset: Int) throws(Truncated) -> UInt32 { UInt32(littleEndian: try load(offset, UInt32.self)) }
    func uint32(_ offset: Int, littleEndian: Bool) throws(Truncated) -> UInt32 {
        let v = try load(offset, UInt32.self)
        return littleEndian ? UInt32(littleEndian: v) : UInt32(bigEndian: v)
    }
    func doubleLE(_ offset: Int) throws(Truncated) -> Double {
        Double(bitPattern: UInt64(littleEndian: try load(offset, UInt64.self)))
    }
    /// `count` bytes from `offset`.
    func slice(_ offset: Int, _ count: Int) throws(Truncated) -> Data {
        guard offset >= 0, count >= 0, offset + count <= bytes.count else { throw Truncated(offset: offset, needed: count) }
        let start = bytes.startIndex + offset
        return bytes[start..<start + count]
    }
}
