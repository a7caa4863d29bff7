import Foundation
import GeoCore

/// Writes a PMTiles version 3 archive: the 127-byte header, a gzip-compressed root directory
/// within the first 16 KiB (with leaf directories when the tiles do not fit in one), the JSON
/// metadata (TileJSON `vector_layers`), then the tile blobs in Hilbert tile-id order
/// (`clustered`). Identical small tiles (≤ 4 KiB, such as the many near-empty tiles of a
/// district's edge) are stored once, and runs of consecutive ids sharing a blob become one entry.
///
/// Tiles are spooled to a temporary file next to `path` while they arrive (in any order), so
/// memory holds only the directory; `finish` writes `path` and removes the spool.
public final class PMTilesWriter: TileArchiveWriter {
    private let path: String
    private let spoolPath: String
    private let spool: FileHandle
    private var spoolSize: UInt64 = 0
    /// tile id → (offset in the spool, length)
    private var tiles: [(id: UInt64, offset: UInt64, length: UInt32)] = []
    private var smallBlobs: [[UInt8]: UInt64] = [:]
    private var finished = false

    /// Largest tile that is looked up for an identical earlier tile.
    static let dedupLimit = 4096
    /// The header plus root directory must fit in this many bytes (spec v3).
    static let rootLimit = 16_384
    static let headerLength = 127

    /// Creates the archive at `path`, which must not exist.
    public init(path: String) throws {
        guard !FileManager.default.fileExists(atPath: path) else {
            throw TileError(.invalidArgument, "the PMTiles file \(path) already exists")
        }
        self.path = path
        spoolPath = path + ".tiles-spool"
        try? FileManager.default.removeItem(atPath: spoolPath)
        guard FileManager.default.createFile(atPath: spoolPath, contents: nil),
              let handle = FileHandle(forUpdatingAtPath: spoolPath) else {
            throw TileError(.invalidArgument, "cannot create \(spoolPath)")
        }
        spool = handle
    }

    deinit {
        try? spool.close()
        try? FileManager.default.removeItem(atPath: spoolPath)
    }

    public func append(zoom: Int, x: Int, y: Int, gzippedTile: [UInt8]) throws {
        guard !finished else { throw TileError(.invalidArgument, "the PMTiles file \(path) is already finished") }
        guard !gzippedTile.isEmpty else { return }
        guard (0...31).contains(zoom), x >= 0, y >= 0, x < 1 << zoom, y < 1 << zoom else {
            throw TileError(.invalidArgument, "tile \(zoom)/\(x)/\(y) is outside WebMercatorQuad")
        }
        let id = PMTiles.tileID(zoom: zoom, x: x, y: y)
        if gzippedTile.count <= Self.dedupLimit, let offset = smallBlobs[gzippedTile] {
            tiles.append((id, offset, UInt32(gzippedTile.count)))
            return
        }
        let offset = spoolSize
        try spool.write(contentsOf: Data(gzippedTile))
        spoolSize += UInt64(gzippedTile.count)
        if gzippedTile.count <= Self.dedupLimit { smallBlobs[gzippedTile] = offset }
        tiles.append((id, offset, UInt32(gzippedTile.count)))
    }

