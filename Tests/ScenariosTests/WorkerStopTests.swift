import Foundation
import GeoCore
import ProcessRuntime
import Scenarios
import TestSupport
import Testing
import TwinStore

/// A worker stopping (SIGTERM or SIGINT: `citytwin worker` cancels its job loop, as
/// `GracefulStop` does) hands the job it was running back to the queue: another worker takes it
/// at once, not after the lease (300 s here), and the job completes exactly once (issue 21 §3).
@Suite("Worker stop: the running job goes back to the queue")
struct WorkerStopTests {
    /// Counts how often the process started and finished.
    final class Runs: @unchecked Sendable {
        private let lock = NSLock()
        private var started = 0, finished = 0
        /// Counts a start; how many runs had started, this one included.
        @discardableResult
        func start() -> Int { lock.withLock { started += 1; return started } }
        func finish() { lock.withLock { finished += 1 } }
        /// [started, finished]
        var counts: [Int] { lock.withLock { [started, finished] } }
    }

    /// A long job: steps of 50 ms, reporting progress after each (as a simulation does). The first
    /// run has 2,000 steps (100 s: it is cancelled long before its end, however slowly the test's
    /// own polling runs beside it: a process runs on the compute threads, at full speed while the
    /// suite holds the cooperative ones), every later run 20 (1 s).
    struct SlowProcess: OGCProcess {
        let runs: Runs
        let id = "slow-count"
        let version = "1.0.0"
        let title = "Slow count"
        let description = "Counts to 2,000 on its first run and to 20 after, one step each 50 ms."
        let inputs: [String: ProcessParameter] = [:]
        let outputs: [String: ProcessParameter] = [:]
        let jobControlOptions: [JobControlOption] = [.asyncExecute]
        func layers(_ inputs: [String: JSONValue]) -> ProcessLayers { ProcessLayers() }
        func validate(_ inputs: [String: JSONValue], store: any FeatureStore, caller: Caller) async throws {}
        func execute(_ inputs: [String: JSONValue], store: any FeatureStore, caller: Caller, progress: JobProgress) async throws -> JSONValue {
            let steps = runs.start() == 1 ? 2_000 : 20
            for step in 1...steps {
                try await Task.sleep(for: .milliseconds(50))
                try await progress.report(Double(step * 100 / steps))
            }
            runs.finish()
            return ["count": 20]
        }
    }

    @Test("a job cancelled mid-run by its worker's stop is accepted again at once, another worker completes it, exactly once")
    func stoppedWorkerReturnsJob() async throws {
        try await withTemporaryDirectory("worker-stop") { dir in
            let store = try dir.openStore()
            let runs = Runs()
            let registry = ProcessRegistry([SlowProcess(runs: runs)])
            let first = try #require(ProcessWorker(name: "worker-1", store: store, registry: registry))
            let second = try #require(ProcessWorker(name: "worker-2", store: store, registry: registry))
            let job = try await store.submitJob(process: "slow-count", inputs: [:], caller: .anonymous)

            let loop = Task { try await first.run(idle: .milliseconds(20)) }
            // Mid-run: claimed by worker-1, with progress reported.
            let end = ContinuousClock.now + .seconds(30)
            while ContinuousClock.now < end {
                if let j = try await store.job(id: job.id), j.claimedBy == "worker-1", j.progress >= 1 { break }
                try await Task.sleep(for: .milliseconds(10))
            }
            #expect(try await store.job(id: job.id)?.status == .running)
            loop.cancel()  // what SIGTERM does to `citytwin worker`'s job loop
            try await loop.value

            let returned = try #require(try await store.job(id: job.id))
            #expect(returned.status == .accepted, "the stopped worker left the job \(returned.status.rawValue)")
            #expect(returned.claimedBy == nil)
            #expect(runs.counts == [1, 0])

            // Taken at once (the lease is 300 s), and run to its end once.
            let done = try #require(try await second.runNext())
            #expect(done.id == job.id)
            #expect(done.status == .successful)
            #expect(done.claimedBy == "worker-2")
            #expect(runs.counts == [2, 1], "started twice (the first run cancelled), finished once")
            #expect(try await second.runNext() == nil, "nothing else waits")
            #expect(try await first.runNext() == nil)
        }
    }
}
