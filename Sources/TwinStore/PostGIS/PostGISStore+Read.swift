import Foundation
import GeoCore
import PostgresNIO

extension FeatureSelect {
    /// Whether the statements of this selection come in few shapes (no CQL2 filter, whose SQL
    /// follows the expression): those are prepared per connection (`PreparedStatements`).
    var isFixedShape: Bool { query.filter == nil }
}

extension PostGISStore {
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
            var n: Int64 = 0
            for try await row in try await client.rows(sql, bindings, prepare: select.isFixedShape, logger: logger) {
                n = try row.decode(Int64.self)
            }
            return Int(n)
        }
    }

    /// One keyset page: reads `limit + 1` rows to know whether another page follows. Pages
    /// without a CQL2 filter (a bbox, a feature, the plain pages) run prepared statements.
    func page(_ select: FeatureSelect, after cursor: PageCursor?, limit: Int) async throws -> FeaturePage {
        let (sql, bindings) = try select.pageStatement(dialect: dialect, limit: limit + 1, after: cursor)
        let def = select.table.layer
        let keyCount = select.query.sortBy.count
        let keyOffset = def.hasGeometry ? 3 : 2
        return try await mapErrors(layer: def.id) {
            var assembler = PageAssembler(select, limit: limit)
            let rows = try await client.rows(sql, bindings, prepare: select.isFixedShape, logger: logger)
            for try await row in rows {
                let r = row.makeRandomAccess()
                let fid = try r[0].decode(String.self)
                let props = try r[1].decode(String.self)
                let wkb: ByteBufferView? = def.hasGeometry ? r[2].bytes?.readableBytesView : nil
                let more = try assembler.add(fid: fid, propertiesText: props, wkb: wkb) {
                    (0..<keyCount).map { Self.jsonValue(r[keyOffset + $0]) }
                }
                if !more { break }
            }
            return assembler.page
        }
    }

    /// A sort-key cell as a cursor value (the dialect reads keys as float8, text, boolean or jsonb).
    static func jsonValue(_ cell: PostgresCell) -> JSONValue {
        guard cell.bytes != nil else { return .null }
        switch cell.dataType {
        case .float8: return (try? cell.decode(Double.self)).map { .number($0) } ?? .null
        case .int8, .int4, .int2: return (try? cell.decode(Int64.self)).map { .integer($0) } ?? .null
        case .bool: return (try? cell.decode(Bool.self)).map { .bool($0) } ?? .null
        case .jsonb, .json:
            guard var bytes = cell.bytes else { return .null }
            if cell.dataType == .jsonb, cell.format == .binary { bytes.moveReaderIndex(forwardBy: 1) }  // jsonb version byte
            return (try? JSONDecoder().decode(JSONValue.self, from: Data(bytes.readableBytesView))) ?? .null
        default: return (try? cell.decode(String.self)).map { .string($0) } ?? .null
        }
    }
}
