import Foundation
import GeoCore
import Hummingbird
import HummingbirdTesting
import Logging
import ProcessRuntime
import Scenarios
import Server
import TestSupport
import Testing
import TwinStore

/// OGC API Processes over the sample shelters: `features-in-area` ("how many shelter places
/// inside this flood polygon"), synchronous and as a job, checked against the store itself.
@Suite("OGC API Processes: features-in-area")
struct ProcessesTests {
    static let exceptions = "http://www.opengis.net/def/exceptions/ogcapi-processes-1/1.0/"
    /// A flood polygon over the western columns of the shelter grid (lon 114.3095…114.3125).
    static let flood: JSONValue = [
        "type": "Polygon",
        "coordinates": [[[114.3095, 30.5995], [114.3125, 30.5995], [114.3125, 30.6045], [114.3095, 30.6045], [114.3095, 30.5995]]],
    ]
    static let floodGeometry = Geometry.polygon(Polygon(exterior: [
        Position(x: 114.3095, y: 30.5995), Position(x: 114.3125, y: 30.5995), Position(x: 114.3125, y: 30.6045),
        Position(x: 114.3095, y: 30.6045), Position(x: 114.3095, y: 30.5995),
    ]))

    /// The API over a fresh fixture store, with the store for direct checks.
    static func withAPI(_ body: @Sendable (any TestClientProtocol, SpatiaLiteStore) async throws -> Void) async throws {
        var logger = Logger(label: "citytwin.processes.test")
        logger.logLevel = .warning
        try await ServerFixture.withStore { store in
            let server = CityTwinServer(store: store, options: ServerOptions(baseURL: "http://test.local", logger: logger))
            try await server.makeApplication().test(.router) { client in try await body(client, store) }
        }
    }

    static func execute(_ client: any TestClientProtocol, _ inputs: JSONValue, process: String = "features-in-area",
                        async: Bool = false) async throws -> TestResponse {
        var headers: HTTPFields = [.contentType: "application/json"]
        if async { headers[HTTPFields.Element.Name("Prefer")!] = "respond-async" }
        let body = try JSONEncoder().encode(JSONValue.object(["inputs": inputs]))
        return try await client.execute(uri: "/processes/\(process)/execution", method: .post, headers: headers,
                                        body: ByteBuffer(bytes: body))
    }

    static func expectException(_ r: TestResponse, _ type: String, sourceLocation: SourceLocation = #_sourceLocation) throws {
        #expect(r.status == .notFound, sourceLocation: sourceLocation)
        #expect(r.contentType == "application/problem+json", sourceLocation: sourceLocation)
        #expect(try r.json["type"]?.stringValue == Self.exceptions + type, sourceLocation: sourceLocation)
    }

