import Foundation
import GeoCore
import GRDB

extension SpatiaLiteStore {
    public func query(layer: String, _ query: FeatureQuery, by caller: Caller) async throws -> FeaturePage {
        let def = try readableLayer(layer, caller)
        guard (1...FeatureQuery.maximumLimit).contains(query.limit) else {
            throw StoreError(.invalidQuery, "limit must be between 1 and \(FeatureQuery.maximumLimit)", layer: layer, field: "limit")
        }
        let select = try FeatureSelect(table: FeatureTable(layer: def), query: query, mask: mask(def, caller))
        return try await page(select, after: query.after, limit: query.limit)
    }

    public func count(layer: String, _ query: FeatureQuery, by caller: Caller) async throws -> Int {
        let def = try readableLayer(layer, caller)
        var q = query
        q.after = nil
        q.sortBy = []
        let select = try FeatureSelect(table: FeatureTable(layer: def), query: q, mask: mask(def, caller))
        let (sql, bindings) = try select.countStatement(dialect: dialect)
        return try await mapErrors(layer: layer) {
            try await pool.read { db in
                try Int.fetchOne(db.cachedStatement(sql: sql), arguments: StatementArguments(bindings)) ?? 0
            }
        }
    }

    public func stream(layer: String, _ query: FeatureQuery, by caller: Caller) -> AsyncThrowingStream<Feature, any Error> {
        let reader = ChunkedReader(store: self, layer: layer, query: query, caller: caller)
        return AsyncThrowingStream(unfolding: { try await reader.next() })
    }

    /// One keyset page: reads `limit + 1` rows to know whether another page follows.
    func page(_ select: FeatureSelect, after cursor: PageCursor?, limit: Int) async throws -> FeaturePage {
        let (sql, bindings) = try select.pageStatement(dialect: dialect, limit: limit + 1, after: cursor)
        let def = select.table.layer
        let sortBy = select.query.sortBy
        let selection = select.query.properties.map(Set.init)
        let mask = select.mask
        return try await mapErrors(layer: def.id) {
            try await pool.read { db in
                let statement = try db.cachedStatement(sql: sql)
                let rows = try Row.fetchCursor(statement, arguments: StatementArguments(bindings))
                var features = [Feature]()
                features.reserveCapacity(min(limit, 1024))
                var next: PageCursor?
                let keyOffset = def.hasGeometry ? 3 : 2
                var lastKeys = [JSONValue]()
                while let row = try rows.next() {
                    if features.count == limit {
                        if let last = features.last, let id = last.id?.description {
                            next = PageCursor(sortBy: sortBy, values: lastKeys, featureID: id)
                        }
                        break
                    }
                    let fid: String = row[0]
                    var props = try CanonicalJSON.parseObject(row[1], layer: def.id, feature: fid)
                    props = mask.apply(props)
                    if let selection { props = props.filter { selection.contains($0.key) } }
                    var geometry: Geometry?
                    if def.hasGeometry, let wkb: Data = row[2] {
                        geometry = try Geometry(wkb: wkb)
                    }
                    lastKeys = (0..<sortBy.count).map { Self.jsonValue(row[keyOffset + $0] as DatabaseValue) }
                    features.append(Feature(id: .string(fid), geometry: geometry, properties: props))
                }
                return FeaturePage(features: features, next: next)
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

/// Pulls a query's features one keyset chunk at a time: memory stays bounded by the chunk
/// (`query.limit`, at most `FeatureQuery.maximumLimit`) however large the layer.
actor ChunkedReader {
    private let store: SpatiaLiteStore
    private let layer: String
    private let query: FeatureQuery
    private let caller: Caller
    private var buffer: [Feature] = []
    private var index = 0
    private var cursor: PageCursor?
    private var finished = false
    private var select: FeatureSelect?

    init(store: SpatiaLiteStore, layer: String, query: FeatureQuery, caller: Caller) {
        self.store = store
        self.layer = layer
        self.query = query
        self.caller = caller
        self.cursor = query.after
    }

    func next() async throws -> Feature? {
        if index < buffer.count {
            defer { index += 1 }
            return buffer[index]
        }
        guard !finished else { return nil }
        if select == nil {
            let def = try store.readableLayer(layer, caller)
            select = try FeatureSelect(table: FeatureTable(layer: def), query: query, mask: store.mask(def, caller))
        }
        guard let select else { return nil }
        let limit = min(max(query.limit, 1), FeatureQuery.maximumLimit)
        let page = try await store.page(select, after: cursor, limit: limit)
        buffer = page.features
        index = 0
        cursor = page.next
        if page.next == nil { finished = true }
        guard !buffer.isEmpty else { return nil }
        index = 1
        return buffer[0]
    }
}
