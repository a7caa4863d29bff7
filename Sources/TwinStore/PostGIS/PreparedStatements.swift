import Logging
import PostgresNIO
import Synchronization

/// Statements prepared once per pooled connection and executed by name after that (issue 57):
/// PostgreSQL parses, analyses and plans an unnamed statement on every call, which for a bbox
/// page cost about as much server time as running it. postgres-nio prepares a statement on a
/// connection the first time it runs there (Parse, Describe) and afterwards sends only Bind and
/// Execute; the server keeps the parsed statement and, once its plan proves generic, the plan.
///
/// The store's SQL is built per query (`FeatureSelect`), so a statement is named by its SQL and
/// the types of its bound values: the same SQL with the same types always gets the same name,
/// in every pool of the process (two stores may share one `PostgresClient`, so names are never
/// reused for other SQL). Only `limit` distinct statements are ever named; past that, new SQL
/// runs unnamed as before, so that a server connection holds a bounded number of statements.
enum PreparedStatements {
    /// How many distinct statements a process names (a connection holds at most this many).
    static let limit = 256

    private static let names = Mutex(Registry())

    private struct Registry {
        var byKey: [String: String] = [:]
        var issued = 0
    }

    /// The statement name of `sql` with values of `signature`'s types; `nil` when `limit`
    /// statements were named already and this one is new.
    static func name(sql: String, signature: String) -> String? {
        let key = signature + "\u{0}" + sql
        return names.withLock { r in
            if let name = r.byKey[key] { return name }
            guard r.issued < limit else { return nil }
            r.issued += 1
            let name = "citytwin_s\(r.issued)"
            r.byKey[key] = name
            return name
        }
    }

    /// `name` failed on the server (postgres-nio then refuses it on that connection for good,
    /// e.g. after a layer's table was missing when it was prepared): the SQL gets a new name, so
    /// its next run prepares it afresh.
    static func retire(sql: String, signature: String, name: String) {
        let key = signature + "\u{0}" + sql
        names.withLock { r in
            if r.byKey[key] == name { r.byKey[key] = nil }
        }
    }

    /// The types of `values` as the name's part: the server fixes a prepared statement's
    /// parameter types when it prepares it (a NULL binds untyped).
    static func signature(_ values: [SQLValue]) -> String {
        String(values.map { v -> Character in
            switch v {
            case .null: "n"
            case .bool: "b"
            case .integer: "i"
            case .double: "d"
            case .text: "t"
            case .blob: "x"
            case .geometry: "g"
            }
        })
    }
}

/// postgres-nio prepares statements whose name and SQL are static properties of a type; this
/// type reads them from a task-local bound around the call (`PostGISPool.rows`), which
/// postgres-nio reads in the calling task before it hands the statement to the connection.
struct NamedStatement: PostgresPreparedStatement {
    @TaskLocal static var current = (name: "", sql: "")
    static var name: String { current.name }
    static var sql: String { current.sql }
    typealias Row = PostgresRow

    let bindings: PostgresBindings

    func makeBindings() -> PostgresBindings { bindings }
    func decodeRow(_ row: PostgresRow) -> PostgresRow { row }
}

/// The rows of `PostGISPool.rows`, prepared or not.
typealias StatementRows = AsyncThrowingMapSequence<PostgresRowSequence, PostgresRow>

extension PostGISPool {
    /// The rows of `sql` with `values` bound, through a statement prepared on the connection
    /// when `prepare` (`PreparedStatements`), else unnamed as `query` sends it. Waits for a
    /// connection as `query` does. A prepared statement the server refuses is renamed and the
    /// query sent unnamed once, so the answer (or the error) is the unnamed statement's.
    func rows(_ sql: String, _ values: [SQLValue], prepare: Bool, logger: Logger) async throws -> StatementRows {
        let query = PostgresQuery(sql, values)
        let signature = PreparedStatements.signature(values)
        guard prepare, let name = PreparedStatements.name(sql: sql, signature: signature) else {
            return try await self.query(query, logger: logger).map { @Sendable (row) throws -> PostgresRow in row }
        }
        statements.record(query)
        let client = client
        do {
            return try await leasing {
                try await NamedStatement.$current.withValue((name, sql)) {
                    try await client.execute(NamedStatement(bindings: query.binds), logger: logger)
                }
            }
        } catch let e as PSQLError where e.code == .server {
            PreparedStatements.retire(sql: sql, signature: signature, name: name)
            return try await self.query(query, logger: logger).map { @Sendable (row) throws -> PostgresRow in row }
        }
    }
}
