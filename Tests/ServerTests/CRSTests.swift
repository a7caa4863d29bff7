import Foundation
import GeoCore
import HummingbirdTesting
import Server
import TestSupport
import Testing
import Logging
import TwinStore

@Suite("Items: OGC API Features Part 2 CRS and axis order")
struct CRSTests {
    static func coordinates(_ doc: JSONValue) -> [Double] {
        doc["geometry"]?["coordinates"]?.arrayValue?.compactMap(\.doubleValue) ?? []
    }

    @Test("the default is CRS84, lon/lat, with a Content-Crs header")
    func defaultCRS84() async throws {
        try await ServerFixture.withAPI { client in
            let r = try await client.get("/collections/shelters/items/hankou")
            #expect(r.headers[.init("Content-Crs")!] == "<http://www.opengis.net/def/crs/OGC/1.3/CRS84>")
            #expect(Self.coordinates(try r.json) == [114.3055, 30.5928])
            let page = try await client.get("/collections/shelters/items?limit=1")
            #expect(page.headers[.init("Content-Crs")!] == "<http://www.opengis.net/def/crs/OGC/1.3/CRS84>")
        }
    }

    @Test("EPSG:4547 is written northing, easting in metres (PROJ worked example for Hankou)")
    func gaussKruger() async throws {
        try await ServerFixture.withAPI { client in
            let r = try await client.get("/collections/shelters/items/hankou?crs=http://www.opengis.net/def/crs/EPSG/0/4547")
            #expect(r.status == .ok)
            #expect(r.headers[.init("Content-Crs")!] == "<http://www.opengis.net/def/crs/EPSG/0/4547>")
            let c = Self.coordinates(try r.json)
            #expect(c.count == 2)
            if c.count == 2 {
                #expect(abs(c[0] - 3_385_869.45) < 0.01, "northing first")
                #expect(abs(c[1] - 529_299.86) < 0.01, "easting second")
            }
            // The same in a page of items.
            let page = try await client.get("/collections/shelters/items?crs=EPSG:4547&bbox=114.305,30.592,114.306,30.593").json
            let first = page["features"]?.arrayValue?.first ?? .null
            #expect(Self.coordinates(first).first.map { abs($0 - 3_385_869.45) < 0.01 } == true)
        }
    }

    @Test("EPSG:4490 and EPSG:4326 are written latitude first")
    func latitudeFirst() async throws {
        try await ServerFixture.withAPI { client in
            for code in [4490, 4326] {
                let r = try await client.get("/collections/shelters/items/hankou?crs=http://www.opengis.net/def/crs/EPSG/0/\(code)")
                #expect(Self.coordinates(try r.json) == [30.5928, 114.3055])
            }
        }
    }

    @Test("bbox-crs EPSG:4490 takes the bbox latitude first; EPSG:4547 northing first")
    func bboxCRS() async throws {
        try await ServerFixture.withAPI { client in
            let lat = try await client.get(
                "/collections/shelters/items?bbox-crs=http://www.opengis.net/def/crs/EPSG/0/4490&bbox=30.5995,114.3095,30.6015,114.3115").json
            #expect(Set(lat["features"]?.arrayValue?.compactMap { $0["id"]?.stringValue } ?? []) == ["s00", "s01", "s06", "s07"])
            // 20 m around Hankou in Gauss-Krüger metres, northing first.
            let gk = try await client.get(
                "/collections/shelters/items?bbox-crs=EPSG:4547&bbox=3385859,529289,3385879,529309").json
            #expect(gk["features"]?.arrayValue?.compactMap { $0["id"]?.stringValue } == ["hankou"])
        }
    }

    @Test("an unknown or unusable CRS is a 400", arguments: ["EPSG:999999", "nonsense", "GCJ02"])
    func unknownCRS(_ crs: String) async throws {
        try await ServerFixture.withAPI { client in
            try expectProblem(try await client.get("/collections/shelters/items?crs=\(crs)"),
                              status: 400, type: "invalid-crs", naming: "crs")
            try expectProblem(try await client.get("/collections/shelters/items?bbox-crs=\(crs)&bbox=1,2,3,4"),
                              status: 400, type: "invalid-crs", naming: "bbox-crs")
        }
    }

    @Test("the collections advertise the city's metric CRS the store records: EPSG:4547 and 4526 for the sample district's zone, EPSG:32635 for Helsinki, and items are written in it")
    func cityMetricCRS() async throws {
        var logger = Logger(label: "citytwin.server.test")
        logger.logLevel = .warning
        let uri: @Sendable (Int) -> String = { "http://www.opengis.net/def/crs/EPSG/0/\($0)" }
        try await ServerFixture.withStore { store in
            let server = CityTwinServer(store: store, options: ServerOptions(baseURL: "http://test.local", logger: logger))
            try await server.makeApplication().test(.router) { client in
                // No record: the zone of the data (Wuhan, CM 114°E).
                let before = try await client.get("/collections").json["crs"]?.arrayValue?.compactMap(\.stringValue) ?? []
                #expect(before == [CoordinateReferenceSystem.crs84.uri, uri(4490), uri(4326), uri(4547), uri(4526), uri(3857)])
                try await store.recordCity(CityRecord(name: "Helsinki", metricCRS: CoordinateReferenceSystem(epsg: 32635), by: .admin), by: .admin)
                let list = try await client.get("/collections").json["crs"]?.arrayValue?.compactMap(\.stringValue) ?? []
                #expect(list == [CoordinateReferenceSystem.crs84.uri, uri(4490), uri(4326), uri(32635), uri(3857)])
                let one = try await client.get("/collections/shelters").json["crs"]?.arrayValue?.compactMap(\.stringValue) ?? []
                #expect(one == list)
                let r = try await client.get("/collections/shelters/items/hankou?crs=EPSG:32635")
                #expect(r.status == .ok && r.headers[.init("Content-Crs")!] == "<\(uri(32635))>")
            }
        }
    }
}

