import Foundation
import GeoCore
import TwinStore

/// Tiles already cut: an in-memory LRU in front of an optional directory on disk, kept
/// current by following the store's change feed. An edit drops exactly the cached tiles whose
/// rectangle, grown by the tile buffer, meets the changed feature's envelope before or after
/// the edit, at every zoom; every other tile stays.
///
/// Disk layout: `<directory>/<tms>/<layers-hash>/<audience-hash>/<version-hash>/<z>/<row>/<col>.mvt`
/// (an empty file for an empty tile), with `layers.txt` naming the layers of each
/// `<layers-hash>` folder.
public final class TileCache: @unchecked Sendable {
    /// Tiles kept in memory.
    public let capacity: Int
    /// Bytes of tiles kept in memory (their MVT bytes; the gzip form a client asks for comes on
    /// top, about a third of it): a city's z14 tiles are 100–250 KB, so 10,000 of them would be
    /// gigabytes. The least recently used go first beyond either bound.
    public let maximumBytes: Int
    /// MiB of tiles `serve` keeps in memory by default.
    public static let defaultMaximumMiB = 256
    /// Where tiles are also written (`nil`: memory only).
    public let directory: URL?
    /// Tile units across a tile and beyond its edges, as the tiles were cut (for the
    /// invalidation margin).
    public let extent: Int, buffer: Int

    private let lock = NSLock()
    private var entries: [TileCacheKey: (tile: CachedTile, lastUse: UInt64)] = [:]
    private var bytes = 0
    private var clock: UInt64 = 0
    private var lastSequence: Int64 = 0

    public init(capacity: Int = 10_000, maximumBytes: Int = TileCache.defaultMaximumMiB << 20, directory: URL? = nil,
                extent: Int = 4096, buffer: Int = 64) {
        self.capacity = max(capacity, 1)
        self.maximumBytes = max(maximumBytes, 1)
        self.directory = directory
        self.extent = extent
        self.buffer = buffer
    }

    /// Number of tiles in memory.
    public var count: Int { lock.withLock { entries.count } }

    /// Bytes of the tiles in memory (as `maximumBytes` counts them).
    public var byteCount: Int { lock.withLock { bytes } }

    /// What a tile counts against `maximumBytes`: its bytes and its entry.
    private static func size(_ tile: CachedTile) -> Int { (tile.buffer?.readableBytes ?? 0) + 128 }

    /// The cached tile, from memory or disk.
    public func tile(_ key: TileCacheKey) -> CachedTile? {
        if let hit = lock.withLock({ () -> CachedTile? in
            guard let e = entries[key] else { return nil }
            clock += 1
            entries[key] = (e.tile, clock)
            return e.tile
        }) { return hit }
        guard let url = fileURL(key), let data = FileManager.default.contents(atPath: url.path) else { return nil }
        let tile = CachedTile(bytes: data.isEmpty ? nil : [UInt8](data))
        remember(key, tile)
        return tile
    }

