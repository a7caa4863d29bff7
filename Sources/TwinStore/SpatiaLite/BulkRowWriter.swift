import CSpatiaLite
import Foundation
import GeoCore
import GRDB

/// The two row inserts of a bulk insert (version, journal entry) as SQLite
/// statements prepared once per bulk insert and stepped through the C API: the columns that are
/// the same for every row (instant, author, department, role, layer) are bound once, and each
/// row binds only its own values, without building argument arrays. Writes exactly the rows
/// `SpatiaLiteStore.apply` writes for an insert plan, in the same order.
///
/// Lives inside one GRDB write (the transaction's connection); `finalize()` before leaving it.
final class BulkRowWriter {
    private let connection: OpaquePointer
    private let layer: String
    private let hasGeometry: Bool
    private var version: OpaquePointer?
    private var audit: OpaquePointer?
    /// The R*Tree entry of every geometry written, from the MBR in its SpatiaLite BLOB (what the
    /// R*Tree trigger would read), in row order; `nil` once a geometry went through SpatiaLite's
    /// own conversion (its MBR is only in the stored row then).
    private(set) var boxes: [PackedRTree.Box]? = []
    /// The geometry column's declared type (`geometry_columns.geometry_type`: the WKB code, 0
    /// for any type, plus 1000/2000/3000 for Z/M/ZM) that every BLOB written must satisfy, as
    /// SpatiaLite's `GeometryConstraints` trigger checks it.
    private let declaredType: UInt32?

    /// Prepares the statements for `batch`'s table and binds its constant columns.
    init(_ db: Database, template batch: WriteBatch) throws {
        guard let connection = db.sqliteConnection else { throw StoreError(.backend, "SQLite connection is closed") }
        self.connection = connection
        let def = batch.layer
        self.layer = def.id
        self.hasGeometry = def.hasGeometry
        let table = FeatureTable(layer: def).name
        declaredType = def.hasGeometry
            ? try Int.fetchOne(db, sql: "SELECT geometry_type FROM geometry_columns WHERE Lower(f_table_name) = Lower(?) AND f_geometry_column = 'geom'",
                               arguments: [table]).map { UInt32(clamping: $0) }
            : nil
        // ?3 is SpatiaLite's own BLOB (`SpatiaLiteBlob`, what ST_GeomFromWKB would make) or,
        // when ?8 is 1, WKB for SpatiaLite to convert (a 3D layer's WKB already has Z).
        let fromWKB = def.hasZ ? "CastToXYZ(ST_GeomFromWKB(?3, 4490))" : "ST_GeomFromWKB(?3, 4490)"
        let geomSQL = "CASE WHEN ?8 THEN \(fromWKB) ELSE ?3 END"
        // ?1 fid, ?2 props, ?3 wkb, ?4 hash | ?5 valid_from, ?6 author, ?7 department
        let versionSQL = def.hasGeometry
            ? "INSERT INTO \(table) (fid, props, geom, valid_from, valid_to, author, department, hash) VALUES (?1, ?2, \(geomSQL), ?5, NULL, ?6, ?7, ?4)"
            : "INSERT INTO \(table) (fid, props, valid_from, valid_to, author, department, hash) VALUES (?1, ?2, ?5, NULL, ?6, ?7, ?4)"
        // ?1 fid, ?2 after_hash, ?3 entry_hash, ?9…?12 after box | ?4 at, ?5 actor, ?6 department, ?7 role, ?8 layer
        let auditSQL = """
            INSERT INTO audit_log (\(JournalSQL.writtenColumns.joined(separator: ", ")))
            VALUES (?4, ?5, ?6, ?7, ?8, ?1, 'insert', NULL, ?2, ?3, NULL, NULL, NULL, NULL, ?9, ?10, ?11, ?12)
            """
        do {
            version = try prepare(versionSQL)
            audit = try prepare(auditSQL)
            try bindConstant(version, 5, batch.time)
            try bindConstant(version, 6, batch.actor)
            try bindConstant(version, 7, batch.department)
            try bindConstant(audit, 4, batch.time)
            try bindConstant(audit, 5, batch.actor)
            try bindConstant(audit, 6, batch.department)
            try bindConstant(audit, 7, batch.role)
            try bindConstant(audit, 8, batch.layer.id)
        } catch {
            finalize()
            throw error
        }
    }

