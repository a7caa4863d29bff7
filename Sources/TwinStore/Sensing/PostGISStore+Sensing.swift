import Foundation
import GeoCore
import PostgresNIO

/// The SensorThings tables in PostGIS (`SensingSQL`): every write in one transaction holding
/// the schema's write lock (as feature writes do, so the audit chain stays one chain);
/// observations go in by one multi-row `unnest` statement per batch.
extension PostGISStore: SensingStore {
    public func reserveSensingIDs(_ count: Int) async throws -> [Int64] {
        guard count > 0 else { return [] }
        return try await mapErrors(layer: nil) {
            try await Self.int64s(try await client.query("""
                SELECT nextval('\(unescaped: schema).sta_ids') FROM generate_series(1, \(count))
                """, logger: logger)).sorted()
        }
    }

    public func applySensing(_ change: SensingChange) async throws -> [Int64] {
        try change.checkBatch()
        let time = RFC3339.microseconds(TwinClock.current.now)
        let s = schema
        let log = logger
        do {
            return try await client.withTransaction(logger: log) { db in
                try await db.query("SELECT pg_advisory_xact_lock(hashtext(\(s + ".write")))", logger: log)
                return try await self.apply(change, db, time: time)
            }
        } catch {
            if Self.sqlState(error) == "23505" {
                throw StoreError(.invalidFeature, "an entity or observation of the request exists already", field: "@iot.id")
            }
            if let e = error as? PostgresTransactionError, let inner = e.closureError as? StoreError { throw inner }
            return try await mapErrors(layer: nil) { throw error }
        }
    }

    private func kinds(_ db: PostgresConnection, _ ids: [Int64]) async throws -> [Int64: SensingKind] {
        var out = [Int64: SensingKind]()
        guard !ids.isEmpty else { return out }
        for try await (id, kind) in try await db.query("""
            SELECT id, kind FROM \(unescaped: schema).sta_entities WHERE id = ANY(\(ids))
            """, logger: logger).decode((Int64, String).self) {
            out[id] = SensingKind(rawValue: kind)
        }
        return out
    }

    private func writeLinks(_ entities: [SensingEntity], _ db: PostgresConnection) async throws {
        var a = [Int64](), names = [String](), b = [Int64](), expected = [(Int64, SensingKind, String)]()
        for e in entities {
            for (name, ids) in e.links {
                let target = try SensingSQL.target(of: e.kind, link: name)
                for id in ids {
                    a.append(e.id); names.append(name); b.append(id)
                    expected.append((id, target, name))
                }
            }
        }
        guard !a.isEmpty else { return }
        let found = try await kinds(db, Array(Set(b)))
        for (id, kind, name) in expected where found[id] != kind { throw SensingSQL.unknown(kind, id, field: name) }
        try await db.query("""
            INSERT INTO \(unescaped: schema).sta_links (a, name, b) SELECT * FROM unnest(\(a)::bigint[], \(names)::text[], \(b)::bigint[])
            ON CONFLICT DO NOTHING
            """, logger: logger)
    }

