import Flood
import Foundation
import GeoCore
import Hummingbird
import HummingbirdTesting
import Logging
import Scenarios
import Server
import TestSupport
import Testing
import TwinStore

/// Issue 14 §9: a flood run's maximum-depth raster is a download at
/// `/collections/{depth layer}/rasters/{name}`, under the depth layer's access rules, never a
/// file path on the server.
@Suite("Result rasters")
struct RasterRouteTests {
    /// A flood depth layer as a run writes it: shared with every department, owned by the water
    /// authority (so the public may not read it).
    static let depthJSON = """
        {"id": "flood_test_depth", "title": {"zh": "测试：最大积水深度分级", "en": "flood_test: Maximum flood depth classes"},
         "category": "公共专题", "owner": "水务和湖泊局", "format": "vector", "updateFrequency": "per scenario run",
         "sharing": {"type": "shared", "method": "api", "requirements": "无条件共享"},
         "geometryType": "MultiPolygon", "storageCRS": "EPSG:4490",
         "schema": {"type": "object", "properties": {"depth_class": {"type": ["string", "null"]}}}}
        """
    static let layer = "flood_test_depth"
    static let name = "flood_test_maxdepth.asc"

    struct Fixture {
        let client: any TestClientProtocol
        let authority: TokenAuthority
        let rasters: ResultRasters

        func token(_ department: String) -> String {
            authority.issue(TokenClaims(department: department, role: .viewer, subject: "测试员", lifetime: 3600))
        }
    }

    /// The API over the fixture store plus the depth layer, with a 3 × 2 depth grid written
    /// beside it, and one more raster beside the not-shared wells layer.
    static func run(_ body: @Sendable (Fixture) async throws -> Void) async throws {
        var logger = Logger(label: "citytwin.server.test")
        logger.logLevel = .warning
        try await withTemporaryDirectory("citytwin-rasters") { dir in
            let store = try await ServerFixture.makeStore(in: dir)
            try await store.createLayer(try JSONDecoder().decode(LayerDefinition.self, from: Data(depthJSON.utf8)))
            let root = dir.appending("rasters")
            let rasters = ResultRasters(directory: root)
            let grid = try Grid(width: 3, height: 2, geoTransform: .northUp(west: 529_000, north: 3_386_000, cellWidth: 10, cellHeight: 10),
                                noData: -9999, values: [0, 0.12, 0.5, 1.25, 0, 0.031])
            try rasters.write(grid, layer: layer, name: name, precision: 3)
            try rasters.write(grid, layer: "wells", name: "wells_depth.asc")
            // A file beside the rasters that no name may reach.
            try Data("secret".utf8).write(to: root.appendingPathComponent("secret.asc"))
            let authority = try TokenAuthority(secret: (0..<32).map { _ in UInt8.random(in: 0...255) })
            let server = CityTwinServer(store: store, options: ServerOptions(baseURL: "http://test.local", logger: logger,
                                                                              tokenVerifier: authority, rasters: rasters))
            try await server.makeApplication().test(.router) { client in
                try await body(Fixture(client: client, authority: authority, rasters: rasters))
            }
        }
    }

    static func bearer(_ token: String) -> HTTPFields { [.authorization: "Bearer \(token)"] }

    @Test("a department downloads the raster: the file's bytes, its media type, a file name, private to the caller")
    func downloadEqualsFile() async throws {
        try await Self.run { f in
            let token = f.token("应急管理局")
            let path = ResultRasters.path(layer: Self.layer, name: Self.name)
            let r = try await f.client.get(path, headers: Self.bearer(token))
            #expect(r.status == .ok)
            let file = try #require(f.rasters.file(layer: Self.layer, name: Self.name))
            #expect(Array(r.body.readableBytesView) == Array(try Data(contentsOf: file)))
            #expect(r.contentType == "text/plain; charset=us-ascii; application=esri-asciigrid")
            #expect(r.headers[.contentDisposition] == "attachment; filename=\"\(Self.name)\"")
            #expect(r.headers[.cacheControl]?.hasPrefix("private") == true, "\(r.headers[.cacheControl] ?? "none")")
            #expect((r.headers[.vary] ?? "").contains("Authorization"))
            // The grid reads back as written.
            let back = try Grid(esriASCII: r.text)
            #expect(back.width == 3 && back.height == 2)
            #expect(back.values[3] == 1.25)
            // The list and the collection link to it.
            let list = try await f.client.get("/collections/\(Self.layer)/rasters", headers: Self.bearer(token)).json
            let entry = try #require(list["rasters"]?.arrayValue?.first)
            #expect(entry["name"]?.stringValue == Self.name)
            #expect(entry["href"]?.stringValue == "http://test.local" + path)
            let collection = try await f.client.get("/collections/\(Self.layer)", headers: Self.bearer(token)).json
            #expect(linkHref(collection, rel: "enclosure") == "http://test.local" + path)
        }
    }

    @Test("a caller who may not read the layer is refused: anonymous 401 naming who may; a secret layer's raster is 404")
    func restrictedCallerRefused() async throws {
        try await Self.run { f in
            let path = ResultRasters.path(layer: Self.layer, name: Self.name)
            let anonymous = try await f.client.get(path)
            try expectProblem(anonymous, status: 401, type: "unauthorized", naming: Self.layer)
            #expect(!anonymous.text.contains("ncols"))
            try expectProblem(try await f.client.get("/collections/\(Self.layer)/rasters"), status: 401, type: "unauthorized")
            // wells is not shared: another department may not know it exists; its owner may read it.
            let wells = ResultRasters.path(layer: "wells", name: "wells_depth.asc")
            try expectProblem(try await f.client.get(wells, headers: Self.bearer(f.token("应急管理局"))), status: 404, type: "collection-not-found")
            try expectProblem(try await f.client.get(wells), status: 404, type: "collection-not-found")
            #expect(try await f.client.get(wells, headers: Self.bearer(f.token("水务局"))).status == .ok)
        }
    }

    @Test("names that could leave the layer's directory, or are not rasters, are 404 and never read a file")
    func traversalRefused() async throws {
        try await Self.run { f in
            let token = f.token("应急管理局")
            for name in ["..%2Fsecret.asc", "%2E%2E%2Fsecret.asc", "..%2F..%2Fsecret.asc", "%2Fetc%2Fpasswd", "..", ".hidden.asc",
                         "flood_test_maxdepth.asc%00.png", "flood_test_maxdepth.txt", "..%5Csecret.asc", "a%2Fb.asc"] {
                let r = try await f.client.get("/collections/\(Self.layer)/rasters/\(name)", headers: Self.bearer(token))
                #expect(r.status == .notFound, "\(name): \(r.status)")
                #expect(!r.text.contains("secret") || r.contentType == "application/problem+json", "\(name)")
                #expect(r.contentType == "application/problem+json", "\(name)")
            }
            // A raster of another layer is not reachable through this one.
            let other = try await f.client.get("/collections/\(Self.layer)/rasters/wells_depth.asc", headers: Self.bearer(token))
            #expect(other.status == .notFound)
            #expect(!ResultRasters.isValidName("../secret.asc") && !ResultRasters.isValidName("a/b.asc") && !ResultRasters.isValidName(".."))
            #expect(f.rasters.file(layer: "../x", name: Self.name) == nil)
        }
    }
}
