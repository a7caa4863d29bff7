import Foundation
import GeoCore
import GRDB

/// An MBTiles 1.3 file of vector tiles (tilemaker's output, `MBTilesWriter`'s) rewritten as one
/// PMTiles version 3 archive by `PMTilesWriter`: every tile (gzip-compressed; a tile stored
/// uncompressed is compressed), in XYZ order from the file's TMS rows, with the file's name,
/// description, attribution, zoom range, bounds, centre and `vector_layers`.
public enum MBTilesConversion {
    /// What a conversion wrote.
    public struct Summary: Sendable {
        public var tiles: Int
        public var minZoom: Int
        public var maxZoom: Int
        public var bounds: Envelope
        public var layers: [String]
    }

    /// Converts `mbtiles` into a new PMTiles archive at `pmtiles` (which must not exist);
    /// `progress` gets the tiles done and the total every few thousand tiles.
    /// - Throws: `TileError(.invalidArgument)` naming the file when it is not an MBTiles file
    ///   of vector tiles or has no tile; nothing is left at `pmtiles` then.
    public static func pmtiles(from mbtiles: String, to pmtiles: String,
                               progress: (_ done: Int, _ total: Int) -> Void = { _, _ in }) throws -> Summary {
        guard FileManager.default.fileExists(atPath: mbtiles) else { throw TileError(.invalidArgument, "no MBTiles file at \(mbtiles)") }
        var configuration = Configuration()
        configuration.readonly = true
        let queue: DatabaseQueue
        do { queue = try DatabaseQueue(path: mbtiles, configuration: configuration) } catch {
            throw TileError(.invalidArgument, "\(mbtiles) is not an MBTiles file (SQLite): \(error)")
        }
        let metadata: [String: String]
        do {
            metadata = try queue.read { db in
                try Dictionary(Row.fetchAll(db, sql: "SELECT name, value FROM metadata").map { ($0["name"] as String? ?? "", $0["value"] as String? ?? "") },
                               uniquingKeysWith: { a, _ in a })
            }
        } catch {
            throw TileError(.invalidArgument, "\(mbtiles) is not an MBTiles file (no metadata table): \(error)")
        }
        if let format = metadata["format"], format != "pbf" {
            throw TileError(.invalidArgument, "\(mbtiles) holds \(format) tiles; only vector tiles (format pbf) are converted")
        }
        let writer = try PMTilesWriter(path: pmtiles)
        do {
            let total = try queue.read { try Int.fetchOne($0, sql: "SELECT count(*) FROM tiles") ?? 0 }
            guard total > 0 else { throw TileError(.invalidArgument, "\(mbtiles) has no tile") }
            var done = 0, minZoom = Int.max, maxZoom = Int.min
            try queue.read { db in
                let rows = try Row.fetchCursor(db, sql: "SELECT zoom_level, tile_column, tile_row, tile_data FROM tiles")
                while let row = try rows.next() {
                    let z: Int = row[0], x: Int = row[1], tmsRow: Int = row[2]
                    let data: Data = row[3]
                    let bytes = [UInt8](data)
                    try writer.append(zoom: z, x: x, y: (1 << z) - 1 - tmsRow,
                                      gzippedTile: TileCompression.isGzip(bytes) ? bytes : try TileCompression.gzip(bytes))
                    minZoom = min(minZoom, z)
                    maxZoom = max(maxZoom, z)
                    done += 1
                    if done % 5000 == 0 { progress(done, total) }
                }
            }
            let layers = Self.vectorLayers(metadata["json"])
            let bounds = Self.numbers(metadata["bounds"]).flatMap { $0.count == 4 ? Envelope(minX: $0[0], minY: $0[1], maxX: $0[2], maxY: $0[3]) : nil }
                ?? Envelope(minX: -180, minY: -85.05112878, maxX: 180, maxY: 85.05112878)
            let center = Self.numbers(metadata["center"]).flatMap { $0.count == 3 ? (lon: $0[0], lat: $0[1], zoom: Int($0[2])) : nil }
            try writer.finish(TileArchiveMetadata(name: metadata["name"] ?? "", description: metadata["description"] ?? "",
                                                  attribution: metadata["attribution"] ?? "© OpenStreetMap contributors",
                                                  minZoom: minZoom, maxZoom: maxZoom, bounds: bounds, center: center, vectorLayers: layers))
            progress(done, total)
            return Summary(tiles: done, minZoom: minZoom, maxZoom: maxZoom, bounds: bounds,
                           layers: layers.compactMap { $0["id"]?.stringValue })
        } catch {
            try? FileManager.default.removeItem(atPath: pmtiles)
            throw error
        }
    }

    /// The number of tiles an MBTiles file holds.
    public static func tileCount(_ mbtiles: String) throws -> Int {
        var configuration = Configuration()
        configuration.readonly = true
        return try DatabaseQueue(path: mbtiles, configuration: configuration).read { try Int.fetchOne($0, sql: "SELECT count(*) FROM tiles") ?? 0 }
    }

    /// `vector_layers` of the metadata's `json` value.
    static func vectorLayers(_ json: String?) -> [JSONValue] {
        guard let json, let value = try? JSONDecoder().decode(JSONValue.self, from: Data(json.utf8)) else { return [] }
        return value["vector_layers"]?.arrayValue ?? []
    }

    /// "1,2,3" as numbers, nil when any is not one.
    static func numbers(_ text: String?) -> [Double]? {
        guard let text else { return nil }
        let parts = text.split(separator: ",").map { Double($0.trimmingCharacters(in: .whitespaces)) }
        return parts.contains(nil) ? nil : parts.compactMap { $0 }
    }
}
