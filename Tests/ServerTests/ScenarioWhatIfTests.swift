import CityModel
import Flood
import Foundation
import GeoCore
import Hummingbird
import HummingbirdTesting
import Logging
import ProcessRuntime
import Scenarios
@testable import Server
import TestSupport
import Testing
import TwinStore

/// What-if stays what-if (issue 77 §2): a scenario run by the water authority is a draft of its
/// owner, on no other department's map or API listing (collections, WMS/WMTS/WFS capabilities,
/// vector tiles and their style, the change feed, `/scenarios`, the depth over time, prints,
/// process answers) until the owner publishes it; then every department sees it marked
/// 情景（非实况） (titles, `whatIf` and `conditions` in the API, the style's metadata that the web
/// map's tree, legend and popups read), never on by default; archived, it is the owner's again.
/// Quick settings as `ScenarioAPITests`: the storm at 3 % of its duration, 100 m cells.
@Suite("Scenario results: drafts of their owner, shared as what-if", .serialized)
struct ScenarioWhatIfTests {
    static let water = "水务和湖泊局"
    static let others = ["应急管理局", "消防救援大队", "公安局"]
    static let label = "情景（非实况）"
    static let stem = "scenario_pl_quick"
    static let depth = stem + "_depth"
    /// A box over the sample district (CRS84) for prints and area counts.
    static let box = (west: 114.70, south: 30.78, east: 114.90, north: 30.92)

    struct API: Sendable {
        let client: any TestClientProtocol
        let store: SpatiaLiteStore
        let authority: TokenAuthority

        func token(_ department: String, _ role: TokenClaims.Role = .editor) -> String {
            authority.issue(TokenClaims(department: department, role: role, subject: "测试员", lifetime: 3600))
        }

        func send(_ method: HTTPRequest.Method, _ uri: String, token: String? = nil, body: JSONValue? = nil) async throws -> TestResponse {
            var headers = HTTPFields()
            if let token { headers[.authorization] = "Bearer \(token)" }
            if body != nil { headers[.contentType] = "application/json" }
            let text = try body.map { String(decoding: try JSONEncoder().encode($0), as: UTF8.self) }
            return try await client.execute(uri: uri, method: method, headers: headers, body: text.map { ByteBuffer(string: $0) })
        }

        func get(_ uri: String, _ token: String?) async throws -> TestResponse { try await send(.get, uri, token: token) }

        /// The style's layers of the web map as `token` gets them.
        func style(_ token: String) async throws -> [JSONValue] {
            try await get("/tiles/WebMercatorQuad/style.json", token).json["layers"]?.arrayValue ?? []
        }

        /// The ids of the collections `token` is listed.
        func collections(_ token: String) async throws -> [String] {
            try await get("/collections", token).json["collections"]?.arrayValue?.compactMap { $0["id"]?.stringValue } ?? []
        }

        /// `features-in-area` over the district on `layer`, as `token`.
        func countIn(_ layer: String, _ token: String) async throws -> TestResponse {
            let b = ScenarioWhatIfTests.box
            let ring: JSONValue = [[.number(b.west), .number(b.south)], [.number(b.east), .number(b.south)], [.number(b.east), .number(b.north)],
                                   [.number(b.west), .number(b.north)], [.number(b.west), .number(b.south)]]
            return try await send(.post, "/processes/features-in-area/execution", token: token,
                                  body: ["inputs": ["layer": .string(layer), "area": ["type": "Polygon", "coordinates": [ring]]]])
        }

        func print(_ layer: String, _ token: String) async throws -> TestResponse {
            let b = ScenarioWhatIfTests.box
            return try await get("/map/print?layers=\(layer)&bbox=\(b.west),\(b.south),\(b.east),\(b.north)&title=%E6%83%85%E6%99%AF", token)
        }
    }

    static func run(_ body: @Sendable (API) async throws -> Void) async throws {
        var logger = Logger(label: "citytwin.server.test")
        logger.logLevel = .warning
        try await withTemporaryDirectory("scenario-what-if") { dir in
            let store = try dir.openStore("district.sqlite")
            try await DistrictLoader.build(into: store, layersDirectory: ScenarioAPITests.repository.appendingPathComponent("Layers"))
            let rasters = ResultRasters.beside(storeDirectory: dir.url)
            let authority = try TokenAuthority(secret: (0..<32).map { _ in UInt8.random(in: 0...255) })
            let server = CityTwinServer(store: store, options: ServerOptions(
                baseURL: "http://test.local", logger: logger, tokenVerifier: authority,
                processes: .forStore(directory: dir.url, rasters: rasters), rasters: rasters))
            try await server.makeApplication().test(.router) { client in
                try await body(API(client: client, store: store, authority: authority))
            }
        }
    }

