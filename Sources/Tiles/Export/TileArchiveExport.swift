import Foundation
import GeoCore
import TwinStore

/// Cuts every WebMercatorQuad tile over the layers' extent for a zoom range and writes the
/// non-empty ones, gzip-compressed, into a `TileArchiveWriter` (PMTiles or MBTiles), for
/// static hosting. Tiles are cut as `caller` may see the layers (an export for the public is
/// cut as `.anonymous`, so hidden layers and masked attributes never reach the file), several
/// at a time.
public struct TileArchiveExport: Sendable {
    public let source: TileSource
    public let layers: [LayerInfo]
    public let zooms: ClosedRange<Int>
    public let caller: Caller
    /// Tiles cut concurrently.
    public var concurrency: Int

    /// What an export wrote.
    public struct Summary: Sendable, Equatable {
        /// Tiles visited (the covering ranges of every zoom).
        public var visited = 0
        /// Non-empty tiles written.
        public var written = 0
        /// Compressed bytes of the written tiles.
        public var bytes = 0
    }

    /// - Throws: `TileError(.invalidArgument)` for an empty layer list or a zoom range outside 0…24.
    public init(source: TileSource, layers: [LayerInfo], zooms: ClosedRange<Int>, caller: Caller = .anonymous,
                concurrency: Int = max(1, ProcessInfo.processInfo.activeProcessorCount)) throws {
        guard !layers.isEmpty else { throw TileError(.invalidArgument, "no layer to export") }
        guard zooms.lowerBound >= 0, zooms.upperBound <= 24 else {
            throw TileError(.invalidArgument, "zoom levels must lie in 0…24, not \(zooms.lowerBound)…\(zooms.upperBound)")
        }
        self.source = source
        self.layers = layers
        self.zooms = zooms
        self.caller = caller
        self.concurrency = concurrency
    }

    /// The union of the layers' extents (lon/lat degrees), clamped to Web Mercator's latitudes.
    public var bounds: Envelope? {
        var b: Envelope?
        for e in layers.compactMap(\.extent) { b == nil ? (b = e) : b!.expand(toInclude: e) }
        guard var e = b else { return nil }
        e.minY = max(e.minY, -TileMatrixSet.webMercatorMaxLatitude)
        e.maxY = min(e.maxY, TileMatrixSet.webMercatorMaxLatitude)
        return e
    }

    /// The number of tiles the export will visit.
    public func tileCount() throws -> Int {
        guard let bounds else { return 0 }
        return try zooms.reduce(0) { $0 + (try TileMatrixSet.webMercatorQuad.tiles(covering: bounds, level: $1)?.count ?? 0) }
    }

    /// Metadata for the archive: name, zoom range, bounds, `vector_layers`.
    public func metadata(name: String) -> TileArchiveMetadata {
        TileArchiveMetadata(name: name, description: "CityTwin layers: " + layers.map(\.definition.id).joined(separator: ", "),
                            minZoom: zooms.lowerBound, maxZoom: zooms.upperBound,
                            bounds: bounds ?? Envelope(minX: -180, minY: -85, maxX: 180, maxY: 85),
                            vectorLayers: layers.compactMap { info in
                                // A layer's own zoom range (its definition's `tiles`) within the export's.
                                let own = info.definition.tileZooms ?? zooms
                                guard own.overlaps(zooms) else { return nil }
                                let range = own.clamped(to: zooms)
                                return VectorLayers.entry(info.definition, minZoom: range.lowerBound, maxZoom: range.upperBound)
                            })
    }

    /// Cuts and writes every tile, then finishes the archive.
    /// - Parameter progress: called as the export goes: stage `cutting`, tiles visited of the tiles to visit.
    public func write(to writer: any TileArchiveWriter, name: String,
                      progress: (WorkProgress) -> Void = { _ in }) async throws -> Summary {
        let total = try tileCount()
        var summary = Summary()
        guard let bounds else { throw TileError(.invalidArgument, "the layers have no features, so there is nothing to export") }
        var pending: [TileID] = []
        for zoom in zooms {
            guard let range = try TileMatrixSet.webMercatorQuad.tiles(covering: bounds, level: zoom) else { continue }
            for tile in range {
                pending.append(tile)
                if pending.count == 256 {
                    try await cut(pending, writer, &summary)
                    pending.removeAll(keepingCapacity: true)
                    progress(WorkProgress(stage: "cutting", completed: Double(summary.visited), total: Double(total), unit: "tiles"))
                }
            }
        }
        try await cut(pending, writer, &summary)
        progress(WorkProgress(stage: "cutting", completed: Double(summary.visited), total: Double(total), unit: "tiles"))
        try writer.finish(metadata(name: name))
        return summary
    }

    /// The layers a tile of `zoom` carries: those whose definition's `tiles` range holds it.
    func layerNames(atZoom zoom: Int) -> [String] {
        layers.filter { $0.definition.isTiled(atZoom: zoom) }.map(\.definition.id)
    }

    /// Cuts a batch of tiles `concurrency` at a time and appends the non-empty ones.
    private func cut(_ batch: [TileID], _ writer: any TileArchiveWriter, _ summary: inout Summary) async throws {
        let source = source, caller = caller, width = concurrency
        var names: [Int: [String]] = [:]
        for zoom in Set(batch.map(\.matrix)) { names[zoom] = layerNames(atZoom: zoom) }
        try await withThrowingTaskGroup(of: (TileID, [UInt8]?).self) { group in
            var next = 0
            func submit() {
                let tile = batch[next], layers = names[tile.matrix] ?? []
                next += 1
                group.addTask {
                    guard !layers.isEmpty else { return (tile, nil) }
                    let bytes = try await source.tile(layers: layers, tileMatrixSet: .webMercatorQuad, tile: tile, caller: caller)
                    return (tile, try bytes.map(TileCompression.gzip))
                }
            }
            while next < min(width, batch.count) { submit() }
            while let (tile, bytes) = try await group.next() {
                summary.visited += 1
                if let bytes {
                    try writer.append(zoom: tile.matrix, x: tile.col, y: tile.row, gzippedTile: bytes)
                    summary.written += 1
                    summary.bytes += bytes.count
                }
                if next < batch.count { submit() }
            }
        }
    }
}
