import Foundation
import GeoCore
import Logging
import PostgresNIO

/// The server `FeatureStore`: PostgreSQL 14+ with PostGIS 3, through a postgres-nio
/// connection pool. Same behaviour as `SpatiaLiteStore` (the shared store suite and the
/// agreement tests hold both to it).
///
/// Layout, all in one schema (default `citytwin`): a table `f_<id>` per layer holding every
/// version (`vid` bigserial, `fid` text in code-point order, `props` jsonb, `geom`
/// geometry(<type>[Z], 4490) with a GiST index, `valid_from`/`valid_to` in microseconds since
/// 1970 UTC, `author`, `department`, `hash`), a unique partial index on `fid` for current
/// versions, and the tables `catalog`, `layer_stats` (each layer's count and extent, `LayerStats`), `audit_log` (the journal of writes: audit entries and change events,
/// `JournalSQL`), `jobs`, `store_meta`, `rasters` (`ManagedRasters`).
public final class PostGISStore: FeatureBackend, BulkFeatureLoading {
    /// The pool, with the wait for a connection bounded (`PostGISPool`).
    let client: PostGISPool
    let schema: String
    let dialect = PostGISDialect()
    var sqlDialect: any SQLDialect { dialect }
    let maskingKey: [UInt8]
    /// The audit key this process signs the chain with (`AuditKey`): `CITYTWIN_AUDIT_KEY`, or the one given.
    let auditKey: AuditKey?
    let definitions: DefinitionCache
    /// The time the job table reads (`JobClock`).
    public let jobClock = JobClock()
    let logger = Logger(label: "citytwin.postgis")
    /// The writes of this store that may hold a pooled connection at once (`WriterSlots`): one
    /// under the write lock, one waiting for it.
    let writers = WriterSlots(limit: 2)
    /// The task running the pool when the store owns its client; `nil` for a shared client.
    private let runner: Task<Void, Never>?

    /// How long an operation waits for a connection by default before it fails with
    /// `StoreError(.unavailable)`: a few seconds, so that a server request during an outage gets
    /// its 503 quickly while a busy pool's short queue still clears.
    public static let defaultConnectionWait: Duration = .seconds(5)

    /// Connects to `url` (`postgresql://user:password@host:port/database`), creating the
    /// schema, the PostGIS extension (when allowed) and the system tables as needed.
    /// - Parameters:
    ///   - schema: `[a-z][a-z0-9_]*`; tests use a fresh schema each.
    ///   - connectionWait: how long any operation waits for a connection before it throws
    ///     `StoreError(.unavailable)` (PostgreSQL down, unreachable or every connection busy).
    ///   - auditKey: the audit chain's key (`AuditKey`): by default `CITYTWIN_AUDIT_KEY`; without
    ///     one an unkeyed chain stays unkeyed and a keyed one cannot be written.
    public static func connect(url: String, schema: String = "citytwin", maximumConnections: Int = 8,
                               connectionWait: Duration = defaultConnectionWait,
                               auditKey: AuditKeySource = .automatic) async throws -> PostGISStore {
        let key = try Self.resolve(auditKey)
        let client = PostgresClient(configuration: try clientConfiguration(url: url, maximumConnections: maximumConnections))
        let runner = Task { await client.run() }
        do {
            return try await PostGISStore(client: PostGISPool(client: client, connectionWait: connectionWait), schema: schema, runner: runner,
                                          auditKey: key)
        } catch {
            runner.cancel()
            throw error
        }
    }

    /// A store on a client the caller runs (`client.run()` in a task) and shares, e.g. one
    /// pool for several schemas. The client's connections must use the time zone UTC, as
    /// `clientConfiguration(url:)` sets.
    public convenience init(client: PostgresClient, schema: String, connectionWait: Duration = defaultConnectionWait,
                            auditKey: AuditKeySource = .automatic) async throws {
        try await self.init(client: PostGISPool(client: client, connectionWait: connectionWait), schema: schema, runner: nil,
                            auditKey: try Self.resolve(auditKey))
    }

    /// The key of `source` for a PostGIS store: only the environment gives one by default.
    private static func resolve(_ source: AuditKeySource) throws -> AuditKey? {
        switch source {
        case .automatic: try AuditKey.forStore(path: nil)
        case .key(let k): k
        case .none: nil
        }
    }