    private func apply(_ change: SensingChange, _ db: PostgresConnection, time: Int64) async throws -> [Int64] {
        for (id, expected) in change.basis.sorted(by: { $0.key < $1.key }) {
            var stored: SensingEntity?
            for try await body in try await db.query("""
                SELECT body FROM \(unescaped: schema).sta_entities WHERE id = \(id) AND kind = \(expected.kind.rawValue)
                """, logger: logger).decode(String.self) {
                stored = SensingEntity(kind: expected.kind, id: id, body: try SensingSQL.body(body))
            }
            for try await (name, b) in try await db.query("""
                SELECT name, b FROM \(unescaped: schema).sta_links WHERE a = \(id) ORDER BY name, b
                """, logger: logger).decode((String, Int64).self) {
                stored?.links[name, default: []].append(b)
            }
            try change.checkBasis(id, stored: stored)
        }
        let s = schema
        if !change.inserts.isEmpty {
            let ids = change.inserts.map(\.id), kinds = change.inserts.map(\.kind.rawValue)
            let bodies = change.inserts.map { CanonicalJSON.text($0.body) }
            try await db.query("""
                INSERT INTO \(unescaped: s).sta_entities (id, kind, body) SELECT * FROM unnest(\(ids)::bigint[], \(kinds)::text[], \(bodies)::text[])
                """, logger: logger)
            try await writeLinks(change.inserts, db)
        }
        for e in change.updates {
            let rows = try await Self.int64s(try await db.query("""
                UPDATE \(unescaped: s).sta_entities SET body = \(CanonicalJSON.text(e.body)) WHERE id = \(e.id) AND kind = \(e.kind.rawValue) RETURNING id
                """, logger: logger))
            guard rows.count == 1 else { throw SensingSQL.notFound(e.kind, e.id) }
            try await db.query("DELETE FROM \(unescaped: s).sta_links WHERE a = \(e.id)", logger: logger)
        }
        try await writeLinks(change.updates, db)
        for (k, id) in change.deletes {
            guard try await kinds(db, [id])[id] == k else { throw SensingSQL.notFound(k, id) }
            try await delete(k, id, db)
        }
        let all = change.observations + change.observationUpdates
        let streams = Array(Set(all.map(\.datastream))), features = Array(Set(all.compactMap(\.featureOfInterest)))
        let found = try await kinds(db, streams + features)
        for d in streams where found[d] != .datastream { throw SensingSQL.unknown(.datastream, d, field: "Datastream") }
        for f in features where found[f] != .featureOfInterest { throw SensingSQL.unknown(.featureOfInterest, f, field: "FeatureOfInterest") }

        var ids = change.observations.map(\.id)
        if !change.observations.isEmpty {
            var count: Int64 = 0
            for try await n in try await db.query(Self.observationInsert(change.observations, schema: s), logger: logger).decode(Int64.self) {
                count = n
            }
            // Fresh ids (reserved for this request): those stored now are the ones inserted.
            var inserted = Set(ids)
            if count < change.observations.count {
                inserted = Set(try await Self.int64s(try await db.query("""
                    SELECT id FROM \(unescaped: s).sta_observations WHERE id = ANY(\(ids))
                    """, logger: logger)))
            }
            for (i, o) in change.observations.enumerated() where !inserted.contains(o.id) {
                let existing = try await observations(db, "WHERE datastream = $1 AND phenomenon_start = $2", [o.datastream, o.phenomenonStart])
                guard let e = existing.first else {
                    throw StoreError(.invalidFeature, "observation @iot.id \(o.id) exists already", field: "@iot.id")
                }
                guard e.sameReading(as: o) else { throw SensingSQL.conflicting(o) }
                ids[i] = e.id
            }
        }
        for (id, _) in change.observationBasis.sorted(by: { $0.key < $1.key }) {
            try change.checkObservationBasis(id, stored: try await observations(db, "WHERE id = $1", [id]).first)
        }
        for o in change.observationUpdates {
            let rows = try await Self.int64s(try await db.query("""
                UPDATE \(unescaped: s).sta_observations SET datastream = \(o.datastream), foi = \(o.featureOfInterest),
                    phenomenon_start = \(o.phenomenonStart), phenomenon_end = \(o.phenomenonEnd), result_time = \(o.resultTime),
                    result = \(CanonicalJSON.text(o.result)), quality = \(SensingSQL.json(o.resultQuality)), valid_start = \(o.validStart),
                    valid_end = \(o.validEnd), parameters = \(SensingSQL.json(o.parameters))
                WHERE id = \(o.id) RETURNING id
                """, logger: logger))
            guard rows.count == 1 else { throw SensingSQL.notFound(.observation, o.id) }
        }
        for id in change.observationDeletes {
            let rows = try await Self.int64s(try await db.query("DELETE FROM \(unescaped: s).sta_observations WHERE id = \(id) RETURNING id", logger: logger))
            guard rows.count == 1 else { throw SensingSQL.notFound(.observation, id) }
        }

        let (previous, key) = try await chainHead(db)
        let rows = change.auditRows(previous: previous, time: time, key: key)
        if !rows.isEmpty {
            let c = change.caller
            try await db.query("""
                INSERT INTO \(unescaped: s).audit_log (at, actor, department, role, layer, fid, action, before_hash, after_hash, entry_hash)
                SELECT \(time), \(c.author), \(c.departmentName), \(c.auditRole), \(change.auditLayer), u.fid, u.kind, NULL, NULLIF(u.a, ''), u.e
                FROM unnest(\(rows.map(\.fid))::text[], \(rows.map(\.kind.rawValue))::text[], \(rows.map { $0.after ?? "" })::text[],
                            \(rows.map(\.entry))::text[]) WITH ORDINALITY AS u(fid, kind, a, e, n)
                ORDER BY u.n
                """, logger: logger)
        }
        return ids
    }

