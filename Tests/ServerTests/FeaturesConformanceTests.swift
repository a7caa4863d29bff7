import Foundation
import GeoCore
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import Logging
import Server
import Testing
import TwinStore

/// What a public OGC API Features conformance suite found (issue 58 §13), each against the text of
/// Part 1 (OGC 17-069r4, 1.0.1): the temporal extent's `trs`, `bbox` on a collection without
/// geometry, and the `Link` headers of /rec/core/link-header.
@Suite("OGC API Features 1: temporal reference system, bbox on a table, Link headers")
struct FeaturesConformanceTests {
    /// The one value `extent.temporal.trs` may take (Part 1's `extent.yaml`: enum and default).
    static let gregorian = "http://www.opengis.net/def/uom/ISO-8601/0/Gregorian"

    @Test("a collection's temporal extent names the Gregorian calendar by the URI Part 1 allows, in /collections and /collections/{id}")
    func temporalReferenceSystem() async throws {
        try await ServerFixture.withAPI { client in
            let one = try await client.get("/collections/shelters").json
            #expect(one["extent"]?["temporal"]?["trs"]?.stringValue == Self.gregorian)
            let listed = try await client.get("/collections").json["collections"]?.arrayValue ?? []
            let shelters = try #require(listed.first { $0["id"] == "shelters" })
            #expect(shelters["extent"]?["temporal"]?["trs"]?.stringValue == Self.gregorian)
        }
    }

    /// A table layer (no geometry) beside the fixture's shelters: three readings.
    static let readingsJSON = """
        {"id": "readings", "title": {"zh": "读数", "en": "Readings"}, "category": "物联感知",
         "owner": "应急管理局", "format": "vector", "updateFrequency": "realtime",
         "sharing": {"type": "open", "method": "api", "requirements": "无条件开放"},
         "geometryType": null, "storageCRS": "EPSG:4490",
         "schema": {"type": "object", "properties": {"value": {"type": "integer"}}}}
        """

    @Test("bbox on a collection without geometry matches every feature (Part 1 /req/core/fc-bbox-response C), and is still checked")
    func bboxOnATable() async throws {
        var logger = Logger(label: "citytwin.server.test")
        logger.logLevel = .warning
        try await ServerFixture.withStore { store in
            try await store.createLayer(try JSONDecoder().decode(LayerDefinition.self, from: Data(Self.readingsJSON.utf8)))
            try await store.insert(layer: "readings", features: (1...3).map {
                Feature(id: .string("r\($0)"), geometry: nil, properties: ["value": .integer(Int64($0))])
            }, by: ServerFixture.owner, at: nil)
            let server = CityTwinServer(store: store, options: ServerOptions(baseURL: "http://test.local", logger: logger))
            try await server.makeApplication().test(.router) { client in
                // "The bbox parameter SHALL match all features in the collection that are not associated
                // with a spatial geometry, too": a box in Europe answers all three readings.
                let europe = try await client.get("/collections/readings/items?bbox=2,48,3,49")
                #expect(europe.status == .ok)
                let doc = try europe.json
                #expect(doc["features"]?.arrayValue?.compactMap { $0["id"]?.stringValue }.sorted() == ["r1", "r2", "r3"])
                #expect(doc["numberMatched"] == 3)
                #expect(doc["features"]?.arrayValue?.allSatisfy { $0["geometry"] == .null } == true)
                // The value is still a bbox: a malformed one is refused, on a table too.
                try expectProblem(try await client.get("/collections/readings/items?bbox=3,48,2,49"),
                                  status: 400, type: "invalid-parameter", naming: "bbox")
                // A spatial collection still selects by its geometries: nothing of the shelters in Europe.
                #expect(try await client.get("/collections/shelters/items?bbox=2,48,3,49").json["features"]?.arrayValue?.isEmpty == true)
            }
        }
    }