    private init(client: PostGISPool, schema: String, runner: Task<Void, Never>?, auditKey: AuditKey?) async throws {
        guard LayerDefinition.isSafeIdentifier(schema) else {
            throw StoreError(.backend, "schema name \"\(schema)\" must match [a-z][a-z0-9_]{0,47}")
        }
        self.client = client
        self.schema = schema
        self.runner = runner
        self.auditKey = auditKey
        do {
            try await Self.createSystemTables(client, schema: schema, logger: logger)
            try await Self.keyNewChain(client, schema: schema, key: auditKey, logger: logger)
            maskingKey = try await Self.maskingKey(client, schema: schema)
            definitions = try DefinitionCache(rows: try await Self.catalogueRows(client, schema: schema, logger: logger))
            try await Self.fillStats(client, schema: schema, definitions: definitions.all, logger: logger)
        } catch let e as StoreError {
            throw e
        } catch {
            throw PostGISPool.unavailable(error)
                ?? StoreError(.backend, "cannot open the PostGIS store (schema \(schema)): \(String(reflecting: error))")
        }
    }

    /// A store in another schema on the same connection pool (the pool stays owned by this store);
    /// its audit key this store's unless given.
    public func store(inSchema other: String, auditKey source: AuditKeySource? = nil) async throws -> PostGISStore {
        try await PostGISStore(client: client, schema: other, runner: nil, auditKey: try source.map(Self.resolve) ?? auditKey)
    }

    /// Drops the store's schema with every table in it (tests use a fresh schema each).
    public func dropSchema() async throws {
        try await mapErrors(layer: nil) {
            _ = try await client.query(PostgresQuery(unsafeSQL: "DROP SCHEMA IF EXISTS \(schema) CASCADE"), logger: logger)
        }
    }

    /// Stops the pool when the store owns it (`connect`); a shared client is left running. The
    /// pool's connections are closed (a statement still running is cut off); a pool that has not
    /// finished closing within `limit` is left to finish in the background, with a warning, so
    /// that whoever shuts down never waits on a connection without end.
    public func shutdown(within limit: Duration = .seconds(10)) async {
        guard let runner else { return }
        runner.cancel()
        let logger = logger
        _ = try? await withDeadline(limit, abandonAfter: .zero, expired: {
            logger.warning("the PostGIS pool did not close within \(limit.seconds) s; left to close in the background")
            return CancellationError()
        }) { await runner.value }
    }

    /// How long a pooled connection may stay unused before it is closed: also the longest a
    /// cancelled idle timer of the pool keeps its memory (`clientConfiguration`).
    public static let idleConnectionTimeout: Duration = .seconds(5)

    /// Pool settings for `url`: TLS off (loopback or a private network), session time zone UTC
    /// (so `date` properties compare as UTC midnight, as in SpatiaLite), and statements the store
    /// prepares (`PreparedStatements`) planned for their values on every run as unnamed ones are:
    /// a generic plan, which PostgreSQL may otherwise adopt after five runs, is made without the
    /// box or the id and could walk a large layer's whole index where the values' plan does not.
    ///
    /// A connection left idle for `idleConnectionTimeout` is closed, and none is kept alive by
    /// queries (issue 57): postgres-nio arms a timer for each (30 s keep-alive, the idle timeout)
    /// every time a connection comes back idle, and cancels them when it is leased again, but a
    /// cancelled `Task.sleep` keeps its task and dispatch timer allocated until it would have been
    /// due (swiftlang/swift#60441). Under the mixed load benchmark (about 1.5 timers a request)
    /// the two 30-second timers held 30 s of requests' timers, 40–55 MiB of `serve`'s heap on
    /// PostGIS, in proportion to the request rate; now at most `idleConnectionTimeout` of them, of
    /// one kind. A keep-alive could not run anyway: a connection idle that long is closed first. A
    /// connection PostgreSQL closes (a restart, a terminated session) is still noticed and
    /// replaced. Not `minimumConnections` (which would need no idle timer): with it postgres-nio
    /// 1.33 crashed on a precondition (`createNewDemandConnectionIfPossible`) when PostgreSQL
    /// restarted under load.
    public static func clientConfiguration(url: String, maximumConnections: Int = 8) throws -> PostgresClient.Configuration {
        guard let c = URLComponents(string: url), c.scheme == "postgresql" || c.scheme == "postgres", let host = c.host else {
            throw StoreError(.backend, "the PostgreSQL URL must look like postgresql://user:password@host:port/database")
        }
        let database = c.path.hasPrefix("/") ? String(c.path.dropFirst()) : c.path
        var config = PostgresClient.Configuration(host: host, port: c.port ?? 5432, username: c.user ?? "postgres",
                                                  password: c.password, database: database.isEmpty ? nil : database, tls: .disable)
        config.options.additionalStartupParameters = [("TimeZone", "UTC"), ("plan_cache_mode", "force_custom_plan")]
        config.options.maximumConnections = max(1, maximumConnections)
        config.options.connectionIdleTimeout = idleConnectionTimeout
        config.options.keepAliveBehavior = nil
        return config
    }

