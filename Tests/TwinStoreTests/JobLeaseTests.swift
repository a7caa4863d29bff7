import Foundation
import GeoCore
import Testing
import TwinStore

/// Job leases: a worker that dies mid-job (stops renewing) loses the job to the next claimer
/// once the lease lapses; a live worker's renewals keep it; the old worker's late reports and
/// outcome are refused — on both backends.
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

        try await Task.sleep(for: .milliseconds(30))
        let taken = try #require(try await jobs.claimNextJob(worker: "b", processes: [Self.process], lease: .milliseconds(10)))
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
        try await Task.sleep(for: .milliseconds(30))
        #expect(try await jobs.claimNextJob(worker: "c", processes: [Self.process], lease: .milliseconds(10)) == nil)
    }

    @Test("renewing moves the lease forward without touching progress; a live lease keeps the job",
          arguments: StoreBackend.available)
    func renewedLease(_ backend: StoreBackend) async throws {
        // No wall-clock race here (the test pool is busy; awaits may wait seconds): the lapse rule
        // itself is the test above; this one checks that a renewal moves the time that rule reads.
        let store = try await backend.makeStore(layers: [])
        let jobs = try #require(store as? any JobStore)
        let job = try await jobs.submitJob(process: Self.process, inputs: ["layer": "shelters"], caller: Fixtures.emergency)
        let claimed = try #require(try await jobs.claimNextJob(worker: "a", processes: [Self.process], lease: .seconds(3600)))
        #expect(try await jobs.reportProgress(jobID: job.id, worker: "a", percent: 30))
        try await Task.sleep(for: .milliseconds(20))
        #expect(try await jobs.renewLease(jobID: job.id, worker: "a"))
        let renewed = try #require(try await jobs.job(id: job.id))
        #expect(renewed.updated > claimed.updated)
        #expect(renewed.progress == 30)
        #expect(renewed.claimedBy == "a" && renewed.status == .running)
        #expect(try await jobs.claimNextJob(worker: "b", processes: [Self.process], lease: .seconds(3600)) == nil)
        #expect(try await jobs.renewLease(jobID: job.id, worker: "b") == false)
    }
}
