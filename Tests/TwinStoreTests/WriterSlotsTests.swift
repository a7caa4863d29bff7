import Foundation
import Synchronization
import Testing
@testable import TwinStore

/// `WriterSlots`: at most `limit` writes at once, the rest in line in arrival order, a bounded
/// wait ending with the caller's error and a cancelled wait with `CancellationError`, nothing of
/// their bodies run.
@Suite("Writer slots: writes of a process take turns before they take a connection")
struct WriterSlotsTests {
    struct Expired: Error {}

    /// A gate the test opens: bodies park on it while the test looks at who is inside.
    final class Gate: Sendable {
        private let waiters = Mutex<[CheckedContinuation<Void, Never>]?>([])
        func wait() async {
            await withCheckedContinuation { (k: CheckedContinuation<Void, Never>) in
                let parked = waiters.withLock { w -> Bool in
                    guard w != nil else { return false }
                    w!.append(k)
                    return true
                }
                if !parked { k.resume() }
            }
        }
        func open() {
            for k in waiters.withLock({ w -> [CheckedContinuation<Void, Never>] in defer { w = nil }; return w ?? [] }) { k.resume() }
        }
    }

    /// A value shared by the test's tasks.
    final class Shared<T: Sendable>: Sendable {
        private let value: Mutex<T>
        init(_ value: T) { self.value = Mutex(value) }
        func update<R: Sendable>(_ body: (inout T) -> R) -> R { value.withLock { body(&$0) } }
        var current: T { value.withLock { $0 } }
    }

    /// Polls `condition` for up to 5 s.
    static func eventually(_ condition: () -> Bool) async throws {
        for _ in 0..<500 where !condition() { try await Task.sleep(for: .milliseconds(10)) }
    }

    @Test("two slots: the third and fourth write wait, then enter in the order they came")
    func atMostLimitAtOnceInArrivalOrder() async throws {
        let slots = WriterSlots(limit: 2)
        let gate = Gate()
        let inside = Shared(0), most = Shared(0), order = Shared<[Int]>([])
        try await withThrowingTaskGroup(of: Void.self) { group in
            for i in 0..<4 {
                group.addTask {
                    try await slots.run(within: nil, expired: { Expired() }) {
                        order.update { $0.append(i) }
                        let now = inside.update { n -> Int in n += 1; return n }
                        most.update { $0 = max($0, now) }
                        await gate.wait()
                        inside.update { $0 -= 1 }
                    }
                }
                // Arrival order: each has asked for its slot before the next starts.
                try await Task.sleep(for: .milliseconds(50))
            }
            try await Self.eventually { inside.current == 2 }
            #expect(order.current == [0, 1], "only two writes inside while the gate is shut")
            gate.open()
            try await group.waitForAll()
        }
        #expect(most.current == 2)
        #expect(order.current == [0, 1, 2, 3])
    }

    @Test("a wait past its bound ends with the caller's error and runs nothing; the slot is then free for others")
    func aBoundedWaitExpires() async throws {
        let slots = WriterSlots(limit: 1)
        let gate = Gate()
        let ran = Shared(false)
        let holder = Task { try await slots.run(within: nil, expired: { Expired() }) { await gate.wait() } }
        try await Task.sleep(for: .milliseconds(50))
        let started = ContinuousClock.now
        await #expect(throws: Expired.self) {
            try await slots.run(within: .milliseconds(100), expired: { Expired() }) { ran.update { $0 = true } }
        }
        #expect(ContinuousClock.now - started >= .milliseconds(100))
        #expect(!ran.current)
        gate.open()
        try await holder.value
        #expect(try await slots.run(within: .milliseconds(100), expired: { Expired() }) { 7 } == 7)
    }

    @Test("a cancelled wait leaves the line with CancellationError and runs nothing")
    func aCancelledWaitLeavesTheLine() async throws {
        let slots = WriterSlots(limit: 1)
        let gate = Gate()
        let ran = Shared(false)
        let holder = Task { try await slots.run(within: nil, expired: { Expired() }) { await gate.wait() } }
        try await Task.sleep(for: .milliseconds(50))
        let waiter = Task { try await slots.run(within: nil, expired: { Expired() }) { ran.update { $0 = true } } }
        try await Task.sleep(for: .milliseconds(50))
        waiter.cancel()
        await #expect(throws: CancellationError.self) { try await waiter.value }
        #expect(!ran.current)
        gate.open()
        try await holder.value
        #expect(try await slots.run(within: nil, expired: { Expired() }) { 8 } == 8)
    }
}
