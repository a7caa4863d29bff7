import Foundation
import GeoCore
import PostgresNIO

extension PostGISStore {
    public func insert(layer: String, features: [Feature], by caller: Caller, at: Date?) async throws {
        try await write(WriteBatch(layer: definitions[layer], named: layer, mode: .insert(features), by: caller, at: at))
    }

    public func upsert(layer: String, features: [Feature], by caller: Caller, at: Date?) async throws {
        try await write(WriteBatch(layer: definitions[layer], named: layer, mode: .upsert(features), by: caller, at: at))
    }

    public func delete(layer: String, ids: [String], by caller: Caller, at: Date?) async throws {
        try await write(WriteBatch(layer: definitions[layer], named: layer, mode: .delete(ids), by: caller, at: at))
    }

    public func replace(layer: String, with features: [Feature], by caller: Caller, at: Date?) async throws {
        try await write(try await replacementBatch(layer: layer, with: features, by: caller, at: at))
    }

    public func write(layer: String, upserting features: [Feature], deleting ids: [String],
                      expecting: [String: ExpectedVersion], by caller: Caller, at: Date?) async throws {
        var batch = try WriteBatch(layer: definitions[layer], named: layer, mode: .upsertAndDelete(features, ids), by: caller, at: at)
        batch.expecting = expecting
        try await write(batch)
    }

    public func currentVersions(layer: String, ids: [String], by caller: Caller) async throws -> [String: Int64] {
        let def = try readableLayer(layer, caller)
        let t = table(def).name
        return try await mapErrors(layer: layer) {
            var found: [String: Int64] = [:]
            for start in stride(from: 0, to: ids.count, by: Self.chunk) {
                let part = Array(ids[start..<min(start + Self.chunk, ids.count)])
                let rows = try await client.query(PostgresQuery(unsafeSQL: "SELECT fid, vid FROM \(t) WHERE fid = ANY($1) AND valid_to IS NULL",
                                                                binds: Self.binds(part)), logger: logger)
                for try await (fid, vid) in rows.decode((String, Int64).self) { found[fid] = vid }
            }
            return found
        }
    }

    /// Rows per multi-row statement (arrays bound through `unnest`).
    static let chunk = 5_000

    /// One transaction under the schema's write lock (the audit chain is one sequence, and the
    /// change feed reads the journal in the order of `seq`, so writes commit in that order), in
    /// five statements for a batch of up to `chunk` features: BEGIN, the lock, one read of the
    /// state the batch is planned against (the chain's last hash, the layer's stats row, the
    /// current versions it touches), one write of every row (closed versions, new versions, audit
    /// entries and change events, the stats row), COMMIT. The batch is planned (shared with
    /// SpatiaLite) between the read and the write. Larger batches read and write chunk by chunk.
    /// Any error rolls all back.
    private func write(_ batch: WriteBatch) async throws {
        do {
            try await transaction(layer: batch.layer.id) { db in
                try await self.apply(batch, on: db)
            }
        } catch let e as StoreError where WriteBatch.isForgedOwnership(e) {
            // The refusal outlives the rolled-back write: an entry of its own in the audit log.
            try await recordAccess(layer: batch.layer.id, subject: "refused write of \(e.feature ?? "?"): forged \(CoBuilding.property)",
                                   detail: e.message, kind: .refused, by: batch.caller)
            throw e
        }
    }

