import Foundation
import GeoCore
import GRDB
import Logging
import Synchronization

/// The embedded `FeatureStore`: one SQLite file in WAL mode with SpatiaLite on every
/// connection (GRDB `DatabasePool`: one writer, concurrent readers).
///
/// Layout: a table `f_<id>` per layer holding every version (`vid` = rowid, `fid`, `props`
/// JSON, `geom` SRID 4490 with an R*Tree, `valid_from`/`valid_to` in microseconds since 1970
/// UTC, `author`, `department`, `hash`), a unique partial index on `fid` for current versions,
/// and the system tables `catalog`, `layer_stats` (each layer's count and extent, `LayerStats`), `audit_log` (the journal of writes: audit entries and change events,
/// `JournalSQL`), `jobs`, `store_meta`, `rasters` (`ManagedRasters`).
public final class SpatiaLiteStore: FeatureBackend, BulkFeatureLoading {
    let pool: DatabasePool
    let dialect = SpatiaLiteDialect()
    var sqlDialect: any SQLDialect { dialect }
    /// Secret key of the `hash` masking rule, created with the database.
    let maskingKey: [UInt8]
    let definitions: DefinitionCache
    /// The time the job table reads (`JobClock`).
    public let jobClock = JobClock()
    /// The statements every connection runs while a recording runs (tests' `EXPLAIN QUERY PLAN` checks).
    let statements = StatementLog<String>()

    /// The audit key this process holds (`AuditKey`, `HeldAuditKey`).
    let auditKeys: HeldAuditKey
    /// The store's file.
    public let path: String

    /// Opens (or creates) the store at `path`.
    /// - Parameter auditKey: the key of the audit chain: by default `CITYTWIN_AUDIT_KEY`, else the
    ///   file `<path>.audit-key` beside the store, made (with a keyed chain) for a new store.
    public init(path: String, auditKey: AuditKeySource = .automatic) throws {
        self.path = path
        var config = Configuration()
        let statements = statements
        config.prepareDatabase { db in
            try SpatiaLiteConnection.prepare(db)
            try db.execute(sql: "PRAGMA synchronous = NORMAL")
            db.trace(options: .statement) { event in
                if case .statement(let s) = event { statements.record(s.expandedSQL) }
            }
        }
        config.busyMode = .timeout(10)
        do {
            pool = try DatabasePool(path: path, configuration: config)
            try pool.writeWithoutTransaction { db in try Self.createSystemTables(db) }
            maskingKey = try pool.write { db in try Self.maskingKey(db) }
            auditKeys = try pool.write { db in try Self.keyNewChain(db, source: auditKey, path: path) }
            definitions = try DefinitionCache(rows: try pool.read { db in try Self.catalogueRows(db) })
            let all = definitions.all
            try pool.write { db in try Self.fillStats(db, all) }
        } catch let e as StoreError {
            throw e
        } catch {
            throw StoreError(.backend, "cannot open the store at \(path): \(error)")
        }
    }

    /// Closes every connection of the store (later calls fail; closing again does nothing), so its
    /// file can be removed or moved; a store not closed closes when released. Fails, leaving the
    /// store open, while a statement is still running.
    ///
    /// The write-ahead log is checkpointed into the file and emptied first: GRDB closes the writer
    /// before the read-only readers, and SQLite checkpoints and deletes the log only when the last
    /// connection to close can write. Without it a closed store's `-wal` could still hold its last
    /// commits, which a file moved or copied on its own would lose (`district build` moves its
    /// finished store into place).
    public func close() throws {
        try closed.withLock { closed in
            guard !closed else { return }  // GRDB would hand the checkpoint a closed connection
            do {
                try pool.writeWithoutTransaction { db in _ = try db.checkpoint(.truncate) }
                try pool.close()
            } catch {
                throw StoreError(.backend, "cannot close the store: \(error)")
            }
            closed = true
        }
    }
    private let closed = Mutex(false)

    /// The SpatiaLite version a reader connection reports (proves every connection is initialised).
    public func spatialiteVersion() async throws -> String {
        try await pool.read { db in try SpatiaLiteConnection.version(db) }
    }

