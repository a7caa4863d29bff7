import CSpatiaLite
import GRDB

/// Sets SpatiaLite up on one SQLite connection: `spatialite_init_ex` with a connection cache
/// (its own GEOS and PROJ handles, so connections never share them across threads), and a
/// marker function whose destructor runs `spatialite_cleanup_ex` when SQLite closes the
/// connection — GRDB has no close hook, but SQLite destroys every function's user data on close.
enum SpatiaLiteConnection {
    /// Call from `Configuration.prepareDatabase`: runs for the writer and every reader.
    static func prepare(_ db: Database) throws {
        guard let connection = db.sqliteConnection else {
            throw StoreError(.backend, "SQLite connection is closed")
        }
        guard let cache = spatialite_alloc_connection() else {
            throw StoreError(.backend, "spatialite_alloc_connection failed")
        }
        spatialite_init_ex(connection, cache, 0)
        let rc = CSpatiaLite.sqlite3_create_function_v2(
            connection, "citytwin_spatialite_cache", 0, SQLITE_UTF8, cache,
            { context, _, _ in CSpatiaLite.sqlite3_result_int(context, 1) },
            nil, nil,
            { cache in if let cache { spatialite_cleanup_ex(cache) } })
        guard rc == SQLITE_OK else {
            spatialite_cleanup_ex(cache)
            throw StoreError(.backend, "cannot register the SpatiaLite cache on the connection (SQLite code \(rc))")
        }
    }

    /// The SpatiaLite version a connection reports, e.g. "5.0.1".
    static func version(_ db: Database) throws -> String {
        try String.fetchOne(db, sql: "SELECT spatialite_version()") ?? ""
    }
}