    /// Bulk insert: every chunk in ONE transaction under the write lock, planned like `insert`
    /// (chunk after chunk at the same instant, the audit chain continuing across chunks) and sent
    /// by `COPY … FROM STDIN`. The next chunks are prepared on other threads meanwhile, their
    /// COPY rows included (`BulkCopyRows`), so the server reads rows without waiting for
    /// the client to encode them. Into a table without rows, the layer's indexes are built
    /// after the load (`DeferredLayerIndexes`).
    public func insert(layer: String, chunks next: @escaping FeatureChunkReader, by caller: Caller, at: Date?) async throws -> Int {
        let template = try WriteBatch.bulkTemplate(layer: definitions[layer], named: layer, by: caller, at: at)
        let t = table(template.layer).name
        let chunks = PreparedChunks(template: template, reader: next) { features, hashes in
            BulkCopyRows(features, entryHashes: hashes, of: template)
        }
        defer { chunks.stop() }
        return try await transaction(layer: layer, bounded: false) { db in
            // A layer without current versions cannot hold one of the batch: skip the lookups
            // (a repeat inside the batch still fails, on the unique index).
            var occupied = true
            for try await e in try await db.query(PostgresQuery(unsafeSQL: "SELECT EXISTS (SELECT 1 FROM \(t) WHERE valid_to IS NULL)"),
                                                   logger: self.logger).decode(Bool.self) { occupied = e }
            let head = try await self.chainHead(db)
            chunks.start(chain: head.previous, key: head.key)
            let bare = "f_" + template.layer.id
            let indexes = try await self.deferredIndexes(table: t, layer: layer, bare: bare, on: db)
            if let indexes { try await self.suspend(indexes, on: db) }
            // COPY names its table unqualified: the store's schema first on the search path
            // for the load (transaction-local), then the path as it was.
            var path = ""
            for try await p in try await db.query("SELECT current_setting('search_path')", logger: self.logger).decode(String.self) { path = p }
            try await db.query("SELECT set_config('search_path', \(self.schema + ", " + path), true)", logger: self.logger)
            // Versions of up to `segment` chunks in one COPY, then their journal rows in one:
            // every COPY costs the server an idle round trip at each end. A layer with current
            // versions takes one chunk per COPY, its stored versions looked up in between.
            let segment = occupied ? 1 : Self.chunksPerCopy
            let before = try await self.lastVersion(db, template.layer)
            let versionColumns = BulkCopyRows.versionColumns(template.layer)
            var count = 0
            var next = try await chunks.nextChunk()
            while let first = next {
                var journal = [ByteBuffer]()
                if occupied {
                    try self.requireNew(first, of: template, found: try await self.currentVersions(first.features.map(\.id), of: template.layer, on: db))
                }
                try await db.copyFrom(table: bare, columns: versionColumns, logger: self.logger) { writer in
                    var taken = 0
                    while let chunk = next, taken < segment {
                        if !occupied { try self.requireNew(chunk, of: template, found: [:]) }
                        for m in chunk.encoded.versions { try await writer.write(m) }
                        journal += chunk.encoded.journal
                        count += chunk.features.count
                        taken += 1
                        next = try await chunks.nextChunk()
                    }
                }
                try await self.send(journal, into: "audit_log", columns: JournalSQL.writtenColumns, on: db)
            }
            try await db.query("SELECT set_config('search_path', \(path), true)", logger: self.logger)
            if let indexes { try await self.resume(indexes, on: db) }
            try await self.updateStats(db, template.layer, afterBulkAbove: before)
            return count
        }
    }

    /// Chunks of bulk insert versions per COPY (their journal rows, about 10 MB for 8 × 4,096
    /// features, wait in memory for the journal COPY).
    static let chunksPerCopy = 8

    /// Throws the error `insert` gives when a feature of `chunk` is already current (`found`)
    /// or repeats an earlier one of the chunk (`BulkCopyRows.firstRepeat`): the first in order.
    private func requireNew(_ chunk: PreparedChunk<BulkCopyRows>, of template: WriteBatch, found: [String: CurrentVersion]) throws {
        guard chunk.encoded.firstRepeat != nil || !found.isEmpty else { return }
        _ = try WriteBatch(chunk: chunk.features, of: template).plan(current: found)
    }

