import Foundation
import Signals
import Synchronization
import Testing

/// `SumoRunQueue` under many evaluations at once (issue 78 §14; the HTTP side is ServerTests'
/// `SumoQueueTests`): never more than `runs` replay, never more than `waiting` wait, every one
/// admitted ends, and a run that ends while a newcomer is joining the queue hands its place on
/// rather than leaving the newcomer waiting for a run that may never come.
@Suite("SUMO run queue: its bounds hold under concurrent evaluations")
struct SumoRunQueueTests {
    /// A value shared by the test's tasks.
    final class Shared<T: Sendable>: Sendable {
        private let value: Mutex<T>
        init(_ value: T) { self.value = Mutex(value) }
        func update<R: Sendable>(_ body: (inout T) -> R) -> R { value.withLock { body(&$0) } }
        var current: T { value.withLock { $0 } }
    }

    /// Polls `condition` every 10 ms, for up to `limit` seconds (a bound on a hang, not a measure).
    static func until(_ what: String, within limit: Double = 60, _ condition: () -> Bool) async throws {
        let deadline = Date().addingTimeInterval(limit)
        while !condition() {
            guard Date() < deadline else {
                Issue.record("\(what): not within \(limit) s")
                return
            }
            try await Task.sleep(for: .milliseconds(10))
        }
    }

    @Test("300 evaluations on 2 places: at most 2 run at once, and all 300 end (none left waiting after the last run)")
    func everyRunEnds() async throws {
        let queue = SumoRunQueue(runs: 2, waiting: 1000)
        let running = Shared((now: 0, most: 0, ended: 0))
        let runs = Task {
            await withTaskGroup(of: Void.self) { group in
                for _ in 0..<300 {
                    group.addTask {
                        _ = try? await queue.run {
                            running.update { $0.now += 1; $0.most = max($0.most, $0.now) }
                            await Task.yield()
                            running.update { $0.now -= 1 }
                        }
                        running.update { $0.ended += 1 }
                    }
                }
            }
        }
        try await Self.until("every evaluation ends") { running.current.ended == 300 }
        runs.cancel()
        #expect(running.current.most <= 2)
        #expect(queue.status.running == 0 && queue.status.queued == 0, "\(queue.status)")
    }

    @Test("20 evaluations at once on 1 place and 3 waiting: 1 runs, 3 wait, 16 are refused Full; once the place is free the 4 end")
    func waitingBounded() async throws {
        let queue = SumoRunQueue(runs: 1, waiting: 3)
        let open = Shared(false)
        let outcome = Shared((ran: 0, full: 0))
        let runs = Task {
            await withTaskGroup(of: Void.self) { group in
                for _ in 0..<20 {
                    group.addTask {
                        do {
                            try await queue.run {
                                while !open.current { try await Task.sleep(for: .milliseconds(5)) }
                            }
                            outcome.update { $0.ran += 1 }
                        } catch let full as SumoRunQueue.Full {
                            #expect(full.runs == 1 && full.waiting == 3 && full.retryAfter >= 1)
                            outcome.update { $0.full += 1 }
                        } catch {
                            Issue.record("unexpected \(error)")
                        }
                    }
                }
            }
        }
        try await Self.until("16 refused, 1 running, 3 waiting") {
            outcome.current.full == 16 && queue.status.running == 1 && queue.status.queued == 3
        }
        #expect(outcome.current.full == 16 && queue.status.queued == 3, "\(queue.status)")
        open.update { $0 = true }
        try await Self.until("the 4 admitted end") { outcome.current.ran == 4 }
        await runs.value
        #expect(outcome.current.ran == 4 && outcome.current.full == 16)
        #expect(queue.status.running == 0 && queue.status.queued == 0, "\(queue.status)")
    }

    @Test("a waiting evaluation that is cancelled leaves the queue, and its place in it is free for the next")
    func cancelledLeaves() async throws {
        let queue = SumoRunQueue(runs: 1, waiting: 1)
        let open = Shared(false)
        let first = Task { try await queue.run { while !open.current { try await Task.sleep(for: .milliseconds(5)) } } }
        try await Self.until("the first runs") { queue.status.running == 1 }
        let second = Task { try await queue.run {} }
        try await Self.until("the second waits") { queue.status.queued == 1 }
        second.cancel()
        await #expect(throws: CancellationError.self) { try await second.value }
        #expect(queue.status.queued == 0)
        let third = Task { try await queue.run { 3 } }
        try await Self.until("the third waits") { queue.status.queued == 1 }
        open.update { $0 = true }
        try await first.value
        #expect(try await third.value == 3)
        #expect(queue.status.running == 0 && queue.status.queued == 0)
    }
}