    private static func createSystemTables(_ db: Database) throws {
        let hasMetadata = try Bool.fetchOne(db, sql: "SELECT count(*) > 0 FROM sqlite_master WHERE name = 'spatial_ref_sys'") ?? false
        if !hasMetadata {
            // Only the CRSs CityTwin uses: a full EPSG table costs a second per new file.
            try db.execute(sql: "SELECT InitSpatialMetaData(1, 'NONE')")
            for srid in [4490, 4326, 4547, 3857] {
                try db.execute(sql: "SELECT InsertEpsgSrid(?)", arguments: [srid])
            }
        }
        try db.execute(sql: """
            CREATE TABLE IF NOT EXISTS catalog (
                id TEXT PRIMARY KEY, definition TEXT NOT NULL,
                created_at INTEGER NOT NULL, updated_at INTEGER NOT NULL);
            CREATE TABLE IF NOT EXISTS audit_log (
                seq INTEGER PRIMARY KEY AUTOINCREMENT, at INTEGER NOT NULL, actor TEXT NOT NULL,
                department TEXT, role TEXT NOT NULL, layer TEXT NOT NULL, fid TEXT NOT NULL,
                action TEXT NOT NULL, before_hash TEXT, after_hash TEXT, entry_hash TEXT NOT NULL,
                \(JournalSQL.boxColumns.map { "\($0) REAL" }.joined(separator: ", ")));
            CREATE INDEX IF NOT EXISTS audit_log_layer ON audit_log (layer, seq);
            CREATE TABLE IF NOT EXISTS jobs (
                id TEXT PRIMARY KEY, process TEXT NOT NULL, status TEXT NOT NULL,
                progress REAL NOT NULL DEFAULT 0, inputs TEXT NOT NULL, result TEXT,
                created_at INTEGER NOT NULL, updated_at INTEGER NOT NULL, claimed_by TEXT);
            CREATE INDEX IF NOT EXISTS jobs_status ON jobs (status, created_at);
            CREATE TABLE IF NOT EXISTS store_meta (key TEXT PRIMARY KEY, value BLOB NOT NULL);
            CREATE TABLE IF NOT EXISTS rasters (id TEXT PRIMARY KEY, description TEXT NOT NULL, data BLOB NOT NULL);
            """)
        try db.execute(sql: LayerStatsSQL.createTable(real: "REAL"))
        try mergeChangeFeed(db)
        try createAuditHead(db)
        try createSensingTables(db)
        for statement in DisclosureLedgerSQL.schema(prefix: "", integer: "INTEGER", blob: "BLOB") { try db.execute(sql: statement) }
    }

    /// The audit chain's head (`AuditHead`): one row the database keeps by itself, a trigger
    /// updating it in the transaction of every audit insert, so rows deleted from the end of the
    /// log are still found (`checkAuditChain`). A store from before it starts from its log as it is.
    private static func createAuditHead(_ db: Database) throws {
        try db.execute(sql: """
            CREATE TABLE IF NOT EXISTS audit_head (
                id INTEGER PRIMARY KEY CHECK (id = 1), entries INTEGER NOT NULL, last_seq INTEGER NOT NULL, last_hash TEXT NOT NULL);
            INSERT OR IGNORE INTO audit_head (id, entries, last_seq, last_hash)
                SELECT 1, count(*), coalesce(max(seq), 0),
                       coalesce((SELECT entry_hash FROM audit_log ORDER BY seq DESC LIMIT 1), '\(AuditChain.genesis)')
                FROM audit_log;
            CREATE TRIGGER IF NOT EXISTS audit_head_follows AFTER INSERT ON audit_log BEGIN
                UPDATE audit_head SET entries = entries + 1, last_seq = NEW.seq, last_hash = NEW.entry_hash
                WHERE id = 1 AND NEW.seq > last_seq;
            END;
            """)
        try db.execute(sql: AuditKeyRecord.createTable(integer: "INTEGER"))
    }

