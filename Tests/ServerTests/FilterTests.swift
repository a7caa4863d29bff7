import Foundation
import GeoCore
import HummingbirdTesting
import Server
import Testing
import TwinStore

@Suite("Items: OGC API Features Part 3 filters and queryables")
struct FilterTests {
    static func ids(_ r: TestResponse) throws -> [String] {
        try r.json["features"]?.arrayValue?.compactMap { $0["id"]?.stringValue }.sorted() ?? []
    }

    static func escaped(_ s: String) -> String {
        s.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? s
    }

    @Test("a cql2-text filter selects the matching features and counts them")
    func cql2Text() async throws {
        try await ServerFixture.withAPI { client in
            // Capacities are 100 + 10·i for s00…s22 and 500 for hankou.
            let r = try await client.get("/collections/shelters/items?filter=" + Self.escaped("capacity >= 300 AND name LIKE '避难所%'"))
            #expect(r.status == .ok)
            #expect(try Self.ids(r) == ["s20", "s21", "s22"])
            #expect(try r.json["numberMatched"]?.integerValue == 3)
            // The next link keeps the filter: hankou (500) and s20 on the first page, in id order.
            let paged = try await client.get("/collections/shelters/items?limit=2&filter=" + Self.escaped("capacity >= 300"))
            let next = try #require(linkHref(try paged.json, rel: "next"))
            #expect(try Self.ids(try await client.get(relative(next))) == ["s21", "s22"])
        }
    }

    @Test("the same filter in cql2-json selects the same features; spatial literals honour filter-crs")
    func cql2JSON() async throws {
        try await ServerFixture.withAPI { client in
            let json = #"{"op": "and", "args": [{"op": ">=", "args": [{"property": "capacity"}, 300]}, {"op": "like", "args": [{"property": "name"}, "避难所%"]}]}"#
            let r = try await client.get("/collections/shelters/items?filter-lang=cql2-json&filter=" + Self.escaped(json))
            #expect(try Self.ids(r) == ["s20", "s21", "s22"])
            // A box around Hankou, in EPSG:4547 metres (northing first), as a literal.
            let box = "S_INTERSECTS(geometry, BBOX(3385859, 529289, 3385879, 529309))"
            let gk = try await client.get("/collections/shelters/items?filter-crs=EPSG:4547&filter=" + Self.escaped(box))
            #expect(try Self.ids(gk) == ["hankou"])
            let crs84 = try await client.get("/collections/shelters/items?filter=" + Self.escaped("S_INTERSECTS(geometry, POINT(114.3055 30.5928))"))
            #expect(try Self.ids(crs84) == ["hankou"])
        }
    }

    @Test("filter is ANDed with bbox and datetime")
    func andedWithBBoxAndDatetime() async throws {
        try await ServerFixture.withAPI { client in
            // Row 0 of the grid (s00…s05) lies at latitude 30.600; odd shelters were checked in 2025.
            let r = try await client.get("/collections/shelters/items?bbox=114.3095,30.5995,114.3165,30.6005&datetime=2025-06-01T08:00:00Z&filter="
                                         + Self.escaped("capacity > 110"))
            #expect(try Self.ids(r) == ["s03", "s05"])
        }
    }

