import Foundation
import GeoCore
import Testing
import TwinStore

/// Job leases: a worker that dies mid-job (stops renewing) loses the job to the next claimer
/// once the lease lapses; a live worker's renewals keep it; the old worker's late reports and
/// outcome are refused — on both backends. Time moves by the store's `JobClock`, never by sleeping.
@Suite("Job leases", .dropsTestSchemas)
struct JobLeaseTests {
    static let process = "features-in-area"

    @Test("a lapsed lease passes the running job to another worker; the first worker is refused from then on",
          arguments: StoreBackend.available)
    func lapsedLease(_ backend: StoreBackend) async throws {
        let store = try await backend.makeStore(layers: [])
        let jobs = try #require(store as? any JobStore)
        let job = try await jobs.submitJob(process: Self.process, inputs: ["layer": "shelters"], caller: Fixtures.emergency)
        _ = try #require(try await jobs.claimNextJob(worker: "a", processes: [Self.process], lease: .seconds(3600)))
        // Within the lease nobody else gets it.
        #expect(try await jobs.claimNextJob(worker: "b", processes: [Self.process], lease: .seconds(3600)) == nil)
        #expect(try await jobs.reportProgress(jobID: job.id, worker: "a", percent: 40))

        // Within the lease the job stays with "a"; past it, "b" takes it over. (The job clock runs on with real
        // time, and a loaded machine can spend many seconds between two statements: keep a wide margin.)
        jobs.jobClock.advance(by: .seconds(3000))
        #expect(try await jobs.claimNextJob(worker: "b", processes: [Self.process], lease: .seconds(3600)) == nil)
        jobs.jobClock.advance(by: .seconds(700))
        let taken = try #require(try await jobs.claimNextJob(worker: "b", processes: [Self.process], lease: .seconds(3600)))
        #expect(taken.id == job.id)
        #expect(taken.claimedBy == "b")
        #expect(taken.status == .running)
        #expect(try await jobs.reportProgress(jobID: job.id, worker: "a", percent: 50) == false)
        #expect(try await jobs.renewLease(jobID: job.id, worker: "a") == false)
        #expect(try await jobs.finishJob(id: job.id, worker: "a", outcome: .failed("late")) == false)
        #expect(try await jobs.renewLease(jobID: job.id, worker: "b"))
        #expect(try await jobs.finishJob(id: job.id, worker: "b", outcome: .successful(["ok": true])))
        #expect(try await jobs.job(id: job.id)?.status == .successful)
        // A finished job is never reclaimed, however old.
        jobs.jobClock.advance(by: .seconds(86_400))
        #expect(try await jobs.claimNextJob(worker: "c", processes: [Self.process], lease: .seconds(10)) == nil)
    }

    @Test("renewing moves the lease forward without touching progress; a live lease keeps the job",
          arguments: StoreBackend.available)
    func renewedLease(_ backend: StoreBackend) async throws {
        // The lapse rule itself is the test above; this one checks that a renewal moves the time
        // that rule reads: renewed an hour after the claim, the job is "a"'s for another lease.
        let store = try await backend.makeStore(layers: [])
        let jobs = try #require(store as? any JobStore)
        let job = try await jobs.submitJob(process: Self.process, inputs: ["layer": "shelters"], caller: Fixtures.emergency)
        let claimed = try #require(try await jobs.claimNextJob(worker: "a", processes: [Self.process], lease: .seconds(3600)))
        #expect(try await jobs.reportProgress(jobID: job.id, worker: "a", percent: 30))
        jobs.jobClock.advance(by: .seconds(3000))
        #expect(try await jobs.renewLease(jobID: job.id, worker: "a"))
        let renewed = try #require(try await jobs.job(id: job.id))
        #expect(renewed.updated > claimed.updated)
        #expect(renewed.progress == 30)
        #expect(renewed.claimedBy == "a" && renewed.status == .running)
        jobs.jobClock.advance(by: .seconds(3000))
        #expect(try await jobs.claimNextJob(worker: "b", processes: [Self.process], lease: .seconds(3600)) == nil,
                "6000 s after the claim but 3000 s after the renewal, the lease holds")
        #expect(try await jobs.renewLease(jobID: job.id, worker: "b") == false)
    }
}
