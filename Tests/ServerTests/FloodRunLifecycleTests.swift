import CityModel
import Flood
import Foundation
import GeoCore
import Hummingbird
import HummingbirdTesting
import Logging
import Scenarios
import Server
import TestSupport
import Testing
import TwinStore

/// Flood runs have a lifecycle (issue 58 §3, §4): every run is its own result set (two runs of one
/// model both stay), a draft is the water authority's alone, the one it publishes as current is
/// what every department's hazard overlay answers from (and the answer names it), runs are
/// archived and deleted by their owner only, every change audited.
/// Quick settings as `ScenarioAPITests`: the storm at 3 % of its duration, 100 m cells.
@Suite("Flood runs: own result sets, draft → published → archived, deleted", .serialized)
struct FloodRunLifecycleTests {
    static let water = "水务和湖泊局"
    static let quick: JSONValue = ["scenario": "p50-waterlogging", "durationScale": 0.03, "demCoarsening": 10]

    struct API: Sendable {
        let client: any TestClientProtocol
        let store: SpatiaLiteStore
        let authority: TokenAuthority

        func token(_ department: String, _ role: TokenClaims.Role = .editor) -> String {
            authority.issue(TokenClaims(department: department, role: role, subject: "测试员", lifetime: 3600))
        }

        func send(_ method: HTTPRequest.Method, _ uri: String, token: String? = nil, body: JSONValue? = nil,
                  headers extra: HTTPFields = [:]) async throws -> TestResponse {
            var headers = extra
            if let token { headers[.authorization] = "Bearer \(token)" }
            if body != nil { headers[.contentType] = "application/json" }
            let text = try body.map { String(decoding: try JSONEncoder().encode($0), as: UTF8.self) }
            return try await client.execute(uri: uri, method: method, headers: headers, body: text.map { ByteBuffer(string: $0) })
        }

        /// Runs a quick flood as a job of `token` and returns its results.
        func flood(_ token: String) async throws -> JSONValue {
            let r = try await send(.post, "/processes/flood-scenario/execution", token: token, body: ["inputs": FloodRunLifecycleTests.quick],
                                   headers: [HTTPFields.Element.Name("Prefer")!: "respond-async"])
            #expect(r.status == .created, "\(r.text)")
            let location = try #require(r.headers[.location])
            let done = try await ScenarioAPITests.finish(client, location, token: token)
            #expect(done["status"] == "successful", "\(done)")
            return try await send(.get, relative(location) + "/results", token: token).json
        }

        /// The hazard overlay at the district's centre as `token` (no area: the current run).
        func hazard(_ token: String, _ inputs: JSONValue = [:]) async throws -> TestResponse {
            var o = inputs.objectValue ?? [:]
            o["origin"] = [114.80, 30.84]
            return try await send(.post, "/processes/hazard-overlay/execution", token: token, body: ["inputs": .object(o)])
        }
    }

