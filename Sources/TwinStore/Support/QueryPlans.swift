import Foundation
import GRDB
import PostgresNIO

/// A statement a store sent to its database and the database's plan for it: what tests check so
/// that request-path queries use their indexes (issue 57 §3), on the SQL the store really built.
struct QueryPlan: Sendable, CustomStringConvertible {
    let sql: String
    /// The plan, one step a line: SpatiaLite's `EXPLAIN QUERY PLAN` details ("SEARCH f USING INDEX
    /// f_x_current (fid>?)", "SCAN f"), PostgreSQL's `EXPLAIN (FORMAT JSON)` nodes as
    /// "<node type> [using <index>] [on <table>]" ("Index Scan using f_x_current on f_x", "Seq Scan on f_x").
    let steps: [String]

    var description: String { "\(sql)\n    " + steps.joined(separator: "\n    ") }
}

extension SpatiaLiteStore {
    /// The SELECTs on `table` (a layer's `f_<id>`, or a system table) that `body` made, each with its plan.
    func plans(reading table: String, during body: () async throws -> Void) async throws -> [QueryPlan] {
        let recording = statements.start()
        do { try await body() } catch { _ = statements.stop(recording); throw error }
        let sent = statements.stop(recording).filter { Self.reads($0, table: table) }
        return try await pool.read { db in
            try sent.map { sql in
                QueryPlan(sql: sql, steps: try Row.fetchAll(db, sql: "EXPLAIN QUERY PLAN " + sql).map { $0["detail"] as String })
            }
        }
    }

    /// Whether `sql` is a SELECT naming `table` (or, for SpatiaLite, the table's R*Tree).
    static func reads(_ sql: String, table: String) -> Bool {
        sql.hasPrefix("SELECT") && (sql.contains(" \(table) ") || sql.hasSuffix(" \(table)") || sql.contains("\"idx_\(table)_geom\""))
    }
}

extension PostGISStore {
    /// The SELECTs on `table` (in this store's schema) that `body` made, each with its plan, and
    /// the statements of a write naming it (`WITH`, data-modifying: `EXPLAIN` plans them without
    /// running them). The pool may be shared with stores in other schemas: only this store's table counts.
    func plans(reading table: String, during body: () async throws -> Void) async throws -> [QueryPlan] {
        let recording = client.statements.start()
        do { try await body() } catch { _ = client.statements.stop(recording); throw error }
        let qualified = "\(schema).\(table)"
        let sent = client.statements.stop(recording).filter {
            SpatiaLiteStore.reads($0.sql, table: qualified) || ($0.sql.hasPrefix("WITH") && $0.sql.contains(" \(qualified) "))
        }
        var plans: [QueryPlan] = []
        for q in sent {
            var text = ""
            // One row, one `json` cell (its binary form is the text itself).
            for try await row in try await client.query(PostgresQuery(unsafeSQL: "EXPLAIN (FORMAT JSON) " + q.sql, binds: q.binds), logger: logger) {
                if let bytes = row.makeRandomAccess()[0].bytes { text += String(buffer: bytes) }
            }
            let root = try JSONSerialization.jsonObject(with: Data(text.utf8)) as? [[String: Any]]
            var steps: [String] = []
            func walk(_ node: [String: Any]) {
                var line = node["Node Type"] as? String ?? "?"
                if let index = node["Index Name"] as? String { line += " using \(index)" }
                if let relation = node["Relation Name"] as? String { line += " on \(relation)" }
                steps.append(line)
                for child in node["Plans"] as? [[String: Any]] ?? [] { walk(child) }
            }
            if let plan = root?.first?["Plan"] as? [String: Any] { walk(plan) }
            plans.append(QueryPlan(sql: q.sql, steps: steps))
        }
        return plans
    }

    /// `ANALYZE` of one table of this store's schema (the planner's statistics, as autovacuum keeps them).
    func analyze(table: String) async throws {
        guard LayerDefinition.isSafeIdentifier(table) else { throw StoreError(.backend, "not a table name: \(table)") }
        try await client.query(PostgresQuery(unsafeSQL: "ANALYZE \(schema).\(table)"), logger: logger)
    }
}