    public func finish(_ metadata: TileArchiveMetadata) throws {
        guard !finished else { throw TileError(.invalidArgument, "the PMTiles file \(path) is already finished") }
        finished = true
        tiles.sort { $0.id < $1.id }
        for i in tiles.indices.dropFirst() where tiles[i].id == tiles[i - 1].id {
            throw TileError(.invalidArgument, "tile id \(tiles[i].id) was added twice")
        }
        // Blobs in tile-id order; a blob already placed (a duplicate) keeps its earlier offset.
        var placed: [UInt64: UInt64] = [:]   // spool offset → data-section offset
        var copyOrder: [(spoolOffset: UInt64, length: UInt32)] = []
        var dataLength: UInt64 = 0
        var entries: [PMTiles.Entry] = []
        for t in tiles {
            let offset: UInt64
            if let known = placed[t.offset] {
                offset = known
            } else {
                offset = dataLength
                placed[t.offset] = offset
                copyOrder.append((t.offset, t.length))
                dataLength += UInt64(t.length)
            }
            if var last = entries.last, last.tileID + UInt64(last.runLength) == t.id, last.offset == offset, last.length == t.length {
                last.runLength += 1
                entries[entries.count - 1] = last
            } else {
                entries.append(PMTiles.Entry(tileID: t.id, offset: offset, length: t.length, runLength: 1))
            }
        }
        guard !entries.isEmpty else { throw TileError(.invalidArgument, "no tile to write: the layers have no features in the area") }

        let (root, leaves) = try directories(entries)
        let metadataBytes = try TileCompression.gzip(Array(try JSONOutput.data(metadata.json)))
        let rootOffset = UInt64(Self.headerLength)
        let metadataOffset = rootOffset + UInt64(root.count)
        let leavesOffset = metadataOffset + UInt64(metadataBytes.count)
        let dataOffset = leavesOffset + UInt64(leaves.count)

        var header = [UInt8]()
        header.reserveCapacity(Self.headerLength)
        header += Array("PMTiles".utf8) + [3]
        for v in [rootOffset, UInt64(root.count), metadataOffset, UInt64(metadataBytes.count), leavesOffset, UInt64(leaves.count),
                  dataOffset, dataLength, UInt64(tiles.count), UInt64(entries.count), UInt64(copyOrder.count)] {
            Self.append(v, to: &header)
        }
        header += [1, 2, 2, 1]  // clustered; internal gzip; tiles gzip; MVT
        header += [UInt8(metadata.minZoom), UInt8(metadata.maxZoom)]
        let b = metadata.bounds
        for v in [b.minX, b.minY, b.maxX, b.maxY] { Self.append(Int32((v * 10_000_000).rounded()), to: &header) }
        header.append(UInt8(metadata.center.zoom))
        Self.append(Int32((metadata.center.lon * 10_000_000).rounded()), to: &header)
        Self.append(Int32((metadata.center.lat * 10_000_000).rounded()), to: &header)
        assert(header.count == Self.headerLength)

        guard FileManager.default.createFile(atPath: path, contents: nil), let out = FileHandle(forWritingAtPath: path) else {
            throw TileError(.invalidArgument, "cannot create \(path)")
        }
        do {
            try out.write(contentsOf: Data(header + root + metadataBytes + leaves))
            for blob in copyOrder {
                try spool.seek(toOffset: blob.spoolOffset)
                guard let bytes = try spool.read(upToCount: Int(blob.length)), bytes.count == Int(blob.length) else {
                    throw TileError(.invalidArgument, "the tile spool \(spoolPath) was truncated")
                }
                try out.write(contentsOf: bytes)
            }
            try out.close()
        } catch {
            try? out.close()
            try? FileManager.default.removeItem(atPath: path)
            throw error
        }
        try? spool.close()
        try? FileManager.default.removeItem(atPath: spoolPath)
    }

    /// The compressed root directory and leaf section: everything in the root when it fits in
    /// the first 16 KiB, otherwise leaves of a growing number of entries until the root does.
    private func directories(_ entries: [PMTiles.Entry]) throws -> (root: [UInt8], leaves: [UInt8]) {
        let single = try TileCompression.gzip(PMTiles.serialize(entries))
        if Self.headerLength + single.count <= Self.rootLimit { return (single, []) }
        var leafSize = 4096
        while true {
            var leaves: [UInt8] = []
            var rootEntries: [PMTiles.Entry] = []
            var start = 0
            while start < entries.count {
                let chunk = Array(entries[start..<min(start + leafSize, entries.count)])
                let bytes = try TileCompression.gzip(PMTiles.serialize(chunk))
                rootEntries.append(PMTiles.Entry(tileID: chunk[0].tileID, offset: UInt64(leaves.count), length: UInt32(bytes.count), runLength: 0))
                leaves += bytes
                start += leafSize
            }
            let root = try TileCompression.gzip(PMTiles.serialize(rootEntries))
            if Self.headerLength + root.count <= Self.rootLimit { return (root, leaves) }
            leafSize *= 2
        }
    }

    private static func append<T: FixedWidthInteger>(_ value: T, to bytes: inout [UInt8]) {
        withUnsafeBytes(of: value.littleEndian) { bytes += $0 }
    }
}