    /// The key this process signs with, and for a new store (no entry, no key record) with a key,
    /// the record of a chain keyed from its first entry. `.automatic` makes a new store's key file.
    private static func keyNewChain(_ db: Database, source: AuditKeySource, path: String) throws -> HeldAuditKey {
        let record = try auditKeyRecord(db)
        let isNew = try record == nil && !(Bool.fetchOne(db, sql: "SELECT EXISTS (SELECT 1 FROM audit_log)") ?? false)
        let key: AuditKey?
        switch source {
        case .automatic: key = try AuditKey.forStore(path: path, create: isNew)
        case .key(let k): key = k
        case .none: key = nil
        }
        if isNew, let key {
            let r = AuditKeyRecord(key: key, seq: 0, hash: AuditChain.genesis)
            try db.execute(sql: "INSERT INTO audit_key (id, key_id, from_seq, from_hash, seal) VALUES (1, ?, ?, ?, ?)",
                           arguments: [r.keyID, r.seq, r.hash, r.seal])
        } else if record == nil, !isNew, key != nil {
            logger.warning("the store's audit chain is not keyed: run `citytwin audit key` to key it from its current head (docs/operations.md)")
        }
        if case .automatic = source { return HeldAuditKey(key, rereading: key == nil ? path : nil) }
        return HeldAuditKey(key, rereading: nil)
    }

    /// The store's key record (`AuditKeyRecord`), if the chain is keyed.
    static func auditKeyRecord(_ db: Database) throws -> AuditKeyRecord? {
        try Row.fetchOne(db, sql: "SELECT key_id, from_seq, from_hash, seal FROM audit_key WHERE id = 1")
            .map { AuditKeyRecord(keyID: $0[0], seq: $0[1], hash: $0[2], seal: $0[3]) }
    }

    /// The newest audit entry's hash (the genesis hash for an empty log) and the key the next
    /// entries are signed with (`AuditSigning`), read in the write's transaction.
    static func chainHead(_ db: Database, keys: HeldAuditKey) throws -> (previous: String, key: AuditKey?) {
        let row = try Row.fetchOne(db, sql: """
            SELECT (SELECT entry_hash FROM audit_log ORDER BY seq DESC LIMIT 1), (SELECT key_id FROM audit_key WHERE id = 1)
            """)
        let previous: String = row?[0] ?? AuditChain.genesis
        let recorded: String? = row?[1]
        return (previous, try AuditSigning.key(recorded: recorded, held: recorded == nil ? nil : try keys.current()))
    }

    /// Stores written before the audit log carried the change boxes kept them in a separate
    /// `change_feed` table, one event per audit entry: its boxes move into the audit entries
    /// (matched by layer, feature, instant and kind) and the table goes, in one transaction.
    private static func mergeChangeFeed(_ db: Database) throws {
        guard try db.tableExists("change_feed") else { return }
        // Immediate: another process opening the store at the same time waits, then finds the
        // table gone (once GRDB forgets the schema it read before the wait).
        try db.inTransaction(.immediate) {
            db.clearSchemaCache()
            guard try db.tableExists("change_feed") else { return .commit }
            let present = Set(try db.columns(in: "audit_log").map(\.name))
            for column in JournalSQL.boxColumns where !present.contains(column) {
                try db.execute(sql: "ALTER TABLE audit_log ADD COLUMN \(column) REAL")
            }
            let columns = JournalSQL.boxColumns.joined(separator: ", ")
            // The index makes the lookup per audit entry a seek (it goes with the table).
            try db.execute(sql: """
                CREATE INDEX change_feed_merge ON change_feed (layer, fid, at, kind, seq);
                UPDATE audit_log SET (\(columns)) = (
                    SELECT \(columns) FROM change_feed AS c
                    WHERE c.layer = audit_log.layer AND c.fid = audit_log.fid AND c.at = audit_log.at AND c.kind = audit_log.action
                    ORDER BY c.seq LIMIT 1);
                DROP TABLE change_feed;
                """)
            return .commit
        }
    }

