import Foundation
import GeoCore
import NIOCore
import TwinStore

/// What a cached tile depends on: the layers in it, the data version they were cut at (a
/// layer definition or style fingerprint; edits are handled by invalidation, not by bumping
/// it), the audience (what the caller may see after masking), the matrix set and the tile.
public struct TileCacheKey: Hashable, Sendable {
    /// Layer ids, in tile order.
    public var layers: [String]
    public var dataVersion: String
    /// `TileCacheKey.audience(of:)` of the caller.
    public var audience: String
    public var tileMatrixSet: String
    public var tile: TileID

    public init(layers: [String], dataVersion: String, audience: String, tileMatrixSet: String, tile: TileID) {
        self.layers = layers
        self.dataVersion = dataVersion
        self.audience = audience
        self.tileMatrixSet = tileMatrixSet
        self.tile = tile
    }

    /// Callers who see the same tile content share an audience: the public, the administrator,
    /// or one role of one department (sharing classes and masks depend on both).
    public static func audience(of caller: Caller) -> String {
        switch caller {
        case .anonymous: "public"
        case .admin: "admin"
        case .department(let name, let role, _): "dept-\(name)-\(role.rawValue)"
        }
    }
}

/// A cached tile: its bytes (`nil` for an empty tile, served as 204) and entity tag.
public struct CachedTile: Sendable {
    /// The tile's bytes (`nil`: an empty tile), in a buffer made once: responses share its
    /// storage (no copy per request).
    public let buffer: ByteBuffer?
    /// A strong HTTP entity tag of the bytes (quoted).
    public let etag: String
    private let compressed = CompressedOnce()

    public init(bytes: [UInt8]?) {
        self.buffer = bytes.map { ByteBuffer(bytes: $0) }
        self.etag = Self.etag(of: bytes ?? [])
    }

    /// The same bytes gzip-compressed, made on the first request that accepts gzip and kept
    /// with the cached tile (browsers and MapLibre then cost no compression per request; a cold
    /// tile for a client without gzip costs none at all).
    public var gzipped: ByteBuffer? { buffer.flatMap { compressed.value(of: $0) } }

    /// `"<16 hex digits>"`: FNV-1a 64 of the bytes (content-derived, so equal tiles share it).
    public static func etag(of bytes: [UInt8]) -> String { "\"" + FNV1a.hex(bytes) + "\"" }
}

/// The gzip form of one tile, computed at most once however many requests race for it.
final class CompressedOnce: @unchecked Sendable {
    private let lock = NSLock()
    private var done = false
    private var gzip: ByteBuffer?

    func value(of buffer: ByteBuffer) -> ByteBuffer? {
        lock.withLock {
            if !done {
                gzip = (try? TileCompression.gzip(Array(buffer.readableBytesView))).map { ByteBuffer(bytes: $0) }
                done = true
            }
            return gzip
        }
    }
}
