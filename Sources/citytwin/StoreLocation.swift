import ArgumentParser
import Foundation
import TwinStore

/// Where a CLI command's store is: `--store PATH`, `spatialite:PATH` or `postgresql://…`.
/// The one parser of `--store` values for `serve`, `district`, `import` and `layers`.
enum StoreLocation {
    case spatiaLite(String)
    case postgres(String)

    init(_ text: String) throws {
        if text.hasPrefix("postgresql://") || text.hasPrefix("postgres://") {
            self = .postgres(text)
            return
        }
        let path = text.hasPrefix("spatialite:") ? String(text.dropFirst("spatialite:".count)) : text
        guard !path.isEmpty else { throw ValidationError("--store needs a file path") }
        self = .spatiaLite(path)
    }

    /// The directory of a SpatiaLite file (where the DEM goes); `nil` for PostGIS.
    var directory: URL? {
        if case .spatiaLite(let path) = self { return URL(fileURLWithPath: path).deletingLastPathComponent() }
        return nil
    }

    /// PostGIS connections a process holds when `--postgres-pool-size` is not given: 8.
    static let defaultPoolSize = 8

    /// Opens the store, creating a SpatiaLite file (and its directory) when missing; a
    /// PostgreSQL URL connects to PostGIS (schema `citytwin`).
    /// - Parameter connectionWait: how long a PostGIS operation waits for a connection before it
    ///   fails as `unavailable` (a SpatiaLite file has no connections to wait for).
    /// - Parameter poolSize: the most PostGIS connections the store holds.
    func open(connectionWait: Duration = PostGISStore.defaultConnectionWait, poolSize: Int = defaultPoolSize) async throws -> any FeatureStore {
        switch self {
        case .postgres(let url):
            return try await PostGISStore.connect(url: url, maximumConnections: poolSize, connectionWait: connectionWait)
        case .spatiaLite(let path):
            let dir = URL(fileURLWithPath: path).deletingLastPathComponent()
            do { try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true) } catch {
                throw CommandFailure("--store \(path): its directory cannot be created (\(fileErrorReason(error)))")
            }
            return try SpatiaLiteStore(path: path)
        }
    }

    /// Opens a store that must already exist (for every command but `district build` and
    /// `import`): a missing SpatiaLite file is an error naming how to build one, not a new
    /// empty store (nor a new token secret beside it).
    func openExisting(connectionWait: Duration = PostGISStore.defaultConnectionWait, poolSize: Int = defaultPoolSize) async throws -> any FeatureStore {
        if case .spatiaLite(let path) = self, !FileManager.default.fileExists(atPath: path) {
            throw ValidationError("no store at \(path) (build one with `citytwin district build` or give --store)")
        }
        return try await open(connectionWait: connectionWait, poolSize: poolSize)
    }

    /// The authority that signs and verifies bearer tokens for this store: its secret comes
    /// from CITYTWIN_TOKEN_SECRET, or a 0600 file beside a SpatiaLite store.
    func tokenAuthority() throws -> TokenAuthority {
        let path: String?
        if case .spatiaLite(let p) = self { path = p } else { path = nil }
        return try TokenAuthority.forStore(path: path)
    }

    /// Deletes a SpatiaLite file, its WAL/SHM companions and its audit key (for `--force`: the key
    /// of a chain that is gone).
    static func remove(spatiaLiteAt path: String) throws {
        for suffix in ["", "-wal", "-shm", AuditKey.fileSuffix] where FileManager.default.fileExists(atPath: path + suffix) {
            try FileManager.default.removeItem(atPath: path + suffix)
        }
    }
}
