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
public struct CachedTile: Hashable, Sendable {
    public var bytes: [UInt8]?
    /// The same bytes gzip-compressed, made once when the tile is cached (clients that accept
    /// gzip, as browsers and MapLibre do, then cost no compression per request).
    public var gzipped: [UInt8]?
    /// A strong HTTP entity tag of the bytes (quoted).
    public var etag: String

    public init(bytes: [UInt8]?) {
        self.bytes = bytes
        self.gzipped = bytes.flatMap { try? TileCompression.gzip($0) }
        self.etag = Self.etag(of: bytes ?? [])
    }

    /// `"<16 hex digits>"`: FNV-1a 64 of the bytes (content-derived, so equal tiles share it).
    public static func etag(of bytes: [UInt8]) -> String {
        var h: UInt64 = 0xcbf2_9ce4_8422_2325
        for b in bytes { h = (h ^ UInt64(b)) &* 0x0000_0100_0000_01b3 }
        let hex = String(h, radix: 16)
        return "\"" + String(repeating: "0", count: 16 - hex.count) + hex + "\""
    }
}