    /// Writes a version and a journal entry (audit entry hash `entryHashes[i]`) per feature, in
    /// order, and keeps each geometry's R*Tree entry (`boxes`).
    /// - Throws: `StoreError(.duplicateFeature)` when a feature already has a current version
    ///   (the unique index on current ids), `StoreError(.invalidFeature)` for a geometry the
    ///   column's type constraint refuses, `DatabaseError` for anything else SQLite refuses.
    func insert(_ features: [PreparedFeature], entryHashes: [String]) throws {
        guard let version, let audit else { throw StoreError(.backend, "bulk insert statements are finalized") }
        // By index, reading fields in place: binding a whole `PreparedFeature` per row would
        // copy (retain and release) every one of its strings and arrays.
        for i in features.indices where i < entryHashes.count {
            try Self.withText(features[i].id) { id, idCount in
                bindText(version, 1, id, idCount)
                try Self.withText(features[i].propertiesText) { bindText(version, 2, $0, $1) }
                try Self.withText(features[i].hash) { hash, hashCount in
                    bindText(version, 4, hash, hashCount)
                    if hasGeometry {
                        if let wkb = features[i].wkb {
                            let blob = SpatiaLiteBlob.make(wkb: wkb, srid: LayerDefinition.storageSRID)
                            if let blob, let declaredType, !SpatiaLiteBlob.satisfies(blob, declaredType: declaredType) {
                                throw StoreError(.invalidFeature, "the geometry violates the layer's geometry type or SRID (EPSG:4490)",
                                                 layer: layer, feature: features[i].id, field: "geometry")
                            }
                            sqlite3_bind_int(version, 8, blob == nil ? 1 : 0)
                            try (blob ?? wkb).withUnsafeBytes { b in
                                sqlite3_bind_blob(version, 3, b.baseAddress, Int32(b.count), nil)
                                try step(version, feature: features[i].id)
                            }
                            if let blob, let mbr = SpatiaLiteBlob.mbr(of: blob) {
                                boxes?.append(PackedRTree.Box(id: sqlite3_last_insert_rowid(connection), minX: mbr.minX,
                                                              maxX: mbr.maxX, minY: mbr.minY, maxY: mbr.maxY))
                            } else {
                                boxes = nil
                            }
                        } else {
                            sqlite3_bind_null(version, 3)
                            try step(version, feature: features[i].id)
                        }
                    } else {
                        try step(version, feature: features[i].id)
                    }
                    bindText(audit, 1, id, idCount)
                    bindText(audit, 2, hash, hashCount)
                    if let e = features[i].envelope {
                        sqlite3_bind_double(audit, 9, e.minX)
                        sqlite3_bind_double(audit, 10, e.minY)
                        sqlite3_bind_double(audit, 11, e.maxX)
                        sqlite3_bind_double(audit, 12, e.maxY)
                    } else {
                        for i: Int32 in 9...12 { sqlite3_bind_null(audit, i) }
                    }
                    try Self.withText(entryHashes[i]) { bindText(audit, 3, $0, $1) }
                    try step(audit, feature: features[i].id)
                }
            }
        }
    }

    /// Releases the statements (idempotent).
    func finalize() {
        for s in [version, audit] { sqlite3_finalize(s) }
        version = nil
        audit = nil
    }

    deinit { finalize() }

    // MARK: - SQLite C API

    private func prepare(_ sql: String) throws -> OpaquePointer? {
        var statement: OpaquePointer?
        let rc = sqlite3_prepare_v3(connection, sql, -1, UInt32(SQLITE_PREPARE_PERSISTENT), &statement, nil)
        guard rc == SQLITE_OK else { throw error(rc, sql: sql) }
        return statement
    }

    /// Binds a value that stays for every row (SQLite copies it).
    private func bindConstant(_ s: OpaquePointer?, _ i: Int32, _ value: Int64) throws {
        try check(sqlite3_bind_int64(s, i, value))
    }

    private func bindConstant(_ s: OpaquePointer?, _ i: Int32, _ value: String?) throws {
        guard let value else { return try check(sqlite3_bind_null(s, i)) }
        try check(sqlite3_bind_text(s, i, value, -1, Self.transient))
    }

    /// Binds text the caller keeps alive until the statement is stepped (no copy).
    private func bindText(_ s: OpaquePointer, _ i: Int32, _ text: UnsafePointer<CChar>, _ count: Int32) {
        sqlite3_bind_text(s, i, text, count, nil)
    }

    /// Steps an INSERT to its end and resets it for the next row.
    private func step(_ s: OpaquePointer, feature: String) throws {
        let rc = sqlite3_step(s)
        sqlite3_reset(s)
        guard rc == SQLITE_DONE else {
            if sqlite3_extended_errcode(connection) == 2067 /* SQLITE_CONSTRAINT_UNIQUE */ && s == version {
                throw StoreError(.duplicateFeature, "feature \"\(feature)\" already exists", layer: layer, feature: feature)
            }
            throw error(rc, sql: String(cString: sqlite3_sql(s)))
        }
    }

    private func check(_ rc: Int32) throws {
        guard rc == SQLITE_OK else { throw error(rc, sql: nil) }
    }

    private func error(_ rc: Int32, sql: String?) -> DatabaseError {
        DatabaseError(resultCode: ResultCode(rawValue: sqlite3_extended_errcode(connection)),
                      message: String(cString: sqlite3_errmsg(connection)), sql: sql)
    }

    /// A string's UTF-8 bytes as a C pointer and length, without copying a native string.
    /// Never an empty buffer's nil address: SQLite would bind NULL instead of ''.
    private static func withText<R>(_ s: String, _ body: (UnsafePointer<CChar>, Int32) throws -> R) rethrows -> R {
        var s = s
        return try s.withUTF8 { u in
            guard let base = u.baseAddress, u.count > 0 else { return try "".withCString { try body($0, 0) } }
            return try base.withMemoryRebound(to: CChar.self, capacity: u.count) { try body($0, Int32(u.count)) }
        }
    }

    /// `SQLITE_TRANSIENT`: SQLite copies the value at bind time.
    private static let transient = unsafeBitCast(-1, to: sqlite3_destructor_type.self)
}