    /// What `token` (another department) must not see of the draft: no trace anywhere.
    static func seesNothing(_ api: API, _ token: String, _ who: String, layers: [String], since start: Int64) async throws {
        let listed = try await api.collections(token)
        #expect(!listed.contains { $0.hasPrefix(stem) } && !listed.contains(ScenarioCatalog.layerID), "\(who): /collections lists \(listed.filter { $0.hasPrefix("scenario") })")
        for layer in layers {
            try expectProblem(try await api.get("/collections/\(layer)", token), status: 404, type: "collection-not-found")
            try expectProblem(try await api.get("/collections/\(layer)/items", token), status: 404, type: "collection-not-found")
            try expectProblem(try await api.get("/collections/\(layer)/tiles/WebMercatorQuad/12/1660/3401", token), status: 404, type: "collection-not-found")
            try expectProblem(try await api.get("/collections/\(layer)/changes", token), status: 404, type: "collection-not-found")
        }
        #expect(try await api.get("/collections/\(depth)/timesteps", token).status == .notFound, "\(who): the depth over time")
        for uri in ["/wms?SERVICE=WMS&REQUEST=GetCapabilities", "/wmts/1.0.0/WMTSCapabilities.xml", "/wfs?SERVICE=WFS&REQUEST=GetCapabilities",
                    "/tiles/WebMercatorQuad/style.json", "/tiles/WebMercatorQuad/tilejson.json"] {
            let text = try await api.get(uri, token).text
            #expect(!text.contains(stem) && !text.contains(label), "\(who): \(uri) names the draft")
        }
        #expect(try await api.get("/scenarios", token).json["scenarios"] == [], "\(who): /scenarios lists the draft")
        try expectProblem(try await api.get("/scenarios/pl-quick", token), status: 404, type: "not-found")
        #expect(try await api.print(depth, token).status == .notFound, "\(who): prints the draft")
        #expect(try await api.countIn(depth, token).status.code >= 400, "\(who): a process reads the draft")
        // The change feed the stream sends (`/changes` pages): no event of the draft's layers.
        let feed = try await changes(api.store, .department(name: who, role: .editor, user: "测试员"), after: start, layers: nil)
        #expect(!feed.contains { $0.event.layer.hasPrefix(stem) || $0.event.layer == ScenarioCatalog.layerID }, "\(who): the change feed")
    }

    /// Every message of the change feed after `start` that `caller` is sent (as `/changes` pages them).
    static func changes(_ store: SpatiaLiteStore, _ caller: Caller, after start: Int64, layers: Set<String>?) async throws -> [ChangeSubscription.Message] {
        let subscription = ChangeSubscription(store: store, caller: caller, layers: layers)
        var cursor = start, out: [ChangeSubscription.Message] = []
        for _ in 0..<1000 {
            let page = try await subscription.page(after: cursor)
            out += page.messages
            cursor = page.cursor
            if !page.more { break }
        }
        return out
    }