    /// The links of an RFC 8288 `Link` header: (href, rel, type) per link.
    static func headerLinks(_ response: TestResponse) -> Set<String> {
        guard let header = response.headers[HTTPField.Name("Link")!] else { return [] }
        var links = Set<String>()
        // The server writes no comma inside a link (hrefs are percent-encoded), so a comma before '<' splits them.
        for part in header.components(separatedBy: ", <") {
            let href = part.drop { $0 == "<" }.prefix { $0 != ">" }
            // A parameter's quoted value (a type may hold ';' and '=': `…+json;version=3.0`).
            func parameter(_ name: String) -> String {
                guard let start = part.range(of: "; \(name)=\"") else { return "-" }
                return String(part[start.upperBound...].prefix { $0 != "\"" })
            }
            links.insert("\(href) \(parameter("rel")) \(parameter("type"))")
        }
        return links
    }

    /// The body's top-level links in the same form.
    static func bodyLinks(_ document: JSONValue) -> Set<String> {
        Set((document["links"]?.arrayValue ?? []).map {
            "\($0["href"]?.stringValue ?? "") \($0["rel"]?.stringValue ?? "-") \($0["type"]?.stringValue ?? "-")"
        })
    }

    @Test("the landing page, collections, a collection, a page of items (with next) and a feature send their links as Link headers too",
          arguments: ["/", "/collections", "/collections/shelters", "/collections/shelters/items?limit=5", "/collections/shelters/items/s01"])
    func linkHeaders(_ path: String) async throws {
        try await ServerFixture.withAPI { client in
            let r = try await client.get(path)
            #expect(r.status == .ok)
            let header = Self.headerLinks(r)
            let body = Self.bodyLinks(try r.json)
            #expect(!header.isEmpty, "\(path) sends no Link header")
            #expect(header == body, "\(path): the Link header \(header.sorted()) is not the body's links \(body.sorted())")
            let rels = Set(header.map { $0.split(separator: " ")[1] })
            #expect(rels.isSuperset(of: ["self", "alternate"]), "\(path): \(rels)")
            if path.contains("items?") {
                #expect(rels.isSuperset(of: ["next", "collection", "http://www.opengis.net/def/rel/ogc/1.0/queryables"]), "\(path): \(rels)")
            }
            if path.hasSuffix("/s01") { #expect(rels.contains("collection")) }
        }
    }

    @Test("HEAD answers as GET without the body (HTTP requires it of every server: RFC 9110 §9.1), with the Link header",
          arguments: ["/", "/collections", "/collections/shelters/items?limit=5"])
    func head(_ path: String) async throws {
        try await ServerFixture.withAPI { client in
            let get = try await client.get(path)
            let head = try await client.execute(uri: path, method: .head)
            #expect(head.status == .ok)
            #expect(head.body.readableBytes == 0)
            #expect(head.headers[.contentType] == get.headers[.contentType])
            #expect(Self.headerLinks(head) == Self.headerLinks(get) && !Self.headerLinks(head).isEmpty)
            if path.contains("items") {
                // Part 3's abstract test /conf/queryables/get-queryables-uris: HEAD on the features, the queryables in the Link header.
                #expect(Self.headerLinks(head).contains("http://test.local/collections/shelters/queryables http://www.opengis.net/def/rel/ogc/1.0/queryables application/schema+json"))
            }
        }
    }

    @Test("an HTML page carries the same Link header, its self the HTML and its alternate the JSON")
    func linkHeadersOnPages() async throws {
        try await ServerFixture.withAPI { client in
            let r = try await client.get("/collections/shelters/items?limit=5&f=html")
            let header = Self.headerLinks(r)
            #expect(header.contains("http://test.local/collections/shelters/items?limit=5&f=html self text/html"), "\(header.sorted())")
            #expect(header.contains("http://test.local/collections/shelters/items?limit=5&f=json alternate application/geo+json"), "\(header.sorted())")
        }
    }
}