    /// Runs `body` in a transaction holding the schema's write lock, mapping errors. The write
    /// takes one of the store's `writers` slots before it asks the pool for a connection, so
    /// that writes waiting their turn hold no connection the reads need. A batch's wait for a
    /// slot is bounded as the wait for a connection is (`StoreError(.unavailable)` past it); a
    /// bulk insert (`bounded: false`) waits as long as the writes before it take, as it waited
    /// for the lock before.
    private func transaction<T: Sendable>(layer: String, bounded: Bool = true,
                                          _ body: @escaping @Sendable (PostgresConnection) async throws -> T) async throws -> T {
        let s = schema
        let log = logger
        do {
            let wait = client.connectionWait
            return try await writers.run(within: bounded ? wait : nil, expired: { PostGISPool.noConnection(within: wait) }) {
                try await client.withTransaction(logger: log) { db in
                    try await db.query("SELECT pg_advisory_xact_lock(hashtext(\(s + ".write")))", logger: log)
                    return try await body(db)
                }
            }
        } catch {
            if Self.sqlState(error) == "23505" {
                throw StoreError(.duplicateFeature, "a feature of the batch already exists (written concurrently)", layer: layer)
            }
            // A bulk insert's reader error (e.g. the importer's, naming file, row and field) passes unchanged.
            if let e = error as? PostgresTransactionError, let inner = e.closureError,
               !(inner is StoreError), !(inner is PSQLError) {
                throw inner
            }
            return try await mapErrors(layer: layer) { throw error }
        }
    }

    /// Writes one batch inside the current transaction (holding the write lock), planned against
    /// the state `writeState` reads: one statement for the whole write (`writeRows`) when the
    /// batch fits one chunk and its stats row follows from the stored one, else multi-row
    /// statements chunk by chunk and the stats row after them.
    private func apply(_ batch: WriteBatch, on db: PostgresConnection) async throws {
        let t = table(batch.layer).name
        let ids = batch.lookupIDs
        var state = try await writeState(Array(ids.prefix(Self.chunk)), of: batch.layer, on: db)
        if ids.count > Self.chunk {
            state.current.merge(try await currentVersions(Array(ids.dropFirst(Self.chunk)), of: batch.layer, on: db)) { a, _ in a }
        }
        let plan = try batch.plan(current: state.current)
        let audit = batch.auditRows(plan, previous: state.lastHash, key: try AuditSigning.key(recorded: state.keyID, held: auditKey))
        let change = LayerStatsChange(plan)
        let statsChange = state.stats == nil || !change.isEmpty
        let next = statsChange ? LayerStatsSQL.next(stored: state.stats, change: change) : nil
        if plan.versions.count <= Self.chunk, audit.count <= Self.chunk, plan.closes.count <= Self.chunk, !statsChange || next != nil {
            guard statsChange || !plan.closes.isEmpty || !plan.versions.isEmpty || !audit.isEmpty else { return }
            try await writeRows(plan, audit, stats: next, batch: batch, on: db)
            return
        }
        if !plan.closes.isEmpty {
            try await db.query(PostgresQuery(unsafeSQL: "UPDATE \(t) SET valid_to = $1 WHERE vid = ANY($2)",
                                             binds: Self.binds(batch.time, plan.closes)), logger: logger)
        }
        for start in stride(from: 0, to: plan.versions.count, by: Self.chunk) {
            let part = plan.versions[start..<min(start + Self.chunk, plan.versions.count)]
            try await insertVersions(part, batch: batch, table: t, on: db)
        }
        for start in stride(from: 0, to: audit.count, by: Self.chunk) {
            try await insertAudit(audit[start..<min(start + Self.chunk, audit.count)], batch: batch, on: db)
        }
        try await updateStats(db, batch.layer, change)
    }

    /// What a write is planned against, read under the write lock.
    struct WriteState {
        /// The newest audit entry's hash (the genesis hash for an empty log).
        var lastHash = AuditChain.genesis
        /// The key id of the store's audit key record (`nil`: the chain is unkeyed).
        var keyID: String?
        /// The layer's stats row (nil: none).
        var stats: LayerStats?
        var current: [String: CurrentVersion] = [:]
    }

