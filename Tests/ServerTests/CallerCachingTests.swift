import Foundation
import GeoCore
import HummingbirdTesting
import Server
import Testing
import Tiles

/// Issue 14 §1: an answer that depends on the caller never reaches a shared cache as public,
/// and every answer varies on `Authorization` so caches key signed-in and anonymous apart.
@Suite("Cache headers by caller")
struct CallerCachingTests {
    /// Every cacheable kind of answer: tiles, items (JSON, HTML, CSV, GeoPackage), one
    /// feature, TileJSON, style, queryables, collections and the static web map assets.
    static let paths = [
        "/collections/shelters/items", "/collections/shelters/items?f=html", "/collections/shelters/items?f=csv",
        "/collections/shelters/items?f=gpkg&limit=3", "/collections/shelters/items/s01",
        "/collections/shelters/tiles/WebMercatorQuad/tilejson.json", "/tiles/WebMercatorQuad/tilejson.json",
        "/tiles/WebMercatorQuad/style.json", "/collections/shelters/queryables", "/collections", "/collections/shelters",
        "/map", "/static/maplibre-gl.js",
    ]

    /// A Web Mercator tile at level 12 holding both the shelters and the water bureau's well.
    static var tilePaths: [String] {
        get throws {
            let id = try TileMatrixSet.webMercatorQuad.tile(containing: Position(x: 114.32, y: 30.61), level: 12)
            return ["/tiles/WebMercatorQuad/\(id.matrix)/\(id.row)/\(id.col)",
                    "/collections/shelters/tiles/WebMercatorQuad/\(id.matrix)/\(id.row)/\(id.col)"]
        }
    }

    static func varies(_ r: TestResponse) -> Bool {
        (r.headers[.vary] ?? "").split(separator: ",").contains { $0.trimmingCharacters(in: .whitespaces) == "Authorization" }
    }

    @Test("with a department token every answer is private and varies on Authorization; anonymous ones vary too")
    func privateWithToken() async throws {
        try await WritableAPI.run { api in
            let token = api.token("应急管理局")
            for path in Self.paths + (try Self.tilePaths) {
                let signed = try await api.client.get(path, headers: WritableAPI.bearer(token))
                #expect(signed.status == .ok, "\(path)")
                #expect(signed.headers[.cacheControl]?.hasPrefix("private") == true, "\(path): \(signed.headers[.cacheControl] ?? "none")")
                #expect(signed.headers[.cacheControl]?.contains("public") == false, "\(path)")
                #expect(Self.varies(signed), "\(path): Vary \(signed.headers[.vary] ?? "none")")
                let anonymous = try await api.client.get(path)
                #expect(anonymous.status == .ok, "\(path)")
                #expect(Self.varies(anonymous), "\(path): Vary \(anonymous.headers[.vary] ?? "none")")
                #expect(anonymous.headers[.cacheControl]?.contains("private") != true, "\(path)")
            }
            // Tiles keep their lifetime: public for everyone, private for the signed-in.
            let tile = try Self.tilePaths[0]
            #expect(try await api.client.get(tile).headers[.cacheControl] == "public, max-age=3600")
            #expect(try await api.client.get(tile, headers: WritableAPI.bearer(token)).headers[.cacheControl] == "private, max-age=3600")
            // A 304 and a problem answer follow the same rule.
            let etag = try #require(try await api.client.get(tile, headers: WritableAPI.bearer(token)).headers[.eTag])
            var conditional = WritableAPI.bearer(token)
            conditional[.ifNoneMatch] = etag
            let notModified = try await api.client.get(tile, headers: conditional)
            #expect(notModified.status == .notModified)
            #expect(notModified.headers[.cacheControl] == "private, max-age=3600")
            let missing = try await api.client.get("/collections/wells/items", headers: WritableAPI.bearer(token))
            #expect(missing.status == .notFound)
            #expect(Self.varies(missing))
        }
    }

    @Test("signed-in and anonymous tiles differ where restricted layers are, and the server's tile cache keeps them apart")
    func tileBodiesByAccessClass() async throws {
        try await WritableAPI.run { api in
            let dataset = try Self.tilePaths[0]
            let water = WritableAPI.bearer(api.token("水务局"))
            let anonymousFirst = try await api.client.get(dataset)
            let signed = try await api.client.get(dataset, headers: water)
            let anonymousAfter = try await api.client.get(dataset)
            let signedAgain = try await api.client.get(dataset, headers: water)
            func layers(_ r: TestResponse) throws -> [String] { try VectorTile.decode(Array(buffer: r.body)).map(\.name).sorted() }
            #expect(try layers(anonymousFirst) == ["shelters"])
            #expect(try layers(signed) == ["shelters", "wells"])
            #expect(try layers(anonymousAfter) == ["shelters"])
            #expect(try layers(signedAgain) == ["shelters", "wells"])
            #expect(signed.headers[.eTag] != anonymousAfter.headers[.eTag])
            // The owner sees the manager in clear; the public never does, even after the owner's tile is cached.
            let collection = try Self.tilePaths[1]
            let owner = try await api.client.get(collection, headers: WritableAPI.bearer(api.token("应急管理局")))
            let publicTile = try await api.client.get(collection)
            func managers(_ r: TestResponse) throws -> Set<String> {
                Set(try VectorTile.decode(Array(buffer: r.body)).flatMap(\.features).compactMap { feature -> String? in
                    if case .string(let name)? = feature.properties["manager"] { name } else { nil }
                })
            }
            #expect(try managers(owner).contains("张三"))
            #expect(try !managers(publicTile).contains("张三"))
        }
    }
}
