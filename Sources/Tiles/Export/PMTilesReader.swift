import Foundation
import GeoCore

/// Reads a PMTiles version 3 archive of vector tiles (what `PMTilesWriter` and `citytwin city
/// basemap` write, and what protomaps' tools write): the header, the JSON metadata, and one tile
/// by z/x/y through the root and leaf directories. Tiles are read with `pread` on one open file,
/// so concurrent readers need no lock; the root directory is kept in memory, leaf directories
/// are read when a tile asks for them and kept (an archive of a city has a few).
public final class PMTilesReader: @unchecked Sendable {
    /// What the 127-byte header says.
    public struct Header: Sendable, Equatable {
        public var rootOffset, rootLength, metadataOffset, metadataLength, leavesOffset, leavesLength, dataOffset, dataLength: UInt64
        /// 1 none, 2 gzip (directories and metadata; tiles by `tileCompression`).
        public var internalCompression, tileCompression: UInt8
        /// 1 MVT.
        public var tileType: UInt8
        public var minZoom, maxZoom: Int
        /// West, south, east, north in degrees.
        public var bounds: Envelope
        public var center: (lon: Double, lat: Double, zoom: Int)

        public static func == (a: Header, b: Header) -> Bool {
            a.rootOffset == b.rootOffset && a.dataOffset == b.dataOffset && a.minZoom == b.minZoom && a.maxZoom == b.maxZoom && a.bounds == b.bounds
        }
    }

    public let path: String
    public let header: Header
    /// The archive's JSON metadata (`name`, `vector_layers`, …).
    public let metadata: JSONValue
    private let descriptor: Int32
    private let root: [PMTiles.Entry]
    private let lock = NSLock()
    private var leaves: [UInt64: [PMTiles.Entry]] = [:]

    /// Opens `path`.
    /// - Throws: `TileError(.invalidArgument)` naming the file when it is missing, not a PMTiles v3
    ///   archive, not of gzip-compressed or uncompressed MVT, or truncated.
    public init(path: String) throws {
        self.path = path
        descriptor = open(path, O_RDONLY)
        guard descriptor >= 0 else {
            throw TileError(.invalidArgument, "cannot open the PMTiles archive \(path): \(String(cString: strerror(errno)))")
        }
        do {
            var status = stat()
            guard fstat(descriptor, &status) == 0, status.st_size >= 127 else {
                throw TileError(.invalidArgument, "\(path) is not a PMTiles archive (shorter than the 127-byte PMTiles header)")
            }
            let bytes = try Self.read(descriptor, path, offset: 0, count: 127)
            guard Array(bytes[0..<7]) == Array("PMTiles".utf8) else {
                throw TileError(.invalidArgument, "\(path) is not a PMTiles archive (no PMTiles header)")
            }
            guard bytes[7] == 3 else { throw TileError(.invalidArgument, "\(path) is PMTiles version \(bytes[7]); version 3 is read") }
            func u64(_ at: Int) -> UInt64 { (0..<8).reduce(UInt64(0)) { $0 | UInt64(bytes[at + $1]) << (8 * UInt64($1)) } }
            func i32(_ at: Int) -> Double {
                Double(Int32(bitPattern: (0..<4).reduce(UInt32(0)) { $0 | UInt32(bytes[at + $1]) << (8 * UInt32($1)) })) / 10_000_000
            }
            let header = Header(rootOffset: u64(8), rootLength: u64(16), metadataOffset: u64(24), metadataLength: u64(32),
                                leavesOffset: u64(40), leavesLength: u64(48), dataOffset: u64(56), dataLength: u64(64),
                                internalCompression: bytes[97], tileCompression: bytes[98], tileType: bytes[99],
                                minZoom: Int(bytes[100]), maxZoom: Int(bytes[101]),
                                bounds: Envelope(minX: i32(102), minY: i32(106), maxX: i32(110), maxY: i32(114)),
                                center: (i32(119), i32(123), Int(bytes[118])))
            guard header.tileType == 1 else { throw TileError(.invalidArgument, "\(path) holds tiles of type \(header.tileType), not vector tiles (MVT)") }
            guard [1, 2].contains(header.internalCompression), [1, 2].contains(header.tileCompression) else {
                throw TileError(.invalidArgument, "\(path) uses a compression other than gzip or none (internal \(header.internalCompression), tiles \(header.tileCompression))")
            }
            self.header = header
            root = try Self.directory(Self.decompress(try Self.read(descriptor, path, offset: header.rootOffset, count: header.rootLength),
                                                      header.internalCompression), path)
            let meta = try Self.decompress(try Self.read(descriptor, path, offset: header.metadataOffset, count: header.metadataLength),
                                           header.internalCompression)
            metadata = meta.isEmpty ? .object([:]) : try JSONDecoder().decode(JSONValue.self, from: Data(meta))
        } catch {
            close(descriptor)
            throw error
        }
    }