    private static func createSystemTables(_ client: PostGISPool, schema s: String, logger: Logger) async throws {
        let hasPostGIS = try await client.query("SELECT count(*) FROM pg_extension WHERE extname = 'postgis'").decode(Int64.self)
            .reduce(0, +) > 0
        if !hasPostGIS {
            try await client.query("CREATE EXTENSION IF NOT EXISTS postgis")
        }
        try await client.withTransaction(logger: logger) { db in
            // Serialises concurrent first starts on one schema.
            try await db.query("SELECT pg_advisory_xact_lock(hashtext(\(s)))", logger: logger)
            for statement in [
                "CREATE SCHEMA IF NOT EXISTS \(s)",
                """
                CREATE TABLE IF NOT EXISTS \(s).catalog (
                    id text PRIMARY KEY, definition text NOT NULL, created_at bigint NOT NULL, updated_at bigint NOT NULL)
                """,
                """
                CREATE TABLE IF NOT EXISTS \(s).audit_log (
                    seq bigserial PRIMARY KEY, at bigint NOT NULL, actor text NOT NULL, department text, role text NOT NULL,
                    layer text NOT NULL, fid text NOT NULL, action text NOT NULL, before_hash text, after_hash text,
                    entry_hash text NOT NULL, \(JournalSQL.boxColumns.map { "\($0) double precision" }.joined(separator: ", ")))
                """,
                "CREATE INDEX IF NOT EXISTS audit_log_layer ON \(s).audit_log (layer, seq)",
                // A layer's last change (the layer list, `lastChange`): one index entry, never a
                // walk back through the log from its end. Without it PostgreSQL read the log backwards
                // until the layer's newest change: a whole-log scan for a layer changed long ago or
                // never (lid_facilities at 100×: 6 M rows, 1.5 s cold, 30 s of 503s at start-up).
                "CREATE INDEX IF NOT EXISTS audit_log_layer_changes ON \(s).audit_log (layer, seq) WHERE \(JournalSQL.changedData)",
                """
                CREATE TABLE IF NOT EXISTS \(s).jobs (
                    id text PRIMARY KEY, process text NOT NULL, status text NOT NULL, progress double precision NOT NULL DEFAULT 0,
                    inputs text NOT NULL, result text, created_at bigint NOT NULL, updated_at bigint NOT NULL, claimed_by text)
                """,
                "CREATE INDEX IF NOT EXISTS jobs_status ON \(s).jobs (status, created_at)",
                "CREATE TABLE IF NOT EXISTS \(s).store_meta (key text PRIMARY KEY, value bytea NOT NULL)",
                "CREATE TABLE IF NOT EXISTS \(s).rasters (id text PRIMARY KEY, description text NOT NULL, data bytea NOT NULL)",
                LayerStatsSQL.createTable(prefix: s + ".", real: "double precision"),
            ] + SensingSQL.schema(integer: "bigint", key: "\(s).") + ["CREATE SEQUENCE IF NOT EXISTS \(s).sta_ids"]
                + DisclosureLedgerSQL.schema(prefix: "\(s).", integer: "bigint", blob: "bytea") {
                try await db.query(PostgresQuery(unsafeSQL: statement), logger: logger)
            }
            try await mergeChangeFeed(db, schema: s, logger: logger)
            for statement in auditHeadSchema(s) {
                try await db.query(PostgresQuery(unsafeSQL: statement), logger: logger)
            }
        }
    }

