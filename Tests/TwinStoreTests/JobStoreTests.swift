import Foundation
import GeoCore
import Testing
import TwinStore

/// The job table behind OGC API Processes: submit, claim, progress, finish, dismiss, and
/// exactly-once claiming by concurrent workers — the same on SpatiaLite and PostGIS.
@Suite("Job table", .dropsTestSchemas)
struct JobStoreTests {
    static let process = "features-in-area"
    static let inputs: JSONValue = ["layer": "shelters", "properties": ["capacity"]]

    func jobStore(_ backend: StoreBackend) async throws -> any JobStore {
        let store = try await backend.makeStore(layers: [])
        return try #require(store as? any JobStore, "every CityTwin store keeps jobs")
    }

    @Test("a submitted job waits as accepted, is claimed once, reports progress and ends successful",
          arguments: StoreBackend.available)
    func lifeOfAJob(_ backend: StoreBackend) async throws {
        let jobs = try await jobStore(backend)
        let submitted = try await jobs.submitJob(process: Self.process, inputs: Self.inputs, caller: Fixtures.emergency)
        #expect(submitted.status == .accepted)
        #expect(submitted.progress == 0)
        #expect(submitted.claimedBy == nil)
        #expect(submitted.caller == Fixtures.emergency)
        #expect(submitted.inputs == Self.inputs)

        let claimed = try #require(try await jobs.claimNextJob(worker: "worker-a", processes: [Self.process]))
        #expect(claimed.id == submitted.id)
        #expect(claimed.status == .running)
        #expect(claimed.claimedBy == "worker-a")
        #expect(try await jobs.claimNextJob(worker: "worker-b", processes: [Self.process]) == nil)
        #expect(try await jobs.claimJob(id: submitted.id, worker: "worker-b") == nil)

        #expect(try await jobs.reportProgress(jobID: submitted.id, worker: "worker-a", percent: 40))
        #expect(try await jobs.job(id: submitted.id)?.progress == 40)
        #expect(try await !jobs.reportProgress(jobID: submitted.id, worker: "worker-b", percent: 90), "only the claimer reports")
        #expect(try await jobs.reportProgress(jobID: submitted.id, worker: "worker-a", percent: 250))
        #expect(try await jobs.job(id: submitted.id)?.progress == 100, "progress is clamped to 100 %")

        let result: JSONValue = ["count": 3, "ids": ["a", "b", "c"]]
        #expect(try await jobs.finishJob(id: submitted.id, worker: "worker-a", outcome: .successful(result)))
        let done = try #require(try await jobs.job(id: submitted.id))
        #expect(done.status == .successful)
        #expect(done.result == result)
        #expect(done.progress == 100)
        #expect(done.caller == Fixtures.emergency)
        #expect(try await !jobs.finishJob(id: submitted.id, worker: "worker-a", outcome: .failed("again")), "a job ends once")
    }

    @Test("a failed job keeps its reason and no result", arguments: StoreBackend.available)
    func failure(_ backend: StoreBackend) async throws {
        let jobs = try await jobStore(backend)
        let job = try await jobs.submitJob(process: Self.process, inputs: Self.inputs, caller: .anonymous)
        _ = try #require(try await jobs.claimJob(id: job.id, worker: "server"))
        #expect(try await jobs.finishJob(id: job.id, worker: "server", outcome: .failed("input 'layer': no collection 'x'")))
        let failed = try #require(try await jobs.job(id: job.id))
        #expect(failed.status == .failed)
        #expect(failed.message == "input 'layer': no collection 'x'")
        #expect(failed.result == nil)
    }

    @Test("dismissing a running job drops it from the list and stops its worker", arguments: StoreBackend.available)
    func dismiss(_ backend: StoreBackend) async throws {
        let jobs = try await jobStore(backend)
        let job = try await jobs.submitJob(process: Self.process, inputs: Self.inputs, caller: .anonymous)
        _ = try #require(try await jobs.claimNextJob(worker: "w", processes: [Self.process]))
        let dismissed = try #require(try await jobs.dismissJob(id: job.id))
        #expect(dismissed.status == .dismissed)
        #expect(try await !jobs.reportProgress(jobID: job.id, worker: "w", percent: 50), "the worker learns it should stop")
        #expect(try await !jobs.finishJob(id: job.id, worker: "w", outcome: .successful(["count": 1])), "a late result is dropped")
        let after = try #require(try await jobs.job(id: job.id))
        #expect(after.status == .dismissed)
        #expect(after.result == nil)
        #expect(try await jobs.jobs(visibleTo: .anonymous, limit: 10).isEmpty)
        #expect(try await jobs.dismissJob(id: job.id) == nil, "a job is dismissed once")
        #expect(try await jobs.dismissJob(id: "no-such-job") == nil)
        #expect(try await jobs.job(id: "no-such-job") == nil)
    }

