import Foundation
import GeoCore
import GRDB

/// Writes an MBTiles 1.3 file: `metadata` (name, format `pbf`, bounds, center, minzoom,
/// maxzoom, json with `vector_layers`) and `tiles` (gzip-compressed MVT blobs) with the
/// specification's TMS row order (row 0 at the south: `tile_row = 2^z − 1 − y`).
/// Tiles are written in one transaction at `finish`, so a failed export leaves no file
/// that looks complete.
public final class MBTilesWriter: TileArchiveWriter {
    private let queue: DatabaseQueue
    private let path: String
    private var pending: [(zoom: Int, column: Int, row: Int, data: [UInt8])] = []
    private var finished = false

    /// Creates `path`, which must not exist.
    public init(path: String) throws {
        guard !FileManager.default.fileExists(atPath: path) else {
            throw TileError(.invalidArgument, "the MBTiles file \(path) already exists")
        }
        self.path = path
        queue = try DatabaseQueue(path: path)
        try queue.write { db in
            try db.execute(sql: """
                CREATE TABLE metadata (name TEXT NOT NULL, value TEXT);
                CREATE UNIQUE INDEX metadata_name ON metadata (name);
                CREATE TABLE tiles (zoom_level INTEGER NOT NULL, tile_column INTEGER NOT NULL, tile_row INTEGER NOT NULL,
                                    tile_data BLOB NOT NULL);
                CREATE UNIQUE INDEX tile_index ON tiles (zoom_level, tile_column, tile_row);
                """)
        }
    }

    public func append(zoom: Int, x: Int, y: Int, gzippedTile: [UInt8]) throws {
        guard !finished else { throw TileError(.invalidArgument, "the MBTiles file \(path) is already finished") }
        guard !gzippedTile.isEmpty else { return }
        pending.append((zoom, x, (1 << zoom) - 1 - y, gzippedTile))
        if pending.count >= 1000 { try flush() }
    }

    private func flush() throws {
        let batch = pending
        pending.removeAll(keepingCapacity: true)
        try queue.write { db in
            let insert = try db.makeStatement(sql: "INSERT INTO tiles (zoom_level, tile_column, tile_row, tile_data) VALUES (?, ?, ?, ?)")
            for t in batch {
                try insert.execute(arguments: [t.zoom, t.column, t.row, Data(t.data)])
            }
        }
    }

    public func finish(_ metadata: TileArchiveMetadata) throws {
        try flush()
        finished = true
        let b = metadata.bounds
        let json = try JSONOutput.text(JSONValue.object(["vector_layers": .array(metadata.vectorLayers)]))
        let rows: [(String, String)] = [
            ("name", metadata.name), ("description", metadata.description), ("attribution", metadata.attribution),
            ("format", "pbf"), ("type", "overlay"), ("version", "1"),
            ("minzoom", String(metadata.minZoom)), ("maxzoom", String(metadata.maxZoom)),
            ("bounds", [b.minX, b.minY, b.maxX, b.maxY].map { String($0) }.joined(separator: ",")),
            ("center", "\(metadata.center.lon),\(metadata.center.lat),\(metadata.center.zoom)"),
            ("json", json),
        ]
        try queue.write { db in
            for (name, value) in rows {
                try db.execute(sql: "INSERT INTO metadata (name, value) VALUES (?, ?)", arguments: [name, value])
            }
        }
    }
}
