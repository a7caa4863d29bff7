import Foundation
import GeoCore
import GRDB
import TestSupport
import Testing
import TwinStore
@testable import Tiles

/// A minimal PMTiles v3 reader written from the specification, used to check what
/// `PMTilesWriter` wrote (protomaps' own Python reader checks the CLI's archives in
/// Tests/Clients/test_tile_archives.py).
struct PMTilesFile {
    let bytes: [UInt8]
    init(path: String) throws { bytes = Array(try Data(contentsOf: URL(fileURLWithPath: path))) }

    func u64(_ at: Int) -> UInt64 { (0..<8).reduce(0) { $0 | UInt64(bytes[at + $1]) << (8 * UInt64($1)) } }
    func i32(_ at: Int) -> Int32 { Int32(bitPattern: (0..<4).reduce(0) { $0 | UInt32(bytes[at + $1]) << (8 * UInt32($1)) }) }
    var magic: String { String(decoding: bytes[0..<7], as: UTF8.self) }
    var version: UInt8 { bytes[7] }
    var root: (offset: Int, length: Int) { (Int(u64(8)), Int(u64(16))) }
    var metadata: (offset: Int, length: Int) { (Int(u64(24)), Int(u64(32))) }
    var leaves: (offset: Int, length: Int) { (Int(u64(40)), Int(u64(48))) }
    var data: (offset: Int, length: Int) { (Int(u64(56)), Int(u64(64))) }
    var addressedTiles: UInt64 { u64(72) }
    var tileEntries: UInt64 { u64(80) }
    var tileContents: UInt64 { u64(88) }

    func directory(_ offset: Int, _ length: Int) throws -> [PMTiles.Entry] {
        let raw = try TileCompression.gunzip(Array(bytes[offset..<offset + length]))
        var i = 0
        func varint() -> UInt64 {
            var v: UInt64 = 0, shift: UInt64 = 0
            while true {
                let b = raw[i]; i += 1
                v |= UInt64(b & 0x7f) << shift
                if b < 0x80 { return v }
                shift += 7
            }
        }
        let n = Int(varint())
        var entries = [PMTiles.Entry](repeating: .init(tileID: 0, offset: 0, length: 0, runLength: 0), count: n)
        var last: UInt64 = 0
        for k in 0..<n { last += varint(); entries[k].tileID = last }
        for k in 0..<n { entries[k].runLength = UInt32(varint()) }
        for k in 0..<n { entries[k].length = UInt32(varint()) }
        for k in 0..<n {
            let v = varint()
            entries[k].offset = v == 0 && k > 0 ? entries[k - 1].offset + UInt64(entries[k - 1].length) : v - 1
        }
        return entries
    }

    /// The stored bytes of z/x/y, following leaf directories.
    func tile(_ z: Int, _ x: Int, _ y: Int) throws -> [UInt8]? {
        let id = PMTiles.tileID(zoom: z, x: x, y: y)
        var dir = try directory(root.offset, root.length)
        for _ in 0..<4 {
            guard let e = dir.last(where: { $0.tileID <= id }) else { return nil }
            if e.runLength == 0 {
                dir = try directory(leaves.offset + Int(e.offset), Int(e.length))
                continue
            }
            guard id < e.tileID + UInt64(e.runLength) else { return nil }
            let start = data.offset + Int(e.offset)
            return Array(bytes[start..<start + Int(e.length)])
        }
        return nil
    }
}

@Suite("Tile archives: PMTiles v3 and MBTiles 1.3", .temporaryDirectories)
struct TileArchiveTests {
    struct TileIDCase: Decodable { var z: Int; var x: Int; var y: Int; var tileid: UInt64 }
    struct TileIDFixture: Decodable { var cases: [TileIDCase] }

    @Test("PMTiles tile ids equal protomaps' zxy_to_tileid (Scripts/reference/make_pmtiles_fixtures.py)")
    func hilbertTileIDs() throws {
        let url = MVTFixture.directory.appendingPathComponent("pmtiles-tileids.json")
        let fixture = try JSONDecoder().decode(TileIDFixture.self, from: Data(contentsOf: url))
        #expect(fixture.cases.count > 100)
        for c in fixture.cases {
            #expect(PMTiles.tileID(zoom: c.z, x: c.x, y: c.y) == c.tileid, "\(c.z)/\(c.x)/\(c.y)")
        }
    }

