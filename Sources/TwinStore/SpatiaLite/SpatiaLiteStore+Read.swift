import Foundation
import GeoCore
import GRDB

extension SpatiaLiteStore {
    public func query(layer: String, _ query: FeatureQuery, by caller: Caller) async throws -> FeaturePage {
        try await selectPage(layer: layer, query, by: caller)
    }

    public func feature(layer: String, id: String, by caller: Caller) async throws -> Feature? {
        try await selectFeature(layer: layer, id: id, by: caller)
    }

    public func count(layer: String, _ query: FeatureQuery, by caller: Caller) async throws -> Int {
        try await selectCount(layer: layer, query, by: caller)
    }

    public func stream(layer: String, _ query: FeatureQuery, by caller: Caller) -> AsyncThrowingStream<Feature, any Error> {
        streamFeatures(layer: layer, query, by: caller)
    }

    func countRows(_ select: FeatureSelect) async throws -> Int {
        let (sql, bindings) = try select.countStatement(dialect: dialect)
        return try await mapErrors(layer: select.table.layer.id) {
            try await pool.read { db in
                try Int.fetchOne(db.cachedStatement(sql: sql), arguments: StatementArguments(bindings)) ?? 0
            }
        }
    }

    /// One keyset page: reads `limit + 1` rows to know whether another page follows.
    func page(_ base: FeatureSelect, after cursor: PageCursor?, limit: Int) async throws -> FeaturePage {
        var chosen = base
        chosen.indexedBy = try await attributeIndexChoice(base, limit: limit)
        let select = chosen
        let (sql, bindings) = try select.pageStatement(dialect: dialect, limit: limit + 1, after: cursor)
        let def = select.table.layer
        let keyCount = select.query.sortBy.count
        return try await mapErrors(layer: def.id) {
            try await pool.read { db in
                let statement = try db.cachedStatement(sql: sql)
                let rows = try Row.fetchCursor(statement, arguments: StatementArguments(bindings))
                var assembler = PageAssembler(select, limit: limit)
                let keyOffset = def.hasGeometry ? 3 : 2
                while let row = try rows.next() {
                    let wkb: Data? = def.hasGeometry ? row[2] : nil
                    let more = try assembler.add(fid: row[0], propertiesText: row[1], wkb: wkb) {
                        (0..<keyCount).map { Self.jsonValue(row[keyOffset + $0] as DatabaseValue) }
                    }
                    if !more { break }
                }
                return assembler.page
            }
        }
    }

    /// The attribute index a page in id order should read, or `nil` to walk the ids.
    ///
    /// SQLite keeps no statistics (Debian's build has no STAT4), so its planner walks the ids
    /// for `ORDER BY fid LIMIT n` whatever the filter: a comparison 3 features of 3,600 meet
    /// reads all 3,600. Walking ids costs about `(limit + 1) · N / m` rows for `m` matches among
    /// `N` features; reading the matches through the index costs `m` and their sort. So each
    /// comparison on an indexed property is counted through its index up to the break-even
    /// `√((limit + 1) · N)`, and the fewest matches below it win. The probe reads at most that
    /// many index entries: a page's cost stays about √N at worst, not N.
    func attributeIndexChoice(_ select: FeatureSelect, limit: Int) async throws -> String? {
        let candidates = select.indexedComparisons(dialect: dialect)
        guard !candidates.isEmpty else { return nil }
        let layer = select.table.layer.id
        return try await mapErrors(layer: layer) {
            try await pool.read { db in
                let features = try Int.fetchOne(db.cachedStatement(sql: LayerStatsSQL.select(SpatiaLiteDialect())), arguments: [layer]) ?? 0
                let bound = min(1_000_000, max(limit + 1, Int((Double(limit + 1) * Double(features)).squareRoot())))
                var best: (name: String, matches: Int)?
                for c in candidates {
                    let (sql, bindings) = try select.probeStatement(c.term, index: c.index, bound: bound, dialect: self.dialect)
                    let matches = try Int.fetchOne(db.cachedStatement(sql: sql), arguments: StatementArguments(bindings)) ?? bound
                    if matches < bound, matches < (best?.matches ?? Int.max) { best = (c.index.name, matches) }
                }
                return best?.name
            }
        }
    }

    static func jsonValue(_ v: DatabaseValue) -> JSONValue {
        switch v.storage {
        case .null: .null
        case .int64(let i): .integer(i)
        case .double(let d): .number(d)
        case .string(let s): .string(s)
        case .blob(let b): .string(b.base64EncodedString())
        }
    }
}
