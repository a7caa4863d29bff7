import Foundation
import GeoCore
import HTTPTypes
import HummingbirdTesting
@testable import Server
import Testing
import TwinStore

/// Issue 20 §4–5: the HTML pages share one designed look (our stylesheet from `/static/`), link
/// the rest of the site and the downloads, speak Chinese by default and English on request, say
/// that a token is needed for a layer whose existence is public, and never show a secret one.
@Suite("HTML pages: look, links, language, token-needed layers")
struct HTMLPageTests {
    /// A layer shared with every department (anonymous callers need a token) and a
    /// negative-listed one (secret: only its owner may know it exists).
    static let pipesJSON = """
        {"id": "supply_pipes", "title": {"zh": "供水管线", "en": "Supply pipes"}, "category": "时空基础",
         "owner": "水务局", "format": "vector", "updateFrequency": "monthly",
         "sharing": {"type": "shared", "method": "api", "requirements": "无条件共享"},
         "geometryType": "Point", "storageCRS": "EPSG:4490",
         "schema": {"type": "object", "properties": {"dn": {"type": "number"}}}}
        """
    static let bunkersJSON = """
        {"id": "civil_bunkers", "title": {"zh": "人防工程", "en": "Civil air defence works"}, "category": "公共专题",
         "owner": "人防办", "format": "vector", "updateFrequency": "yearly", "negativeList": true,
         "sharing": {"type": "conditional", "method": "api", "requirements": "负面清单"},
         "geometryType": "Point", "storageCRS": "EPSG:4490",
         "schema": {"type": "object", "properties": {"name": {"type": "string"}}}}
        """

    /// The writable API with the two extra layers, one feature each.
    static func run(_ body: @Sendable (WritableAPI) async throws -> Void) async throws {
        try await WritableAPI.run { api in
            let decoder = JSONDecoder()
            try await api.store.createLayer(try decoder.decode(LayerDefinition.self, from: Data(pipesJSON.utf8)))
            try await api.store.createLayer(try decoder.decode(LayerDefinition.self, from: Data(bunkersJSON.utf8)))
            try await api.store.insert(layer: "supply_pipes", features: [
                Feature(id: .string("p1"), geometry: .point(x: 114.32, y: 30.61), properties: ["dn": 300.0]),
            ], by: .department(name: "水务局", role: .editor), at: nil)
            try await api.store.insert(layer: "civil_bunkers", features: [
                Feature(id: .string("b1"), geometry: .point(x: 114.33, y: 30.62), properties: ["name": "一号工程"]),
            ], by: .department(name: "人防办", role: .editor), at: nil)
            try await body(api)
        }
    }

    static func varies(_ r: TestResponse, on name: String) -> Bool {
        (r.headers[.vary] ?? "").split(separator: ",").contains { $0.trimmingCharacters(in: .whitespaces) == name }
    }

    @Test("the landing page links collections, processes, jobs, the map and the API document, with the stylesheet, a skip link and navigation")
    func landing() async throws {
        try await ServerFixture.withAPI { client in
            let r = try await client.get("/?f=html")
            #expect(r.status == .ok)
            let page = r.text
            for href in ["href=\"/collections?f=html\"", "href=\"/processes?f=html\"", "href=\"/jobs?f=html\"", "href=\"/map\"",
                         "href=\"/api.html\"", "href=\"/api\"", "href=\"/static/citytwin.css\"", "href=\"#main\""] {
                #expect(page.contains(href), "landing page lacks \(href)")
            }
            #expect(page.contains("<html lang=\"zh-CN\">"))
            #expect(page.contains("<main id=\"main\""))
            #expect(page.contains("<nav class=\"main\""))
            #expect(page.contains("aria-current=\"page\""), "the current page is marked in the navigation")
            #expect(!page.contains("<script") && !page.contains("<style"), "no script and no inline style")
            // The JSON landing page links the processes and the job list too (OGC API Processes).
            let json = try await client.get("/").json
            #expect(linkHref(json, rel: "http://www.opengis.net/def/rel/ogc/1.0/processes") == "http://test.local/processes")
            #expect(linkHref(json, rel: "http://www.opengis.net/def/rel/ogc/1.0/job-list") == "http://test.local/jobs")
        }
    }

    @Test("every page of the OGC API is built the same way: stylesheet, navigation, its own language",
          arguments: ["/", "/conformance", "/collections", "/collections/shelters", "/collections/shelters/items",
                      "/collections/shelters/items/s01", "/processes", "/processes/geocoding", "/jobs"])
    func sameLook(_ path: String) async throws {
        try await ServerFixture.withAPI { client in
            let r = try await client.get(path + "?f=html")
            #expect(r.status == .ok, "\(path)")
            #expect(r.text.contains("<link rel=\"stylesheet\" href=\"/static/citytwin.css\">"), "\(path)")
            #expect(r.text.contains("<a class=\"skip\" href=\"#main\">"), "\(path)")
            #expect(Self.varies(r, on: "Accept-Language"), "\(path): Vary \(r.headers[.vary] ?? "none")")
            let policy = r.headers[HTTPField.Name("Content-Security-Policy")!] ?? ""
            #expect(policy.contains("style-src 'self'") && !policy.contains("unsafe-inline"), "\(path): \(policy)")
        }
    }