    /// The chain's last hash, the layer's stats row and the current versions of `ids` (at most
    /// `chunk`) in ONE statement, prepared on the connection: a row per current version found, or
    /// one row without a version.
    private func writeState(_ ids: [String], of layer: LayerDefinition, on db: PostgresConnection) async throws -> WriteState {
        let s = schema
        let envelope = layer.hasGeometry
            ? "ST_XMin(v.geom), ST_YMin(v.geom), ST_XMax(v.geom), ST_YMax(v.geom)"
            : "NULL::float8, NULL::float8, NULL::float8, NULL::float8"
        let owner = layer.coBuilt != nil ? "v.props->>'\(CoBuilding.property)'" : "NULL::text"
        let sql = """
            SELECT h.entry_hash, st.features, st.min_x, st.min_y, st.max_x, st.max_y, st.loose,
                   v.vid, v.fid, v.hash, v.valid_from, \(envelope), \(owner), h.key_id
            FROM (SELECT (SELECT entry_hash FROM \(s).audit_log ORDER BY seq DESC LIMIT 1) AS entry_hash,
                         (SELECT key_id FROM \(s).audit_key WHERE id = 1) AS key_id) AS h
            LEFT JOIN \(s).layer_stats AS st ON st.layer = $2::text
            LEFT JOIN \(table(layer).name) AS v ON v.fid = ANY($1::text[]) AND v.valid_to IS NULL
            """
        var b = PostgresBindings(capacity: 2)
        b.append(ids)
        b.append(layer.id)
        var state = WriteState()
        var first = true
        for try await row in try await prepared(sql, b, on: db) {
            let r = row.makeRandomAccess()
            if first {
                first = false
                if let h = try r[0].decode(String?.self) { state.lastHash = h }
                state.keyID = try r[16].decode(String?.self)
                if let count = try r[1].decode(Int64?.self) {
                    state.stats = LayerStatsSQL.stats(count: count, try r[2].decode(Double?.self), try r[3].decode(Double?.self),
                                                      try r[4].decode(Double?.self), try r[5].decode(Double?.self),
                                                      loose: Int64(try r[6].decode(Int32.self)))
                }
            }
            guard let vid = try r[7].decode(Int64?.self), let fid = try r[8].decode(String?.self) else { continue }
            state.current[fid] = CurrentVersion(vid: vid, hash: try r[9].decode(String.self), validFrom: try r[10].decode(Int64.self),
                                                envelope: JournalSQL.envelope(try r[11].decode(Double?.self), try r[12].decode(Double?.self),
                                                                              try r[13].decode(Double?.self), try r[14].decode(Double?.self)),
                                                department: try r[15].decode(String?.self))
        }
        return state
    }

