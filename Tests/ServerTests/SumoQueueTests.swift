import Foundation
import GeoCore
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import Logging
import ProcessRuntime
import Server
import Signals
import TestSupport
import Testing
import TwinStore

/// `signal-evaluate`'s replays in SUMO (issue 78 §14): a viewer could start 10 runs of 7,200 s per
/// request with no overall cap (8 requests: 8 SUMO processes for 369 s), and with an inline
/// intersection needed no token at all. A replay now needs a department token, and replays take
/// their turn in the server's queue: at most `runs` at once, `waiting` more waiting, one more
/// refused 503 with `Retry-After`; the per-request cap (10 replications) stays.
@Suite("signal-evaluate's SUMO replays: a token, a queue, a 503 beyond it", .serialized)
struct SumoQueueTests {
    static let authority = try! TokenAuthority(secret: Array("sumo-queue-test-secret-0123456789abcdef".utf8))

    static func execute(_ client: any TestClientProtocol, _ inputs: JSONValue, token: String?, async: Bool = false) async throws -> TestResponse {
        var headers: HTTPFields = [.contentType: "application/json"]
        if let token { headers[.authorization] = "Bearer \(token)" }
        if async { headers[HTTPField.Name("Prefer")!] = "respond-async" }
        let body = try JSONEncoder().encode(JSONValue.object(["inputs": inputs]))
        return try await client.execute(uri: "/processes/signal-evaluate/execution", method: .post, headers: headers, body: ByteBuffer(bytes: body))
    }

    /// Polls `condition` every 50 ms for up to `limit` seconds.
    static func until(_ what: String, within limit: Double = 120, _ condition: () -> Bool) async throws {
        try await OutageHarness.eventually(what, within: limit) { condition() }
    }

    @Test("a replay needs a token (inline: 401 for simulate=sumo, auto answers without one); with one, one replay runs, one waits its turn, one more is 503 server-busy with Retry-After")
    func replaysQueued() async throws {
        guard SumoTools.installed() != nil else {
            Issue.record("SUMO is not installed (sumo and netconvert on PATH, in $SUMO_HOME/bin or .venv/bin; Scripts/setup.sh --test installs it)")
            return
        }
        let queue = SumoRunQueue(runs: 1, waiting: 1)
        let intersection = try ProcessAnswerCases.model("Models/signals/intersection-example.json")
        var logger = Logger(label: "citytwin.server.test")
        logger.logLevel = .critical
        try await ServerFixture.withStore { store in
            let server = CityTwinServer(store: store, options: ServerOptions(baseURL: "http://test.local", logger: logger, tokenVerifier: Self.authority,
                                                                             processes: ProcessRegistry([SignalEvaluateProcess(queue: queue)])))
            try await server.makeApplication().test(.router) { client in
                // Without a token: no replay, whatever the inputs.
                let refused = try await Self.execute(client, ["intersection": intersection, "simulate": "sumo", "replications": 10, "sumoSeconds": 7200], token: nil)
                try expectProblem(refused, status: 401, type: "unauthorized")
                #expect(refused.text.contains("token"), "\(refused.text)")
                let auto = try await Self.execute(client, ["intersection": intersection, "replications": 10, "sumoSeconds": 7200], token: nil)
                #expect(auto.status == .ok, "\(auto.text)")
                #expect(try auto.json["sumo"]?["status"] == "needs a token" && auto.json["evaluation"]?["cycle_s"] != nil, "\(auto.text)")
                #expect(queue.status.running == 0)

                let token = Self.authority.issue(TokenClaims(department: "应急管理局", role: .viewer, subject: "信号工程师", lifetime: 3600))
                // A long replay as a job: it takes the one place.
                let long = try await Self.execute(client, ["intersection": intersection, "simulate": "sumo", "replications": 10, "sumoSeconds": 7200],
                                                  token: token, async: true)
                #expect(long.status == .created, "\(long.text)")
                let job = try #require(long.headers[.location].flatMap { URL(string: $0)?.path })
                try await Self.until("the long replay runs") { queue.status.running == 1 }
                // A short one waits its turn.
                let waiting = Task {
                    try await Self.execute(client, ["intersection": intersection, "simulate": "sumo", "sumoSeconds": 300], token: token)
                }
                try await Self.until("the short replay waits") { queue.status.queued == 1 }
                // One more: the queue is full.
                let full = try await Self.execute(client, ["intersection": intersection, "simulate": "sumo", "sumoSeconds": 300], token: token)
                try expectProblem(full, status: 503, type: "server-busy")
                #expect(full.headers[.retryAfter].flatMap(Int.init).map { $0 >= 1 } == true, "\(full.headers)")
                #expect(full.text.contains("--sumo-runs") && full.text.contains("--sumo-queue"), "\(full.text)")
                // Dismissing the long one gives its place to the waiting one, which is answered.
                let dismissed = try await client.execute(uri: job, method: .delete, headers: [.authorization: "Bearer \(token)"])
                #expect(dismissed.status == .ok, "\(dismissed.status) \(dismissed.text)")
                let answered = try await waiting.value
                #expect(answered.status == .ok, "\(answered.text)")
                #expect(try answered.json["sumo"]?["status"] == "simulated", "\(answered.text)")
                try await Self.until("the queue is empty again") { queue.status.running == 0 && queue.status.queued == 0 }
            }
        }
    }
}
