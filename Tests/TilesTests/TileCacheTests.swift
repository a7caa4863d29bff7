import Foundation
import GeoCore
import TestSupport
import Testing
import TwinStore
@testable import Tiles

@Suite("Tiles from the store, cached, and invalidated by the change feed", .temporaryDirectories)
struct TileCacheTests {
    static let owner = Caller.department(name: "住建局", role: .editor, user: "测试")
    static let layerJSON = """
        {"id": "buildings", "title": {"zh": "建筑", "en": "Buildings"}, "category": "时空基础",
         "owner": "住建局", "format": "vector", "updateFrequency": "monthly",
         "sharing": {"type": "open", "method": "api", "requirements": "注明数据来源"},
         "geometryType": "Polygon", "storageCRS": "EPSG:4490",
         "schema": {"type": "object", "properties": {"name": {"type": "string"}, "owner_phone": {"type": "string"}}},
         "sensitive": [{"attribute": "owner_phone", "mask": "redact"}]}
        """

    /// A square block of `size` degrees with its south-west corner at (lon, lat), counter-clockwise.
    static func block(_ lon: Double, _ lat: Double, _ size: Double = 0.0004) -> Geometry {
        .polygon([Position(x: lon, y: lat), Position(x: lon + size, y: lat), Position(x: lon + size, y: lat + size),
                  Position(x: lon, y: lat + size), Position(x: lon, y: lat)])
    }

    static let a = Position(x: 114.3055, y: 30.5928)   // Hankou
    static let b = Position(x: 114.3655, y: 30.5928)   // 6 km east

    static func makeStore() async throws -> SpatiaLiteStore {
        let store = try TemporaryDirectory.forTestCase("citytwin-tiles").openStore()
        try await store.createLayer(try JSONDecoder().decode(LayerDefinition.self, from: Data(layerJSON.utf8)))
        try await store.insert(layer: "buildings", features: [
            Feature(id: .string("A"), geometry: block(a.x, a.y), properties: ["name": "汉口站", "owner_phone": "13812345678"]),
            Feature(id: .string("B"), geometry: block(b.x, b.y), properties: ["name": "江汉路", "owner_phone": "13912345678"]),
        ], by: owner, at: nil)
        return store
    }

    @Test("an empty tile is nil; a tile has the layer, the feature, and masked attributes stay masked")
    func tilesFromStore() async throws {
        let store = try await Self.makeStore()
        let source = TileSource(store: store)
        let empty = try await source.tile(layers: ["buildings"], tileMatrixSet: .webMercatorQuad, tile: TileID(matrix: 10, row: 0, col: 0), caller: .anonymous)
        #expect(empty == nil)
        let id = try TileMatrixSet.webMercatorQuad.tile(containing: Self.a, level: 16)
        let bytes = try #require(try await source.tile(layers: ["buildings"], tileMatrixSet: .webMercatorQuad, tile: id, caller: .anonymous))
        let layer = try #require(try VectorTile.decode(bytes).first)
        #expect(layer.name == "buildings")
        let feature = try #require(layer.features.first { $0.properties["id"] == .string("A") })
        #expect(feature.properties["name"] == .string("汉口站"))
        #expect(feature.properties["owner_phone"] != .string("13812345678"))
        try expectMVTPolygon(feature.geometry)
        // The same tile in the Tianditu-style grid (level 17 = WorldCRS84 16) has the block too.
        let c = try TileMatrixSet.cgcs2000Quad.tile(containing: Self.a, level: 17)
        let cBytes = try #require(try await source.tile(layers: ["buildings"], tileMatrixSet: .cgcs2000Quad, tile: c, caller: .admin))
        let admin = try VectorTile.decode(cBytes)[0].features.first { $0.properties["id"] == .string("A") }
        #expect(admin?.properties["owner_phone"] == .string("13812345678"))
    }