    @Test("a directory serializes as columns of varints with delta ids and zeroed contiguous offsets")
    func directorySerialization() throws {
        let entries = [PMTiles.Entry(tileID: 5, offset: 0, length: 100, runLength: 1),
                       PMTiles.Entry(tileID: 6, offset: 100, length: 300, runLength: 2),
                       PMTiles.Entry(tileID: 9, offset: 0, length: 100, runLength: 1)]
        // n=3; ids 5,1,3; runs 1,2,1; lengths 100, 300 (0xAC 0x02), 100; offsets 0+1, 0 (contiguous), 0+1.
        #expect(PMTiles.serialize(entries) == [3, 5, 1, 3, 1, 2, 1, 100, 0xAC, 0x02, 100, 1, 0, 1])
    }

    static func temporaryPath(_ name: String) throws -> String {
        try TemporaryDirectory.forTestCase("citytwin-archive").appending(name).path
    }

    @Test("an export writes the store's tiles exactly as TileSource cuts them, into PMTiles and MBTiles")
    func exportMatchesTileSource() async throws {
        let store = try await TileCacheTests.makeStore()
        let source = TileSource(store: store)
        let layers = try await store.layers(for: .anonymous)
        let export = try TileArchiveExport(source: source, layers: layers, zooms: 12...15)
        let total = try export.tileCount()
        #expect(total > 4)

        let pmPath = try Self.temporaryPath("city.pmtiles")
        var seen: [Int] = []
        let summary = try await export.write(to: try TileArchiveFormat.pmtiles.writer(path: pmPath), name: "city") { seen.append(Int($0.completed)) }
        #expect(summary.visited == total)
        #expect(summary.written >= 8)   // both blocks at every zoom: 2 tiles or more per level
        #expect(seen.last == total)
        let pm = try PMTilesFile(path: pmPath)
        #expect(pm.magic == "PMTiles" && pm.version == 3)
        #expect(pm.addressedTiles == UInt64(summary.written))
        #expect(!FileManager.default.fileExists(atPath: pmPath + ".tiles-spool"))
        let meta = try JSONDecoder().decode(JSONValue.self, from: Data(TileCompression.gunzip(Array(pm.bytes[pm.metadata.offset..<pm.metadata.offset + pm.metadata.length]))))
        #expect(meta["vector_layers"]?.arrayValue?.first?["id"]?.stringValue == "buildings")

        let mbPath = try Self.temporaryPath("city.mbtiles")
        _ = try await export.write(to: try TileArchiveFormat.mbtiles.writer(path: mbPath), name: "city")
        let mb = try DatabaseQueue(path: mbPath)
        let metadata = try await mb.read { db in try Dictionary(uniqueKeysWithValues: Row.fetchAll(db, sql: "SELECT name, value FROM metadata").map { ($0[0] as String, $0[1] as String) }) }
        #expect(metadata["format"] == "pbf" && metadata["minzoom"] == "12" && metadata["maxzoom"] == "15")
        let count = try await mb.read { db in try Int.fetchOne(db, sql: "SELECT count(*) FROM tiles") }
        #expect(count == summary.written)

        for point in [TileCacheTests.a, TileCacheTests.b] {
            for z in 12...15 {
                let t = try TileMatrixSet.webMercatorQuad.tile(containing: point, level: z)
                let cut = try #require(try await source.tile(layers: ["buildings"], tileMatrixSet: .webMercatorQuad, tile: t, caller: .anonymous))
                let fromPM = try #require(try pm.tile(z, t.col, t.row))
                #expect(try TileCompression.gunzip(fromPM) == cut)
                let tmsRow = (1 << z) - 1 - t.row
                let blob = try await mb.read { db in
                    try Data.fetchOne(db, sql: "SELECT tile_data FROM tiles WHERE zoom_level = ? AND tile_column = ? AND tile_row = ?", arguments: [z, t.col, tmsRow])
                }
                #expect(try TileCompression.gunzip(Array(try #require(blob))) == cut)
            }
        }
        // The masked attribute is masked in the archive as in the API.
        let z16 = try TileMatrixSet.webMercatorQuad.tile(containing: TileCacheTests.a, level: 15)
        let decoded = try VectorTile.decode(try TileCompression.gunzip(try #require(try pm.tile(15, z16.col, z16.row))))
        #expect(!decoded[0].features.contains { $0.properties["owner_phone"] == .string("13812345678") })
    }

    @Test("an export cuts a layer only at the zooms of its definition's tiles range, and its vector_layers entry says so")
    func exportHonoursLayerZoomRanges() async throws {
        let store = try await TileCacheTests.makeStore()
        var layers = try await store.layers(for: .anonymous)
        let index = try #require(layers.firstIndex { $0.definition.id == "buildings" })
        layers[index].definition.tileZooms = 14...24
        let export = try TileArchiveExport(source: TileSource(store: store), layers: [layers[index]], zooms: 12...15)
        #expect(export.layerNames(atZoom: 13).isEmpty && export.layerNames(atZoom: 14) == ["buildings"])
        let path = try Self.temporaryPath("from14.pmtiles")
        let summary = try await export.write(to: try TileArchiveFormat.pmtiles.writer(path: path), name: "city")
        let pm = try PMTilesFile(path: path)
        for point in [TileCacheTests.a, TileCacheTests.b] {
            for z in 12...15 {
                let t = try TileMatrixSet.webMercatorQuad.tile(containing: point, level: z)
                #expect((try pm.tile(z, t.col, t.row) != nil) == (z >= 14), "z\(z)")
            }
        }
        #expect(summary.written >= 4)
        let meta = try JSONDecoder().decode(JSONValue.self, from: Data(TileCompression.gunzip(Array(pm.bytes[pm.metadata.offset..<pm.metadata.offset + pm.metadata.length]))))
        #expect(meta["vector_layers"]?.arrayValue?.first?["minzoom"] == 14 && meta["vector_layers"]?.arrayValue?.first?["maxzoom"] == 15)
    }

    @Test("many tiles go to leaf directories; the root stays within the first 16 KiB; duplicates are stored once")
    func leafDirectories() throws {
        let path = try Self.temporaryPath("many.pmtiles")
        let writer = try PMTilesWriter(path: path)
        // 30,000 distinct tiles of varying size scattered over z14 (a compressible directory would fit
        // in the root: sizes and gaps vary so it does not).
        var rng = SystemRandomNumberGenerator()
        var placed: [(x: Int, y: Int, blob: [UInt8])] = []
        var used = Set<Int>()
        while placed.count < 30_000 {
            let x = Int.random(in: 0..<(1 << 14), using: &rng), y = Int.random(in: 0..<(1 << 14), using: &rng)
            guard used.insert(x << 14 | y).inserted else { continue }
            let blob = [0x1f, 0x8b] + withUnsafeBytes(of: UInt32(placed.count).littleEndian, Array.init)
                + [UInt8](repeating: 7, count: Int.random(in: 0..<300, using: &rng))
            placed.append((x, y, blob))
        }
        for t in placed { try writer.append(zoom: 14, x: t.x, y: t.y, gzippedTile: t.blob) }
        // Ten copies of the first tile's content elsewhere are stored once.
        var copies = 0
        while copies < 10 {
            let x = Int.random(in: 0..<(1 << 14), using: &rng), y = Int.random(in: 0..<(1 << 14), using: &rng)
            guard used.insert(x << 14 | y).inserted else { continue }
            try writer.append(zoom: 14, x: x, y: y, gzippedTile: placed[0].blob)
            placed.append((x, y, placed[0].blob))
            copies += 1
        }
        try writer.finish(TileArchiveMetadata(name: "many", minZoom: 14, maxZoom: 14,
                                              bounds: Envelope(minX: 0, minY: 0, maxX: 10, maxY: 10), vectorLayers: []))
        let pm = try PMTilesFile(path: path)
        #expect(pm.root.offset + pm.root.length <= 16_384)
        #expect(pm.leaves.length > 0)
        #expect(pm.addressedTiles == 30_010)
        #expect(pm.tileContents == 30_000)
        for t in placed.shuffled().prefix(500) {
            #expect(try pm.tile(14, t.x, t.y) == t.blob)
        }
        var outside = 0
        while outside < 100 {
            let x = Int.random(in: 0..<(1 << 14), using: &rng), y = Int.random(in: 0..<(1 << 14), using: &rng)
            guard !used.contains(x << 14 | y) else { continue }
            #expect(try pm.tile(14, x, y) == nil)
            outside += 1
        }
        #expect(throws: TileError.self) { try writer.append(zoom: 10, x: 0, y: 0, gzippedTile: [1]) }
        #expect(throws: TileError.self) { try PMTilesWriter(path: path) }
    }
}
