import Foundation
import GeoCore
import TwinStore

/// The store's departments (`KnownDepartments`) as the server checks an OpenID provider's tokens
/// against them: read again when older than `refreshInterval`, or when a token names a
/// department not in the last read and that read is at least `missRefreshInterval` old (a layer
/// created for a new department is known within seconds; unknown names cannot make every
/// request read the catalogue).
final class DepartmentDirectory: @unchecked Sendable {
    static let refreshInterval: TimeInterval = 60
    static let missRefreshInterval: TimeInterval = 5
    private let store: any FeatureStore
    private let lock = NSLock()
    private var names: Set<String> = []
    private var readAt = Date.distantPast

    init(store: any FeatureStore) {
        self.store = store
    }

    /// Whether `department` owns or may see a layer of the store.
    func knows(_ department: String) async throws -> Bool {
        let (known, age) = lock.withLock { (names.contains(department), TwinClock.current.now.timeIntervalSince(readAt)) }
        if known, age < Self.refreshInterval { return true }
        if !known, age < Self.missRefreshInterval { return false }
        let fresh = try await KnownDepartments.of(store)
        lock.withLock {
            names = fresh
            readAt = TwinClock.current.now
        }
        return fresh.contains(department)
    }
}
