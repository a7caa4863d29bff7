import GeoCore
import HummingbirdTesting
import Server
import Testing

@Suite("Items: keyset paging and limit")
struct ItemsPagingTests {
    @Test("an empty selection is one page without next")
    func emptyPage() async throws {
        try await ServerFixture.withAPI { client in
            let r = try await client.get("/collections/shelters/items?bbox=100,10,100.1,10.1")
            #expect(r.status == .ok)
            #expect(r.contentType == "application/geo+json")
            let doc = try r.json
            #expect(doc["type"] == "FeatureCollection")
            #expect(doc["features"]?.arrayValue?.isEmpty == true)
            #expect(doc["numberReturned"] == 0)
            #expect(doc["numberMatched"] == 0)
            #expect(linkHref(doc, rel: "next") == nil)
        }
    }

    @Test("walking next to the end sees every feature exactly once, in id order, no next on the last page")
    func walkNext() async throws {
        try await ServerFixture.withAPI { client in
            var uri: String? = "/collections/shelters/items?limit=5"
            var seen = [String]()
            var pages = 0
            while let u = uri {
                let doc = try await client.get(u).json
                let ids = doc["features"]?.arrayValue?.compactMap { $0["id"]?.stringValue } ?? []
                #expect(doc["numberReturned"]?.integerValue == Int64(ids.count))
                #expect(doc["numberMatched"]?.integerValue == Int64(ServerFixture.shelterCount))
                #expect(doc["timeStamp"]?.stringValue != nil)
                #expect(linkHref(doc, rel: "collection") == "http://test.local/collections/shelters")
                seen += ids
                pages += 1
                uri = linkHref(doc, rel: "next", type: "application/geo+json").map(relative)
                if uri != nil { #expect(ids.count == 5) }
                if pages > 10 { break }
            }
            #expect(pages == 5)
            #expect(seen.count == ServerFixture.shelterCount)
            #expect(Set(seen).count == seen.count)
            #expect(seen == seen.sorted())
        }
    }

    @Test("paging sorted by descending capacity keeps the order across pages")
    func walkSorted() async throws {
        try await ServerFixture.withAPI { client in
            var uri: String? = "/collections/shelters/items?limit=7&sortby=-capacity"
            var capacities = [Int64]()
            var ids = Set<String>()
            while let u = uri, capacities.count < 100 {
                let doc = try await client.get(u).json
                for f in doc["features"]?.arrayValue ?? [] {
                    capacities.append(f["properties"]?["capacity"]?.integerValue ?? -1)
                    ids.insert(f["id"]?.stringValue ?? "")
                }
                uri = linkHref(doc, rel: "next").map(relative)
            }
            #expect(ids.count == ServerFixture.shelterCount)
            #expect(capacities == capacities.sorted(by: >))
        }
    }

    @Test("limit above 10000 is clamped, not rejected")
    func limitClamped() async throws {
        try await ServerFixture.withAPI { client in
            for limit in ["10001", "99999999999999999999999"] {
                let r = try await client.get("/collections/shelters/items?limit=\(limit)")
                #expect(r.status == .ok)
                let doc = try r.json
                #expect(doc["numberReturned"]?.integerValue == Int64(ServerFixture.shelterCount))
                #expect(linkHref(doc, rel: "next") == nil)
            }
        }
    }

    @Test("limit below 1 or not an integer is a 400 naming limit", arguments: ["0", "-3", "1.5", "ten", ""])
    func limitInvalid(_ limit: String) async throws {
        try await ServerFixture.withAPI { client in
            try expectProblem(try await client.get("/collections/shelters/items?limit=\(limit)"),
                              status: 400, type: "invalid-parameter", naming: "limit")
        }
    }

    @Test("a cursor this server did not issue is a 400 naming cursor")
    func foreignCursor() async throws {
        try await ServerFixture.withAPI { client in
            try expectProblem(try await client.get("/collections/shelters/items?cursor=not-a-cursor"),
                              status: 400, type: "invalid-parameter", naming: "cursor")
        }
    }
}
