import Foundation
import GeoCore
import Hummingbird
import HummingbirdTesting
import Logging
import ProcessRuntime
import Scenarios
import Server
import Testing
import TwinStore

/// Permission failures say so before any work starts (401 without a token, 403 for the wrong
/// department, naming who may), and a failed job's results are its own error as problem+json,
/// which its status document and the worker's log carry too (issue 14, cases 4 and 5).
@Suite("Processes: refusals before the run, failed jobs' own errors")
struct ProcessRefusalTests {
    static func execute(_ api: WritableAPI, _ process: String, _ inputs: JSONValue, token: String? = nil) async throws -> TestResponse {
        try await api.send(.post, "/processes/\(process)/execution", token: token, contentType: "application/json",
                           headers: [HTTPFields.Element.Name("Prefer")!: "respond-async"],
                           body: String(decoding: try JSONEncoder().encode(JSONValue.object(["inputs": inputs])), as: UTF8.self))
    }

    @Test("a flood job is 401 without a token and 403 for another department's editor, naming the owner; no job is created")
    func floodJobRefused() async throws {
        try await WritableAPI.run { api in
            let inputs: JSONValue = ["scenario": "p50-waterlogging"]
            let anonymous = try await Self.execute(api, "flood-scenario", inputs)
            try expectProblem(anonymous, status: 401, type: "unauthorized", naming: "水务和湖泊局")
            let other = try await Self.execute(api, "flood-scenario", inputs, token: api.token("应急管理局"))
            try expectProblem(other, status: 403, type: "forbidden", naming: "水务和湖泊局")
            #expect(try other.json["detail"]?.stringValue?.contains("应急管理局 as editor") == true)
            #expect(try await api.store.jobs(visibleTo: .admin, limit: 10).isEmpty, "no job was accepted")
        }
    }

    @Test("a failed job's results are its own error as problem+json (400 naming the input); its status carries it; the worker logs it")
    func failedJobResults() async throws {
        try await WritableAPI.run { api in
            // Submitted straight to the job table, so the bad area first shows when the job runs.
            let job = try await api.store.submitJob(process: "features-in-area", inputs: ["layer": "shelters", "area": "nowhere"],
                                                    caller: .anonymous)
            let log = CapturedLog()
            let worker = try #require(ProcessWorker(name: "worker-test", store: api.store, registry: .standard,
                                                    logger: Logger(label: "test") { _ in log }))
            let done = try #require(try await worker.runNext())
            #expect(done.status == .failed)
            let results = try await api.client.get("/jobs/\(job.id)/results")
            try expectProblem(results, status: 400, type: "invalid-input", naming: "'area'")
            #expect(try results.json["detail"]?.stringValue?.hasPrefix("job '\(job.id)' failed: input 'area'") == true)
            let status = try await api.client.get("/jobs/\(job.id)").json
            #expect(status["status"] == "failed")
            #expect(status["message"]?.stringValue?.contains("input 'area'") == true)
            let logged = log.entries.first { $0.contains(job.id) }
            #expect(logged?.contains("ProcessInputError") == true, "\(log.entries)")
        }
    }

    @Test("a job failing on an internal error answers 500 naming the worker whose log has it; the log has the error")
    func internalFailure() async throws {
        try await WritableAPI.run { api in
            let job = try await api.store.submitJob(process: "no-such-process-here", inputs: [:], caller: .anonymous)
            let log = CapturedLog()
            let worker = ProcessWorker(name: "worker-test", store: api.store, jobs: api.store, registry: .standard, logger: Logger(label: "test") { _ in log })
            let claimed = try #require(try await api.store.claimJob(id: job.id, worker: "worker-test"))
            let done = try await worker.run(claimed)
            #expect(done.status == .failed)
            let results = try await api.client.get("/jobs/\(job.id)/results")
            try expectProblem(results, status: 500, type: "internal-error", naming: "no-such-process-here")
            #expect(log.entries.contains { $0.contains(job.id) && $0.contains("worker-test") }, "\(log.entries)")
        }
    }
}

/// Log lines a `Logger` wrote, as text with their metadata.
final class CapturedLog: LogHandler, @unchecked Sendable {
    private let lock = NSLock()
    private var lines: [String] = []
    var metadata: Logger.Metadata = [:]
    var logLevel: Logger.Level = .trace

    subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { metadata[key] }
        set { metadata[key] = newValue }
    }

    var entries: [String] { lock.withLock { lines } }

    func log(event: LogEvent) {
        let text = "\(event.message) \((event.metadata ?? [:]).sorted { $0.key < $1.key }.map { "\($0.key)=\($0.value)" }.joined(separator: " "))"
        lock.withLock { lines.append(text) }
    }
}