    deinit { close(descriptor) }

    /// The TileJSON `vector_layers` of the metadata (empty when it has none).
    public var vectorLayers: [JSONValue] { metadata["vector_layers"]?.arrayValue ?? [] }

    /// The stored bytes of tile z/x/y (gzip-compressed when `header.tileCompression` is 2), nil
    /// when the archive has no such tile.
    public func tile(zoom: Int, x: Int, y: Int) throws -> [UInt8]? {
        guard (0...31).contains(zoom), x >= 0, y >= 0, x < 1 << zoom, y < 1 << zoom else { return nil }
        let id = PMTiles.tileID(zoom: zoom, x: x, y: y)
        var directory = root
        for _ in 0..<4 {
            guard let entry = Self.find(id, in: directory) else { return nil }
            if entry.runLength > 0 {
                return try Self.read(descriptor, path, offset: header.dataOffset + entry.offset, count: UInt64(entry.length))
            }
            directory = try leaf(at: entry.offset, length: entry.length)
        }
        throw TileError(.invalidArgument, "\(path): leaf directories nest deeper than 3 levels")
    }

    /// The entry whose run holds `id` (or the leaf directory that may), by binary search.
    static func find(_ id: UInt64, in entries: [PMTiles.Entry]) -> PMTiles.Entry? {
        var low = 0, high = entries.count - 1
        while low <= high {
            let mid = (low + high) / 2
            if entries[mid].tileID < id { low = mid + 1 } else if entries[mid].tileID > id { high = mid - 1 } else { return entries[mid] }
        }
        guard high >= 0 else { return nil }
        let e = entries[high]
        if e.runLength == 0 { return e }
        return id - e.tileID < UInt64(e.runLength) ? e : nil
    }

    private func leaf(at offset: UInt64, length: UInt32) throws -> [PMTiles.Entry] {
        if let known = lock.withLock({ leaves[offset] }) { return known }
        let bytes = try Self.read(descriptor, path, offset: header.leavesOffset + offset, count: UInt64(length))
        let entries = try Self.directory(Self.decompress(bytes, header.internalCompression), path)
        lock.withLock { leaves[offset] = entries }
        return entries
    }

    private static func decompress(_ bytes: [UInt8], _ compression: UInt8) throws -> [UInt8] {
        compression == 2 ? try TileCompression.gunzip(bytes) : bytes
    }

    /// The entries of a serialized directory (`PMTiles.serialize`'s inverse).
    static func directory(_ bytes: [UInt8], _ path: String) throws -> [PMTiles.Entry] {
        var at = 0
        func varint() throws -> UInt64 {
            var value: UInt64 = 0, shift: UInt64 = 0
            while at < bytes.count, shift < 64 {
                let b = bytes[at]
                at += 1
                value |= UInt64(b & 0x7f) << shift
                if b & 0x80 == 0 { return value }
                shift += 7
            }
            throw TileError(.invalidArgument, "\(path): a PMTiles directory is truncated")
        }
        let count = Int(try varint())
        guard count <= bytes.count else { throw TileError(.invalidArgument, "\(path): a PMTiles directory claims \(count) entries in \(bytes.count) bytes") }
        var entries = [PMTiles.Entry](repeating: PMTiles.Entry(tileID: 0, offset: 0, length: 0, runLength: 0), count: count)
        var last: UInt64 = 0
        for i in 0..<count { last += try varint(); entries[i].tileID = last }
        for i in 0..<count { entries[i].runLength = UInt32(truncatingIfNeeded: try varint()) }
        for i in 0..<count { entries[i].length = UInt32(truncatingIfNeeded: try varint()) }
        for i in 0..<count {
            let v = try varint()
            if v == 0, i > 0 {
                entries[i].offset = entries[i - 1].offset + UInt64(entries[i - 1].length)
            } else {
                entries[i].offset = v &- 1
            }
        }
        return entries
    }

    private static func read(_ descriptor: Int32, _ path: String, offset: UInt64, count: UInt64) throws -> [UInt8] {
        guard count <= 256 << 20 else { throw TileError(.invalidArgument, "\(path): a section of \(count) bytes is larger than a PMTiles section may be here") }
        let size = Int(count)
        var out = [UInt8](repeating: 0, count: size)
        var done = 0
        while done < size {
            let n = out.withUnsafeMutableBytes { pread(descriptor, $0.baseAddress! + done, size - done, off_t(offset) + off_t(done)) }
            if n < 0, errno == EINTR { continue }
            guard n > 0 else { throw TileError(.invalidArgument, "\(path) is truncated: \(count) bytes at \(offset) cannot be read") }
            done += n
        }
        return out
    }
}