    /// Every row of a planned batch (at most `chunk` of each kind) in ONE statement, prepared on
    /// the connection: the closed versions, the new versions (after the closes, which the unique
    /// index of current versions needs), the audit entries in chain order and, with `stats`, the
    /// layer's stats row.
    private func writeRows(_ plan: WritePlan, _ audit: [WritePlan.AuditRow], stats: LayerStats?, batch: WriteBatch,
                           on db: PostgresConnection) async throws {
        let def = batch.layer
        let t = table(def).name
        let s = schema
        var b = PostgresBindings(capacity: 32)
        // $1-$6: the write's instant, actor, department, role, layer; the closed versions.
        b.append(batch.time); b.append(batch.actor); b.append(batch.department); b.append(batch.role); b.append(def.id)
        b.append(plan.closes)
        // $7-$11: the new versions (their geometries as WKB, none without geometry).
        var fids = [String](), props = [String](), hashes = [String](), validTo = [Int64](), geoms = [ByteBuffer]()
        for v in plan.versions {
            fids.append(v.feature.id)
            props.append(v.feature.propertiesText)
            hashes.append(v.feature.hash)
            validTo.append(v.validTo ?? Int64.min)
            // An empty value stands for "no geometry" (arrays of bytea cannot hold NULL here).
            if def.hasGeometry { geoms.append(ByteBuffer(bytes: v.feature.wkb ?? [])) }
        }
        b.append(fids); b.append(props); b.append(hashes); b.append(validTo); b.append(geoms)
        // $12-$24: the audit entries.
        Self.appendAuditColumns(audit, to: &b)
        // $25-$31: the stats row, when it changes ($25).
        let e = stats?.extent
        b.append(stats != nil); b.append(Int64(stats?.count ?? 0))
        b.append(e?.minX); b.append(e?.minY); b.append(e?.maxX); b.append(e?.maxY)
        b.append(Int64(stats?.loose == true ? 1 : 0))
        // $11 is named on a layer without geometry too (an empty array, unused): a parameter the
        // statement does not name has no type for the server to prepare it with.
        let geometry = def.hasGeometry
            ? (column: ", geom", value: ", ST_GeomFromWKB(NULLIF(u.g, ''::bytea), \(LayerDefinition.storageSRID))")
            : (column: "", value: "")
        let sql = """
            WITH closed AS (
                UPDATE \(t) SET valid_to = $1::int8 WHERE vid = ANY($6::int8[]) RETURNING vid
            ), added AS (
                INSERT INTO \(t) (fid, props\(geometry.column), valid_from, valid_to, author, department, hash)
                SELECT u.fid, u.props::jsonb\(geometry.value), $1::int8, NULLIF(u.vt, \(Int64.min)), $2::text, $3::text, u.h
                FROM unnest($7::text[], $8::text[], $9::text[], $10::int8[], $11::bytea[]) AS u(fid, props, h, vt, g)
                WHERE (SELECT count(*) FROM closed) >= 0
                RETURNING vid
            ), audited AS (
                INSERT INTO \(s).audit_log (\(JournalSQL.writtenColumns.joined(separator: ", ")))
                SELECT $1::int8, $2::text, $3::text, $4::text, $5::text, u.fid, u.kind, NULLIF(u.b, ''), NULLIF(u.a, ''), u.e,
                       NULLIF(u.b1, 'NaN'), NULLIF(u.b2, 'NaN'), NULLIF(u.b3, 'NaN'), NULLIF(u.b4, 'NaN'),
                       NULLIF(u.a1, 'NaN'), NULLIF(u.a2, 'NaN'), NULLIF(u.a3, 'NaN'), NULLIF(u.a4, 'NaN')
                FROM unnest($12::text[], $13::text[], $14::text[], $15::text[], $16::text[], $17::float8[], $18::float8[],
                            $19::float8[], $20::float8[], $21::float8[], $22::float8[], $23::float8[], $24::float8[])
                     WITH ORDINALITY AS u(fid, kind, b, a, e, b1, b2, b3, b4, a1, a2, a3, a4, n)
                ORDER BY u.n
                RETURNING seq
            ), stats AS (
                INSERT INTO \(s).layer_stats (layer, features, min_x, min_y, max_x, max_y, loose)
                SELECT $5::text, $26::int8, $27::float8, $28::float8, $29::float8, $30::float8, $31::int8 WHERE $25::bool
                ON CONFLICT (layer) DO UPDATE SET features = excluded.features, min_x = excluded.min_x, min_y = excluded.min_y,
                    max_x = excluded.max_x, max_y = excluded.max_y, loose = excluded.loose
                RETURNING layer
            )
            SELECT (SELECT count(*) FROM closed), (SELECT count(*) FROM added), (SELECT count(*) FROM audited), (SELECT count(*) FROM stats)
            """
        for try await _ in try await prepared(sql, b, on: db) {}
    }