    /// The audit chain's head (`AuditHead`): one row the database keeps by itself, a statement
    /// trigger updating it in the transaction of every audit insert (COPY included), so rows
    /// deleted from the end of the log are still found (`checkAuditChain`). A store from before
    /// it starts from its log as it is.
    private static func auditHeadSchema(_ s: String) -> [String] {
        [
            """
            CREATE TABLE IF NOT EXISTS \(s).audit_head (
                id int PRIMARY KEY CHECK (id = 1), entries bigint NOT NULL, last_seq bigint NOT NULL, last_hash text NOT NULL)
            """,
            """
            INSERT INTO \(s).audit_head (id, entries, last_seq, last_hash)
            SELECT 1, count(*), coalesce(max(seq), 0),
                   coalesce((SELECT entry_hash FROM \(s).audit_log ORDER BY seq DESC LIMIT 1), '\(AuditChain.genesis)')
            FROM \(s).audit_log
            ON CONFLICT (id) DO NOTHING
            """,
            """
            CREATE OR REPLACE FUNCTION \(s).audit_head_follows() RETURNS trigger LANGUAGE plpgsql AS $$
            BEGIN
                UPDATE \(s).audit_head AS h
                SET entries = h.entries + n.added, last_seq = n.seq, last_hash = n.hash
                FROM (SELECT count(*) AS added, max(seq) AS seq,
                             (SELECT entry_hash FROM added_rows ORDER BY seq DESC LIMIT 1) AS hash FROM added_rows) AS n
                WHERE h.id = 1 AND n.added > 0 AND n.seq > h.last_seq;
                RETURN NULL;
            END
            $$
            """,
            """
            CREATE OR REPLACE TRIGGER audit_head_follows AFTER INSERT ON \(s).audit_log
            REFERENCING NEW TABLE AS added_rows FOR EACH STATEMENT EXECUTE FUNCTION \(s).audit_head_follows()
            """,
            AuditKeyRecord.createTable(prefix: s + ".", integer: "bigint"),
        ]
    }

    /// For a new store (no entry, no key record) and a process with a key: the record of a chain
    /// keyed from its first entry, under the write lock. A store with entries and no record stays
    /// unkeyed until `citytwin audit key` (a warning says so).
    private static func keyNewChain(_ client: PostGISPool, schema s: String, key: AuditKey?, logger: Logger) async throws {
        guard let key else { return }
        try await client.withTransaction(logger: logger) { db in
            try await db.query("SELECT pg_advisory_xact_lock(hashtext(\(s + ".write")))", logger: logger)
            var recorded = false, empty = true
            for try await (r, e) in try await db.query("""
                SELECT EXISTS (SELECT 1 FROM \(unescaped: s).audit_key), NOT EXISTS (SELECT 1 FROM \(unescaped: s).audit_log)
                """, logger: logger).decode((Bool, Bool).self) { (recorded, empty) = (r, e) }
            guard !recorded else { return }
            guard empty else {
                logger.warning("the store's audit chain is not keyed: run `citytwin audit key` to key it from its current head (docs/operations.md)")
                return
            }
            let r = AuditKeyRecord(key: key, seq: 0, hash: AuditChain.genesis)
            try await db.query("""
                INSERT INTO \(unescaped: s).audit_key (id, key_id, from_seq, from_hash, seal)
                VALUES (1, \(r.keyID), \(r.seq), \(r.hash), \(r.seal)) ON CONFLICT (id) DO NOTHING
                """, logger: logger)
        }
    }

    /// The store's key record (`AuditKeyRecord`), if the chain is keyed.
    static func auditKeyRecord(_ db: PostgresConnection, schema s: String, logger: Logger) async throws -> AuditKeyRecord? {
        var record: AuditKeyRecord?
        for try await r in try await db.query("SELECT key_id, from_seq, from_hash, seal FROM \(unescaped: s).audit_key WHERE id = 1",
                                              logger: logger).decode((String, Int64, String, String).self) {
            record = AuditKeyRecord(keyID: r.0, seq: r.1, hash: r.2, seal: r.3)
        }
        return record
    }