    private static func maskingKey(_ db: Database) throws -> [UInt8] {
        if let data = try Data.fetchOne(db, sql: "SELECT value FROM store_meta WHERE key = 'masking_key'") {
            return [UInt8](data)
        }
        var rng = SystemRandomNumberGenerator()
        let key = (0..<32).map { _ in UInt8.random(in: 0...255, using: &rng) }
        try db.execute(sql: "INSERT INTO store_meta (key, value) VALUES ('masking_key', ?)", arguments: [Data(key)])
        return key
    }

    // MARK: Catalogue

    public func createLayer(_ definition: LayerDefinition) async throws {
        let table = FeatureTable(layer: definition)
        let json = try JSONOutput.text(definition)
        let now = RFC3339.microseconds(TwinClock.current.now)
        try await mapErrors(layer: definition.id) {
            try await pool.write { db in
                let exists = try Bool.fetchOne(db, sql: "SELECT count(*) > 0 FROM catalog WHERE id = ?", arguments: [definition.id]) ?? false
                if exists {
                    try db.execute(sql: "UPDATE catalog SET definition = ?, updated_at = ? WHERE id = ?",
                                   arguments: [json, now, definition.id])
                    try Self.syncAttributeIndexes(db, definition, table: table.name)
                    return
                }
                try db.execute(sql: """
                    CREATE TABLE \(table.name) (
                        vid INTEGER PRIMARY KEY, fid TEXT NOT NULL, props TEXT NOT NULL,
                        valid_from INTEGER NOT NULL, valid_to INTEGER,
                        author TEXT NOT NULL, department TEXT, hash TEXT NOT NULL);
                    CREATE UNIQUE INDEX \(table.name)_current ON \(table.name) (fid) WHERE valid_to IS NULL;
                    CREATE INDEX \(table.name)_versions ON \(table.name) (fid, valid_from);
                    CREATE INDEX \(table.name)_time ON \(table.name) (valid_from, valid_to);
                    """)
                if definition.hasGeometry {
                    let type = definition.geometryType?.rawValue.uppercased() ?? "GEOMETRY"
                    let ok = try Int.fetchOne(db, sql: "SELECT AddGeometryColumn(?, 'geom', 4490, ?, ?)",
                                              arguments: [table.name, type, definition.hasZ ? "XYZ" : "XY"])
                    guard ok == 1 else { throw StoreError(.backend, "AddGeometryColumn failed", layer: definition.id) }
                    let indexed = try Int.fetchOne(db, sql: "SELECT CreateSpatialIndex(?, 'geom')", arguments: [table.name])
                    guard indexed == 1 else { throw StoreError(.backend, "CreateSpatialIndex failed", layer: definition.id) }
                }
                try Self.syncAttributeIndexes(db, definition, table: table.name)
                try db.execute(sql: "INSERT INTO catalog (id, definition, created_at, updated_at) VALUES (?, ?, ?, ?)",
                               arguments: [definition.id, json, now, now])
                try Self.storeStats(db, layer: definition.id, LayerStats(count: 0))
            }
        }
        definitions.set(definition, stamp: now)
    }

    /// Makes the layer table's attribute indexes those `definition` declares: creates the
    /// missing ones (over the rows already stored), drops those it no longer names.
    static func syncAttributeIndexes(_ db: Database, _ definition: LayerDefinition, table: String) throws {
        let wanted = AttributeIndex.declared(by: definition, dialect: SpatiaLiteDialect(), bare: table)
        let prefix = table + AttributeIndex.infix
        let present = try String.fetchAll(db, sql: """
            SELECT name FROM sqlite_master WHERE type = 'index' AND tbl_name = ? AND substr(name, 1, ?) = ?
            """, arguments: [table, prefix.utf8.count, prefix])
        for name in present where !wanted.contains(where: { $0.name == name }) {
            try db.execute(sql: "DROP INDEX \"\(name)\"")
        }
        for index in wanted { try db.execute(sql: index.createStatement(table: table, postgres: false)) }
    }

    func catalogueStamps() async throws -> [(id: String, stamp: Int64)] {
        try await mapErrors(layer: nil) {
            try await pool.read { db in
                try Row.fetchAll(db, sql: "SELECT id, updated_at FROM catalog").map { (id: $0[0], stamp: $0[1]) }
            }
        }
    }

