import Foundation
import GeoCore
import TwinStore

/// A job fanned out over the job table (issue 57 §4): a parent job submits one child job per
/// part of its work, the workers sharing the table claim the children as they claim any job
/// (leases, the take-over of a dead worker's job), and the parent joins the children's results
/// when all have finished. No engine of its own: the table coordinates.
///
/// - Children's ids derive from the parent's (`childID`), so a worker that takes a parent over
///   after its worker died finds the children already submitted, running or finished, and
///   submits none twice (`JobStore.submitJob(id:…)`).
/// - The parent's progress is its children's: done ÷ total.
/// - While it waits, the parent's worker runs waiting children itself (and takes over children
///   whose worker's lease lapsed), so a parent never leaves its worker idle.
/// - A failed or dismissed child fails the parent with the child named, and the children still
///   waiting or running are dismissed; dismissing the parent dismisses its children (at the
///   parent's next look, or at a child's next progress report: `ProcessWorker` stops a child
///   whose parent has ended without success).
///
/// Outside a job (a synchronous execution, the CLI) there is no table to coordinate through:
/// `JobFanOut.current` is nil and the caller runs the work as one piece.
public struct JobFanOut: Sendable {
    /// One part of a parent's work: the child job's process and inputs, and a key naming it in
    /// messages and in the joined result (e.g. `district D003`).
    public struct Child: Sendable {
        public var key: String
        public var process: String
        public var inputs: [String: JSONValue]

        public init(key: String, process: String, inputs: [String: JSONValue]) {
            self.key = key
            self.process = process
            self.inputs = inputs
        }
    }

    /// A finished child: its key, job id and result document.
    public struct Finished: Sendable {
        public var key: String
        public var job: String
        public var result: JSONValue
    }

    /// The input a child job's record carries with its parent's id (the worker removes it before
    /// the child's process reads its inputs).
    public static let parentInput = "parentJob"

    /// The job being run, and the worker running it: set by `ProcessWorker` around a process's run.
    @TaskLocal public static var current: JobFanOut?

    /// The running (parent) job's id.
    public let jobID: String
    /// The worker running it, which runs children too while the parent waits.
    let worker: ProcessWorker
    /// How long to wait between looks at the children when none is waiting to be run here.
    public var poll: Duration = .milliseconds(250)

    init(jobID: String, worker: ProcessWorker) {
        self.jobID = jobID
        self.worker = worker
    }

    /// The id of the parent's child number `index`: the parent's UUID with version digit 8
    /// (never a random v4 id's) and its last eight hex digits XORed with `index + 1`.
    public static func childID(parent: String, index: Int) -> String {
        var chars = Array(parent)
        guard chars.count == 36, chars[14] == "4" || chars[14] == "8", let tail = UInt32(String(chars[28...]), radix: 16) else {
            return parent + "-" + String(index + 1)  // not a UUID of this table: still distinct and derived
        }
        chars[14] = "8"
        let mixed = String(tail ^ UInt32(truncatingIfNeeded: index + 1), radix: 16)
        return String(chars[..<28]) + String(repeating: "0", count: 8 - mixed.count) + mixed
    }

    /// Submits `children` (those not yet submitted), waits for them, running waiting ones here,
    /// and answers their results in `children`'s order once all succeeded.
    /// - Throws: `JobFailure` naming the first child that failed (with its failure's kind) or was
    ///   dismissed (the others still open are dismissed); `CancellationError` when the parent was dismissed (its
    ///   children are dismissed) or its worker is stopping (the children stay: a worker taking
    ///   the parent over finds them).
    public func run(_ children: [Child], caller: Caller, progress: JobProgress) async throws -> [Finished] {
        let jobs = worker.jobs
        var ids: [String] = []
        for (k, child) in children.enumerated() {
            var inputs = child.inputs
            inputs[Self.parentInput] = .string(jobID)
            let id = Self.childID(parent: jobID, index: k)
            _ = try await jobs.submitJob(id: id, process: child.process, inputs: .object(inputs), caller: caller)
            ids.append(id)
        }
        let processes = Array(Set(children.map(\.process))).sorted()
        while true {
            var records: [JobRecord] = []
            for id in ids {
                guard let record = try await jobs.job(id: id) else {
                    throw JobFailure(.internal, "\(children[records.count].key) (child job \(id)) vanished from the job table")
                }
                records.append(record)
            }
            if let k = records.firstIndex(where: { $0.status == .failed || $0.status == .dismissed }) {
                await dismiss(ids, except: ids[k])
                let named = "\(children[k].key) (child job \(ids[k]))"
                guard records[k].status == .failed else { throw JobFailure(.failed, named + " was dismissed") }
                let failure = JobFailure(job: records[k])
                throw JobFailure(failure.kind, named + " failed: " + failure.message, input: failure.input)
            }
            let done = records.filter { $0.status == .successful }.count
            do {
                try await progress.report(Double(done) * 100 / Double(Swift.max(1, ids.count)))
            } catch is CancellationError {
                // The parent was dismissed (its progress is refused), or this worker is stopping.
                if try await jobs.job(id: jobID)?.status == .dismissed { await dismiss(ids, except: nil) }
                throw CancellationError()
            }
            if done == ids.count {
                return zip(children, records).map { Finished(key: $0.key, job: $1.id, result: $1.result ?? .null) }
            }
            // Run a waiting child here, or take over one whose worker's lease lapsed; else wait for the others.
            let now = jobs.jobClock.now
            if let claimed = try await claimWaiting(records) {
                try await worker.run(claimed)
            } else if records.contains(where: { $0.status == .running && now.timeIntervalSince($0.updated) > worker.lease.seconds }),
                      let claimed = try await jobs.claimNextJob(worker: worker.name, processes: processes, lease: worker.lease) {
                try await worker.run(claimed)
            } else {
                try await Task.sleep(for: poll)
            }
        }
    }

    /// Claims the first of the children that is waiting (`accepted`), for this worker; nil when none is (or another worker was quicker).
    private func claimWaiting(_ records: [JobRecord]) async throws -> JobRecord? {
        for record in records where record.status == .accepted {
            if let claimed = try await worker.jobs.claimJob(id: record.id, worker: worker.name) { return claimed }
        }
        return nil
    }

    /// Dismisses the children in `ids` that have not ended (best effort: the parent is failing anyway).
    private func dismiss(_ ids: [String], except kept: String?) async {
        for id in ids where id != kept {
            guard let record = try? await worker.jobs.job(id: id), !record.status.isFinal else { continue }
            _ = try? await worker.jobs.dismissJob(id: id)
        }
    }
}
