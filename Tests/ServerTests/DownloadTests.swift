import Foundation
import GeoCore
import Hummingbird
import HummingbirdTesting
import Logging
import Server
import TestSupport
import Testing
import TwinStore

/// `f=csv` and `f=gpkg` downloads of a collection (the whole selection, masked) and `asOf`
/// time travel on `/items` and `/items/{featureId}`. The GeoPackage is read back with the
/// `sqlite3` shell (real SQLite, independent of the writer's GRDB).
@Suite(.temporaryDirectories) struct DownloadTests {
    // MARK: CSV

    @Test func csvIsTheWholeSelectionWithBOMHeaderAndWKT() async throws {
        try await ServerFixture.withAPI { client in
            // limit does not page a download: every shelter comes back.
            let r = try await client.get("/collections/shelters/items?f=csv&limit=5")
            #expect(r.status == .ok)
            #expect(r.contentType?.hasPrefix("text/csv") == true)
            #expect(r.headers[.contentDisposition] == "attachment; filename=\"shelters.csv\"")
            let bytes = Array(r.body.readableBytesView)
            #expect(Array(bytes.prefix(3)) == [0xEF, 0xBB, 0xBF], "UTF-8 byte-order mark for Excel")
            let rows = CSVRows.parse(String(decoding: bytes.dropFirst(3), as: UTF8.self))
            #expect(rows.first == ["id", "capacity", "checked_at", "manager", "name", "phone", "geometry"])
            #expect(rows.count == 1 + ServerFixture.shelterCount)
            let hankou = try #require(rows.first { $0.first == "hankou" })
            #expect(hankou[4] == "汉口")
            let point = try Geometry(wkt: hankou[6])
            #expect(point == .point(x: ServerFixture.hankou.x, y: ServerFixture.hankou.y))
            // Masking applies: phone partially starred, manager redacted, for the anonymous caller.
            let s00 = try #require(rows.first { $0.first == "s00" })
            #expect(s00[5] == "138****5678")
            #expect(s00[3] == "")
        }
    }

    @Test func csvQuotesFieldsAndFollowsFilterAndCRS() async throws {
        try await ServerFixture.withAPI { client in
            let json = try await client.get("/collections/shelters/items?filter=capacity%3E300&limit=100").json
            let expected = try #require(json["numberReturned"]?.integerValue)
            #expect(expected > 0 && expected < Int64(ServerFixture.shelterCount))
            let r = try await client.get("/collections/shelters/items?f=csv&filter=capacity%3E300&properties=name,capacity&crs=http://www.opengis.net/def/crs/EPSG/0/4547")
            #expect(r.status == .ok)
            let rows = CSVRows.parse(String(decoding: Array(r.body.readableBytesView).dropFirst(3), as: UTF8.self))
            #expect(rows.first == ["id", "name", "capacity", "geometry"])
            #expect(rows.count - 1 == Int(expected))
            // EPSG:4547 is northing, easting (metres): Hankou N 3,385,869.45 E 529,299.86.
            let hankou = try #require(rows.first { $0.first == "hankou" })
            guard case .point(let p) = try Geometry(wkt: hankou[3]), let c = p.position else {
                Issue.record("not a point: \(hankou[3])")
                return
            }
            #expect(abs(c.x - 3_385_869.45) < 0.05 && abs(c.y - 529_299.86) < 0.05)
        }
    }

    @Test func csvFieldWithCommaQuoteAndNewlineIsQuoted() async throws {
        let server = try await Self.server()
        try await server.store.insert(layer: "shelters", features: [
            Feature(id: .string("q1"), geometry: .point(x: 114.3, y: 30.6), properties: ["name": "A, \"B\"\r\nC"]),
        ], by: ServerFixture.owner, at: nil)
        try await server.makeApplication().test(.router) { client in
            let r = try await client.get("/collections/shelters/items?f=csv&properties=name")
            let text = String(decoding: Array(r.body.readableBytesView).dropFirst(3), as: UTF8.self)
            #expect(text.contains("q1,\"A, \"\"B\"\"\r\nC\",POINT (114.3 30.6)\r\n"))
            let row = try #require(CSVRows.parse(text).first { $0.first == "q1" })
            #expect(row[1] == "A, \"B\"\r\nC")
        }
    }

    // MARK: GeoPackage

