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
    func page(_ select: FeatureSelect, after cursor: PageCursor?, limit: Int) async throws -> FeaturePage {
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