    /// The rows of `sql` on `db` (inside a transaction), through a statement prepared on the
    /// connection (`PreparedStatements`) once there is a name for it. A statement the server could
    /// not prepare or run as prepared gets a new name, so that its next use prepares it afresh.
    private func prepared(_ sql: String, _ binds: PostgresBindings, on db: PostgresConnection) async throws -> StatementRows {
        client.statements.record(PostgresQuery(unsafeSQL: sql, binds: binds))
        let signature = "write"
        guard let name = PreparedStatements.name(sql: sql, signature: signature) else {
            return try await db.query(PostgresQuery(unsafeSQL: sql, binds: binds), logger: logger).map { @Sendable (row) throws -> PostgresRow in row }
        }
        do {
            return try await NamedStatement.$current.withValue((name, sql)) {
                try await db.execute(NamedStatement(bindings: binds), logger: logger)
            }
        } catch let e as PSQLError where e.code == .server {
            // Errors of the data (a duplicate feature) leave the prepared statement as it was.
            let state = e.serverInfo?[.sqlState] ?? ""
            if !state.hasPrefix("22"), !state.hasPrefix("23") {
                PreparedStatements.retire(sql: sql, signature: signature, name: name)
            }
            throw e
        }
    }

    /// The current versions of the features `ids` names (those that have one), one query per
    /// `chunk` ids.
    private func currentVersions(_ ids: [String], of layer: LayerDefinition, on db: PostgresConnection) async throws -> [String: CurrentVersion] {
        let t = table(layer).name
        let envelopeColumns = layer.hasGeometry
            ? "ST_XMin(geom), ST_YMin(geom), ST_XMax(geom), ST_YMax(geom)"
            : "NULL::float8, NULL::float8, NULL::float8, NULL::float8"
        var found = [String: CurrentVersion]()
        for start in stride(from: 0, to: ids.count, by: Self.chunk) {
            let part = Array(ids[start..<min(start + Self.chunk, ids.count)])
            let rows = try await db.query(PostgresQuery(unsafeSQL: """
                SELECT vid, fid, hash, valid_from, \(envelopeColumns) FROM \(t) WHERE fid = ANY($1) AND valid_to IS NULL
                """, binds: Self.binds(part)), logger: logger)
            for try await r in rows.decode((Int64, String, String, Int64, Double?, Double?, Double?, Double?).self) {
                found[r.1] = CurrentVersion(vid: r.0, hash: r.2, validFrom: r.3, envelope: JournalSQL.envelope(r.4, r.5, r.6, r.7))
            }
            if layer.coBuilt != nil {
                let owners = try await db.query(PostgresQuery(unsafeSQL: """
                    SELECT fid, props->>'\(CoBuilding.property)' FROM \(t) WHERE fid = ANY($1) AND valid_to IS NULL
                    """, binds: Self.binds(part)), logger: logger)
                for try await r in owners.decode((String, String?).self) { found[r.0]?.department = r.1 }
            }
        }
        return found
    }

    /// Sends COPY text already encoded (`BulkCopyRows`) to `COPY table (columns) FROM STDIN`.
    private func send(_ messages: [ByteBuffer], into table: String, columns: [String], on db: PostgresConnection) async throws {
        guard !messages.isEmpty else { return }
        try await db.copyFrom(table: table, columns: columns, logger: logger) { writer in
            for m in messages { try await writer.write(m) }
        }
    }

    private func insertVersions(_ part: ArraySlice<WritePlan.NewVersion>, batch: WriteBatch, table t: String,
                                on db: PostgresConnection) async throws {
        let def = batch.layer
        var fids = [String](), props = [String](), hashes = [String](), validTo = [Int64](), geoms = [ByteBuffer]()
        fids.reserveCapacity(part.count); props.reserveCapacity(part.count); hashes.reserveCapacity(part.count)
        validTo.reserveCapacity(part.count)
        for v in part {
            fids.append(v.feature.id)
            props.append(v.feature.propertiesText)
            hashes.append(v.feature.hash)
            validTo.append(v.validTo ?? Int64.min)
            if def.hasGeometry {
                // An empty value stands for "no geometry" (arrays of bytea cannot hold NULL here).
                geoms.append(ByteBuffer(bytes: v.feature.wkb ?? []))
            }
        }
        var b = PostgresBindings(capacity: 8)
        b.append(fids); b.append(props); b.append(hashes); b.append(validTo)
        b.append(batch.time); b.append(batch.actor); b.append(batch.department)
        let sql: String
        if def.hasGeometry {
            b.append(geoms)
            sql = """
                INSERT INTO \(t) (fid, props, geom, valid_from, valid_to, author, department, hash)
                SELECT u.fid, u.props::jsonb, ST_GeomFromWKB(NULLIF(u.g, ''::bytea), \(LayerDefinition.storageSRID)), $5, NULLIF(u.vt, \(Int64.min)), $6, $7, u.h
                FROM unnest($1::text[], $2::text[], $3::text[], $4::int8[], $8::bytea[]) AS u(fid, props, h, vt, g)
                """
        } else {
            sql = """
                INSERT INTO \(t) (fid, props, valid_from, valid_to, author, department, hash)
                SELECT u.fid, u.props::jsonb, $5, NULLIF(u.vt, \(Int64.min)), $6, $7, u.h
                FROM unnest($1::text[], $2::text[], $3::text[], $4::int8[]) AS u(fid, props, h, vt)
                """
        }
        try await db.query(PostgresQuery(unsafeSQL: sql, binds: b), logger: logger)
    }