    static func run(_ body: @Sendable (API) async throws -> Void) async throws {
        var logger = Logger(label: "citytwin.server.test")
        logger.logLevel = .warning
        try await withTemporaryDirectory("flood-runs") { dir in
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

    @Test("two runs of one model keep two result sets; drafts are the owner's alone; the published current run answers the hazard overlay, named")
    func lifecycle() async throws {
        try await Self.run { api in
            let water = api.token(Self.water), duty = api.token("应急管理局", .viewer)
            let first = try await api.flood(water), second = try await api.flood(water)
            #expect(first["run"]?["id"] == "p50-waterlogging-1" && second["run"]?["id"] == "p50-waterlogging-2")
            #expect(first["run"]?["state"] == "draft" && first["run"]?["run_by"] == "测试员" && first["run"]?["department"] == .string(Self.water))
            #expect(first["run"]?["inputs"]?["durationScale"] == 0.03 && first["run"]?["inputs"]?["return_period_a"] == 50)
            let firstLayers = first["layers"]?.arrayValue?.compactMap(\.stringValue) ?? []
            #expect(firstLayers.first == "flood_p50_waterlogging_1_depth")
            // Nothing was overwritten: both runs' layers are there, each with its own features.
            for layer in firstLayers + (second["layers"]?.arrayValue?.compactMap(\.stringValue) ?? []) {
                #expect(try await api.send(.get, "/collections/\(layer)", token: water).status == .ok, "\(layer)")
            }
            // A draft is the water authority's alone: another department sees neither the run nor its layers.
            #expect(try await api.send(.get, "/flood-runs", token: duty).json["runs"] == [])
            #expect(try await api.send(.get, "/collections/flood_p50_waterlogging_1_depth", token: duty).status == .notFound)
            try expectProblem(try await api.send(.get, "/flood-runs/p50-waterlogging-1", token: duty), status: 404, type: "not-found")
            // No run is published: the hazard overlay refuses instead of answering from an arbitrary layer.
            try expectProblem(try await api.hazard(duty), status: 400, type: "invalid-input", naming: "run")

            // Only the owner publishes: 401 for the public, 403 for another department.
            try expectProblem(try await api.send(.post, "/flood-runs/p50-waterlogging-1/publish"), status: 401, type: "unauthorized")
            try expectProblem(try await api.send(.post, "/flood-runs/p50-waterlogging-1/publish", token: api.token("应急管理局")),
                              status: 403, type: "forbidden")
            let published = try await api.send(.post, "/flood-runs/p50-waterlogging-1/publish", token: water)
            #expect(published.status == .ok, "\(published.text)")
            #expect(try published.json["state"] == "published" && (try published.json["current"]) == true)
            let list = try await api.send(.get, "/flood-runs", token: duty).json
            #expect(list["current"] == "p50-waterlogging-1" && list["runs"]?.arrayValue?.count == 1)
            #expect(try await api.send(.get, "/collections/flood_p50_waterlogging_1_depth", token: duty).status == .ok)
            let answer = try await api.hazard(duty)
            #expect(answer.status == .ok, "\(answer.text)")
            #expect(try answer.json["run"]?["id"] == "p50-waterlogging-1")

            // Publishing the second makes it current; the first stays published, not current.
            _ = try await api.send(.post, "/flood-runs/p50-waterlogging-2/publish", token: water)
            #expect(try await api.hazard(duty).json["run"]?["id"] == "p50-waterlogging-2")
            #expect(try await api.send(.get, "/flood-runs/p50-waterlogging-1", token: duty).json["current"] == false)
            // A run named explicitly answers as that run.
            #expect(try await api.hazard(duty, ["run": "p50-waterlogging-1"]).json["run"]?["id"] == "p50-waterlogging-1")
            // The map shows the current run's layers by default, not every run's.
            let style = try await api.send(.get, "/tiles/WebMercatorQuad/style.json", token: duty).json["layers"]?.arrayValue ?? []
            func visible(_ id: String) -> Bool { style.first { $0["id"]?.stringValue == id }?["layout"]?["visibility"] == "visible" }
            #expect(visible("flood_p50_waterlogging_2_depth-fill") && !visible("flood_p50_waterlogging_1_depth-fill"))

            // Archived: the record stays, its layers the owner's again.
            let archived = try await api.send(.post, "/flood-runs/p50-waterlogging-1/archive", token: water)
            #expect(try archived.json["state"] == "archived")
            #expect(try await api.send(.get, "/collections/flood_p50_waterlogging_1_depth", token: duty).status == .notFound)

            // Deleted: layers, rasters and record gone, the audit chain intact.
            try expectProblem(try await api.send(.delete, "/flood-runs/p50-waterlogging-1", token: duty), status: 403, type: "forbidden")
            #expect(try await api.send(.delete, "/flood-runs/p50-waterlogging-1", token: water).status == .noContent)
            #expect(try await api.send(.get, "/collections/flood_p50_waterlogging_1_depth", token: water).status == .notFound)
            #expect(try await api.send(.get, "/flood-runs/p50-waterlogging-1", token: water).status == .notFound)
            #expect(try await api.send(.get, "/flood-runs", token: water).json["runs"]?.arrayValue?.count == 1)
            #expect(try await api.store.verifyAuditChain(by: .admin))
            // The next run takes a new number (never the deleted one's); nothing of the second is touched.
            let scenario = try FloodScenario.load(contentsOf: ScenarioAPITests.repository.appendingPathComponent("Models/scenarios/p50-waterlogging.json"))
            let next = try await FloodRunCatalog(store: api.store).begin(scenario, inputs: [:], by: .department(name: Self.water, role: .editor))
            #expect(next.id == "p50-waterlogging-3" && next.stem == "flood_p50_waterlogging_3")
            #expect(try await api.hazard(duty).json["run"]?["id"] == "p50-waterlogging-2")
        }
    }
}