    @Test("the process list and description show features-in-area with its inputs, outputs and job control")
    func describe() async throws {
        try await Self.withAPI { client, _ in
            let list = try await client.get("/processes").json
            let summary = try #require(list["processes"]?.arrayValue?.first { $0["id"] == "features-in-area" })
            #expect(Set(summary["jobControlOptions"]?.arrayValue ?? []) == ["sync-execute", "async-execute", "dismiss"])
            #expect(linkHref(summary, rel: "self") == "http://test.local/processes/features-in-area")

            let doc = try await client.get("/processes/features-in-area").json
            #expect(Set(doc["inputs"]?.objectValue.map { Array($0.keys) } ?? []) == ["layer", "area", "properties", "relation", "repair"])
            #expect(doc["inputs"]?["repair"]?["minOccurs"] == 0)
            #expect(doc["inputs"]?["layer"]?["minOccurs"] == 1)
            #expect(doc["inputs"]?["properties"]?["minOccurs"] == 0)
            #expect(doc["inputs"]?["area"]?["schema"]?["properties"]?["type"]?["enum"] == ["Polygon", "MultiPolygon"])
            #expect(Set(doc["outputs"]?.objectValue.map { Array($0.keys) } ?? []) == ["count", "ids", "summaries"])
            #expect(linkHref(doc, rel: "http://www.opengis.net/def/rel/ogc/1.0/execute")
                    == "http://test.local/processes/features-in-area/execution")

            let api = try await client.get("/api").json
            #expect(api["paths"]?["/processes/{processId}/execution"]?["post"]?["requestBody"] != nil)
            #expect(api["paths"]?["/jobs/{jobId}"]?["delete"] != nil)
        }
    }

    @Test("the standard registry offers every analysis and the flood simulation; the flood runs only as a job")
    func standardProcesses() async throws {
        try await Self.withAPI { client, _ in
            let list = try await client.get("/processes").json
            let ids = Set(list["processes"]?.arrayValue?.compactMap { $0["id"]?.stringValue } ?? [])
            #expect(ids == ["features-in-area", "route", "geocoding", "nearest-resources", "service-area", "coverage", "hazard-overlay",
                            "network-trace", "valve-isolation", "parking-guidance", "parking-forecast", "parking-simulation", "flood-scenario",
                            "scenario-run", "compare-scenarios", "signal-timing", "green-wave", "signal-evaluate",
                            "hydrant-coverage", "fire-pre-plan", "fire-station-coverage", "sponge-design-rainfall", "sponge-evaluate"])
            let flood = try #require(list["processes"]?.arrayValue?.first { $0["id"] == "flood-scenario" })
            #expect(Set(flood["jobControlOptions"]?.arrayValue ?? []) == ["async-execute", "dismiss"])
            // A registered analysis validates over HTTP: a bad input is a 400 naming it.
            let bad = try await Self.execute(client, ["incident": [114.31, 30.60], "layer": "shelters", "count": 0],
                                             process: "nearest-resources")
            try expectProblem(bad, status: 400, type: "invalid-input", naming: "count")
            #expect(try bad.json["parameter"]?.stringValue == "count")
            for id in ids {
                let doc = try await client.get("/processes/\(id)").json
                #expect(doc["inputs"]?.objectValue?.isEmpty == false, "\(id) describes its inputs")
                #expect(doc["outputs"]?.objectValue?.isEmpty == false, "\(id) describes its outputs")
            }
        }
    }

    @Test("an empty area or one far from the city holds no shelters")
    func emptyArea() async throws {
        try await Self.withAPI { client, _ in
            let empty = try await Self.execute(client, ["layer": "shelters", "area": ["type": "Polygon", "coordinates": []]])
            try expectProblem(empty, status: 400, type: "invalid-input", naming: "area")
            let yichang: JSONValue = ["type": "Polygon", "coordinates": [[[111.2, 30.6], [111.3, 30.6], [111.3, 30.7], [111.2, 30.6]]]]
            let r = try await Self.execute(client, ["layer": "shelters", "area": yichang, "properties": ["capacity"]])
            #expect(r.status == .ok)
            let doc = try r.json
            #expect(doc["count"] == 0)
            #expect(doc["ids"] == [])
            #expect(doc["summaries"]?["capacity"] == ["count": 0, "missing": 0])
        }
    }

    @Test("synchronous execution equals a direct store query, masking included")
    func synchronous() async throws {
        try await Self.withAPI { client, store in
            let r = try await Self.execute(client, ["layer": "shelters", "area": Self.flood,
                                                    "properties": ["capacity", "checked_at", "manager"]])
            #expect(r.status == .ok)
            #expect(r.contentType == "application/json")
            let doc = try r.json

            let expected = try await store.query(layer: "shelters", FeatureQuery(filter: .spatial(.intersects, Self.floodGeometry), limit: 1000),
                                                 by: .anonymous).features
            #expect(!expected.isEmpty && expected.count < ServerFixture.shelterCount, "the polygon covers some shelters, not all")
            #expect(doc["count"]?.integerValue == Int64(expected.count))
            #expect(doc["ids"]?.arrayValue?.compactMap(\.stringValue) == expected.compactMap { $0.id?.description })

            let capacities = expected.compactMap { $0.properties["capacity"]?.integerValue }
            #expect(doc["summaries"]?["capacity"] == [
                "count": .integer(Int64(capacities.count)), "sum": .integer(capacities.reduce(0, +)),
                "min": .integer(capacities.min() ?? 0), "max": .integer(capacities.max() ?? 0), "missing": 0,
            ])
            let dates = expected.compactMap { $0.properties["checked_at"]?.stringValue }
            let perDate = Dictionary(grouping: dates, by: { $0 }).mapValues { JSONValue.integer(Int64($0.count)) }
            #expect(doc["summaries"]?["checked_at"]?["values"] == .object(perDate))
            #expect(doc["summaries"]?["manager"] == ["count": 0, "missing": .integer(Int64(expected.count))],
                    "the redacted manager is never summarized for the public")
        }
    }

    @Test("asynchronous execution: 201 with Location, the job runs to successful, its results equal the synchronous ones")
    func asynchronous() async throws {
        try await Self.withAPI { client, _ in
            let inputs: JSONValue = ["layer": "shelters", "area": Self.flood, "properties": ["capacity"], "relation": "within"]
            let sync = try await Self.execute(client, inputs).json

            let created = try await Self.execute(client, inputs, async: true)
            #expect(created.status == .created)
            let location = try #require(created.headers[.location])
            let info = try created.json
            let jobID = try #require(info["jobID"]?.stringValue)
            #expect(location == "http://test.local/jobs/\(jobID)")
            #expect(info["processID"] == "features-in-area")
            #expect(["accepted", "running", "successful"].contains(info["status"]?.stringValue ?? ""))

            var status = info
            var polls = 0
            while status["status"] != "successful" && status["status"] != "failed" && polls < 2000 {
                try await Task.sleep(for: .milliseconds(10))
                status = try await client.get(relative(location)).json
                polls += 1
            }
            #expect(status["status"] == "successful")
            #expect(status["progress"] == 100)
            let results = try #require(linkHref(status, rel: "http://www.opengis.net/def/rel/ogc/1.0/results"))
            let r = try await client.get(relative(results))
            #expect(r.status == .ok)
            #expect(try r.json == sync)

            let list = try await client.get("/jobs").json
            #expect(list["jobs"]?.arrayValue?.contains { $0["jobID"]?.stringValue == jobID } == true)
        }
    }

    @Test("results of a job still waiting are 404 result-not-ready; dismissing it makes the job gone")
    func notReadyAndDismiss() async throws {
        try await Self.withAPI { client, store in
            // Submitted straight to the job table: nobody runs it, so it stays accepted.
            let job = try await store.submitJob(process: "features-in-area",
                                                inputs: ["layer": "shelters", "area": Self.flood], caller: .anonymous)
            let status = try await client.get("/jobs/\(job.id)").json
            #expect(status["status"] == "accepted")
            #expect(status["progress"] == 0)
            try Self.expectException(try await client.get("/jobs/\(job.id)/results"), "result-not-ready")

            let dismissed = try await client.execute(uri: "/jobs/\(job.id)", method: .delete)
            #expect(dismissed.status == .ok)
            #expect(try dismissed.json["status"] == "dismissed")
            try Self.expectException(try await client.get("/jobs/\(job.id)"), "no-such-job")
            try Self.expectException(try await client.get("/jobs/\(job.id)/results"), "no-such-job")
            try Self.expectException(try await client.execute(uri: "/jobs/\(job.id)", method: .delete), "no-such-job")
        }
    }

    @Test("a worker claims a job from the store and runs it as its caller")
    func worker() async throws {
        try await Self.withAPI { client, store in
            let inputs: JSONValue = ["layer": "shelters", "area": Self.flood, "properties": ["capacity"]]
            let job = try await store.submitJob(process: "features-in-area", inputs: inputs, caller: .anonymous)
            let worker = try #require(ProcessWorker(name: "worker-test", store: store, registry: .standard))
            let done = try #require(try await worker.runNext())
            #expect(done.id == job.id)
            #expect(done.status == .successful)
            #expect(done.claimedBy == "worker-test")
            #expect(try await worker.runNext() == nil, "nothing else is waiting")
            let results = try await client.get("/jobs/\(job.id)/results").json
            let sync = try await Self.execute(client, inputs).json
            #expect(results == sync)
        }
    }

    @Test("a job another caller submitted is no-such-job for the public")
    func otherCallersJob() async throws {
        try await Self.withAPI { client, store in
            let job = try await store.submitJob(process: "features-in-area", inputs: ["layer": "wells", "area": Self.flood],
                                                caller: ServerFixture.water)
            try Self.expectException(try await client.get("/jobs/\(job.id)"), "no-such-job")
            #expect(try await client.get("/jobs").json["jobs"] == [])
        }
    }

    @Test("unknown processes and jobs are 404 with the OGC exception type")
    func unknown() async throws {
        try await Self.withAPI { client, _ in
            try Self.expectException(try await client.get("/processes/flood-routing"), "no-such-process")
            try Self.expectException(try await Self.execute(client, [:], process: "flood-routing"), "no-such-process")
            try Self.expectException(try await client.get("/jobs/0b5e2c1a-0000-4000-8000-000000000000"), "no-such-job")
            try Self.expectException(try await client.get("/jobs/0b5e2c1a-0000-4000-8000-000000000000/results"), "no-such-job")
        }
    }

    @Test("invalid inputs are 400 naming the input, asynchronous requests included")
    func invalidInputs() async throws {
        try await Self.withAPI { client, _ in
            let point: JSONValue = ["type": "Point", "coordinates": [114.31, 30.60]]
            let cases: [(JSONValue, String)] = [
                (["area": Self.flood], "layer"),
                (["layer": "wells", "area": Self.flood], "layer"),  // not shared: the public may not know it exists
                (["layer": 7, "area": Self.flood], "layer"),
                (["layer": "shelters"], "area"),
                (["layer": "shelters", "area": point], "area"),
                (["layer": "shelters", "area": ["type": "Polygon", "coordinates": [[[114.31, 30.6], [114.32, 30.6]]]]], "area"),
                (["layer": "shelters", "area": ["type": "Polygon", "coordinates": [[[3385869, 529299], [3385969, 529299], [3385969, 529399], [3385869, 529299]]]]], "area"),
                (["layer": "shelters", "area": Self.flood, "properties": ["depth_m"]], "properties"),
                (["layer": "shelters", "area": Self.flood, "properties": "capacity"], "properties"),
                (["layer": "shelters", "area": Self.flood, "relation": "touches"], "relation"),
                (["layer": "shelters", "area": Self.flood, "radius": 500], "radius"),
            ]
            for (inputs, name) in cases {
                try expectProblem(try await Self.execute(client, inputs), status: 400, type: "invalid-input", naming: "'\(name)'")
                try expectProblem(try await Self.execute(client, inputs, async: true), status: 400, type: "invalid-input", naming: "'\(name)'")
            }
            #expect(try await client.get("/jobs").json["jobs"] == [], "no job was created for bad inputs")
        }
    }
}