    private func insertAudit(_ rows: ArraySlice<WritePlan.AuditRow>, batch: WriteBatch, on db: PostgresConnection) async throws {
        var b = PostgresBindings(capacity: 18)
        Self.appendAuditColumns(rows, to: &b)
        b.append(batch.time); b.append(batch.actor); b.append(batch.department); b.append(batch.role); b.append(batch.layer.id)
        // NaN stands for "no envelope".
        try await db.query(PostgresQuery(unsafeSQL: """
            INSERT INTO \(schema).audit_log (\(JournalSQL.writtenColumns.joined(separator: ", ")))
            SELECT $14, $15, $16, $17, $18, u.fid, u.kind, NULLIF(u.b, ''), NULLIF(u.a, ''), u.e,
                   NULLIF(u.b1, 'NaN'), NULLIF(u.b2, 'NaN'), NULLIF(u.b3, 'NaN'), NULLIF(u.b4, 'NaN'),
                   NULLIF(u.a1, 'NaN'), NULLIF(u.a2, 'NaN'), NULLIF(u.a3, 'NaN'), NULLIF(u.a4, 'NaN')
            FROM unnest($1::text[], $2::text[], $3::text[], $4::text[], $5::text[], $6::float8[], $7::float8[], $8::float8[],
                        $9::float8[], $10::float8[], $11::float8[], $12::float8[], $13::float8[])
                 WITH ORDINALITY AS u(fid, kind, b, a, e, b1, b2, b3, b4, a1, a2, a3, a4, n)
            ORDER BY u.n
            """, binds: b), logger: logger)
    }

    /// Audit entries as the 13 array columns both writes unnest, in chain order: feature ids, kinds,
    /// before and after hashes ("" for none), entry hashes, then the before and after envelopes'
    /// corners (NaN for no envelope).
    private static func appendAuditColumns(_ rows: some Collection<WritePlan.AuditRow>, to b: inout PostgresBindings) {
        var fids = [String](), kinds = [String](), before = [String](), after = [String](), entry = [String]()
        var boxes = [[Double]](repeating: [], count: JournalSQL.boxColumns.count)
        for r in rows {
            let c = r.change
            fids.append(c.featureID)
            kinds.append(c.kind.rawValue)
            before.append(c.before?.hash ?? "")
            after.append(c.after?.hash ?? "")
            entry.append(r.entryHash)
            for (i, v) in JournalSQL.boxValues(c).enumerated() { boxes[i].append(v ?? .nan) }
        }
        b.append(fids); b.append(kinds); b.append(before); b.append(after); b.append(entry)
        for column in boxes { b.append(column) }
    }

    private static func binds(_ ids: [String]) -> PostgresBindings {
        var b = PostgresBindings(capacity: 1)
        b.append(ids)
        return b
    }

    private static func binds(_ time: Int64, _ vids: [Int64]) -> PostgresBindings {
        var b = PostgresBindings(capacity: 2)
        b.append(time)
        b.append(vids)
        return b
    }
}