    /// The newest audit entry's hash (the genesis hash for an empty log) and the key the next
    /// entries are signed with (`AuditSigning`), read in the write's transaction under the write lock.
    func chainHead(_ db: PostgresConnection) async throws -> (previous: String, key: AuditKey?) {
        var previous = AuditChain.genesis
        var recorded: String?
        for try await (h, k) in try await db.query("""
            SELECT (SELECT entry_hash FROM \(unescaped: schema).audit_log ORDER BY seq DESC LIMIT 1),
                   (SELECT key_id FROM \(unescaped: schema).audit_key WHERE id = 1)
            """, logger: logger).decode((String?, String?).self) {
            if let h { previous = h }
            recorded = k
        }
        return (previous, try AuditSigning.key(recorded: recorded, held: auditKey))
    }

    /// Stores written before the audit log carried the change boxes kept them in a separate
    /// `change_feed` table, one event per audit entry: its boxes move into the audit entries
    /// (matched by layer, feature, instant and kind) and the table goes, inside the start-up
    /// transaction.
    private static func mergeChangeFeed(_ db: PostgresConnection, schema s: String, logger: Logger) async throws {
        var exists = false
        for try await e in try await db.query("SELECT to_regclass(\(s + ".change_feed")) IS NOT NULL", logger: logger)
            .decode(Bool.self) { exists = e }
        guard exists else { return }
        let columns = JournalSQL.boxColumns.joined(separator: ", ")
        for statement in JournalSQL.boxColumns.map({ "ALTER TABLE \(s).audit_log ADD COLUMN IF NOT EXISTS \($0) double precision" }) + [
            // One join (the first event of each layer, feature, instant and kind), not a lookup per entry.
            """
            UPDATE \(s).audit_log AS a SET (\(columns)) = (\(JournalSQL.boxColumns.map { "c." + $0 }.joined(separator: ", ")))
            FROM (SELECT DISTINCT ON (layer, fid, at, kind) * FROM \(s).change_feed ORDER BY layer, fid, at, kind, seq) AS c
            WHERE c.layer = a.layer AND c.fid = a.fid AND c.at = a.at AND c.kind = a.action
            """,
            "DROP TABLE \(s).change_feed",
        ] {
            try await db.query(PostgresQuery(unsafeSQL: statement), logger: logger)
        }
    }

    private static func maskingKey(_ client: PostGISPool, schema s: String) async throws -> [UInt8] {
        var rng = SystemRandomNumberGenerator()
        let key = (0..<32).map { _ in UInt8.random(in: 0...255, using: &rng) }
        try await client.query("INSERT INTO \(unescaped: s).store_meta (key, value) VALUES ('masking_key', \(ByteBuffer(bytes: key))) ON CONFLICT (key) DO NOTHING")
        for try await stored in try await client.query("SELECT value FROM \(unescaped: s).store_meta WHERE key = 'masking_key'").decode(ByteBuffer.self) {
            return Array(stored.readableBytesView)
        }
        throw StoreError(.backend, "the masking key could not be stored")
    }

    // MARK: Catalogue

    func table(_ def: LayerDefinition) -> FeatureTable {
        var t = FeatureTable(layer: def)
        t.name = schema + "." + t.name
        return t
    }

    public func createLayer(_ definition: LayerDefinition) async throws {
        let table = table(definition)
        let json = try JSONOutput.text(definition)
        let now = RFC3339.microseconds(TwinClock.current.now)
        let s = schema
        let bare = "f_" + definition.id
        let logger = logger
        try await mapErrors(layer: definition.id) {
            try await client.withTransaction(logger: logger) { db in
                try await db.query("SELECT pg_advisory_xact_lock(hashtext(\(s)))", logger: logger)
                let exists = try await db.query("SELECT count(*) FROM \(unescaped: s).catalog WHERE id = \(definition.id)", logger: logger)
                    .decode(Int64.self).reduce(0, +) > 0
                if exists {
                    try await db.query("UPDATE \(unescaped: s).catalog SET definition = \(json), updated_at = \(now) WHERE id = \(definition.id)",
                                       logger: logger)
                    try await Self.syncAttributeIndexes(db, definition, schema: s, table: table.name, logger: logger)
                    return
                }
                var geometryColumn = ""
                if definition.hasGeometry {
                    let base = definition.geometryType?.rawValue ?? "Geometry"
                    geometryColumn = ", geom geometry(\(base)\(definition.hasZ ? "Z" : ""), 4490)"
                }
                var statements = [
                    """
                    CREATE TABLE \(table.name) (
                        vid bigserial PRIMARY KEY, fid text COLLATE "C" NOT NULL, props jsonb NOT NULL\(geometryColumn),
                        valid_from bigint NOT NULL, valid_to bigint, author text NOT NULL, department text, hash text NOT NULL)
                    """,
                    "CREATE UNIQUE INDEX \(bare)_current ON \(table.name) (fid) WHERE valid_to IS NULL",
                    "CREATE INDEX \(bare)_versions ON \(table.name) (fid, valid_from)",
                    "CREATE INDEX \(bare)_time ON \(table.name) (valid_from, valid_to)",
                ]
                if definition.hasGeometry {
                    statements.append("CREATE INDEX \(bare)_geom_gist ON \(table.name) USING gist (geom)")
                }
                for statement in statements {
                    try await db.query(PostgresQuery(unsafeSQL: statement), logger: logger)
                }
                try await Self.syncAttributeIndexes(db, definition, schema: s, table: table.name, logger: logger)
                try await db.query("""
                    INSERT INTO \(unescaped: s).catalog (id, definition, created_at, updated_at)
                    VALUES (\(definition.id), \(json), \(now), \(now))
                    """, logger: logger)
                try await Self.storeStats(db, schema: s, layer: definition.id, LayerStats(count: 0), logger: logger)
            }
        }
        definitions.set(definition, stamp: now)
    }

