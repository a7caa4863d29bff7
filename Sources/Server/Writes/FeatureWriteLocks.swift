/// Serializes writes to one feature within this server: the `If-Match` check, the
/// read-modify-write of a PATCH and the store write happen as one step, so two requests holding
/// the same entity tag cannot both succeed. Writers of different features never wait for each
/// other. (Several server processes on one PostGIS store would need the check in the store's
/// transaction as well.)
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
