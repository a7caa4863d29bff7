import Synchronization

/// Requests in progress by key (a bearer token, a client address), at most `limit` of them at
/// once for one key: nginx's `limit_conn`, GeoServer's per-user control flow. A client reading
/// page after page (GDAL, QGIS, OWSLib, a conformance suite) has one request in progress however
/// fast it goes and is never held back; a flood (many requests sent in parallel) is. Memory is
/// one entry per key with a request in progress.
final class ConcurrencyLimiter: Sendable {
    let limit: Int
    private let inProgress = Mutex<[String: Int]>([:])

    init(limit: Int) {
        self.limit = max(limit, 1)
    }

    /// Counts one more request of `key` in progress: `false` (and nothing counted) when `key`
    /// already has `limit`. Each `true` must be matched by one `leave(key)`.
    func enter(_ key: String) -> Bool {
        inProgress.withLock { counts in
            let count = counts[key, default: 0]
            guard count < limit else { return false }
            counts[key] = count + 1
            return true
        }
    }

    /// One request of `key` has finished.
    func leave(_ key: String) {
        inProgress.withLock { counts in
            let count = counts[key, default: 1] - 1
            counts[key] = count > 0 ? count : nil
        }
    }
}
