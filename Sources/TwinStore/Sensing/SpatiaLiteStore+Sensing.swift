import CSpatiaLite
import Foundation
import GeoCore
import GRDB

/// The SensorThings tables in SpatiaLite (`SensingSQL`); every write in one immediate transaction.
extension SpatiaLiteStore: SensingStore {
    static func createSensingTables(_ db: Database) throws {
        for statement in SensingSQL.schema(integer: "INTEGER", key: "") { try db.execute(sql: statement) }
        try db.execute(sql: "CREATE TABLE IF NOT EXISTS sta_sequence (next INTEGER NOT NULL)")
    }

    public func reserveSensingIDs(_ count: Int) async throws -> [Int64] {
        try await mapErrors(layer: nil) {
            try await pool.write { db in
                let first = max(try Int64.fetchOne(db, sql: "SELECT next FROM sta_sequence") ?? 1, 1)
                try db.execute(sql: "DELETE FROM sta_sequence")
                try db.execute(sql: "INSERT INTO sta_sequence (next) VALUES (?)", arguments: [first + Int64(max(count, 0))])
                return Array(first..<(first + Int64(max(count, 0))))
            }
        }
    }

    public func applySensing(_ change: SensingChange) async throws -> [Int64] {
        try change.checkBatch()
        let time = RFC3339.microseconds(TwinClock.current.now)
        return try await mapErrors(layer: nil) {
            try await pool.write { db in
                do {
                    return try Self.apply(change, db, time: time, keys: auditKeys)
                } catch let e as DatabaseError where e.extendedResultCode == .SQLITE_CONSTRAINT_UNIQUE || e.extendedResultCode == .SQLITE_CONSTRAINT_PRIMARYKEY {
                    throw StoreError(.invalidFeature, "an entity or observation of the request exists already (\(e.message ?? "unique"))", field: "@iot.id")
                }
            }
        }
    }

    private static func kind(_ db: Database, _ id: Int64) throws -> SensingKind? {
        try String.fetchOne(db, sql: "SELECT kind FROM sta_entities WHERE id = ?", arguments: [id]).flatMap(SensingKind.init(rawValue:))
    }

    private static func writeLinks(_ e: SensingEntity, _ db: Database) throws {
        for (name, ids) in e.links {
            let target = try SensingSQL.target(of: e.kind, link: name)
            for b in ids {
                guard try kind(db, b) == target else { throw SensingSQL.unknown(target, b, field: name) }
                try db.execute(sql: "INSERT OR IGNORE INTO sta_links (a, name, b) VALUES (?, ?, ?)", arguments: [e.id, name, b])
            }
        }
    }

