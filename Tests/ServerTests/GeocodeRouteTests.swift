import CityModel
import Foundation
import GeoCore
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import Logging
import NIOCore
import Server
import Testing
import TestSupport
import TwinStore

/// `/geocode` as clients call it (issue 58 §11): an address typed into curl's URL goes out as raw
/// UTF-8, and a table saved by Excel on a Chinese Windows is GBK.
@Suite("/geocode: raw UTF-8 in the URL, GBK tables")
struct GeocodeRouteTests {
    /// `name,address` and one door plate of the sample district, in GBK (what `iconv -t GBK` writes).
    static let gbkTable: [UInt8] = [110, 97, 109, 101, 44, 97, 100, 100, 114, 101, 115, 115, 10,
                                    97, 44, 219, 165, 179, 199, 198, 223, 194, 183, 50, 54, 186, 197, 10]
    static let utf8Table = "name,address\na,邾城七路26号\n"

    /// The API over the sample district's standard addresses, on a port, with a token of 应急管理局.
    static func withAPI(_ body: @Sendable (any TestClientProtocol, HTTPEndpoint, String) async throws -> Void) async throws {
        var logger = Logger(label: "citytwin.server.test")
        logger.logLevel = .critical
        let layers = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("Layers")
        let catalog = try LayerCatalog.load(directory: layers)
        let district = try SampleDistrict.generate()
        try await withTemporaryDirectory("citytwin-geocode") { directory in
            let store = try directory.openStore()
            let definition = try #require(catalog["addresses"])
            try await store.createLayer(definition)
            // The district's door plates carry heights; the layer stores 2D (as `district build` writes it).
            let addresses = district[layer: "addresses"].map { address in
                var flat = address
                flat.geometry = address.geometry?.mapPositions { $0.xy }
                return flat
            }
            try await store.insert(layer: "addresses", features: addresses, by: .admin, at: nil)
            let authority = try TokenAuthority(secret: (0..<32).map { _ in UInt8.random(in: 0...255) })
            let token = authority.issue(TokenClaims(department: "应急管理局", role: .viewer, subject: "测试", lifetime: 3600))
            let server = CityTwinServer(store: store, options: ServerOptions(baseURL: "http://test.local", logger: logger, tokenVerifier: authority))
            try await server.makeApplication(address: .hostname("127.0.0.1", port: 0)).test(.live) { client in
                try await body(client, HTTPEndpoint(baseURL: "http://127.0.0.1:\(try #require(client.port))"), token)
            }
        }
    }

    @Test("GET /geocode?q=邾城七路26号 as curl sends it (raw UTF-8) finds the door plate, as the percent-encoded query does")
    func rawUTF8Query() async throws {
        try await Self.withAPI { _, endpoint, token in
            let raw = try #require(try await endpoint.http("/geocode?q=邾城七路26号", headers: ["Authorization: Bearer \(token)"], within: 60))
            #expect(raw.status == 200, "\(raw.status) \(raw.body.prefix(300))")
            let encoded = try #require(try await endpoint.http("/geocode?q=%E9%82%BE%E5%9F%8E%E4%B8%83%E8%B7%AF26%E5%8F%B7",
                                                                headers: ["Authorization: Bearer \(token)"], within: 60))
            #expect(raw.body == encoded.body)
            let match = try JSONDecoder().decode(JSONValue.self, from: Data(raw.body.utf8))
            #expect(match["input"] == "邾城七路26号" && match["match_level"] == "门牌" && match["confidence"]?.doubleValue == 1, "\(match)")
        }
    }

    @Test("POST /geocode reads a GBK table when Content-Type says charset=gbk (or GB18030) and answers as for UTF-8; an unknown charset is 415, a GBK body called UTF-8 a 400 that says how")
    func gbkTable() async throws {
        try await Self.withAPI { client, endpoint, token in
            // The first geocode builds the address index; with the whole suite on two cores that took
            // longer than the live client's fixed 20 s read limit, so a patient request builds it first.
            _ = try await endpoint.http("/geocode?q=%E9%82%BE%E5%9F%8E%E4%B8%83%E8%B7%AF26%E5%8F%B7",
                                        headers: ["Authorization: Bearer \(token)"], within: 240)
            func post(_ body: [UInt8], _ type: String) async throws -> TestResponse {
                try await client.execute(uri: "/geocode", method: .post,
                                         headers: [.authorization: "Bearer \(token)", .contentType: type], body: ByteBuffer(bytes: body))
            }
            let utf8 = try await post(Array(Self.utf8Table.utf8), "text/csv")
            #expect(utf8.status == .ok)
            #expect(String(buffer: utf8.body).contains("a,邾城七路26号,"), "\(String(buffer: utf8.body))")
            for type in ["text/csv; charset=gbk", "text/csv;charset=\"GB18030\"", "text/csv; header=present; charset=GB2312"] {
                let gbk = try await post(Self.gbkTable, type)
                #expect(gbk.status == .ok, "\(type): \(String(buffer: gbk.body).prefix(300))")
                #expect(String(buffer: gbk.body) == String(buffer: utf8.body), "\(type): the same table as from UTF-8")
            }
            let unknown = try await post(Self.gbkTable, "text/csv; charset=latin1")
            try expectProblem(unknown, status: 415, type: "unsupported-media-type")
            let mislabelled = try await post(Self.gbkTable, "text/csv")
            try expectProblem(mislabelled, status: 400, type: "invalid-body")
            #expect(String(buffer: mislabelled.body).contains("charset=gbk"))
        }
    }
    @Test("POST /geocode: a table cell a spreadsheet would take for a formula comes back as text behind a single quote; the appended numbers stay numbers")
    func formulaCells() async throws {
        try await Self.withAPI { client, endpoint, token in
            _ = try await endpoint.http("/geocode?q=%E9%82%BE%E5%9F%8E%E4%B8%83%E8%B7%AF26%E5%8F%B7",
                                        headers: ["Authorization: Bearer \(token)"], within: 240)
            let table = "name,address,note\n=HYPERLINK(\"http://evil.example\"),邾城七路26号,@cmd\n"
            let r = try await client.execute(uri: "/geocode", method: .post,
                                             headers: [.authorization: "Bearer \(token)", .contentType: "text/csv"], body: ByteBuffer(string: table))
            #expect(r.status == .ok)
            let lines = String(buffer: r.body).split(separator: "\n").map(String.init)
            #expect(lines.count == 2, "\(lines)")
            let row = try #require(lines.last)
            #expect(row.hasPrefix(#""'=HYPERLINK(""http://evil.example"")",邾城七路26号,"'@cmd","#), "\(row)")
            // address_code, match_level, confidence 1.0, matched_address, lon, lat: numbers as numbers.
            let fields = row.split(separator: ",", omittingEmptySubsequences: false).map(String.init)
            #expect(fields.count == 10 && fields[5] == "1.0" && Double(fields[7]) != nil && Double(fields[8]) != nil, "\(fields)")
        }
    }
}