/// The memory a server's PROJ caches take under requests naming ever new CRSs (issue 78 §10):
/// each EPSG code in `crs=` built a transformation of about 75 KiB on each thread that served it,
/// never freed (3,000 anonymous requests: about 200 MiB). Measured on a `citytwin serve` of its
/// own (its VmRSS), so nothing else of the test process counts.
@Suite("CRS caches bounded under thousands of crs= codes", .serialized, .temporaryDirectories)
struct CRSCacheMemoryTests {
    /// `count` EPSG projected CRSs from PROJ's own database, skipping the first `skip`.
    static func projectedCodes(skip: Int, count: Int) async throws -> [Int] {
        let candidates = ["/usr/share/proj/proj.db", "/usr/local/share/proj/proj.db"]
        let database = try #require(candidates.first { FileManager.default.fileExists(atPath: $0) }, "PROJ's proj.db")
        let text = try await SQLiteShell.run(database, "SELECT code FROM projected_crs WHERE auth_name = 'EPSG' AND deprecated = 0 "
                                             + "ORDER BY CAST(code AS INTEGER) LIMIT \(count) OFFSET \(skip)", readOnly: true)
        return text.split(separator: "\n").compactMap { Int($0) }
    }

    /// `GET /collections/shelters/items?limit=1&crs=EPSG:<code>` for every code, sequentially on one
    /// connection (one curl), as a client paging through CRSs would.
    static func request(_ codes: [Int], on base: String) async throws {
        let config = FileManager.default.temporaryDirectory.appendingPathComponent("crs-\(UUID().uuidString).curl")
        defer { try? FileManager.default.removeItem(at: config) }
        try codes.map { "url = \"\(base)/collections/shelters/items?limit=1&crs=EPSG:\($0)\"\noutput = \"/dev/null\"\n" }.joined()
            .write(to: config, atomically: true, encoding: .utf8)
        let curl = try await CommandProcess.run("/usr/bin/curl", ["-s", "--noproxy", "*", "-K", config.path], within: 900)
        #expect(curl.exitStatus == 0, "\(curl.output.suffix(500))")
    }

    /// The resident set of process `pid`, in KiB (`VmRSS` of /proc/pid/status).
    static func residentKiB(_ pid: pid_t) throws -> Int {
        let status = try String(contentsOfFile: "/proc/\(pid)/status", encoding: .utf8)
        let line = try #require(status.split(separator: "\n").first { $0.hasPrefix("VmRSS:") })
        return try #require(Int(line.split(separator: " ", omittingEmptySubsequences: true)[1]))
    }

    @Test("1,000 more distinct EPSG codes in crs= leave a server's memory within 40 MiB of where 300 left it (each used to keep 75 KiB per thread)")
    func thousandsOfCodesBounded() async throws {
        let directory = try TemporaryDirectory.forTestCase("citytwin-crs-memory")
        let path = directory.appending("city.sqlite").path
        let store = try await ServerFixture.makeStore(in: directory)
        try store.close()
        let empty = directory.appending("layers")
        try FileManager.default.createDirectory(at: empty, withIntermediateDirectories: true)
        let port = try OutageHarness.freePort()
        let base = "http://127.0.0.1:\(port)"
        let server = try await CommandProcess.start(try OutageHarness.binary(), [
            "serve", "--store", path, "--host", "127.0.0.1", "--port", String(port), "--layers", empty.path, "--log-level", "warning",
        ], baseURL: base)
        defer { server.kill() }
        try await OutageHarness.eventually("citytwin serve answers /health", within: 180) {
            guard server.isRunning else { throw HarnessFailure("citytwin serve exited: \(server.output)") }
            return (try? await server.http("/health", within: 3))??.status == 200
        }
        // Warm: the first codes fill every thread's cache to its bound (and PROJ's database caches).
        try await Self.request(try await Self.projectedCodes(skip: 0, count: 300), on: base)
        let warm = try Self.residentKiB(server.processIdentifier)
        try await Self.request(try await Self.projectedCodes(skip: 300, count: 1000), on: base)
        let after = try Self.residentKiB(server.processIdentifier)
        #expect(after - warm < 40 << 10, "VmRSS grew by \((after - warm) >> 10) MiB over 1,000 more codes (from \(warm >> 10) MiB)")
        #expect(try await server.http("/collections/shelters/items/hankou?crs=EPSG:4547").status == 200)
    }
}