    @Test("the stylesheet is served locally, public, with visible focus; its colour pairs pass WCAG AA")
    func stylesheet() async throws {
        try await ServerFixture.withAPI { client in
            let r = try await client.get("/static/citytwin.css")
            #expect(r.status == .ok)
            #expect(r.contentType == "text/css; charset=utf-8")
            #expect(r.headers[.cacheControl] == "public, max-age=3600")
            #expect(r.text.contains(":focus-visible{outline:3px solid"))
            #expect(r.text.contains(".skip:focus"))
        }
        for (text, background) in PageStyle.contrastPairs {
            let ratio = PageStyle.contrast(try #require(PageStyle.palette[text]), try #require(PageStyle.palette[background]))
            #expect(ratio >= 4.5, "\(text) on \(background): \(ratio)")
        }
        for (ring, background) in PageStyle.focusPairs {
            let ratio = PageStyle.contrast(try #require(PageStyle.palette[ring]), try #require(PageStyle.palette[background]))
            #expect(ratio >= 3, "focus \(ring) on \(background): \(ratio)")
        }
        // The formula itself: black on white is 21:1, #767676 on white just passes (4.54:1).
        #expect(abs(PageStyle.contrast("#000000", "#ffffff") - 21) < 1e-9)
        #expect(abs(PageStyle.contrast("#767676", "#ffffff") - 4.54) < 0.01)
    }

    @Test("Chinese by default; English with lang=en or an Accept-Language preferring English; links keep the chosen language; a bad lang is a 400")
    func language() async throws {
        try await ServerFixture.withAPI { client in
            let zh = try await client.get("/collections?f=html").text
            #expect(zh.contains("<html lang=\"zh-CN\">") && zh.contains("<h1>图层</h1>"))
            #expect(zh.contains("应急避难场所"))
            #expect(zh.contains("href=\"/collections?f=html&amp;lang=en\""), "the switch to English")

            let en = try await client.get("/collections?f=html&lang=en").text
            #expect(en.contains("<html lang=\"en\">") && en.contains("<h1>Collections</h1>"))
            #expect(en.contains("Emergency shelters"))
            #expect(en.contains("href=\"/collections/shelters?f=html&amp;lang=en\""), "links carry lang on")
            #expect(en.contains("href=\"/processes?f=html&amp;lang=en\""), "the navigation carries lang on")

            let byHeader = try await client.get("/collections?f=html", headers: [.acceptLanguage: "en-GB,en;q=0.9,zh-CN;q=0.5"]).text
            #expect(byHeader.contains("<html lang=\"en\">"))
            let chineseFirst = try await client.get("/collections?f=html", headers: [.acceptLanguage: "zh-CN,zh;q=0.9,en;q=0.8"]).text
            #expect(chineseFirst.contains("<html lang=\"zh-CN\">"))
            let parameterWins = try await client.get("/?f=html&lang=zh", headers: [.acceptLanguage: "en"]).text
            #expect(parameterWins.contains("<html lang=\"zh-CN\">"))

            try expectProblem(try await client.get("/collections?f=json&lang=fr"), status: 400, type: "invalid-parameter", naming: "lang")
            // JSON is not translated, and lang is declared wherever f is.
            #expect(try await client.get("/collections?lang=en").status == .ok)
            #expect(try await client.get("/api.html?lang=en").text.contains("<html lang=\"en\">"))
        }
    }

    @Test("anonymous callers see a shared layer listed as needing a token, never a secret one; signed in, it is readable and the page private")
    func tokenNeeded() async throws {
        try await Self.run { api in
            let anonymous = try await api.client.get("/collections?f=html")
            #expect(anonymous.status == .ok)
            let page = anonymous.text
            #expect(page.contains("需要令牌"))
            #expect(page.contains("supply_pipes") && page.contains("供水管线"))
            #expect(!page.contains("wells") && !page.contains("供水井"), "a not-shared layer never appears")
            #expect(!page.contains("civil_bunkers") && !page.contains("人防工程"), "a negative-listed layer never appears")
            #expect(anonymous.headers[.cacheControl]?.contains("private") != true)
            #expect(Self.varies(anonymous, on: "Authorization"))
            let english = try await api.client.get("/collections?f=html&lang=en").text
            #expect(english.contains("token needed"))
            // The JSON list is what the caller may read: no token-needed entries there.
            let json = try await api.client.get("/collections").json
            #expect(json["collections"]?.arrayValue?.compactMap { $0["id"]?.stringValue } == ["shelters"])

            let token = api.token("应急管理局")
            let signed = try await api.client.get("/collections?f=html", headers: WritableAPI.bearer(token))
            #expect(signed.headers[.cacheControl]?.hasPrefix("private") == true, "\(signed.headers[.cacheControl] ?? "none")")
            #expect(!signed.text.contains("需要令牌"), "a department reads every shared layer")
            #expect(signed.text.contains("/collections/supply_pipes?f=html"))
            #expect(!signed.text.contains("civil_bunkers") && !signed.text.contains("wells"))
            let owner = try await api.client.get("/collections?f=html", headers: WritableAPI.bearer(api.token("人防办"))).text
            #expect(owner.contains("civil_bunkers"), "the owner sees its negative-listed layer")
        }
    }

    @Test("a shared collection or feature asked for anonymously is a 401: an HTML page saying a token is needed, or problem+json")
    func restrictedPages() async throws {
        try await Self.run { api in
            for path in ["/collections/supply_pipes?f=html", "/collections/supply_pipes/items?f=html", "/collections/supply_pipes/items/p1?f=html"] {
                let r = try await api.client.get(path)
                #expect(r.status == .unauthorized, "\(path)")
                #expect(r.contentType == "text/html; charset=utf-8", "\(path)")
                #expect(r.text.contains("<h1>需要令牌</h1>"), "\(path)")
                #expect(r.text.contains("Authorization: Bearer"), "\(path)")
                #expect(r.headers[.wwwAuthenticate] == "Bearer realm=\"citytwin\"", "\(path)")
            }
            let browser = try await api.client.get("/collections/supply_pipes", headers: [.accept: "text/html,application/xhtml+xml;q=0.9,*/*;q=0.8",
                                                                                         .acceptLanguage: "en"])
            #expect(browser.status == .unauthorized)
            #expect(browser.text.contains("<h1>Token needed</h1>"))
            try expectProblem(try await api.client.get("/collections/supply_pipes"), status: 401, type: "unauthorized")
            try expectProblem(try await api.client.get("/collections/supply_pipes/items/p1"), status: 401, type: "unauthorized")
            // Secret layers stay indistinguishable from missing ones, in HTML too.
            for id in ["wells", "civil_bunkers", "no_such_layer"] {
                let r = try await api.client.get("/collections/\(id)?f=html")
                #expect(r.status == .notFound, "\(id)")
                #expect(r.text.contains("<h1>未找到</h1>") && !r.text.contains("需要令牌"), "\(id)")
                try expectProblem(try await api.client.get("/collections/\(id)"), status: 404, type: "collection-not-found")
            }
            // With a token the pages answer.
            let token = WritableAPI.bearer(api.token("应急管理局"))
            #expect(try await api.client.get("/collections/supply_pipes/items/p1?f=html", headers: token).status == .ok)
        }
    }

    @Test("the collection, items and item pages link the CSV and GeoPackage downloads, and the downloads answer")
    func downloads() async throws {
        try await ServerFixture.withAPI { client in
            for path in ["/collections/shelters?f=html", "/collections/shelters/items/s01?f=html", "/collections?f=html"] {
                let page = try await client.get(path).text
                #expect(page.contains("href=\"/collections/shelters/items?f=csv\""), "\(path)")
                #expect(page.contains("href=\"/collections/shelters/items?f=gpkg\""), "\(path)")
            }
            // The items page downloads its whole selection: filters kept, paging dropped.
            let items = try await client.get("/collections/shelters/items?f=html&limit=5&capacity=150").text
            #expect(items.contains("href=\"/collections/shelters/items?capacity=150&amp;f=csv\""))
            #expect(items.contains("href=\"/collections/shelters/items?capacity=150&amp;f=gpkg\""))
            let csv = try await client.get("/collections/shelters/items?capacity=150&f=csv")
            #expect(csv.status == .ok && csv.contentType == "text/csv; charset=utf-8; header=present")
            #expect(try await client.get("/collections/shelters/items?f=gpkg").status == .ok)
        }
    }

    @Test("the processes and jobs pages list them in tables; job pages are not kept by caches without checking")
    func processesAndJobs() async throws {
        try await ServerFixture.withAPI { client in
            let processes = try await client.get("/processes?f=html").text
            #expect(processes.contains("href=\"/processes/geocoding?f=html\""))
            #expect(processes.contains("<h1>处理服务</h1>"))
            let jobs = try await client.get("/jobs?f=html")
            #expect(jobs.status == .ok)
            #expect(jobs.text.contains("<h1>任务</h1>"))
            #expect(jobs.headers[.cacheControl] == "no-cache")
        }
    }
}
