import Synchronization

/// A bound on writes at once (`RequestLimits.sensingWriteQueue`): `enter` admits a write while
/// fewer than `limit` are in progress or waiting for the store, and refuses at once otherwise
/// (the route answers 503 with `Retry-After`), so a burst is refused, not queued without bound.
/// An admitted write is answered only after its transaction committed: what was acknowledged
/// is stored, what was refused was not touched.
final class WriteAdmission: Sendable {
    /// Writes admitted at once; 0: no bound.
    let limit: Int
    private let admitted = Mutex(0)

    init(limit: Int) { self.limit = limit }

    /// Admits one write (pair with `leave`), or `false` when `limit` are in already.
    func enter() -> Bool {
        admitted.withLock { n in
            guard limit <= 0 || n < limit else { return false }
            n += 1
            return true
        }
    }

    func leave() {
        admitted.withLock { $0 -= 1 }
    }
}
