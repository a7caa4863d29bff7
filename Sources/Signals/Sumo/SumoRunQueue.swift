import Foundation
import ProcessRuntime
import Synchronization

/// The SUMO runs one process makes at once (issue 78 §14): a replay in SUMO takes a core for
/// minutes (an evaluation of 10 replications of 7,200 s, about 6 minutes), so `signal-evaluate`
/// requests take their turn in a queue instead of each starting its own. At most `runs`
/// evaluations replay in SUMO at once (each runs its SUMO programs one after another), at most
/// `waiting` more wait for their turn, in the order they came; one more is refused at once
/// (`Full`: 503 with `Retry-After`), never left to wait without bound. A waiting run that is
/// cancelled (its job dismissed, its client gone) leaves the queue.
///
/// One queue per process (`shared`), set by `citytwin serve --sumo-runs --sumo-queue`; the CLI's
/// own evaluations go through it too (one at a time there).
public final class SumoRunQueue: Sendable {
    /// The queue of this process.
    public static let shared = SumoRunQueue()

    /// Evaluations replaying in SUMO at once by default: half the cores (SUMO runs on one), at least one.
    public static var defaultRuns: Int { max(1, ProcessInfo.processInfo.activeProcessorCount / 2) }
    /// Evaluations waiting for their turn by default.
    public static let defaultWaiting = 8

    /// A run refused because `runs` replay and `waiting` wait already.
    public struct Full: Error, AnalysisFailure, Sendable, CustomStringConvertible {
        public let runs: Int
        public let waiting: Int
        /// Seconds after which a place may be free (`Retry-After`).
        public let retryAfter: Int

        public init(runs: Int, waiting: Int, retryAfter: Int) {
            self.runs = runs
            self.waiting = waiting
            self.retryAfter = retryAfter
        }

        public var description: String {
            "\(runs) SUMO \(runs == 1 ? "replay runs" : "replays run") and \(waiting) wait already, the most this server takes at once "
                + "(serve --sumo-runs, --sumo-queue); try again later, or use simulate=none for the analytic evaluation alone"
        }
        public var failureMessage: String { description }
    }

    private struct Waiter {
        let id: UInt64
        let continuation: CheckedContinuation<Void, any Error>
    }

    private struct State {
        var runs: Int
        var waiting: Int
        var running = 0
        var queue: [Waiter] = []
        /// Admitted to wait but not yet in `queue` (between the admission and the continuation):
        /// counted against `waiting`, and each looks at `running` again as it joins the queue.
        var joining = 0
        var nextID: UInt64 = 0
    }

    private let state: Mutex<State>

    public init(runs: Int = SumoRunQueue.defaultRuns, waiting: Int = SumoRunQueue.defaultWaiting) {
        state = Mutex(State(runs: max(1, runs), waiting: max(0, waiting)))
    }

    /// Sets the bounds (`citytwin serve` at start).
    public func configure(runs: Int, waiting: Int) {
        state.withLock {
            $0.runs = max(1, runs)
            $0.waiting = max(0, waiting)
        }
    }

    /// The bounds and how many replay and wait now.
    public var status: (runs: Int, waiting: Int, running: Int, queued: Int) {
        state.withLock { ($0.runs, $0.waiting, $0.running, $0.queue.count + $0.joining) }
    }

    /// Runs `body` once a place is free: at once, or after the runs before it in the queue.
    /// - Throws: `Full` when the queue is full; `CancellationError` when cancelled while waiting;
    ///   what `body` throws.
    public func run<T: Sendable>(_ body: () async throws -> T) async throws -> T {
        try await enter()
        defer { leave() }
        return try await body()
    }

    private func enter() async throws {
        enum Admission { case now, wait(UInt64), full(Full) }
        let admission = state.withLock { s -> Admission in
            if s.running < s.runs {
                s.running += 1
                return .now
            }
            guard s.queue.count + s.joining < s.waiting else {
                // About one replay's time per run ahead of a newcomer: a minute at the least.
                return .full(Full(runs: s.runs, waiting: s.queue.count + s.joining, retryAfter: 60))
            }
            s.joining += 1
            s.nextID += 1
            return .wait(s.nextID)
        }
        let id: UInt64
        switch admission {
        case .now: return
        case .full(let full): throw full
        case .wait(let number): id = number
        }
        try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
                enum Joined { case queued, cancelled, free }
                let joined = state.withLock { s -> Joined in
                    s.joining -= 1
                    if Task.isCancelled { return .cancelled }
                    // A run may have ended since the admission, with nobody in the queue to hand
                    // its place to: take it now rather than wait for a run that may never end.
                    if s.running < s.runs {
                        s.running += 1
                        return .free
                    }
                    s.queue.append(Waiter(id: id, continuation: continuation))
                    return .queued
                }
                switch joined {
                case .queued: break
                case .cancelled: continuation.resume(throwing: CancellationError())
                case .free: continuation.resume()
                }
            }
        } onCancel: {
            let waiter = state.withLock { s -> Waiter? in
                guard let i = s.queue.firstIndex(where: { $0.id == id }) else { return nil }
                return s.queue.remove(at: i)
            }
            waiter?.continuation.resume(throwing: CancellationError())
        }
    }

    /// A run ended: its place goes to the first waiting, else is free.
    private func leave() {
        let next = state.withLock { s -> Waiter? in
            if s.queue.isEmpty {
                s.running -= 1
                return nil
            }
            return s.queue.removeFirst()  // the place passes on; `running` stays
        }
        next?.continuation.resume()
    }
}
