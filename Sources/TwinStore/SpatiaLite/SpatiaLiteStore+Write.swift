import Foundation
import GeoCore
import GRDB

extension SpatiaLiteStore {
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
        let sql = "SELECT vid FROM \(FeatureTable(layer: def).name) WHERE fid = ? AND valid_to IS NULL"
        return try await mapErrors(layer: layer) {
            try await pool.read { db in
                let statement = try db.cachedStatement(sql: sql)
                var found: [String: Int64] = [:]
                for id in ids { found[id] = try Int64.fetchOne(statement, arguments: [id]) }
                return found
            }
        }
    }

    /// One transaction: reads the current versions the batch touches, plans the batch (shared
    /// with PostGIS), then closes versions, adds versions, audit entries and change events.
    /// Any error rolls all back.
    private func write(_ batch: WriteBatch) async throws {
        do {
            try await mapErrors(layer: batch.layer.id) {
                try await pool.write { db in
                    let head = try Self.chainHead(db, keys: auditKeys)
                    var previous = head.previous
                    try apply(batch, db, previous: &previous, key: head.key)
                }
            }
        } catch let e as StoreError where WriteBatch.isForgedOwnership(e) {
            // The refusal outlives the rolled-back write: an entry of its own in the audit log.
            try await recordAccess(layer: batch.layer.id, subject: "refused write of \(e.feature ?? "?"): forged \(CoBuilding.property)",
                                   detail: e.message, kind: .refused, by: batch.caller)
            throw e
        }
    }

    /// Bulk insert: every chunk in ONE write transaction, planned and written like `insert`
    /// (chunk after chunk at the same instant, the audit chain continuing across chunks), with
    /// SpatiaLite's per-row geometry triggers replayed set-wise at the end
    /// (`DeferredGeometryTriggers`). The rows are bound and stepped through SQLite's C API with
    /// statements prepared once (`BulkRowWriter`); the audit hashes come ready from the reading
    /// thread (`PreparedChunks`). The page cache is sized for the transaction: large when ids come
    /// in no order, so the indexes stay in memory instead of spilling to the WAL and being read
    /// back; small when they ascend, so finished pages reach the WAL during the load
    /// (`appendCacheSize`). WAL mode and `synchronous` stay, so the commit is as durable as any
    /// other. Into a table without rows whose first chunk's ids are not in ascending order, the
    /// version indexes are built after the load (`DeferredVersionIndexes`).
    public func insert(layer: String, chunks next: @escaping FeatureChunkReader, by caller: Caller, at: Date?) async throws -> Int {
        let template = try WriteBatch.bulkTemplate(layer: definitions[layer], named: layer, by: caller, at: at)
        let table = FeatureTable(layer: template.layer)
        let chunks = PreparedChunks(template: template, reader: next)
        defer { chunks.stop() }
        return try await mapErrors(layer: layer) {
            try await pool.write { db in
                let cacheSize = try Int.fetchOne(db, sql: "PRAGMA cache_size") ?? -2000
                defer { try? db.execute(sql: "PRAGMA cache_size = \(cacheSize)") }
                let head = try Self.chainHead(db, keys: auditKeys)
                chunks.start(chain: head.previous, key: head.key)
                let triggers = template.layer.hasGeometry
                    ? try DeferredGeometryTriggers(db, table: table.name, layer: layer) : nil
                try triggers?.suspend(db)
                var first = try chunks.next()
                // Feature ids that arrive in ascending order (those CityTwin generates, UUIDv7,
                // or a file sorted by id) extend the indexes at their right edge as cheaply as
                // a sort would, on the writer's idle time: the indexes stay. Otherwise they
                // are rebuilt after the load.
                let ascending = first.map { Self.idsAscend($0.features) } ?? true
                try db.execute(sql: "PRAGMA cache_size = \(ascending ? Self.appendCacheSize : Self.bulkCacheSize)")
                let indexes = ascending ? nil : try DeferredVersionIndexes(db, table: table.name, layer: layer)
                try indexes?.suspend(db)
                let before = try Self.lastVersion(db, table)
                let rows = try BulkRowWriter(db, template: template)
                defer { rows.finalize() }
                var count = 0
                while let chunk = try first ?? chunks.next() {
                    first = nil
                    // An insert plan is one version and one insert change per feature, in
                    // order, or an error naming the first feature that already has a current
                    // version: the unique index on current ids gives that error as the rows go
                    // in (or, deferred, `indexes.resume` does), so no stored version is looked up.
                    try rows.insert(chunk.features, entryHashes: chunk.entryHashes)
                    count += chunk.features.count
                }
                rows.finalize()
                try indexes?.resume(db)
                try triggers?.resume(db, boxes: rows.boxes)
                try Self.updateStats(db, table, afterBulkAbove: before)
                return count
            }
        }
    }

    /// Whether the ids of `features` ascend in the byte order of SQLite's text keys.
    static func idsAscend(_ features: [PreparedFeature]) -> Bool {
        zip(features, features.dropFirst()).allSatisfy { $0.id.utf8.lexicographicallyPrecedes($1.id.utf8) }
    }

    /// Page cache of a bulk insert's transaction (negative: KiB), 256 MiB: the rebuild of
    /// deferred indexes reads the new rows back, and live indexes under ids in no order are
    /// written all over.
    static let bulkCacheSize = -262_144

    /// Page cache of a bulk insert whose ids ascend, 16 MiB: every B-tree grows at its right
    /// edge, so the pages behind it are finished and go to the WAL while the load runs, on the
    /// writer's idle time, instead of all at the commit.
    static let appendCacheSize = -16_384

    /// Writes one batch inside the current transaction, planned against the current versions
    /// it touches; `previous` is the newest audit entry hash, updated to this batch's last; the
    /// entries are signed with `key` (`nil`: an unkeyed chain).
    private func apply(_ batch: WriteBatch, _ db: Database, previous: inout String, key: AuditKey?) throws {
        let def = batch.layer
        let layer = def.id
        let table = FeatureTable(layer: def)
        let time = batch.time
        let plan = try currentPlan(batch, db)
        let geomSQL = def.hasZ ? "CastToXYZ(ST_GeomFromWKB(?, 4490))" : "ST_GeomFromWKB(?, 4490)"
        let insertSQL = def.hasGeometry
            ? "INSERT INTO \(table.name) (fid, props, geom, valid_from, valid_to, author, department, hash) VALUES (?, ?, \(geomSQL), ?, ?, ?, ?, ?)"
            : "INSERT INTO \(table.name) (fid, props, valid_from, valid_to, author, department, hash) VALUES (?, ?, ?, ?, ?, ?, ?)"

        let close = try db.cachedStatement(sql: "UPDATE \(table.name) SET valid_to = ? WHERE vid = ?")
        for vid in plan.closes { try close.execute(arguments: [time, vid]) }

        let addVersion = try db.cachedStatement(sql: insertSQL)
        for v in plan.versions {
            let f = v.feature
            do {
                if def.hasGeometry {
                    try addVersion.execute(arguments: [f.id, f.propertiesText, f.wkb.map { Data($0) }, time, v.validTo,
                                                       batch.actor, batch.department, f.hash])
                } else {
                    try addVersion.execute(arguments: [f.id, f.propertiesText, time, v.validTo, batch.actor, batch.department, f.hash])
                }
            } catch let e as DatabaseError where e.extendedResultCode == .SQLITE_CONSTRAINT_UNIQUE {
                throw StoreError(.duplicateFeature, "feature \"\(f.id)\" already exists", layer: layer, feature: f.id)
            }
        }

        let columns = JournalSQL.writtenColumns
        let journal = try db.cachedStatement(sql: """
            INSERT INTO audit_log (\(columns.joined(separator: ", "))) VALUES (\(Array(repeating: "?", count: columns.count).joined(separator: ", ")))
            """)
        for row in batch.auditRows(plan, previous: previous, key: key) {
            let c = row.change
            var values: [(any DatabaseValueConvertible)?] = [time, batch.actor, batch.department, batch.role, layer, c.featureID,
                                                             c.kind.rawValue, c.before?.hash, c.after?.hash, row.entryHash]
            values += JournalSQL.boxValues(c).map { $0 }
            try journal.execute(arguments: StatementArguments(values))
            previous = row.entryHash
        }
        try Self.updateStats(db, table, LayerStatsChange(plan))
    }

    /// The plan of `batch` against the current versions it touches, read inside the transaction.
    private func currentPlan(_ batch: WriteBatch, _ db: Database) throws -> WritePlan {
        let def = batch.layer
        let table = FeatureTable(layer: def)
        let currentSQL = def.hasGeometry
            ? "SELECT vid, hash, valid_from, MbrMinX(geom), MbrMinY(geom), MbrMaxX(geom), MbrMaxY(geom) FROM \(table.name) WHERE fid = ? AND valid_to IS NULL"
            : "SELECT vid, hash, valid_from FROM \(table.name) WHERE fid = ? AND valid_to IS NULL"
        var found = [String: CurrentVersion]()
        let current = try db.cachedStatement(sql: currentSQL)
        for fid in batch.lookupIDs {
            guard let row = try Row.fetchOne(current, arguments: [fid]) else { continue }
            var env: Envelope?
            if row.count > 3, let a: Double = row[3], let b: Double = row[4], let c: Double = row[5], let d: Double = row[6] {
                env = Envelope(minX: a, minY: b, maxX: c, maxY: d)
            }
            found[fid] = CurrentVersion(vid: row[0], hash: row[1], validFrom: row[2], envelope: env)
            if def.coBuilt != nil {
                found[fid]?.department = try String.fetchOne(db, sql: "SELECT json_extract(props, '$.\(CoBuilding.property)') FROM \(table.name) WHERE vid = ?",
                                                             arguments: [row[0] as Int64])
            }
        }
        return try batch.plan(current: found)
    }
}