    @Test("a caller lists its own jobs, newest first; the admin lists all", arguments: StoreBackend.available)
    func visibility(_ backend: StoreBackend) async throws {
        let jobs = try await jobStore(backend)
        let mine1 = try await jobs.submitJob(process: Self.process, inputs: Self.inputs, caller: Fixtures.emergency)
        let public1 = try await jobs.submitJob(process: Self.process, inputs: Self.inputs, caller: .anonymous)
        let mine2 = try await jobs.submitJob(process: Self.process, inputs: Self.inputs, caller: Fixtures.emergencyViewer)
        let water = try await jobs.submitJob(process: Self.process, inputs: Self.inputs, caller: Fixtures.water)
        #expect(try await jobs.jobs(visibleTo: Fixtures.emergency, limit: 10).map(\.id) == [mine2.id, mine1.id],
                "the department's jobs, whoever in it submitted them")
        #expect(try await jobs.jobs(visibleTo: .anonymous, limit: 10).map(\.id) == [public1.id])
        #expect(try await jobs.jobs(visibleTo: .admin, limit: 10).map(\.id) == [water.id, mine2.id, public1.id, mine1.id])
        #expect(try await jobs.jobs(visibleTo: .admin, limit: 2).map(\.id) == [water.id, mine2.id])
        await #expect(throws: StoreError.self) { try await jobs.jobs(visibleTo: .admin, limit: 0) }
    }

    @Test("a worker claims only processes it knows, oldest job first", arguments: StoreBackend.available)
    func claimOrder(_ backend: StoreBackend) async throws {
        let jobs = try await jobStore(backend)
        let flood = try await jobs.submitJob(process: "flood", inputs: [:], caller: .anonymous)
        let first = try await jobs.submitJob(process: Self.process, inputs: Self.inputs, caller: .anonymous)
        let second = try await jobs.submitJob(process: Self.process, inputs: Self.inputs, caller: .anonymous)
        #expect(try await jobs.claimNextJob(worker: "w", processes: []) == nil)
        #expect(try await jobs.claimNextJob(worker: "w", processes: [Self.process])?.id == first.id)
        #expect(try await jobs.claimNextJob(worker: "w", processes: [Self.process])?.id == second.id)
        #expect(try await jobs.claimNextJob(worker: "w", processes: [Self.process]) == nil)
        #expect(try await jobs.job(id: flood.id)?.status == .accepted, "nobody here runs floods")
    }

    @Test("concurrent workers never claim the same job", arguments: StoreBackend.available)
    func exactlyOnce(_ backend: StoreBackend) async throws {
        let jobs = try await jobStore(backend)
        var submitted = Set<String>()
        for _ in 0..<40 {
            submitted.insert(try await jobs.submitJob(process: Self.process, inputs: Self.inputs, caller: .anonymous).id)
        }
        let claims = try await withThrowingTaskGroup(of: [String].self) { group in
            for w in 0..<4 {
                group.addTask {
                    var mine = [String]()
                    while let job = try await jobs.claimNextJob(worker: "worker-\(w)", processes: [Self.process]) {
                        #expect(job.claimedBy == "worker-\(w)")
                        mine.append(job.id)
                    }
                    return mine
                }
            }
            var all = [[String]]()
            for try await mine in group { all.append(mine) }
            return all
        }
        let flat = claims.flatMap { $0 }
        #expect(flat.count == submitted.count, "every job claimed exactly once")
        #expect(Set(flat) == submitted)
    }

    @Test("a job its worker returns waits again as accepted, unclaimed, for the next worker at once; only its own worker may return it",
          arguments: StoreBackend.available)
    func returnedJob(_ backend: StoreBackend) async throws {
        let jobs = try await jobStore(backend)
        let job = try await jobs.submitJob(process: Self.process, inputs: Self.inputs, caller: Fixtures.emergency)
        _ = try #require(try await jobs.claimNextJob(worker: "worker-a", processes: [Self.process]))
        #expect(try await jobs.reportProgress(jobID: job.id, worker: "worker-a", percent: 30))
        #expect(try await !jobs.returnJob(id: job.id, worker: "worker-b"), "only the claimer returns a job")
        #expect(try await jobs.returnJob(id: job.id, worker: "worker-a"))
        let waiting = try #require(try await jobs.job(id: job.id))
        #expect(waiting.status == .accepted)
        #expect(waiting.claimedBy == nil)
        #expect(waiting.progress == 0)
        #expect(try await !jobs.reportProgress(jobID: job.id, worker: "worker-a", percent: 50), "the old worker no longer runs it")
        #expect(try await !jobs.finishJob(id: job.id, worker: "worker-a", outcome: .successful(["late": true])))
        // The default lease is 300 s: the next worker gets it now only because it was returned.
        let again = try #require(try await jobs.claimNextJob(worker: "worker-b", processes: [Self.process]))
        #expect(again.id == job.id && again.claimedBy == "worker-b")
        #expect(try await jobs.finishJob(id: job.id, worker: "worker-b", outcome: .successful(["count": 1])))
        #expect(try await !jobs.returnJob(id: job.id, worker: "worker-b"), "a finished job stays finished")
        #expect(try await jobs.job(id: job.id)?.status == .successful)
    }

    @Test("a job submitted under a given id is added once: submitting that id again answers the job as it is, untouched",
          arguments: StoreBackend.available)
    func submitUnderAnID(_ backend: StoreBackend) async throws {
        let jobs = try await jobStore(backend)
        let id = "0a1b2c3d-0000-8000-8000-000000000001"
        let first = try await jobs.submitJob(id: id, process: Self.process, inputs: Self.inputs, caller: Fixtures.emergency)
        #expect(first.id == id && first.status == .accepted && first.inputs == Self.inputs)
        let claimed = try #require(try await jobs.claimJob(id: id, worker: "worker-a"))
        #expect(try await jobs.reportProgress(jobID: id, worker: "worker-a", percent: 30))
        let again = try await jobs.submitJob(id: id, process: "other-process", inputs: ["other": true], caller: .admin)
        #expect(again.process == Self.process && again.inputs == Self.inputs && again.caller == Fixtures.emergency)
        #expect(again.status == .running && again.claimedBy == claimed.claimedBy && again.progress == 30)
        #expect(try await jobs.jobs(visibleTo: .admin, limit: 10).filter { $0.id == id }.count == 1)
    }
}
