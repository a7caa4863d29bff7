import Foundation
import GeoCore
import GRDB
import TestSupport
import Testing
@testable import Tiles

/// `PMTilesReader` (what `serve --basemap` reads) against `PMTilesWriter` and `MBTilesWriter`:
/// every tile back as written, through leaf directories when the root does not hold them, and
/// MBTiles' TMS rows turned into XYZ by `MBTilesConversion`.
@Suite("PMTiles reading and MBTiles conversion", .temporaryDirectories)
struct PMTilesReaderTests {
    /// A distinct gzip-compressed "tile" per position (content need not be MVT for addressing).
    static func blob(_ z: Int, _ x: Int, _ y: Int) throws -> [UInt8] {
        try TileCompression.gzip(Array("tile \(z)/\(x)/\(y) ".utf8) + [UInt8](repeating: UInt8((x * 7 + y) & 0xff), count: 64 + (x + y) % 50))
    }

    static let metadata = TileArchiveMetadata(name: "test", minZoom: 0, maxZoom: 8, bounds: Envelope(minX: -10, minY: -5, maxX: 10, maxY: 5),
                                              vectorLayers: [["id": "water", "fields": [:]]])

    @Test("30,000 scattered tiles (leaf directories, as the writer makes them past 16 KiB of root): each read back byte for byte; absent positions are nil")
    func leaves() throws {
        let directory = try TemporaryDirectory.forTestCase("pmtiles-leaves")
        let path = directory.appending("many.pmtiles").path
        let writer = try PMTilesWriter(path: path)
        var written: [(Int, Int, Int)] = [], seen = Set<Int>()
        // z12: 30,000 positions scattered by a linear congruential generator (few runs, an irregular directory).
        var state: UInt64 = 52
        while written.count < 30_000 {
            state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            let x = Int((state >> 33) % 4096), y = Int((state >> 17) % 4096)
            if seen.insert(x * 4096 + y).inserted { written.append((12, x, y)) }
        }
        for (z, x, y) in written { try writer.append(zoom: z, x: x, y: y, gzippedTile: try Self.blob(z, x, y)) }
        try writer.finish(Self.metadata)
        #expect(try PMTilesFile(path: path).leaves.length > 0, "the archive has leaf directories")
        let reader = try PMTilesReader(path: path)
        #expect(reader.header.maxZoom == 8 && reader.header.tileCompression == 2, "the header as the metadata says")
        #expect(reader.vectorLayers.first?["id"]?.stringValue == "water")
        for (z, x, y) in written { #expect(try reader.tile(zoom: z, x: x, y: y) == (try Self.blob(z, x, y)), "\(z)/\(x)/\(y)") }
        var absent = 0
        for x in 0..<64 where !seen.contains(x * 4096 + 7) {
            #expect(try reader.tile(zoom: 12, x: x, y: 7) == nil)
            absent += 1
        }
        #expect(absent > 50)
        #expect(try reader.tile(zoom: 11, x: 0, y: 0) == nil)
        #expect(try reader.tile(zoom: 12, x: 4096, y: 0) == nil)
    }

    @Test("an MBTiles file (TMS rows) converted to PMTiles: each tile at its XYZ position, uncompressed tiles gzip-compressed, name, bounds, centre and vector_layers kept")
    func conversion() throws {
        let directory = try TemporaryDirectory.forTestCase("mbtiles-conversion")
        let mbtiles = directory.appending("city.mbtiles").path
        let writer = try MBTilesWriter(path: mbtiles)
        let tiles = [(0, 0, 0), (3, 6, 1), (3, 6, 2), (5, 30, 7)]
        for (z, x, y) in tiles { try writer.append(zoom: z, x: x, y: y, gzippedTile: try Self.blob(z, x, y)) }
        try writer.finish(Self.metadata)
        // One tile stored uncompressed, as some tools write them.
        let queue = try DatabaseQueue(path: mbtiles)
        try queue.write { db in
            try db.execute(sql: "UPDATE tiles SET tile_data = ? WHERE zoom_level = 5", arguments: [Data(TileCompression.gunzip(try Self.blob(5, 30, 7)))])
        }
        try queue.close()
        let out = directory.appending("city.pmtiles").path
        let summary = try MBTilesConversion.pmtiles(from: mbtiles, to: out)
        #expect(summary.tiles == 4 && summary.minZoom == 0 && summary.maxZoom == 5 && summary.layers == ["water"])
        let reader = try PMTilesReader(path: out)
        for (z, x, y) in tiles { #expect(try reader.tile(zoom: z, x: x, y: y) == (try Self.blob(z, x, y)), "\(z)/\(x)/\(y)") }
        #expect(try reader.tile(zoom: 3, x: 6, y: 5) == nil, "the TMS row of 3/6/2 is not an XYZ tile")
        #expect(reader.header.bounds == Envelope(minX: -10, minY: -5, maxX: 10, maxY: 5))
        #expect(reader.metadata["name"]?.stringValue == "test")
        #expect(reader.vectorLayers.first?["id"]?.stringValue == "water")
    }

    @Test("clear errors: a file that is not MBTiles, raster MBTiles, a file that is not PMTiles, and a missing archive; no PMTiles left behind")
    func errors() throws {
        let directory = try TemporaryDirectory.forTestCase("pmtiles-errors")
        let text = directory.appending("notes.mbtiles").path
        try Data("not a database".utf8).write(to: URL(fileURLWithPath: text))
        let out = directory.appending("out.pmtiles").path
        #expect { try MBTilesConversion.pmtiles(from: text, to: out) } throws: { ($0 as? TileError)?.message.contains("notes.mbtiles") == true }
        #expect(!FileManager.default.fileExists(atPath: out))
        let raster = directory.appending("raster.mbtiles").path
        let queue = try DatabaseQueue(path: raster)
        try queue.write { db in
            try db.execute(sql: "CREATE TABLE metadata (name TEXT, value TEXT); INSERT INTO metadata VALUES ('format', 'png');")
            try db.execute(sql: "CREATE TABLE tiles (zoom_level INTEGER, tile_column INTEGER, tile_row INTEGER, tile_data BLOB)")
        }
        try queue.close()
        #expect { try MBTilesConversion.pmtiles(from: raster, to: out) } throws: { ($0 as? TileError)?.message.contains("png") == true }
        #expect(!FileManager.default.fileExists(atPath: out))
        #expect { try PMTilesReader(path: text) } throws: { ($0 as? TileError)?.message.contains("not a PMTiles archive") == true }
        #expect { try PMTilesReader(path: directory.appending("none.pmtiles").path) } throws: { ($0 as? TileError)?.message.contains("cannot open") == true }
    }
}
