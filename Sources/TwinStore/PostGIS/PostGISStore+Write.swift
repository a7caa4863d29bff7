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

    /// Rows per multi-row statement (arrays bound through `unnest`).
    static let chunk = 5_000

    /// One transaction under the schema's write lock (the audit chain is one sequence): reads
    /// the current versions the batch touches in one query per chunk, plans the batch (shared
    /// with SpatiaLite), then closes, adds versions, audit entries and change events with
    /// array-bound multi-row statements. Any error rolls all back.
    private func write(_ batch: WriteBatch) async throws {
        try await transaction(layer: batch.layer.id) { db in
            var previous = try await self.lastAuditHash(db)
            try await self.apply(batch, on: db, previous: &previous, lookUp: true)
        }
    }

    /// Bulk insert: every chunk in ONE transaction under the write lock, planned and written
    /// like `insert` (chunk after chunk at the same instant, the audit chain continuing across
    /// chunks), while the next chunk is prepared on another thread. Into a table without rows,
    /// the layer's indexes are built after the load (`DeferredLayerIndexes`).
    public func insert(layer: String, chunks next: @escaping FeatureChunkReader, by caller: Caller, at: Date?) async throws -> Int {
        let template = try WriteBatch.bulkTemplate(layer: definitions[layer], named: layer, by: caller, at: at)
        let t = table(template.layer).name
        let chunks = PreparedChunks(template: template, reader: next)
        defer { chunks.stop() }
        return try await transaction(layer: layer) { db in
            // A layer without current versions cannot hold one of the batch: skip the lookups
            // (a repeat inside the batch still fails, on the unique index).
            var occupied = true
            for try await e in try await db.query(PostgresQuery(unsafeSQL: "SELECT EXISTS (SELECT 1 FROM \(t) WHERE valid_to IS NULL)"),
                                                   logger: self.logger).decode(Bool.self) { occupied = e }
            var previous = try await self.lastAuditHash(db)
            chunks.start(chain: previous)
            let bare = "f_" + template.layer.id
            let indexes = try await self.deferredIndexes(table: t, layer: layer, bare: bare, on: db)
            if let indexes { try await self.suspend(indexes, on: db) }
            // COPY names its table unqualified: the store's schema first on the search path
            // for the load (transaction-local), then the path as it was.
            var path = ""
            for try await p in try await db.query("SELECT current_setting('search_path')", logger: self.logger).decode(String.self) { path = p }
            try await db.query("SELECT set_config('search_path', \(self.schema + ", " + path), true)", logger: self.logger)
            var count = 0
            while let chunk = try await chunks.nextChunk() {
                try await self.apply(WriteBatch(chunk: chunk.features, of: template), on: db, previous: &previous, lookUp: occupied,
                                     entryHashes: chunk.entryHashes, copyInto: bare)
                count += chunk.features.count
            }
            try await db.query("SELECT set_config('search_path', \(path), true)", logger: self.logger)
            if let indexes { try await self.resume(indexes, on: db) }
            return count
        }
    }

    /// Runs `body` in a transaction holding the schema's write lock, mapping errors.
    private func transaction<T: Sendable>(layer: String, _ body: @escaping (PostgresConnection) async throws -> T) async throws -> T {
        let s = schema
        let log = logger
        do {
            return try await client.withTransaction(logger: log) { db in
                try await db.query("SELECT pg_advisory_xact_lock(hashtext(\(s + ".write")))", logger: log)
                return try await body(db)
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

    private func lastAuditHash(_ db: PostgresConnection) async throws -> String {
        var previous = AuditChain.genesis
        for try await h in try await db.query("SELECT entry_hash FROM \(unescaped: schema).audit_log ORDER BY seq DESC LIMIT 1",
                                              logger: logger).decode(String.self) { previous = h }
        return previous
    }

    /// Writes one batch inside the current transaction; `previous` is the newest audit entry
    /// hash, updated to this batch's last. Without `lookUp` the batch is planned against no
    /// current versions (only for inserts into a layer known to have none).
    /// `entryHashes`, when given, are the audit hashes of an insert plan computed ahead
    /// (`PreparedChunks`), one per change in order. With `copyInto` (the layer table's name
    /// without schema, the schema first on the search path) the versions, audit entries and
    /// change events go in by `COPY … FROM STDIN` (a bulk insert), else by multi-row statements.
    private func apply(_ batch: WriteBatch, on db: PostgresConnection, previous: inout String, lookUp: Bool,
                       entryHashes: [String]? = nil, copyInto bare: String? = nil) async throws {
        let def = batch.layer
        let t = table(def).name
        let time = batch.time
        let log = logger
        let envelopeColumns = def.hasGeometry
            ? "ST_XMin(geom), ST_YMin(geom), ST_XMax(geom), ST_YMax(geom)"
            : "NULL::float8, NULL::float8, NULL::float8, NULL::float8"
        var found = [String: CurrentVersion]()
        let ids = lookUp ? batch.lookupIDs : []
        for start in stride(from: 0, to: ids.count, by: Self.chunk) {
            let part = Array(ids[start..<min(start + Self.chunk, ids.count)])
            let rows = try await db.query(PostgresQuery(unsafeSQL: """
                SELECT vid, fid, hash, valid_from, \(envelopeColumns) FROM \(t) WHERE fid = ANY($1) AND valid_to IS NULL
                """, binds: Self.binds(part)), logger: log)
            for try await r in rows.decode((Int64, String, String, Int64, Double?, Double?, Double?, Double?).self) {
                var env: Envelope?
                if let a = r.4, let b = r.5, let c = r.6, let d = r.7 { env = Envelope(minX: a, minY: b, maxX: c, maxY: d) }
                found[r.1] = CurrentVersion(vid: r.0, hash: r.2, validFrom: r.3, envelope: env)
            }
        }
        let plan = try batch.plan(current: found)

        if !plan.closes.isEmpty {
            try await db.query(PostgresQuery(unsafeSQL: "UPDATE \(t) SET valid_to = $1 WHERE vid = ANY($2)",
                                             binds: Self.binds(time, plan.closes)), logger: log)
        }
        let audit = entryHashes.map { hashes in zip(plan.changes, hashes).map { WritePlan.AuditRow(change: $0, entryHash: $1) } }
            ?? batch.auditRows(plan, previous: previous)
        if let bare {
            try await copyVersions(plan.versions, batch: batch, table: bare, on: db)
            try await copyAudit(audit, batch: batch, on: db)
        } else {
            for start in stride(from: 0, to: plan.versions.count, by: Self.chunk) {
                let part = plan.versions[start..<min(start + Self.chunk, plan.versions.count)]
                try await insertVersions(part, batch: batch, table: t, on: db)
            }
            for start in stride(from: 0, to: audit.count, by: Self.chunk) {
                try await insertAudit(audit[start..<min(start + Self.chunk, audit.count)], batch: batch, on: db)
            }
        }
        if let last = audit.last { previous = last.entryHash }
    }

    /// Bytes per COPY data message.
    private static let copyMessage = 1 << 20

    /// Sends `rows` to `COPY table (columns) FROM STDIN`, built row by row by `row` in pieces of
    /// about a megabyte.
    private func copy<Row>(_ rows: some Collection<Row>, into table: String, columns: [String], on db: PostgresConnection,
                           row: @escaping (inout CopyRows, Row) -> Void) async throws {
        guard !rows.isEmpty else { return }
        try await db.copyFrom(table: table, columns: columns, logger: logger) { writer in
            var out = CopyRows(capacity: Self.copyMessage + (Self.copyMessage >> 2))
            for r in rows {
                row(&out, r)
                out.endRow()
                if out.buffer.readableBytes >= Self.copyMessage {
                    try await writer.write(out.buffer)
                    out = CopyRows(capacity: Self.copyMessage + (Self.copyMessage >> 2))
                }
            }
            if out.buffer.readableBytes > 0 { try await writer.write(out.buffer) }
        }
    }

    /// New versions by COPY into the layer table (the same columns and values as `insertVersions`).
    private func copyVersions(_ versions: [WritePlan.NewVersion], batch: WriteBatch, table: String,
                              on db: PostgresConnection) async throws {
        let geometry = batch.layer.hasGeometry
        let columns = ["fid", "props"] + (geometry ? ["geom"] : []) + ["valid_from", "valid_to", "author", "department", "hash"]
        let time = batch.time, actor = batch.actor, department = batch.department
        try await copy(versions, into: table, columns: columns, on: db) { out, v in
            out.text(v.feature.id)
            out.text(v.feature.propertiesText)
            if geometry { out.geometry(wkb: v.feature.wkb, srid: LayerDefinition.storageSRID) }
            out.integer(time)
            out.integer(v.validTo)
            out.text(actor)
            out.text(department)
            out.text(v.feature.hash)
        }
    }

    /// Journal entries (audit entry and change event, `JournalSQL`) by COPY, in order (the same
    /// rows as `insertAudit`).
    private func copyAudit(_ rows: [WritePlan.AuditRow], batch: WriteBatch, on db: PostgresConnection) async throws {
        let time = batch.time, actor = batch.actor, department = batch.department, role = batch.role, layer = batch.layer.id
        try await copy(rows, into: "audit_log", columns: JournalSQL.writtenColumns, on: db) { out, r in
            out.integer(time)
            out.text(actor)
            out.text(department)
            out.text(role)
            out.text(layer)
            out.text(r.change.featureID)
            out.text(r.change.kind.rawValue)
            out.text(r.change.before?.hash)
            out.text(r.change.after?.hash)
            out.text(r.entryHash)
            for v in JournalSQL.boxValues(r.change) { out.double(v) }
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
        var b = PostgresBindings(capacity: 18)
        b.append(fids); b.append(kinds); b.append(before); b.append(after); b.append(entry)
        for column in boxes { b.append(column) }
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