    private static func apply(_ change: SensingChange, _ db: Database, time: Int64, keys: HeldAuditKey) throws -> [Int64] {
        for (id, expected) in change.basis.sorted(by: { $0.key < $1.key }) {
            try change.checkBasis(id, stored: try entities(db, "SELECT id, kind, body FROM sta_entities WHERE kind = ? AND id = ?",
                                                           [expected.kind.rawValue, id]).first)
        }
        for e in change.inserts {
            try db.execute(sql: "INSERT INTO sta_entities (id, kind, body) VALUES (?, ?, ?)",
                           arguments: [e.id, e.kind.rawValue, CanonicalJSON.text(e.body)])
        }
        for e in change.inserts { try writeLinks(e, db) }
        for e in change.updates {
            try db.execute(sql: "UPDATE sta_entities SET body = ? WHERE id = ? AND kind = ?",
                           arguments: [CanonicalJSON.text(e.body), e.id, e.kind.rawValue])
            guard db.changesCount == 1 else { throw SensingSQL.notFound(e.kind, e.id) }
            try db.execute(sql: "DELETE FROM sta_links WHERE a = ?", arguments: [e.id])
            try writeLinks(e, db)
        }
        for (k, id) in change.deletes {
            guard try kind(db, id) == k else { throw SensingSQL.notFound(k, id) }
            try delete(k, id, db)
        }
        var streams = [Int64: Bool](), features = [Int64: Bool]()
        func check(_ o: SensingObservation) throws {
            if streams[o.datastream] == nil { streams[o.datastream] = try kind(db, o.datastream) == .datastream }
            guard streams[o.datastream] == true else { throw SensingSQL.unknown(.datastream, o.datastream, field: "Datastream") }
            if let f = o.featureOfInterest {
                if features[f] == nil { features[f] = try kind(db, f) == .featureOfInterest }
                guard features[f] == true else { throw SensingSQL.unknown(.featureOfInterest, f, field: "FeatureOfInterest") }
            }
        }
        var ids = [Int64]()
        ids.reserveCapacity(change.observations.count)
        if !change.observations.isEmpty {
            let insert = try ObservationInsert(db)
            defer { insert.finalize() }
            for o in change.observations {
                try check(o)
                if try insert.insert(o) {
                    ids.append(o.id)
                } else {
                    guard let row = try Row.fetchOne(db, sql: "SELECT \(SensingSQL.observationColumns) FROM sta_observations WHERE datastream = ? AND phenomenon_start = ?",
                                                     arguments: [o.datastream, o.phenomenonStart]) else {
                        throw StoreError(.invalidFeature, "observation @iot.id \(o.id) exists already", field: "@iot.id")
                    }
                    let existing = try observation(row)
                    guard existing.sameReading(as: o) else { throw SensingSQL.conflicting(o) }
                    ids.append(existing.id)
                }
            }
        }
        for (id, _) in change.observationBasis.sorted(by: { $0.key < $1.key }) {
            // Read as `observations(_:)` reads it, so an unchanged row compares equal.
            let statement = try db.makeStatement(sql: "SELECT \(SensingSQL.observationSelect(.all)) FROM sta_observations WHERE id = ?")
            try change.checkObservationBasis(id, stored: try observations(statement, [id], fields: .all, capacity: 1).first)
        }
        for o in change.observationUpdates {
            try check(o)
            let args: StatementArguments = [o.datastream, o.featureOfInterest, o.phenomenonStart, o.phenomenonEnd, o.resultTime,
                                            CanonicalJSON.text(o.result), SensingSQL.json(o.resultQuality), o.validStart, o.validEnd,
                                            SensingSQL.json(o.parameters), o.id]
            try db.execute(sql: """
                UPDATE sta_observations SET datastream = ?, foi = ?, phenomenon_start = ?, phenomenon_end = ?, result_time = ?, result = ?,
                    quality = ?, valid_start = ?, valid_end = ?, parameters = ? WHERE id = ?
                """, arguments: args)
            guard db.changesCount == 1 else { throw SensingSQL.notFound(.observation, o.id) }
        }
        for id in change.observationDeletes {
            try db.execute(sql: "DELETE FROM sta_observations WHERE id = ?", arguments: [id])
            guard db.changesCount == 1 else { throw SensingSQL.notFound(.observation, id) }
        }
        let (previous, key) = try chainHead(db, keys: keys)
        let journal = try db.cachedStatement(sql: """
            INSERT INTO audit_log (at, actor, department, role, layer, fid, action, before_hash, after_hash, entry_hash)
            VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
            """)
        let c = change.caller
        for r in change.auditRows(previous: previous, time: time, key: key) {
            try journal.execute(arguments: [time, c.author, c.departmentName, c.auditRole, change.auditLayer, r.fid, r.kind.rawValue,
                                            r.before, r.after, r.entry])
        }
        return ids
    }

    /// Deletes an entity with what depends on it (`SensingChange.cascades`) and its links.
    private static func delete(_ kind: SensingKind, _ id: Int64, _ db: Database) throws {
        for (dependent, link) in SensingChange.cascades[kind] ?? [] {
            let ids = try Int64.fetchAll(db, sql: """
                SELECT l.a FROM sta_links l JOIN sta_entities e ON e.id = l.a WHERE l.name = ? AND l.b = ? AND e.kind = ?
                """, arguments: [link, id, dependent.rawValue])
            for d in ids { try delete(dependent, d, db) }
        }
        if kind == .datastream { try db.execute(sql: "DELETE FROM sta_observations WHERE datastream = ?", arguments: [id]) }
        if kind == .featureOfInterest { try db.execute(sql: "DELETE FROM sta_observations WHERE foi = ?", arguments: [id]) }
        try db.execute(sql: "DELETE FROM sta_links WHERE a = ? OR b = ?", arguments: [id, id])
        try db.execute(sql: "DELETE FROM sta_entities WHERE id = ?", arguments: [id])
    }

    private static func observation(_ row: Row) throws -> SensingObservation {
        SensingObservation(id: row[0], datastream: row[1], featureOfInterest: row[2], phenomenonStart: row[3], phenomenonEnd: row[4],
                           resultTime: row[5], result: try SensingSQL.parse(row[6]) ?? .null, resultQuality: try SensingSQL.parse(row[7]),
                           validStart: row[8], validEnd: row[9], parameters: try SensingSQL.parse(row[10]))
    }