    /// Makes the layer table's attribute indexes those `definition` declares: creates the
    /// missing ones (over the rows already stored), drops those it no longer names.
    static func syncAttributeIndexes(_ db: PostgresConnection, _ definition: LayerDefinition, schema: String, table: String,
                                     logger: Logger) async throws {
        let bare = "f_" + definition.id
        let wanted = AttributeIndex.declared(by: definition, dialect: PostGISDialect(), bare: bare)
        let prefix = bare + AttributeIndex.infix
        var present = [String]()
        for try await name in try await db.query("""
            SELECT indexname::text FROM pg_indexes
            WHERE schemaname = \(schema) AND tablename = \(bare) AND starts_with(indexname::text, \(prefix))
            """, logger: logger).decode(String.self) { present.append(name) }
        for name in present where !wanted.contains(where: { $0.name == name }) {
            try await db.query(PostgresQuery(unsafeSQL: "DROP INDEX \(schema).\(name)"), logger: logger)
        }
        for index in wanted {
            try await db.query(PostgresQuery(unsafeSQL: index.createStatement(table: table, postgres: true)), logger: logger)
        }
    }

    func catalogueStamps() async throws -> [(id: String, stamp: Int64)] {
        try await mapErrors(layer: nil) {
            var out = [(id: String, stamp: Int64)]()
            for try await (id, stamp) in try await client.query("SELECT id, updated_at FROM \(unescaped: schema).catalog", logger: logger)
                .decode((String, Int64).self) { out.append((id, stamp)) }
            return out
        }
    }

    func catalogueRows() async throws -> [(id: String, stamp: Int64, text: String)] {
        try await mapErrors(layer: nil) { try await Self.catalogueRows(client, schema: schema, logger: logger) }
    }

    private static func catalogueRows(_ client: PostGISPool, schema: String, logger: Logger) async throws -> [(id: String, stamp: Int64, text: String)] {
        var out = [(id: String, stamp: Int64, text: String)]()
        for try await (id, stamp, text) in try await client.query("SELECT id, updated_at, definition FROM \(unescaped: schema).catalog ORDER BY id",
                                                                 logger: logger).decode((String, Int64, String).self) {
            out.append((id, stamp, text))
        }
        return out
    }