    @Test func geoPackageIsAValidFeatureTable() async throws {
        try await ServerFixture.withAPI { client in
            let r = try await client.get("/collections/shelters/items?f=gpkg&limit=3")
            #expect(r.status == .ok)
            #expect(r.contentType == "application/geopackage+sqlite3")
            let file = try Self.write(Array(r.body.readableBytesView), name: "shelters.gpkg")
            #expect(try await SQLiteShell.scalar(file, "PRAGMA application_id") == "1196444487")
            #expect(try await SQLiteShell.scalar(file, "PRAGMA user_version") == "10300")
            #expect(try await SQLiteShell.scalar(file, "SELECT data_type || ' ' || srs_id FROM gpkg_contents WHERE table_name = 'shelters'") == "features 4490")
            #expect(try await SQLiteShell.scalar(file, "SELECT geometry_type_name || ' ' || srs_id FROM gpkg_geometry_columns WHERE table_name = 'shelters'") == "POINT 4490")
            #expect(try await SQLiteShell.scalar(file, "SELECT group_concat(srs_id) FROM (SELECT srs_id FROM gpkg_spatial_ref_sys ORDER BY srs_id)") == "-1,0,4326,4490")
            #expect(try await SQLiteShell.scalar(file, "SELECT count(*) FROM shelters") == String(ServerFixture.shelterCount))
            // Columns typed from the layer schema.
            #expect(try await SQLiteShell.scalar(file, "SELECT group_concat(name || ':' || type) FROM pragma_table_info('shelters')")
                    == "fid:INTEGER,id:TEXT,capacity:INTEGER,checked_at:DATETIME,manager:TEXT,name:TEXT,phone:TEXT,geom:POINT")
            #expect(try await SQLiteShell.scalar(file, "SELECT typeof(capacity) || ' ' || capacity FROM shelters WHERE id = 'hankou'") == "integer 500")
            #expect(try await SQLiteShell.scalar(file, "SELECT phone FROM shelters WHERE id = 's00'") == "138****5678")
            // The geometry: GeoPackage binary header (GP, version 0, flags, SRS id) then ISO WKB.
            let hex = try await SQLiteShell.scalar(file, "SELECT hex(geom) FROM shelters WHERE id = 'hankou'")
            let blob = try #require(Self.bytes(hex: hex))
            #expect(Array(blob.prefix(2)) == [0x47, 0x50])
            #expect(blob[2] == 0 && blob[3] & 0x01 == 1)
            #expect(blob[4..<8].withUnsafeBytes { $0.loadUnaligned(as: Int32.self) }.littleEndian == 4490)
            let envelopeBytes = [0, 32, 48, 48, 64][Int((blob[3] >> 1) & 0x07)]
            let geometry = try Geometry(wkb: blob[(8 + envelopeBytes)...])
            #expect(geometry == .point(x: ServerFixture.hankou.x, y: ServerFixture.hankou.y))
        }
    }

    @Test func geoPackageInWGS84AndUnsupportedCRS() async throws {
        try await ServerFixture.withAPI { client in
            let r = try await client.get("/collections/shelters/items?f=gpkg&crs=http://www.opengis.net/def/crs/OGC/1.3/CRS84")
            #expect(r.status == .ok)
            let file = try Self.write(Array(r.body.readableBytesView), name: "wgs84.gpkg")
            #expect(try await SQLiteShell.scalar(file, "SELECT srs_id FROM gpkg_geometry_columns") == "4326")
            let bad = try await client.get("/collections/shelters/items?f=gpkg&crs=http://www.opengis.net/def/crs/EPSG/0/4547")
            try expectProblem(bad, status: 400, type: "invalid-crs", naming: "crs")
        }
    }

    @Test func hiddenCollectionCannotBeDownloaded() async throws {
        try await ServerFixture.withAPI { client in
            for f in ["csv", "gpkg"] {
                let r = try await client.get("/collections/wells/items?f=\(f)")
                try expectProblem(r, status: 404, type: "collection-not-found")
            }
        }
    }

    // MARK: asOf

    @Test func asOfReadsThePastStateOfALayer() async throws {
        let server = try await Self.server()
        let day: TimeInterval = 86_400
        let t2020 = Date(timeIntervalSince1970: 1_577_836_800)  // 2020-01-01T00:00:00Z
        try await server.store.insert(layer: "shelters", features: [
            Feature(id: .string("old"), geometry: .point(x: 114.30, y: 30.58), properties: ["name": "旧名"]),
        ], by: ServerFixture.owner, at: t2020)
        try await server.store.upsert(layer: "shelters", features: [
            Feature(id: .string("old"), geometry: .point(x: 114.30, y: 30.58), properties: ["name": "新名"]),
        ], by: ServerFixture.owner, at: t2020.addingTimeInterval(365 * day))
        try await server.makeApplication().test(.router) { client in
            // Mid-2020: only the feature inserted then, with its first name.
            let then = try await client.get("/collections/shelters/items?asOf=2020-06-01T00:00:00Z").json
            #expect(then["numberReturned"]?.integerValue == 1)
            #expect(then["features"]?.arrayValue?.first?["properties"]?["name"]?.stringValue == "旧名")
            let one = try await client.get("/collections/shelters/items/old?asOf=2020-06-01T00:00:00Z").json
            #expect(one["properties"]?["name"]?.stringValue == "旧名")
            let now = try await client.get("/collections/shelters/items/old").json
            #expect(now["properties"]?["name"]?.stringValue == "新名")
            // Before the insert the feature did not exist.
            let before = try await client.get("/collections/shelters/items/old?asOf=2019-06-01T00:00:00Z")
            try expectProblem(before, status: 404, type: "feature-not-found")
            let none = try await client.get("/collections/shelters/items?asOf=2019-06-01T00:00:00Z").json
            #expect(none["numberReturned"]?.integerValue == 0)
            // A download of the past state.
            let csv = try await client.get("/collections/shelters/items?f=csv&asOf=2020-06-01T00:00:00Z")
            #expect(CSVRows.parse(String(decoding: Array(csv.body.readableBytesView).dropFirst(3), as: UTF8.self)).count == 2)
        }
    }

    @Test(arguments: ["yesterday", "2024-05-01", "2024-13-01T00:00:00Z", ""])
    func invalidAsOfIsA400NamingIt(_ value: String) async throws {
        try await ServerFixture.withAPI { client in
            try expectProblem(try await client.get("/collections/shelters/items?asOf=\(value)"), status: 400,
                              type: "invalid-parameter", naming: "asOf")
            try expectProblem(try await client.get("/collections/shelters/items/hankou?asOf=\(value)"), status: 400,
                              type: "invalid-parameter", naming: "asOf")
        }
    }

    @Test func asOfIsDeclaredInTheOpenAPIDocument() async throws {
        try await ServerFixture.withAPI { client in
            let doc = try await client.get("/api").json
            for path in ["/collections/{collectionId}/items", "/collections/{collectionId}/items/{featureId}"] {
                let refs = doc["paths"]?[path]?["get"]?["parameters"]?.arrayValue?.compactMap { $0["$ref"]?.stringValue } ?? []
                #expect(refs.contains("#/components/parameters/asOf"), "\(path)")
            }
            #expect(doc["components"]?["parameters"]?["asOf"]?["schema"]?["format"]?.stringValue == "date-time")
        }
    }

    @Test("the OpenAPI document offers f=csv and f=gpkg on items, and only json/html elsewhere")
    func downloadFormatsAreDeclared() async throws {
        try await ServerFixture.withAPI { client in
            let doc = try await client.get("/api").json
            let refs = doc["paths"]?["/collections/{collectionId}/items"]?["get"]?["parameters"]?.arrayValue?.compactMap { $0["$ref"]?.stringValue } ?? []
            let key = try #require(refs.first { ref in
                doc["components"]?["parameters"]?[String(ref.split(separator: "/").last!)]?["name"]?.stringValue == "f"
            }).split(separator: "/").last.map(String.init)!
            let items = doc["components"]?["parameters"]?[key]?["schema"]?["enum"]?.arrayValue?.compactMap(\.stringValue)
            #expect(items == ["json", "html", "csv", "gpkg"])
            #expect(doc["components"]?["parameters"]?["f"]?["schema"]?["enum"]?.arrayValue?.compactMap(\.stringValue) == ["json", "html"])
        }
    }

    // MARK: helpers

    static func server() async throws -> CityTwinServer {
        var logger = Logger(label: "citytwin.server.test")
        logger.logLevel = .warning
        return CityTwinServer(store: try await ServerFixture.makeStore(in: .forTestCase("citytwin-server")), options: ServerOptions(baseURL: "http://test.local", logger: logger))
    }

    static func write(_ bytes: [UInt8], name: String) throws -> String {
        let url = try TemporaryDirectory.forTestCase("citytwin-download").appending(name)
        try Data(bytes).write(to: url)
        return url.path
    }

    static func bytes(hex: String) -> [UInt8]? {
        let chars = Array(hex.utf8)
        guard chars.count % 2 == 0 else { return nil }
        var out = [UInt8]()
        for i in stride(from: 0, to: chars.count, by: 2) {
            guard let b = UInt8(String(decoding: chars[i...i + 1], as: UTF8.self), radix: 16) else { return nil }
            out.append(b)
        }
        return out
    }
}

/// RFC 4180 records, through the project's one CSV reader (GeoCore's `CSVRecords`).
enum CSVRows {
    static func parse(_ text: String) -> [[String]] {
        (try? CSVRecords.all(text)) ?? []
    }
}