    /// Steps `statement` (selecting `SensingSQL.observationSelect(fields)`) reading each column as
    /// its concrete type straight from SQLite, JSON members parsed from SQLite's own bytes (no
    /// intermediate `String`): a read returns thousands of rows, and GRDB's generic per-column
    /// decoding was most of its cost.
    private static func observations(_ statement: Statement, _ arguments: StatementArguments, fields: ObservationFields,
                                     capacity: Int) throws -> [SensingObservation] {
        var out = [SensingObservation]()
        out.reserveCapacity(max(capacity, 0))
        let cursor = try Row.fetchCursor(statement, arguments: arguments)
        let s = statement.sqliteStatement
        func integer(_ i: CInt) -> Int64? { sqlite3_column_type(s, i) == SQLITE_NULL ? nil : sqlite3_column_int64(s, i) }
        func json(_ i: CInt) throws -> JSONValue? {
            guard sqlite3_column_type(s, i) != SQLITE_NULL, let text = sqlite3_column_text(s, i) else { return nil }
            return try JSONValue(json: UnsafeRawBufferPointer(start: text, count: Int(sqlite3_column_bytes(s, i))))
        }
        while try cursor.next() != nil {
            var o = SensingObservation(id: sqlite3_column_int64(s, 0), datastream: sqlite3_column_int64(s, 1),
                                       phenomenonStart: sqlite3_column_int64(s, 2), result: .null)
            var c: CInt = 3
            func next() -> CInt {
                defer { c += 1 }
                return c
            }
            if fields.contains(.featureOfInterest) { o.featureOfInterest = integer(next()) }
            if fields.contains(.phenomenonEnd) { o.phenomenonEnd = integer(next()) }
            if fields.contains(.resultTime) { o.resultTime = integer(next()) }
            if fields.contains(.result) { o.result = try json(next()) ?? .null }
            if fields.contains(.resultQuality) { o.resultQuality = try json(next()) }
            if fields.contains(.validTime) {
                o.validStart = integer(next())
                o.validEnd = integer(next())
            }
            if fields.contains(.parameters) { o.parameters = try json(next()) }
            out.append(o)
        }
        return out
    }

    private static func entities(_ db: Database, _ sql: String, _ arguments: StatementArguments) throws -> [SensingEntity] {
        var out = [SensingEntity]()
        var index = [Int64: Int]()
        for row in try Row.fetchAll(db, sql: sql, arguments: arguments) {
            guard let kind = SensingKind(rawValue: row[1]) else { continue }
            index[row[0]] = out.count
            out.append(SensingEntity(kind: kind, id: row[0], body: try SensingSQL.body(row[2])))
        }
        guard !out.isEmpty else { return out }
        // Links in chunks (SQLite's bound-variable limit).
        let ids = out.map(\.id)
        for start in stride(from: 0, to: ids.count, by: 500) {
            let part = Array(ids[start..<min(start + 500, ids.count)])
            let marks = Array(repeating: "?", count: part.count).joined(separator: ", ")
            for row in try Row.fetchAll(db, sql: "SELECT a, name, b FROM sta_links WHERE a IN (\(marks)) ORDER BY a, name, b",
                                        arguments: StatementArguments(part)) {
                let a: Int64 = row[0]
                if let i = index[a] { out[i].links[row[1], default: []].append(row[2]) }
            }
        }
        return out
    }

    public func sensingEntities(_ kind: SensingKind, ids: [Int64]) async throws -> [SensingEntity] {
        guard !ids.isEmpty else { return [] }
        return try await mapErrors(layer: nil) {
            try await pool.read { db in
                var out = [SensingEntity]()
                for start in stride(from: 0, to: ids.count, by: 500) {
                    let part = Array(ids[start..<min(start + 500, ids.count)])
                    let marks = Array(repeating: "?", count: part.count).joined(separator: ", ")
                    out += try Self.entities(db, "SELECT id, kind, body FROM sta_entities WHERE kind = ? AND id IN (\(marks)) ORDER BY id",
                                             StatementArguments([kind.rawValue]) + StatementArguments(part))
                }
                return out.sorted { $0.id < $1.id }
            }
        }
    }

    public func sensingEntities(_ kind: SensingKind, linkedBy link: SensingLink?) async throws -> [SensingEntity] {
        try await mapErrors(layer: nil) {
            try await pool.read { db in
                if let link {
                    return try Self.entities(db, """
                        SELECT e.id, e.kind, e.body FROM sta_links l JOIN sta_entities e ON e.id = l.a
                        WHERE l.name = ? AND l.b = ? AND e.kind = ? ORDER BY e.id
                        """, [link.name, link.id, kind.rawValue])
                }
                return try Self.entities(db, "SELECT id, kind, body FROM sta_entities WHERE kind = ? ORDER BY id", [kind.rawValue])
            }
        }
    }

