import HummingbirdTesting
import Server
import Testing

@Suite("HTML representations")
struct HTMLTests {
    @Test("every resource is also HTML, by f=html or by a browser's Accept header",
          arguments: ["/", "/conformance", "/collections", "/collections/shelters", "/collections/shelters/items",
                      "/collections/shelters/items/s01"])
    func htmlEverywhere(_ path: String) async throws {
        try await ServerFixture.withAPI { client in
            let byParameter = try await client.get(path + "?f=html")
            #expect(byParameter.status == .ok)
            #expect(byParameter.contentType == "text/html; charset=utf-8")
            #expect(byParameter.text.hasPrefix("<!DOCTYPE html>"))
            let byAccept = try await client.get(path, headers: [.accept: "text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8"])
            #expect(byAccept.contentType == "text/html; charset=utf-8")
            try expectProblem(try await client.get(path + "?f=xml"), status: 400, type: "invalid-parameter", naming: "f")
        }
    }

    @Test("a property holding <script> is escaped in the items page and the feature page")
    func escaping() async throws {
        try await ServerFixture.withAPI { client in
            for path in ["/collections/shelters/items?f=html&limit=50", "/collections/shelters/items/s07?f=html"] {
                let page = try await client.get(path).text
                #expect(!page.contains("<script"))
                #expect(page.contains("&lt;script&gt;alert(&#39;x&#39;)&lt;/script&gt; 学校"))
            }
        }
    }

    @Test("the items page links the next page in HTML")
    func pagingLinks() async throws {
        try await ServerFixture.withAPI { client in
            let page = try await client.get("/collections/shelters/items?f=html&limit=10").text
            #expect(page.contains("rel=\"next\""))
            #expect(page.contains("f=html"))
        }
    }
}
