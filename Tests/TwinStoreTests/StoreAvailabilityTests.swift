import Dispatch
import Foundation
import Testing
import TwinStore

/// The store's bounded waits (issue 23): with PostgreSQL gone an operation fails as
/// `unavailable` once its wait for a connection is over, instead of waiting with the pool.
@Suite("Store availability: bounded waits for PostgreSQL")
struct StoreAvailabilityTests {
    struct Expired: Error, Equatable {}

    @Test("connecting where no PostgreSQL listens fails as unavailable once the connection wait is over")
    func nothingListens() async throws {
        // Port 1 on loopback: connections are refused, and postgres-nio's pool keeps retrying.
        let error = await #expect(throws: StoreError.self) {
            _ = try await PostGISStore.connect(url: "postgresql://citytwin:citytwin@127.0.0.1:1/citytwin", schema: "twin_unreachable",
                                               connectionWait: .milliseconds(300))
        }
        #expect(error?.code == .unavailable)
        #expect(error?.message.contains("no connection within 0.3 s") == true, "\(String(describing: error))")
    }

    @Test("a deadline returns the operation's value when it comes in time")
    func deadlineMet() async throws {
        let value = try await withDeadline(.seconds(30), expired: { Expired() }) { 42 }
        #expect(value == 42)
    }

    @Test("a deadline cancels an operation that waits too long and throws its own error")
    func deadlineMissed() async throws {
        await #expect(throws: Expired.self) {
            try await withDeadline(.milliseconds(50), expired: { Expired() }) {
                try await Task.sleep(for: .seconds(600))
                return 1
            }
        }
    }

    @Test("an operation that completes despite the cancellation keeps its value (a statement already sent)")
    func completedWorkStands() async throws {
        let value = try await withDeadline(.milliseconds(20), expired: { Expired() }) {
            // Ignores cancellation, as a sent statement does.
            await withCheckedContinuation { (k: CheckedContinuation<Int, Never>) in
                DispatchQueue.global().asyncAfter(deadline: .now() + 0.3) { k.resume(returning: 7) }
            }
        }
        #expect(value == 7)
    }

    @Test("the caller's own cancellation passes through as CancellationError")
    func callerCancelled() async throws {
        let task = Task {
            try await withDeadline(.seconds(600), expired: { Expired() }) {
                try await Task.sleep(for: .seconds(600))
                return 1
            }
        }
        task.cancel()
        await #expect(throws: CancellationError.self) { try await task.value }
    }
}