    @Test("水务's scenario is its draft: on no other department's map or listing; published, marked 情景（非实况） everywhere and off by default; archived, the owner's again")
    func draftPublishedArchived() async throws {
        try await Self.run { api in
            let water = api.token(Self.water)
            let others = Self.others.map { ($0, api.token($0)) }
            let start = try await api.store.latestChange()
            let created = try await api.send(.post, "/scenarios", token: water, body: [
                "id": "pl-quick", "title": "pl-quick",
                "parameters": ["model": "p50-waterlogging", "durationScale": 0.03, "demCoarsening": 10, "outputIntervalMinutes": 1],
            ])
            #expect(created.status == .created, "\(created.text)")
            let run = try await api.send(.post, "/scenarios/pl-quick/run", token: water)
            #expect(run.status == .created, "\(run.text)")
            let done = try await ScenarioAPITests.finish(api.client, try #require(run.headers[.location]), token: water)
            #expect(done["status"] == "successful", "\(done)")

            // The owner sees its draft, marked what-if.
            let mine = try await api.get("/scenarios/pl-quick", water).json
            #expect(mine["state"] == "draft" && mine["whatIf"] == true && mine["conditions"]?["scenarios"] == ["pl-quick"], "\(mine)")
            let layers = mine["resultLayers"]?.arrayValue?.compactMap(\.stringValue) ?? []
            #expect(layers.contains(Self.depth) && layers.count >= 4, "\(layers)")
            let listedForOwner = try await api.get("/scenarios", water).json["scenarios"]?.arrayValue ?? []
            #expect(listedForOwner.map { $0["state"] } == ["draft"])
            let ownCollection = try await api.get("/collections/\(Self.depth)", water).json
            #expect(ownCollection["title"]?.stringValue?.hasPrefix("【\(Self.label)】") == true && ownCollection["whatIf"] == true, "\(ownCollection)")
            let ownStyle = try await api.style(water).filter { $0["metadata"]?["citytwin:collection"]?.stringValue?.hasPrefix(Self.stem) == true }
            #expect(!ownStyle.isEmpty && ownStyle.allSatisfy { $0["layout"]?["visibility"] == "none" && $0["metadata"]?["citytwin:whatIf"] == true },
                    "the owner's map: marked, off by default")

            // Every other department: nothing of it, anywhere.
            for (name, token) in others { try await Self.seesNothing(api, token, name, layers: layers, since: start) }
            // Nor the public.
            #expect(try await api.get("/scenarios", nil).json["scenarios"] == [])
            #expect(!(try await api.get("/collections", nil).text.contains(Self.stem)))

            // Only the owner's editors publish: 401 for the public, 403 for another department and a viewer of the owner.
            try expectProblem(try await api.send(.post, "/scenarios/pl-quick/publish"), status: 401, type: "unauthorized")
            try expectProblem(try await api.send(.post, "/scenarios/pl-quick/publish", token: others[0].1), status: 403, type: "forbidden")
            try expectProblem(try await api.send(.post, "/scenarios/pl-quick/publish", token: api.token(Self.water, .viewer)), status: 403, type: "forbidden")
            let published = try await api.send(.post, "/scenarios/pl-quick/publish", token: water)
            #expect(published.status == .ok, "\(published.text)")
            #expect(try published.json["state"] == "published" && (try published.json["published_by"]) == "测试员")

            // Shared: every department sees it, marked as a what-if everywhere, never on by default.
            for (name, token) in others {
                let list = try await api.get("/scenarios", token).json["scenarios"]?.arrayValue ?? []
                #expect(list.map { $0["id"] } == ["pl-quick"] && list.first?["whatIf"] == true && list.first?["state"] == "published", "\(name): \(list)")
                let collections = try await api.get("/collections", token).json["collections"]?.arrayValue ?? []
                let shown = collections.filter { $0["id"]?.stringValue?.hasPrefix(Self.stem) == true }
                #expect(Set(shown.compactMap { $0["id"]?.stringValue }) == Set(layers), "\(name)")
                for c in shown {
                    #expect(c["title"]?.stringValue?.hasPrefix("【\(Self.label)】") == true, "\(name): \(c["title"] ?? .null)")
                    #expect(c["whatIf"] == true && c["conditions"]?["kind"] == "scenario" && c["conditions"]?["scenarios"] == ["pl-quick"]
                            && c["conditions"]?["label"] == .string(Self.label), "\(name): \(c["conditions"] ?? .null)")
                }
                let items = try await api.get("/collections/\(Self.depth)/items?limit=1", token).json
                #expect(items["whatIf"] == true && items["conditions"]?["scenarios"] == ["pl-quick"], "\(name): items")
                // The web map: in the tree with the marking its tree, legend and popups show, off by default.
                let style = try await api.style(token).filter { $0["metadata"]?["citytwin:collection"]?.stringValue?.hasPrefix(Self.stem) == true }
                #expect(!style.isEmpty, "\(name): the published what-if is in the map's layer list")
                for l in style {
                    #expect(l["layout"]?["visibility"] == "none", "\(name): \(l["id"] ?? .null) on by default")
                    #expect(l["metadata"]?["citytwin:whatIf"] == true && l["metadata"]?["citytwin:whatIfLabel"] == .string(Self.label)
                            && l["metadata"]?["citytwin:roles"] == [], "\(name): \(l["metadata"] ?? .null)")
                    #expect(l["metadata"]?["citytwin:title"]?.stringValue?.hasPrefix("【\(Self.label)】") == true)
                }
                let wms = try await api.get("/wms?SERVICE=WMS&REQUEST=GetCapabilities", token).text
                #expect(wms.contains("<Name>\(Self.depth)</Name>") && wms.contains("<Title>【\(Self.label)】") && wms.contains("<Keyword>\(Self.label)</Keyword>"),
                        "\(name): WMS capabilities")
                let wmts = try await api.get("/wmts/1.0.0/WMTSCapabilities.xml", token).text
                #expect(wmts.contains(Self.depth) && wmts.contains("【\(Self.label)】"), "\(name): WMTS capabilities")
                #expect(try await api.get("/collections/\(Self.depth)/timesteps", token).status == .ok)
                #expect(try await api.print(Self.depth, token).status == .ok, "\(name): the print")
                // An answer computed from it says so.
                let counted = try await api.countIn(Self.depth, token)
                #expect(counted.status == .ok, "\(counted.text)")
                #expect(try counted.json["whatIf"] == true && (try counted.json["whatIfSources"]?["scenarios"]) == ["pl-quick"], "\(name): \(counted.text.prefix(300))")
                // The change feed marks the what-if's events.
                let feed = try await Self.changes(api.store, .department(name: name, role: .viewer), after: start, layers: [Self.depth])
                #expect(!feed.isEmpty && feed.allSatisfy { $0.conditions?.isWhatIf == true }, "\(name): change feed")
                #expect(feed.first.map(ChangeSubscription.eventText)?.contains(#""whatIf":true"#) == true)
            }
            // The API document describes the marking and the lifecycle.
            let document = try await api.get("/api?f=json", nil).json
            #expect(document["paths"]?["/scenarios/{scenarioId}/publish"]?["post"] != nil && document["paths"]?["/scenarios/{scenarioId}/archive"]?["post"] != nil)
            #expect(document["components"]?["schemas"]?["Conditions"]?["properties"]?["whatIf"] != nil)
            #expect(document["components"]?["schemas"]?["Collection"]?["properties"]?["whatIf"] != nil)

            // Archived: listed as archived, its layers the owner's alone again.
            try expectProblem(try await api.send(.post, "/scenarios/pl-quick/archive", token: others[1].1), status: 403, type: "forbidden")
            let archived = try await api.send(.post, "/scenarios/pl-quick/archive", token: water)
            #expect(try archived.json["state"] == "archived", "\(archived.text)")
            for (name, token) in others {
                let doc = try await api.get("/scenarios/pl-quick", token).json
                #expect(doc["state"] == "archived" && !(doc["links"]?.arrayValue ?? []).contains { $0["href"]?.stringValue?.contains("/collections/\(Self.stem)") == true },
                        "\(name): \(doc)")
                #expect(!(try await api.collections(token)).contains { $0.hasPrefix(Self.stem) }, "\(name)")
                try expectProblem(try await api.get("/collections/\(Self.depth)", token), status: 404, type: "collection-not-found")
                #expect(!(try await api.get("/tiles/WebMercatorQuad/style.json", token).text.contains(Self.stem)))
            }
            #expect(try await api.get("/collections/\(Self.depth)", water).status == .ok)
            #expect(try await api.store.verifyAuditChain(by: .admin))
        }
    }

    @Test("a store written before scenarios had a lifecycle: settling makes each scenario its owner's draft, its layers hidden and marked")
    func legacyScenariosAreSettled() async throws {
        try await withTemporaryDirectory("scenario-what-if-legacy") { dir in
            let store = try dir.openStore("legacy.sqlite")
            let water = Caller.department(name: Self.water, role: .editor)
            // As the catalogue wrote them before: the scenarios layer and a result layer shared with every department, no state, no marking.
            var old = ScenarioCatalog.definition
            old.sharing = SharingPolicy(type: .shared, method: "api", requirements: "无条件共享：规划情景的输入（底图时刻、沙盒修改、模型参数）与结果。")
            try await store.createLayer(old)
            var record = Scenario(id: "old-one", district: "420117", base: Date(timeIntervalSince1970: 1_750_000_000)).feature
            record.properties["state"] = nil
            record.properties["published_by"] = nil
            record.properties["published_at"] = nil
            record.properties["status"] = "successful"
            record.properties["result"] = ["layers": ["scenario_old_one_depth"]]
            try await store.insert(layer: ScenarioCatalog.layerID, features: [record], by: water, at: nil)
            let template = ScenarioAPITests.repository.appendingPathComponent("Layers/results/flood_scenario_depth.json")
            var json = try JSONDecoder().decode(JSONValue.self, from: Data(contentsOf: template)).objectValue ?? [:]
            json["id"] = "scenario_old_one_depth"
            json["title"] = ["zh": "old-one：最大积水深度分级", "en": "scenario_old_one: maximum depth"]
            try await store.createLayer(try LayerDefinition(json: .object(json)))
            let duty = Caller.department(name: "应急管理局", role: .editor)
            #expect(try await store.layerDefinition("scenario_old_one_depth", for: duty) != nil, "shared before settling")

            let settled = try await ScenarioCatalog(store: store).settle()
            #expect(settled == ["old-one"])
            #expect(try await store.layerDefinition("scenario_old_one_depth", for: duty) == nil)
            #expect(try await store.layerDefinition(ScenarioCatalog.layerID, for: duty) == nil)
            #expect(try await ScenarioCatalog(store: store).list(by: duty).isEmpty)
            let mine = try #require(try await store.layerDefinition("scenario_old_one_depth", for: water))
            #expect(mine.isWhatIf && mine.title.zh.hasPrefix("【\(Self.label)】") && mine.conditions?.scenarios == ["old-one"])
            #expect(try await ScenarioCatalog(store: store).scenario("old-one", by: water).state == .draft)
            // Settling again changes nothing.
            #expect(try await ScenarioCatalog(store: store).settle().isEmpty)
        }
    }
}