    func catalogueRows() async throws -> [(id: String, stamp: Int64, text: String)] {
        try await mapErrors(layer: nil) { try await pool.read { db in try Self.catalogueRows(db) } }
    }

    static func catalogueRows(_ db: Database) throws -> [(id: String, stamp: Int64, text: String)] {
        try Row.fetchAll(db, sql: "SELECT id, updated_at, definition FROM catalog ORDER BY id").map { (id: $0[0], stamp: $0[1], text: $0[2]) }
    }

    /// Count, extent and last change of every layer `caller` may read: the catalogue's numbers
    /// (`LayerStats`) and an index lookup in the audit log per layer, no layer read.
    public func layers(for caller: Caller) async throws -> [LayerInfo] {
        try await refreshDefinitions()  // layers another process created
        let visible = definitions.all.filter { AccessPolicy.canRead($0, caller) }
        return try await mapErrors(layer: nil) {
            try await pool.read { db in
                let stats = try Self.stats(db, of: visible)
                return try zip(visible, stats).map { def, s in
                    let last = try Int64.fetchOne(db, sql: "SELECT max(seq) FROM audit_log WHERE layer = ? AND \(JournalSQL.changedData)", arguments: [def.id]) ?? 0
                    return LayerInfo(definition: def, extent: def.hasGeometry ? s.extent : nil, count: s.count, lastChange: last)
                }
            }
        }
    }

    public func layerDefinition(_ id: String, for caller: Caller) async throws -> LayerDefinition? {
        try await currentDefinition(id, caller)
    }

    func table(_ def: LayerDefinition) -> FeatureTable { FeatureTable(layer: def) }

    /// Runs `body`, turning GRDB errors into `StoreError(.backend)`, and a full disk (SQLite
    /// cannot write or grow the file or its WAL) into `.unavailable`: the transaction rolled back,
    /// nothing was written, and the same request succeeds once there is room (503 + Retry-After).
    func mapErrors<T>(layer: String?, _ body: () async throws -> T) async throws -> T {
        do {
            return try await body()
        } catch let e as StoreError {
            throw e
        } catch let e as DatabaseError where e.resultCode == .SQLITE_FULL || e.extendedResultCode == .SQLITE_IOERR_WRITE {
            throw StoreError(.unavailable, "the store's disk is full (SQLite could not write: \(e.message ?? "\(e.resultCode)")); nothing was written",
                             layer: layer)
        } catch let e as DatabaseError {
            throw StoreError(.backend, Self.failure(e), layer: layer)
        }
    }

    static let logger = Logger(label: "citytwin.spatialite")

    /// What a failed statement's error says, without the statement: SQLite's code and message and
    /// the statement's shape as a hash (the first 12 hex digits of its SHA-256), never its text, so
    /// that no log line at error level carries the SQL (GRDB's description ends in the whole
    /// statement). The statement is logged at debug with the same hash, the failure at warning.
    static func failure(_ e: DatabaseError) -> String {
        var text = "SQLite error \(e.resultCode.rawValue): \(e.message ?? "\(e.resultCode)")"
        if let sql = e.sql {
            let shape = String(SHA256.hex(Array(sql.utf8)).prefix(12))
            text += " (statement \(shape))"
            logger.debug("failed statement", metadata: ["statement": .string(shape), "sql": .string(sql)])
        }
        logger.warning("statement failed", metadata: ["error": .string(text)])
        return text
    }
}

extension SQLValue {
    /// The GRDB value to bind; geometries bind as WKB.
    var databaseValue: DatabaseValue {
        switch self {
        case .null: .null
        case .bool(let b): (b ? 1 : 0).databaseValue
        case .integer(let i): i.databaseValue
        case .double(let d): d.databaseValue
        case .text(let s): s.databaseValue
        case .blob(let b): Data(b).databaseValue
        case .geometry(let g): g.wkbData().databaseValue
        }
    }
}

extension StatementArguments {
    init(_ values: [SQLValue]) {
        self.init(values.map(\.databaseValue))
    }
}
