import CityModel
import Flood
import ProcessRuntime
import Foundation
import GeoCore
import Hummingbird
import HummingbirdTesting
import Logging
import Scenarios
import Signals
import Server
import TestSupport
import Testing
import TwinStore

/// Issue 51: what every OGC API process answers on the sample district, recorded before the
/// upper half of the code is reshaped, and compared byte for byte after. Each case
/// (`ProcessAnswerCases`) goes through the most stable boundary, `POST /processes/{id}/execution`
/// (synchronous; flood-scenario and scenario-run, which run only as jobs, through `GET /jobs/{id}/results`),
/// of an in-process server over a freshly built sample district, as one department (水务和湖泊局, an
/// editor: the flood and the scenarios are its writes); on SpatiaLite, and on PostGIS where the tests have it. The answer's body bytes, with only the
/// fields of `ProcessAnswerCases.scrubbed` replaced, must equal `Fixtures/ProcessAnswers/<process>-<case>.json`.
///
/// Re-record (after a change that is meant to change an answer, and say so in the commit):
/// `CITYTWIN_RECORD_ANSWERS=1 swift test --filter ProcessAnswerRecordings`, then review the diff.
@Suite("Process answers on the sample district, byte for byte against the recordings", .serialized)
struct ProcessAnswerRecordings {
    static let directory = ProcessAnswerCases.repository.appendingPathComponent("Tests/ServerTests/Fixtures/ProcessAnswers")
    static let recording = ProcessInfo.processInfo.environment["CITYTWIN_RECORD_ANSWERS"] == "1"
    static let department = "水务和湖泊局"

    struct API: Sendable {
        let client: any TestClientProtocol
        let token: String

        func send(_ method: HTTPRequest.Method, _ uri: String, body: JSONValue? = nil, async: Bool = false) async throws -> TestResponse {
            var headers: HTTPFields = [.authorization: "Bearer \(token)"]
            if async { headers[HTTPFields.Element.Name("Prefer")!] = "respond-async" }
            var buffer: ByteBuffer?
            if let body {
                headers[.contentType] = "application/json"
                buffer = ByteBuffer(bytes: try JSONEncoder().encode(body))
            }
            return try await client.execute(uri: uri, method: method, headers: headers, body: buffer)
        }

        /// The answer's body: synchronous, or for a process that runs only as a job, its results once it ended.
        func answer(_ c: ProcessAnswerCase, asJob: Bool) async throws -> (status: Int, body: [UInt8]) {
            let r = try await send(.post, "/processes/\(c.process)/execution", body: ["inputs": c.inputs], async: asJob)
            guard asJob, r.status == .created else { return (Int(r.status.code), Array(buffer: r.body)) }
            let location = relative(try #require(r.headers[.location], "a job has a Location"))
            for _ in 0..<4800 {
                let status = try await send(.get, location).json["status"]?.stringValue
                if status != "accepted" && status != "running" { break }
                try await Task.sleep(for: .milliseconds(250))
            }
            let results = try await send(.get, location + "/results")
            return (Int(results.status.code), Array(buffer: results.body))
        }
    }

    /// Runs `body` against a server over a fresh sample district (`FloodRunLifecycleTests.run`: SpatiaLite, the
    /// standard processes, the DEM and result rasters in a temporary directory), as an editor of 水务和湖泊局
    /// (subject 测试员; the token's secret is drawn per run, and no answer holds the token).
    static func withDistrict(_ body: @Sendable (API) async throws -> Void) async throws {
        try await FloodRunLifecycleTests.run { district in
            try await body(API(client: district.client, token: district.token(department, .editor)))
        }
    }

    @Test("every process's answer on the sample district equals its recording byte for byte (volatile fields named and scrubbed)")
    func answers() async throws {
        let cases = try ProcessAnswerCases.all()
        #expect(Set(cases.map(\.file)).count == cases.count, "each case has a file of its own")
        try await Self.withDistrict { api in try await Self.compare(cases, api, recording: Self.recording) }
        if !Self.recording {
            let files = try FileManager.default.contentsOfDirectory(atPath: Self.directory.path).filter { $0.hasSuffix(".json") }
            let orphans = Set(files).subtracting(cases.map(\.file))
            #expect(orphans.isEmpty, "recordings without a case (remove them, or restore their case): \(orphans.sorted())")
        }
    }

    static let postgresURL = ProcessInfo.processInfo.environment["CITYTWIN_TEST_POSTGRES_URL"].flatMap { $0.isEmpty ? nil : $0 }

