import Foundation

/// The time the job table reads: when a job is submitted, claimed, renewed, reported or
/// finished, and so whether a lease has lapsed. Each store keeps one (`JobStore.jobClock`) and
/// reads it instead of the wall clock, so a test moves a store's time forward (`advance(by:)`)
/// to see a lease lapse instead of sleeping through it. Unadvanced, it is the wall clock.
public final class JobClock: @unchecked Sendable {
    private let lock = NSLock()
    private var offset: TimeInterval = 0

    public init() {}

    /// The wall clock plus every advance so far.
    public var now: Date {
        lock.lock(); defer { lock.unlock() }
        return Date().addingTimeInterval(offset)
    }

    /// Moves this clock forward by `duration` (tests: past a lease).
    public func advance(by duration: Duration) {
        let c = duration.components
        lock.lock(); defer { lock.unlock() }
        offset += Double(c.seconds) + Double(c.attoseconds) / 1e18
    }
}