    /// Count, extent and last change of every layer `caller` may read, in ONE statement: the
    /// catalogue's numbers (`LayerStats`), each layer's last change an index lookup in the audit
    /// log. No layer is read, and `/collections` costs one round trip and one pooled connection
    /// however many layers there are and however large.
    public func layers(for caller: Caller) async throws -> [LayerInfo] {
        try await refreshDefinitions()  // layers another process created
        let visible = definitions.all.filter { AccessPolicy.canRead($0, caller) }
        guard !visible.isEmpty else { return [] }
        var binds = PostgresBindings(capacity: 1)
        binds.append(visible.map(\.id))
        let sql = """
            SELECT s.layer, s.features, s.min_x, s.min_y, s.max_x, s.max_y,
                   (\(JournalSQL.lastChangeOfLayer(schema: schema, layer: "s.layer")))
            FROM \(schema).layer_stats AS s WHERE s.layer = ANY($1)
            """
        var found: [String: (LayerStats, Int64)] = [:]
        try await mapErrors(layer: nil) {
            for try await r in try await client.query(PostgresQuery(unsafeSQL: sql, binds: binds), logger: logger)
                .decode((String, Int64, Double?, Double?, Double?, Double?, Int64?).self) {
                found[r.0] = (LayerStatsSQL.stats(count: r.1, r.2, r.3, r.4, r.5), r.6 ?? 0)
            }
        }
        var infos: [LayerInfo] = []
        for def in visible {
            // A layer without a row was created by a process from before the table since this one
            // opened the store: counted (and its last change read) as before.
            let (stats, last) = if let f = found[def.id] { f } else { try await uncatalogued(def) }
            infos.append(LayerInfo(definition: def, extent: def.hasGeometry ? stats.extent : nil, count: stats.count, lastChange: last))
        }
        return infos
    }

    private func uncatalogued(_ def: LayerDefinition) async throws -> (LayerStats, Int64) {
        let t = table(def)
        let s = schema
        let log = logger
        return try await mapErrors(layer: def.id) {
            try await client.withConnection { db in
                let stats = try await Self.exactStats(db, t, logger: log)
                var last: Int64 = 0
                for try await v in try await db.query(PostgresQuery(unsafeSQL: """
                    SELECT coalesce((\(JournalSQL.lastChangeOfLayer(schema: s, layer: "$1::text"))), 0)::int8
                    """, binds: { var b = PostgresBindings(capacity: 1); b.append(def.id); return b }()), logger: log).decode(Int64.self) { last = v }
                return (stats, last)
            }
        }
    }

    public func layerDefinition(_ id: String, for caller: Caller) async throws -> LayerDefinition? {
        try await currentDefinition(id, caller)
    }

    /// Runs `body`, turning PostgreSQL errors into `StoreError(.backend)` with the server's
    /// message, and those that mean the database cannot be reached into `StoreError(.unavailable)`.
    func mapErrors<T>(layer: String?, _ body: () async throws -> T) async throws -> T {
        do {
            return try await body()
        } catch let e as StoreError {
            throw e
        } catch let e as PSQLError {
            throw PostGISPool.unavailable(e) ?? StoreError(.backend, Self.message(e), layer: layer)
        } catch let e as PostgresTransactionError {
            if let unavailable = PostGISPool.unavailable(e) { throw unavailable }
            if let inner = e.closureError as? StoreError { throw inner }
            if let inner = e.closureError as? PSQLError { throw StoreError(.backend, Self.message(inner), layer: layer) }
            throw StoreError(.backend, String(describing: e), layer: layer)
        } catch {
            throw PostGISPool.unavailable(error) ?? error
        }
    }

    static func message(_ e: PSQLError) -> String {
        if let m = e.serverInfo?[.message] {
            return "PostgreSQL: \(m)" + (e.serverInfo?[.sqlState].map { " (\($0))" } ?? "")
        }
        return "PostgreSQL: \(e.code)"
    }

    static func sqlState(_ error: any Error) -> String? {
        if let e = error as? PSQLError { return e.serverInfo?[.sqlState] }
        if let e = error as? PostgresTransactionError, let inner = e.closureError as? PSQLError { return inner.serverInfo?[.sqlState] }
        return nil
    }
}

extension SQLValue {
    /// Appends the value to postgres-nio bindings; geometries bind as EWKB with SRID 4490.
    func append(to b: inout PostgresBindings) {
        switch self {
        case .null: b.appendNull()
        case .bool(let v): b.append(v)
        case .integer(let v): b.append(v)
        case .double(let v): b.append(v)
        case .text(let v): b.append(v)
        case .blob(let v): b.append(ByteBuffer(bytes: v))
        case .geometry(let g): b.append(ByteBuffer(bytes: g.ewkb(srid: LayerDefinition.storageSRID)))
        }
    }
}

extension PostgresQuery {
    /// SQL built by `SQLBuilder` with its bound values.
    init(_ sql: String, _ values: [SQLValue]) {
        var b = PostgresBindings(capacity: values.count)
        for v in values { v.append(to: &b) }
        self.init(unsafeSQL: sql, binds: b)
    }
}
