import CompressNIO
import NIOCore

/// gzip content coding of encoded tiles (what MVT servers send with `Content-Encoding: gzip`
/// and what MBTiles/PMTiles archives store).
public enum TileCompression {
    /// The gzip stream of `bytes`.
    public static func gzip(_ bytes: [UInt8]) throws -> [UInt8] {
        var input = ByteBuffer(bytes: bytes)
        var output = try input.compress(with: .gzip())
        return output.readBytes(length: output.readableBytes) ?? []
    }

    /// The bytes of a gzip stream, at most `maximumSize` of them.
    /// - Throws: CompressNIO's error for corrupt input or output beyond `maximumSize`.
    public static func gunzip(_ bytes: [UInt8], maximumSize: Int = 64 << 20) throws -> [UInt8] {
        var input = ByteBuffer(bytes: bytes)
        var output = try input.decompress(with: .gzip(), maxSize: maximumSize)
        return output.readBytes(length: output.readableBytes) ?? []
    }

    /// Whether `bytes` start with the gzip magic number (1f 8b).
    public static func isGzip(_ bytes: [UInt8]) -> Bool {
        bytes.count >= 2 && bytes[0] == 0x1f && bytes[1] == 0x8b
    }
}