    public func observations(_ range: ObservationRange) async throws -> [SensingObservation] {
        let (clause, values) = range.whereClause { _ in "?" }
        return try await mapErrors(layer: nil) {
            try await pool.read { db in
                let sql = "SELECT \(SensingSQL.observationSelect(range.fields)) FROM sta_observations \(clause) \(range.orderClause) LIMIT ? OFFSET ?"
                // A few shapes of range reads recur (cached per connection); a list of ids makes a new one each time.
                let statement = try range.ids == nil ? db.cachedStatement(sql: sql) : db.makeStatement(sql: sql)
                return try Self.observations(statement, StatementArguments(values + [Int64(range.limit), Int64(range.offset)]),
                                             fields: range.fields, capacity: min(range.limit, 10_000))
            }
        }
    }

    public func observationCount(_ range: ObservationRange) async throws -> Int {
        let (clause, values) = range.whereClause { _ in "?" }
        return try await mapErrors(layer: nil) {
            try await pool.read { db in
                try Int.fetchOne(db, sql: "SELECT count(*) FROM sta_observations \(clause)", arguments: StatementArguments(values)) ?? 0
            }
        }
    }
}

/// The INSERT of new observations, bound and stepped straight through SQLite's C API: a
/// CreateObservations batch writes thousands of rows in one transaction, and building GRDB's
/// `StatementArguments` (eleven boxed values a row) cost more than SQLite's own work.
private struct ObservationInsert {
    let connection: OpaquePointer
    let statement: OpaquePointer
    static let sql = """
        INSERT INTO sta_observations (\(SensingSQL.observationColumns)) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
        ON CONFLICT (datastream, phenomenon_start) DO NOTHING
        """
    /// `SQLITE_TRANSIENT`: SQLite copies text at bind time.
    private static let transient = unsafeBitCast(-1, to: sqlite3_destructor_type.self)

    init(_ db: Database) throws {
        guard let connection = db.sqliteConnection else { throw StoreError(.backend, "SQLite connection is closed") }
        var s: OpaquePointer?
        let rc = sqlite3_prepare_v2(connection, Self.sql, -1, &s, nil)
        guard rc == SQLITE_OK, let s else {
            sqlite3_finalize(s)
            throw DatabaseError(resultCode: ResultCode(rawValue: rc), message: String(cString: sqlite3_errmsg(connection)), sql: Self.sql)
        }
        self.connection = connection
        statement = s
    }

    func finalize() { sqlite3_finalize(statement) }

    /// Inserts `o`; `false` when its Datastream already holds a reading at its phenomenon time.
    func insert(_ o: SensingObservation) throws -> Bool {
        let s = statement
        func integer(_ i: CInt, _ v: Int64?) {
            if let v { sqlite3_bind_int64(s, i, v) } else { sqlite3_bind_null(s, i) }
        }
        func text(_ i: CInt, _ v: String?) {
            guard var v else { sqlite3_bind_null(s, i); return }
            _ = v.withUTF8 { u in
                // Never a nil address for "": SQLite would bind NULL.
                if u.isEmpty { sqlite3_bind_text(s, i, "", 0, Self.transient) } else {
                    u.withMemoryRebound(to: CChar.self) { sqlite3_bind_text(s, i, $0.baseAddress, CInt($0.count), Self.transient) }
                }
            }
        }
        integer(1, o.id); integer(2, o.datastream); integer(3, o.featureOfInterest); integer(4, o.phenomenonStart)
        integer(5, o.phenomenonEnd); integer(6, o.resultTime); text(7, CanonicalJSON.text(o.result)); text(8, SensingSQL.json(o.resultQuality))
        integer(9, o.validStart); integer(10, o.validEnd); text(11, SensingSQL.json(o.parameters))
        let rc = sqlite3_step(s)
        let code = sqlite3_extended_errcode(connection)
        let message = rc == SQLITE_DONE ? "" : String(cString: sqlite3_errmsg(connection))
        sqlite3_reset(s)
        guard rc == SQLITE_DONE else { throw DatabaseError(resultCode: ResultCode(rawValue: code), message: message, sql: Self.sql) }
        return sqlite3_changes(connection) == 1
    }
}
