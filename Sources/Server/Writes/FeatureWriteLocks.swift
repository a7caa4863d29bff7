/// Queues writes to one feature within this server, so concurrent requests for it take turns
/// instead of retrying. What makes the `If-Match` check, the read-modify-write of a PATCH and the
/// store write one step is the store's conditional write (`FeatureStore.update`), which holds
/// across server processes on one store too; this queue only spares it the retries. Writers of
/// different features never wait for each other.
actor FeatureWriteLocks {
    private var held: Set<String> = []
    private var waiting: [String: [CheckedContinuation<Void, Never>]] = [:]

    /// Runs `body` while holding the lock of `key` (`<layer>/<feature id>`).
    func withLock<T: Sendable>(_ key: String, _ body: @Sendable () async throws -> T) async throws -> T {
        await acquire(key)
        do {
            let value = try await body()
            release(key)
            return value
        } catch {
            release(key)
            throw error
        }
    }

    private func acquire(_ key: String) async {
        if held.insert(key).inserted { return }
        await withCheckedContinuation { waiting[key, default: []].append($0) }
        // Ownership was handed over by `release`: the key is still in `held`.
    }

    private func release(_ key: String) {
        guard var queue = waiting[key], !queue.isEmpty else {
            held.remove(key)
            return
        }
        let next = queue.removeFirst()
        waiting[key] = queue.isEmpty ? nil : queue
        next.resume()
    }
}
