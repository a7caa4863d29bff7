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

    /// One transaction under the schema's write lock (the audit chain is one sequence): reads
    /// the current versions the batch touches in one query per chunk, plans the batch (shared
    /// with SpatiaLite), then closes, adds versions, audit entries and change events with
    /// array-bound multi-row statements. Any error rolls all back.
    private func write(_ batch: WriteBatch) async throws {
        do {
            try await transaction(layer: batch.layer.id) { db in
                var previous = try await self.lastAuditHash(db)
                try await self.apply(batch, on: db, previous: &previous)
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
        return try await transaction(layer: layer) { db in
            // A layer without current versions cannot hold one of the batch: skip the lookups
            // (a repeat inside the batch still fails, on the unique index).
            var occupied = true
            for try await e in try await db.query(PostgresQuery(unsafeSQL: "SELECT EXISTS (SELECT 1 FROM \(t) WHERE valid_to IS NULL)"),
                                                   logger: self.logger).decode(Bool.self) { occupied = e }
            chunks.start(chain: try await self.lastAuditHash(db))
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

    /// Runs `body` in a transaction holding the schema's write lock, mapping errors.
    private func transaction<T: Sendable>(layer: String, _ body: @escaping @Sendable (PostgresConnection) async throws -> T) async throws -> T {
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

    /// Writes one batch inside the current transaction, planned against the current versions
    /// it touches; `previous` is the newest audit entry hash, updated to this batch's last.
    /// Versions and audit entries go in by multi-row statements.
    private func apply(_ batch: WriteBatch, on db: PostgresConnection, previous: inout String) async throws {
        let t = table(batch.layer).name
        let plan = try batch.plan(current: try await currentVersions(batch.lookupIDs, of: batch.layer, on: db))
        if !plan.closes.isEmpty {
            try await db.query(PostgresQuery(unsafeSQL: "UPDATE \(t) SET valid_to = $1 WHERE vid = ANY($2)",
                                             binds: Self.binds(batch.time, plan.closes)), logger: logger)
        }
        let audit = batch.auditRows(plan, previous: previous)
        for start in stride(from: 0, to: plan.versions.count, by: Self.chunk) {
            let part = plan.versions[start..<min(start + Self.chunk, plan.versions.count)]
            try await insertVersions(part, batch: batch, table: t, on: db)
        }
        for start in stride(from: 0, to: audit.count, by: Self.chunk) {
            try await insertAudit(audit[start..<min(start + Self.chunk, audit.count)], batch: batch, on: db)
        }
        if let last = audit.last { previous = last.entryHash }
        try await updateStats(db, batch.layer, LayerStatsChange(plan))
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
