import GeoCore
import HummingbirdTesting
import Server
import Testing

@Suite("Items: query parameters")
struct ItemsParameterTests {
    @Test("an undeclared query parameter is a 400 problem naming it")
    func unknownParameter() async throws {
        try await ServerFixture.withAPI { client in
            try expectProblem(try await client.get("/collections/shelters/items?foo=bar"),
                              status: 400, type: "unknown-parameter", naming: "foo")
            try expectProblem(try await client.get("/conformance?limit=3"), status: 400, type: "unknown-parameter", naming: "limit")
            try expectProblem(try await client.get("/collections/shelters/items?limit=2&limit=3"),
                              status: 400, type: "invalid-parameter", naming: "limit")
        }
    }

    @Test("bbox selects the features that intersect it")
    func bboxSelection() async throws {
        try await ServerFixture.withAPI { client in
            // Columns 0-1 of the first two rows: s00, s01, s06, s07.
            let doc = try await client.get("/collections/shelters/items?bbox=114.3095,30.5995,114.3115,30.6015").json
            let ids = Set(doc["features"]?.arrayValue?.compactMap { $0["id"]?.stringValue } ?? [])
            #expect(ids == ["s00", "s01", "s06", "s07"])
            #expect(doc["numberMatched"] == 4)
        }
    }

    @Test("a malformed bbox is a 400 naming bbox",
          arguments: ["114.3,30.5,114.4", "114.3,30.5,114.4,30.6,1", "114.4,30.5,114.3,30.6", "114.3,30.6,114.4,30.5",
                      "a,b,c,d", "114.3,30.5,114.4,95", "114.3,30.5,nan,30.6"])
    func bboxInvalid(_ bbox: String) async throws {
        try await ServerFixture.withAPI { client in
            try expectProblem(try await client.get("/collections/shelters/items?bbox=\(bbox)"),
                              status: 400, type: "invalid-parameter", naming: "bbox")
        }
    }

    @Test("datetime selects by the temporal property; intervals may be open")
    func datetime() async throws {
        try await ServerFixture.withAPI { client in
            func count(_ q: String) async throws -> Int64? {
                try await client.get("/collections/shelters/items?datetime=\(q)").json["numberMatched"]?.integerValue
            }
            #expect(try await count("2024-03-01T08:00:00Z") == 13)
            #expect(try await count("2025-01-01T00:00:00Z/..") == 11)
            #expect(try await count("../2024-12-31T00:00:00Z") == 13)
            #expect(try await count("2024-03-01") == 13)
            try expectProblem(try await client.get("/collections/shelters/items?datetime=yesterday"),
                              status: 400, type: "invalid-parameter", naming: "datetime")
            try expectProblem(try await client.get("/collections/shelters/items?datetime=2025-01-01T00:00:00Z/2024-01-01T00:00:00Z"),
                              status: 400, type: "invalid-parameter", naming: "datetime")
        }
    }

    @Test("properties limits the returned properties; unknown names are a 400")
    func properties() async throws {
        try await ServerFixture.withAPI { client in
            let doc = try await client.get("/collections/shelters/items?properties=name,capacity&limit=3").json
            for f in doc["features"]?.arrayValue ?? [] {
                #expect(Set(f["properties"]?.objectValue?.keys.map { $0 } ?? []) == ["name", "capacity"])
            }
            try expectProblem(try await client.get("/collections/shelters/items?properties=name,height"),
                              status: 400, type: "invalid-parameter", naming: "height")
            try expectProblem(try await client.get("/collections/shelters/items?sortby=-height"),
                              status: 400, type: "invalid-parameter", naming: "sortby")
        }
    }

    @Test("a masked attribute is absent (redact) or starred (partial) for anonymous callers")
    func masking() async throws {
        try await ServerFixture.withAPI { client in
            let doc = try await client.get("/collections/shelters/items/s03").json
            #expect(doc["properties"]?["manager"] == nil)
            #expect(doc["properties"]?["phone"] == "138****5678")
            #expect(doc["properties"]?["name"] == "避难所 3")
            let page = try await client.get("/collections/shelters/items?limit=50").text
            #expect(!page.contains("张三"))
            #expect(!page.contains("13812345678"))
        }
    }
}
