import Foundation
import GeoCore
import TwinStore

/// The store's token revocation list as a server sees it: read again at most every
/// `refreshInterval` (by the first request with a token after that), so a revocation made by
/// `citytwin token revoke` anywhere reaches every server on the store within that time, and
/// requests between reads cost no store round trip.
final class RevocationList: @unchecked Sendable {
    /// Seconds a read of the list is used for.
    static let refreshInterval: TimeInterval = 2
    let store: any TokenRevocations
    private let lock = NSLock()
    private var digests: Set<String> = []
    private var readAt = Date.distantPast

    init(store: any TokenRevocations) {
        self.store = store
    }

    /// Whether the token named `key` (`VerifiedToken.revocationKey`) is on the list.
    func isRevoked(key: String) async throws -> Bool {
        if lock.withLock({ TwinClock.current.now.timeIntervalSince(readAt) >= Self.refreshInterval }) {
            let fresh = try await store.revokedTokens(now: Int64(TwinClock.current.now.timeIntervalSince1970))
            lock.withLock {
                digests = fresh
                readAt = TwinClock.current.now
            }
        }
        return lock.withLock { digests.contains(key) }
    }
}