    @Test("memory holds at most maximumBytes of tiles, the least recently used dropped first; invalidation gives bytes back")
    func byteBound() throws {
        let cache = TileCache(capacity: 10_000, maximumBytes: 1_000_000)
        func key(_ col: Int) -> TileCacheKey {
            TileCacheKey(layers: ["buildings"], dataVersion: "v1", audience: "public", tileMatrixSet: "WebMercatorQuad",
                         tile: TileID(matrix: 14, row: 6715, col: col))
        }
        let tile = [UInt8](repeating: 7, count: 100_000)
        for col in 0..<9 { cache.store(key(col), bytes: tile) }
        #expect(cache.count == 9 && cache.byteCount == 9 * (100_000 + 128))
        _ = cache.tile(key(0))  // used again: the most recent now
        cache.store(key(9), bytes: tile)  // 10 tiles pass the bound: down to nine tenths of it
        #expect(cache.byteCount <= 900_000 && cache.count == 8)
        #expect(cache.tile(key(0)) != nil && cache.tile(key(9)) != nil)
        #expect(cache.tile(key(1)) == nil && cache.tile(key(2)) == nil)
        cache.store(key(9), bytes: [UInt8](repeating: 1, count: 10))  // a tile cut again replaces its bytes
        #expect(cache.byteCount == 7 * (100_000 + 128) + 10 + 128)
        #expect(cache.invalidate(layer: "buildings", envelopes: [Envelope(minX: -180, minY: -85, maxX: 180, maxY: 85)]) == 8)
        #expect(cache.count == 0 && cache.byteCount == 0)
    }

    @Test("editing one feature drops exactly the tiles covering it, at every zoom, in memory and on disk")
    func invalidation() async throws {
        let store = try await Self.makeStore()
        let source = TileSource(store: store)
        let directory = try TemporaryDirectory.forTestCase("citytwin-tilecache").url
        let cache = TileCache(capacity: 1000, directory: directory)
        func key(_ tile: TileID) -> TileCacheKey {
            TileCacheKey(layers: ["buildings"], dataVersion: "v1", audience: "public", tileMatrixSet: "WebMercatorQuad", tile: tile)
        }
        var tilesA: Set<TileID> = [], tilesB: Set<TileID> = []
        for z in 8...17 {
            tilesA.insert(try TileMatrixSet.webMercatorQuad.tile(containing: Self.a, level: z))
            tilesB.insert(try TileMatrixSet.webMercatorQuad.tile(containing: Self.b, level: z))
        }
        var before: [TileID: String] = [:]
        for tile in tilesA.union(tilesB) {
            let bytes = try await source.tile(layers: ["buildings"], tileMatrixSet: .webMercatorQuad, tile: tile, caller: .anonymous)
            before[tile] = cache.store(key(tile), bytes: bytes).etag
        }
        let sequence = try await store.layers(for: .admin).map(\.lastChange).max() ?? 0
        cache.startFollowing(after: sequence)
        #expect(try await cache.follow(store) == 0)

        // Move A by 20 m; B is untouched.
        try await store.upsert(layer: "buildings", features: [
            Feature(id: .string("A"), geometry: Self.block(Self.a.x + 0.0002, Self.a.y), properties: ["name": "汉口站", "owner_phone": "13812345678"]),
        ], by: Self.owner, at: nil)
        #expect(try await cache.follow(store) == 1)

        for tile in tilesA { #expect(cache.tile(key(tile)) == nil, "tile \(tile) covers A and must be dropped") }
        for tile in tilesB.subtracting(tilesA) { #expect(cache.tile(key(tile)) != nil, "tile \(tile) does not cover A and must stay") }
        #expect(!tilesB.subtracting(tilesA).isEmpty)   // the test separates the two at high zoom
        #expect(cache.count == tilesB.subtracting(tilesA).count)

        // Disk agrees (a fresh cache over the same directory sees only B's tiles).
        let reopened = TileCache(capacity: 1000, directory: directory)
        for tile in tilesA { #expect(reopened.tile(key(tile)) == nil) }
        for tile in tilesB.subtracting(tilesA) { #expect(reopened.tile(key(tile))?.etag == before[tile]) }

        // Re-cut: A's high-zoom tile changed content.
        let top = try TileMatrixSet.webMercatorQuad.tile(containing: Self.a, level: 17)
        let recut = try await source.tile(layers: ["buildings"], tileMatrixSet: .webMercatorQuad, tile: top, caller: .anonymous)
        #expect(cache.store(key(top), bytes: recut).etag != before[top])
    }

    @Test("gzip round-trips a tile")
    func gzip() throws {
        var layer = VectorTileLayer(name: "p")
        layer.append(TileFeature(id: 7, geometry: .point(x: 5, y: 6), properties: ["n": .string("x")]))
        let bytes = VectorTile.encode([layer])
        let gz = try TileCompression.gzip(bytes)
        #expect(TileCompression.isGzip(gz) && !TileCompression.isGzip(bytes))
        #expect(try TileCompression.gunzip(gz) == bytes)
    }
}
