import Foundation

/// Token buckets by key (a bearer token, a client address): each holds up to `burst` requests
/// and refills at `rate` per second. Memory is bounded: beyond `maximumKeys` buckets, full ones
/// (callers quiet for `burst / rate` seconds, whom forgetting does not favour) are dropped.
final class RateLimiter: @unchecked Sendable {
    let rate: Double, burst: Double
    let maximumKeys: Int
    private let lock = NSLock()
    private var buckets: [String: (tokens: Double, at: Double)] = [:]

    init(rate: Double, burst: Double, maximumKeys: Int = 100_000) {
        self.rate = rate
        self.burst = max(burst, 1)
        self.maximumKeys = maximumKeys
    }

    /// Takes one request from `key`'s bucket: `nil` when allowed, else the whole seconds after
    /// which one will be (the `Retry-After`).
    func take(_ key: String, now: Double = ProcessInfo.processInfo.systemUptime) -> Int? {
        lock.withLock {
            var bucket = buckets[key] ?? (burst, now)
            bucket.tokens = min(burst, bucket.tokens + (now - bucket.at) * rate)
            bucket.at = now
            defer {
                buckets[key] = bucket
                if buckets.count > maximumKeys { forgetFullBuckets(now) }
            }
            guard bucket.tokens >= 1 else { return max(1, Int(((1 - bucket.tokens) / rate).rounded(.up))) }
            bucket.tokens -= 1
            return nil
        }
    }

    private func forgetFullBuckets(_ now: Double) {
        buckets = buckets.filter { $0.value.tokens + (now - $0.value.at) * rate < burst }
        if buckets.count > maximumKeys { buckets = [:] }  // all busy: start afresh rather than grow
    }
}