    @Test("a malformed filter is a 400 naming the offset; an unknown language or property is a 400")
    func filterErrors() async throws {
        try await ServerFixture.withAPI { client in
            let r = try await client.get("/collections/shelters/items?filter=" + Self.escaped("capacity > 3 AND AND name = 'x'"))
            try expectProblem(r, status: 400, type: "invalid-filter", naming: "offset 17")
            #expect(try r.json["position"]?.stringValue == "offset 17")
            #expect(try r.json["parameter"]?.stringValue == "filter")
            let json = try await client.get("/collections/shelters/items?filter-lang=cql2-json&filter=" + Self.escaped(#"{"op": "=", "args": [{"property": "capacity"}]}"#))
            try expectProblem(json, status: 400, type: "invalid-filter", naming: "$")
            try expectProblem(try await client.get("/collections/shelters/items?filter-lang=ecql&filter=x"),
                              status: 400, type: "invalid-parameter", naming: "filter-lang")
            try expectProblem(try await client.get("/collections/shelters/items?filter=" + Self.escaped("height > 3")),
                              status: 400, type: "invalid-filter", naming: "height")
            try expectProblem(try await client.get("/collections/shelters/items?filter-crs=EPSG:999999&filter=" + Self.escaped("capacity > 3")),
                              status: 400, type: "invalid-crs", naming: "filter-crs")
        }
    }

    @Test("queryables: JSON Schema 2020-12 with types, formats and the geometry")
    func queryablesDocument() async throws {
        try await ServerFixture.withAPI { client in
            let r = try await client.get("/collections/shelters/queryables")
            #expect(r.status == .ok)
            #expect(r.contentType == "application/schema+json")
            let doc = try r.json
            #expect(doc["$schema"]?.stringValue == "https://json-schema.org/draft/2020-12/schema")
            #expect(doc["$id"]?.stringValue == "http://test.local/collections/shelters/queryables")
            #expect(doc["type"]?.stringValue == "object")
            let properties = try #require(doc["properties"]?.objectValue)
            #expect(properties["name"]?["type"]?.stringValue == "string")
            #expect(properties["capacity"]?["type"]?.stringValue == "integer")
            #expect(properties["checked_at"]?["type"]?.stringValue == "string")
            #expect(properties["checked_at"]?["format"]?.stringValue == "date-time")
            #expect(properties["geometry"]?["format"]?.stringValue == "geometry-point")
            // Masked for the public: neither listed nor usable.
            #expect(properties["phone"] == nil)
            #expect(properties["manager"] == nil)
            // The collection links to it.
            let collection = try await client.get("/collections/shelters").json
            #expect(linkHref(collection, rel: "http://www.opengis.net/def/rel/ogc/1.0/queryables") == "http://test.local/collections/shelters/queryables")
            try expectProblem(try await client.get("/collections/wells/queryables"), status: 404, type: "collection-not-found")
        }
    }

    @Test("a simple queryable works as a query parameter; other unknown parameters are still 400")
    func queryableParameters() async throws {
        try await ServerFixture.withAPI { client in
            #expect(try Self.ids(try await client.get("/collections/shelters/items?capacity=500")) == ["hankou"])
            #expect(try Self.ids(try await client.get("/collections/shelters/items?name=" + Self.escaped("避难所 3"))) == ["s03"])
            #expect(try Self.ids(try await client.get("/collections/shelters/items?capacity=500&name=" + Self.escaped("避难所 3"))) == [])
            try expectProblem(try await client.get("/collections/shelters/items?capacity=lots"),
                              status: 400, type: "invalid-parameter", naming: "capacity")
            try expectProblem(try await client.get("/collections/shelters/items?foo=bar"),
                              status: 400, type: "unknown-parameter", naming: "foo")
        }
    }

    @Test("an attribute masked for the caller cannot be filtered on (no leak); its owner can")
    func maskedAttributes() async throws {
        try await WritableAPI.run { api in
            let probe = "/collections/shelters/items?filter=" + Self.escaped("phone LIKE '138%'")
            let anonymous = try await api.client.get(probe)
            try expectProblem(anonymous, status: 400, type: "invalid-filter", naming: "phone")
            #expect(!anonymous.text.contains("13812345678"))
            try expectProblem(try await api.client.get("/collections/shelters/items?phone=13812345678"),
                              status: 400, type: "unknown-parameter", naming: "phone")
            try expectProblem(try await api.client.get("/collections/shelters/items?filter-lang=cql2-json&filter="
                                                       + Self.escaped(#"{"op": "isNull", "args": [{"property": "manager"}]}"#)),
                              status: 400, type: "invalid-filter", naming: "manager")
            // Another department that is not in visibleTo is masked too; the owner sees and filters.
            let water = WritableAPI.bearer(api.token("水务局"))
            try expectProblem(try await api.client.get(probe, headers: water), status: 400, type: "invalid-filter", naming: "phone")
            let owner = WritableAPI.bearer(api.token("应急管理局"))
            let r = try await api.client.get(probe + "&limit=100", headers: owner)
            #expect(try Self.ids(r).count == ServerFixture.shelterCount - 1)
            let q = try await api.client.get("/collections/shelters/queryables", headers: owner).json
            #expect(q["properties"]?["phone"]?["type"]?.stringValue == "string")
        }
    }
}