    private func delete(_ kind: SensingKind, _ id: Int64, _ db: PostgresConnection) async throws {
        let s = schema
        for (dependent, link) in SensingChange.cascades[kind] ?? [] {
            let ids = try await Self.int64s(try await db.query("""
                SELECT l.a FROM \(unescaped: s).sta_links l JOIN \(unescaped: s).sta_entities e ON e.id = l.a
                WHERE l.name = \(link) AND l.b = \(id) AND e.kind = \(dependent.rawValue)
                """, logger: logger))
            for d in ids { try await delete(dependent, d, db) }
        }
        if kind == .datastream { try await db.query("DELETE FROM \(unescaped: s).sta_observations WHERE datastream = \(id)", logger: logger) }
        if kind == .featureOfInterest { try await db.query("DELETE FROM \(unescaped: s).sta_observations WHERE foi = \(id)", logger: logger) }
        try await db.query("DELETE FROM \(unescaped: s).sta_links WHERE a = \(id) OR b = \(id)", logger: logger)
        try await db.query("DELETE FROM \(unescaped: s).sta_entities WHERE id = \(id)", logger: logger)
    }

    private static func int64s(_ rows: PostgresRowSequence) async throws -> [Int64] {
        var out = [Int64]()
        for try await v in rows.decode(Int64.self) { out.append(v) }
        return out
    }

    /// One multi-row INSERT of `list` from arrays (`unnest`), one round trip, answering how many
    /// rows it inserted (fewer when some were stored before, re-sent): a member no
    /// observation of the batch has (most batches give no resultQuality, validTime or
    /// parameters) is a NULL in the statement, not an array of NULL markers.
    static func observationInsert(_ list: [SensingObservation], schema: String) -> PostgresQuery {
        let none = Int64.min
        var binds = PostgresBindings(capacity: 11)
        var arrays = [String](), names = [String](), values = [String]()
        func add(_ name: String, _ type: String, _ expression: String) {
            arrays.append("$\(arrays.count + 1)::\(type)[]")
            names.append(name)
            values.append(expression)
        }
        func integers(_ name: String, _ column: (SensingObservation) -> Int64?) {
            guard list.contains(where: { column($0) != nil }) else { values.append("NULL::bigint"); return }
            binds.append(list.map { column($0) ?? none })
            add(name, "bigint", "NULLIF(\(name), \(none))")
        }
        func texts(_ name: String, _ column: (SensingObservation) -> JSONValue?) {
            guard list.contains(where: { column($0) != nil }) else { values.append("NULL::text"); return }
            binds.append(list.map { SensingSQL.json(column($0)) ?? "" })
            add(name, "text", "NULLIF(\(name), '')")
        }
        binds.append(list.map(\.id)); add("id", "bigint", "id")
        binds.append(list.map(\.datastream)); add("ds", "bigint", "ds")
        integers("foi", \.featureOfInterest)
        binds.append(list.map(\.phenomenonStart)); add("ps", "bigint", "ps")
        integers("pe", \.phenomenonEnd)
        integers("rt", \.resultTime)
        binds.append(list.map { CanonicalJSON.text($0.result) }); add("r", "text", "r")
        texts("q", \.resultQuality)
        integers("vs", \.validStart)
        integers("ve", \.validEnd)
        texts("p", \.parameters)
        return PostgresQuery(unsafeSQL: """
            WITH inserted AS (
                INSERT INTO \(schema).sta_observations (\(SensingSQL.observationColumns))
                SELECT \(values.joined(separator: ", "))
                FROM unnest(\(arrays.joined(separator: ", "))) AS u(\(names.joined(separator: ", ")))
                ON CONFLICT (datastream, phenomenon_start) DO NOTHING RETURNING 1)
            SELECT count(*) FROM inserted
            """, binds: binds)
    }