    /// The flood is left out on PostGIS: its kernel reads the same inputs on both backends (its answer on PostGIS
    /// was byte-identical when the recordings were made), and a second 50 s run would double this test's time.
    @Test("PostGIS answers as SpatiaLite: the same recordings byte for byte, its jobs run by a worker (the flood left out)",
          .enabled(if: postgresURL != nil, "needs PostgreSQL (CITYTWIN_TEST_POSTGRES_URL, as Scripts/test.sh sets)"))
    func answersOnPostGIS() async throws {
        let url = try #require(Self.postgresURL)
        // Recordings are made on SpatiaLite; PostGIS is compared with them on the next run.
        guard !Self.recording else { return }
        let cases = try ProcessAnswerCases.all().filter { $0.process != "flood-scenario" }
        let schema = "answers_" + UUID().uuidString.lowercased().replacingOccurrences(of: "-", with: "").prefix(16)
        let store = try await PostGISStore.connect(url: url, schema: String(schema), maximumConnections: 8, connectionWait: .seconds(60))
        do {
            try await DistrictLoader.build(into: store, layersDirectory: ProcessAnswerCases.repository.appendingPathComponent("Layers"))
            try await withTemporaryDirectory("process-answers-pg") { dir in
                var logger = Logger(label: "citytwin.process-answers")
                logger.logLevel = .critical
                let rasters = ResultRasters.beside(storeDirectory: dir.url)
                let registry = ProcessRegistry.forStore(directory: dir.url, rasters: rasters)
                let authority = try TokenAuthority(secret: (0..<32).map { _ in UInt8.random(in: 0...255) })
                let server = CityTwinServer(store: store, options: ServerOptions(
                    baseURL: "http://test.local", logger: logger, tokenVerifier: authority, processes: registry, rasters: rasters))
                // On PostGIS the server only queues a job: a worker, as `citytwin worker` would, runs it.
                let worker = try #require(ProcessWorker(name: "process-answers", store: store, registry: registry, logger: logger))
                let working = Task { try await worker.run(idle: .milliseconds(100)) }
                let token = authority.issue(TokenClaims(department: Self.department, role: .editor, subject: "测试员", lifetime: 3600))
                do {
                    try await server.makeApplication().test(.router) { client in
                        try await Self.compare(cases, API(client: client, token: token), recording: false, omitted: ["flood-scenario"])
                    }
                } catch {
                    working.cancel()
                    _ = await working.result
                    throw error
                }
                // The worker ends before its schema goes.
                working.cancel()
                _ = await working.result
            }
        } catch {
            try? await store.dropSchema()
            await store.shutdown()
            throw error
        }
        try await store.dropSchema()
        await store.shutdown()
    }

    /// Posts every case in order (creating its scenarios first) and records or compares its answer.
    /// - Parameter omitted: processes the server offers that `cases` leaves out on purpose.
    static func compare(_ cases: [ProcessAnswerCase], _ api: API, recording: Bool, omitted: Set<String> = []) async throws {
        if SumoTools.installed() == nil {
            Issue.record("SUMO is not installed (sumo and netconvert on PATH, in $SUMO_HOME/bin or .venv/bin; Scripts/setup.sh --test installs it): signal-evaluate's SUMO case cannot answer as recorded")
        }
        // Every process the server offers has a case: a process added later is recorded too.
        let offered = try await api.send(.get, "/processes").json["processes"]?.arrayValue?.compactMap { $0["id"]?.stringValue } ?? []
        let missing = Set(offered).subtracting(omitted).subtracting(cases.map(\.process))
        #expect(missing.isEmpty && Set(cases.map(\.process)).isSubset(of: offered), "processes without a recorded case: \(missing.sorted())")
        let asyncOnly = try await Self.asyncOnly(api, Set(offered))
        var timings: [String] = []
        for c in cases {
            for scenario in c.scenarios {
                let made = try await api.send(.post, "/scenarios", body: scenario)
                #expect(made.status == .created, "\(c.process)/\(c.name): creating scenario \(scenario["id"] ?? .null): \(made.text)")
            }
            let started = ContinuousClock.now
            let (status, body) = try await api.answer(c, asJob: asyncOnly.contains(c.process))
            timings.append("\(c.file): \(ContinuousClock.now - started)")
            guard status == 200 else {
                Issue.record("\(c.process)/\(c.name): status \(status): \(String(decoding: body.prefix(600), as: UTF8.self))")
                continue
            }
            let scrubbed = try ProcessAnswerBytes.scrub(body, ProcessAnswerCases.scrubbed.filter { $0.process == c.process })
            try Self.check(c, scrubbed, recording: recording)
        }
        print("process answers: " + timings.joined(separator: "; "))
    }

    /// The processes that run only as jobs (their description offers no sync-execute).
    static func asyncOnly(_ api: API, _ ids: Set<String>) async throws -> Set<String> {
        var out = Set<String>()
        for id in ids.sorted() {
            let options = try await api.send(.get, "/processes/\(id)").json["jobControlOptions"]?.arrayValue ?? []
            if !options.contains("sync-execute") { out.insert(id) }
        }
        return out
    }

    /// Records the answer (CITYTWIN_RECORD_ANSWERS=1) or compares it with the recording.
    static func check(_ c: ProcessAnswerCase, _ answer: [UInt8], recording: Bool) throws {
        let url = directory.appendingPathComponent(c.file)
        if recording {
            try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
            try Data(answer).write(to: url)
            return
        }
        guard let recorded = FileManager.default.contents(atPath: url.path) else {
            Issue.record("\(c.process)/\(c.name): no recording \(c.file) (CITYTWIN_RECORD_ANSWERS=1 swift test --filter ProcessAnswerRecordings writes it)")
            return
        }
        if let difference = ProcessAnswerBytes.difference(recorded: Array(recorded), answer: answer) {
            Issue.record("\(c.process)/\(c.name): the answer differs from \(c.file): \(difference)")
        }
    }
}