    /// Stores a tile (`nil` bytes: an empty tile) in memory and, when configured, on disk.
    @discardableResult
    public func store(_ key: TileCacheKey, bytes: [UInt8]?) -> CachedTile {
        let tile = CachedTile(bytes: bytes)
        remember(key, tile)
        if let url = fileURL(key), let folder = layersFolder(key) {
            let fm = FileManager.default
            try? fm.createDirectory(at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
            let names = folder.appendingPathComponent("layers.txt")
            if !fm.fileExists(atPath: names.path) { try? Data(key.layers.joined(separator: "\n").utf8).write(to: names) }
            try? Data(bytes ?? []).write(to: url, options: .atomic)
        }
        return tile
    }

    private func remember(_ key: TileCacheKey, _ tile: CachedTile) {
        lock.withLock {
            clock += 1
            if let old = entries.updateValue((tile, clock), forKey: key) { bytes -= Self.size(old.tile) }
            bytes += Self.size(tile)
            if entries.count > capacity || bytes > maximumBytes {
                // Evict the least recently used down to nine tenths of both bounds in one pass
                // (amortised O(1) per insert).
                let (count, byteBound) = (capacity - capacity / 10, maximumBytes - maximumBytes / 10)
                for (k, e) in entries.sorted(by: { $0.value.lastUse < $1.value.lastUse }) {
                    guard entries.count > count || bytes > byteBound else { break }
                    entries[k] = nil
                    bytes -= Self.size(e.tile)
                }
            }
        }
    }

    // MARK: - Invalidation

    /// Drops the tiles of every cached tileset containing `layer` whose rectangle grown by
    /// the buffer meets one of the lon/lat `envelopes`, at every zoom, in memory and on disk.
    /// - Returns: the number of tiles dropped from memory.
    @discardableResult
    public func invalidate(layer: String, envelopes: [Envelope]) -> Int {
        guard !envelopes.isEmpty else { return 0 }
        let dropped: Int = lock.withLock {
            let doomed = entries.keys.filter { key in
                guard key.layers.contains(layer), let tms = try? TileMatrixSet.named(key.tileMatrixSet) else { return false }
                return envelopes.contains { (try? touches(tms, key.tile, $0)) == true }
            }
            for k in doomed { if let e = entries.removeValue(forKey: k) { bytes -= Self.size(e.tile) } }
            return doomed.count
        }
        if let directory { invalidateOnDisk(directory, layer: layer, envelopes: envelopes) }
        return dropped
    }

    /// Applies the store's change events since the last call (as `reader`, normally
    /// `.admin` so hidden layers are followed too): each event's envelopes before and after
    /// invalidate the tiles they touch, and so do the envelopes `related` names for a batch of
    /// events (features whose tiles show something the events changed without editing them, e.g.
    /// the latest sensor reading joined onto a gauge). A batch is marked applied only once
    /// `related` answered, so a failure is retried on the next call.
    /// - Returns: the number of events applied.
    @discardableResult
    public func follow(_ store: any FeatureStore, as reader: Caller = .admin,
                       related: (@Sendable ([ChangeEvent]) async throws -> [(layer: String, envelopes: [Envelope])])? = nil) async throws -> Int {
        var applied = 0
        while true {
            let since = lock.withLock { lastSequence }
            let events = try await store.changes(since: since, limit: 1000, by: reader)
            guard let last = events.last else { return applied }
            for event in events {
                invalidate(layer: event.layer, envelopes: [event.envelopeBefore, event.envelopeAfter].compactMap { $0 })
            }
            if let related {
                for (layer, envelopes) in try await related(events) { invalidate(layer: layer, envelopes: envelopes) }
            }
            lock.withLock { lastSequence = max(lastSequence, last.sequence) }
            applied += events.count
            if events.count < 1000 { return applied }
        }
    }

    /// Starts following the change feed at `sequence` (e.g. the store's current last change
    /// when the cache starts empty).
    public func startFollowing(after sequence: Int64) {
        lock.withLock { lastSequence = sequence }
    }

    /// The sequence of the last change event applied.
    public var followedSequence: Int64 { lock.withLock { lastSequence } }

    /// Whether the tile's rectangle grown by the buffer meets the lon/lat envelope.
    func touches(_ tms: TileMatrixSet, _ tile: TileID, _ envelope: Envelope) throws -> Bool {
        guard let range = try coveringRange(tms, envelope, level: tile.matrix) else { return false }
        return range.rows.contains(tile.row) && range.cols.contains(tile.col)
    }

    /// The tiles of `level` whose rectangles grown by the buffer meet the lon/lat envelope.
    func coveringRange(_ tms: TileMatrixSet, _ lonLat: Envelope, level: Int) throws -> TileRange? {
        let m = try tms.matrix(level)
        let limitY = tms.isMercator ? TileMatrixSet.webMercatorMaxLatitude : 90
        let low = try tms.project(Position(x: max(lonLat.minX, -180), y: max(lonLat.minY, -limitY)))
        let high = try tms.project(Position(x: min(lonLat.maxX, 180), y: min(lonLat.maxY, limitY)))
        let span = m.tileSpan, margin = span * Double(buffer) / Double(extent)
        let box = Envelope(minX: low.x, minY: low.y, maxX: high.x, maxY: high.y).expanded(by: margin)
        guard box.intersects(tms.domain) else { return nil }
        func index(_ v: Double, _ count: Int) -> Int { min(max(Int(v.rounded(.down)), 0), count - 1) }
        return TileRange(matrix: level,
                         rows: index((tms.origin.y - box.maxY) / span, m.matrixHeight)...index((tms.origin.y - box.minY) / span, m.matrixHeight),
                         cols: index((box.minX - tms.origin.x) / span, m.matrixWidth)...index((box.maxX - tms.origin.x) / span, m.matrixWidth))
    }

    private func invalidateOnDisk(_ root: URL, layer: String, envelopes: [Envelope]) {
        let fm = FileManager.default
        func children(_ url: URL) -> [URL] {
            (try? fm.contentsOfDirectory(at: url, includingPropertiesForKeys: nil)) ?? []
        }
        for tmsFolder in children(root) {
            guard let tms = try? TileMatrixSet.named(tmsFolder.lastPathComponent) else { continue }
            for layersFolder in children(tmsFolder) {
                let names = (try? String(contentsOf: layersFolder.appendingPathComponent("layers.txt"), encoding: .utf8)) ?? ""
                guard names.split(separator: "\n").contains(Substring(layer)) else { continue }
                for audience in children(layersFolder) where audience.hasDirectoryPath {
                    for version in children(audience) {
                        for zoomFolder in children(version) {
                            guard let level = Int(zoomFolder.lastPathComponent) else { continue }
                            for envelope in envelopes {
                                guard let range = try? coveringRange(tms, envelope, level: level) else { continue }
                                for rowFolder in children(zoomFolder) {
                                    guard let row = Int(rowFolder.lastPathComponent), range.rows.contains(row) else { continue }
                                    for file in children(rowFolder) {
                                        guard let col = Int(file.deletingPathExtension().lastPathComponent), range.cols.contains(col) else { continue }
                                        try? fm.removeItem(at: file)
                                    }
                                }
                            }
                        }
                    }
                }
            }
        }
    }

    // MARK: - Paths

    private func layersFolder(_ key: TileCacheKey) -> URL? {
        directory?.appendingPathComponent(key.tileMatrixSet).appendingPathComponent(Self.hash(key.layers.joined(separator: "\n")))
    }

    private func fileURL(_ key: TileCacheKey) -> URL? {
        guard let folder = layersFolder(key), (try? TileMatrixSet.named(key.tileMatrixSet)) != nil else { return nil }
        return folder.appendingPathComponent(Self.hash(key.audience)).appendingPathComponent(Self.hash(key.dataVersion))
            .appendingPathComponent(String(key.tile.matrix)).appendingPathComponent(String(key.tile.row))
            .appendingPathComponent("\(key.tile.col).mvt")
    }

    /// A file-name-safe digest of arbitrary text (FNV-1a 64, hex).
    static func hash(_ text: String) -> String {
        FNV1a.hex(text.utf8)
    }
}