    /// Observations selected by `clause` (`fields`' columns, `SensingSQL.observationSelect`),
    /// each cell decoded as its concrete type, JSON members parsed from the cell's bytes.
    private func observations(_ db: PostgresConnection?, _ clause: String, _ values: [Int64], suffix: String = "",
                              fields: ObservationFields = .all) async throws -> [SensingObservation] {
        var b = PostgresBindings(capacity: values.count)
        for v in values { b.append(v) }
        let query = PostgresQuery(unsafeSQL: "SELECT \(SensingSQL.observationSelect(fields)) FROM \(schema).sta_observations \(clause) \(suffix)",
                                  binds: b)
        let rows = if let db { try await db.query(query, logger: logger) } else { try await client.query(query, logger: logger) }
        func json(_ cell: PostgresCell) throws -> JSONValue? {
            guard let bytes = cell.bytes else { return nil }
            return try bytes.readableBytesView.withContiguousStorageIfAvailable { try JSONValue(json: UnsafeRawBufferPointer($0)) }
                ?? JSONValue(json: String(decoding: bytes.readableBytesView, as: UTF8.self))
        }
        var out = [SensingObservation]()
        for try await row in rows {
            let r = row.makeRandomAccess()
            var o = SensingObservation(id: try r[0].decode(Int64.self), datastream: try r[1].decode(Int64.self),
                                       phenomenonStart: try r[2].decode(Int64.self), result: .null)
            var c = 3
            func next() -> PostgresCell {
                defer { c += 1 }
                return r[c]
            }
            if fields.contains(.featureOfInterest) { o.featureOfInterest = try next().decode(Int64?.self) }
            if fields.contains(.phenomenonEnd) { o.phenomenonEnd = try next().decode(Int64?.self) }
            if fields.contains(.resultTime) { o.resultTime = try next().decode(Int64?.self) }
            if fields.contains(.result) { o.result = try json(next()) ?? .null }
            if fields.contains(.resultQuality) { o.resultQuality = try json(next()) }
            if fields.contains(.validTime) {
                o.validStart = try next().decode(Int64?.self)
                o.validEnd = try next().decode(Int64?.self)
            }
            if fields.contains(.parameters) { o.parameters = try json(next()) }
            out.append(o)
        }
        return out
    }

    /// The entities `query` selects (id, kind, body) with their outgoing links, in one round
    /// trip: a row per link (or one without), in id order.
    private func entities(_ query: PostgresQuery) async throws -> [SensingEntity] {
        let joined = PostgresQuery(unsafeSQL: """
            SELECT e.id, e.kind, e.body, l.name, l.b FROM (\(query.sql)) AS e (id, kind, body)
            LEFT JOIN \(schema).sta_links l ON l.a = e.id ORDER BY e.id, l.name, l.b
            """, binds: query.binds)
        return try await mapErrors(layer: nil) {
            var out = [SensingEntity]()
            for try await (id, kind, body, name, b) in try await client.query(joined, logger: logger)
                .decode((Int64, String, String, String?, Int64?).self) {
                if out.last?.id != id {
                    guard let k = SensingKind(rawValue: kind) else { continue }
                    out.append(SensingEntity(kind: k, id: id, body: try SensingSQL.body(body)))
                }
                if let name, let b, out.last?.id == id { out[out.count - 1].links[name, default: []].append(b) }
            }
            return out
        }
    }

    public func sensingEntities(_ kind: SensingKind, ids: [Int64]) async throws -> [SensingEntity] {
        guard !ids.isEmpty else { return [] }
        return try await entities("""
            SELECT id, kind, body FROM \(unescaped: schema).sta_entities WHERE kind = \(kind.rawValue) AND id = ANY(\(ids)) ORDER BY id
            """)
    }

    public func sensingEntities(_ kind: SensingKind, linkedBy link: SensingLink?) async throws -> [SensingEntity] {
        let s = schema
        if let link {
            return try await entities("""
                SELECT e.id, e.kind, e.body FROM \(unescaped: s).sta_links l JOIN \(unescaped: s).sta_entities e ON e.id = l.a
                WHERE l.name = \(link.name) AND l.b = \(link.id) AND e.kind = \(kind.rawValue) ORDER BY e.id
                """)
        }
        return try await entities("SELECT id, kind, body FROM \(unescaped: s).sta_entities WHERE kind = \(kind.rawValue) ORDER BY id")
    }

    public func observations(_ range: ObservationRange) async throws -> [SensingObservation] {
        let (clause, values) = range.whereClause { "$\($0)" }
        return try await mapErrors(layer: nil) {
            try await observations(nil, clause, values, suffix: "\(range.orderClause) LIMIT \(range.limit) OFFSET \(range.offset)",
                                   fields: range.fields)
        }
    }

    public func observationCount(_ range: ObservationRange) async throws -> Int {
        let (clause, values) = range.whereClause { "$\($0)" }
        var b = PostgresBindings(capacity: values.count)
        for v in values { b.append(v) }
        return try await mapErrors(layer: nil) {
            var n: Int64 = 0
            for try await c in try await client.query(PostgresQuery(unsafeSQL: "SELECT count(*) FROM \(schema).sta_observations \(clause)", binds: b),
                                                      logger: logger).decode(Int64.self) { n = c }
            return Int(n)
        }
    }
}
