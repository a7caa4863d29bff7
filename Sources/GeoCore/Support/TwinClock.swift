import Foundation

/// The time that decides behaviour: whether a token has expired, a lease lapsed, a cache aged,
/// which turn restrictions are in force, the instant a write is stamped with. Code reads
/// `TwinClock.current.now` (or a clock it was given, as a store's job table reads its own
/// `jobClock`) instead of `Date()`, so a test moves time forward (`advance(by:)`) instead of
/// sleeping through it: `TwinClock.$current.withValue(clock) { … }`. Unadvanced, it is the wall clock.
public final class TwinClock: @unchecked Sendable {
    private let lock = NSLock()
    private var offset: TimeInterval = 0

    public init() {}

    /// The wall clock plus every advance so far.
    public var now: Date {
        lock.lock(); defer { lock.unlock() }
        return Date().addingTimeInterval(offset)
    }

    /// Moves this clock forward by `duration` (tests: past a lease, an expiry, a cache's age).
    public func advance(by duration: Duration) {
        let c = duration.components
        lock.lock(); defer { lock.unlock() }
        offset += Double(c.seconds) + Double(c.attoseconds) / 1e18
    }

    /// The clock of the task: the wall clock unless a caller (a test) bound another.
    @TaskLocal public static var current = TwinClock()
}
