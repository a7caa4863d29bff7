import Foundation
import GeoCore

/// What an SQL backend of `FeatureStore` provides; everything else of the read path (access
/// checks, masking, property selection, keyset cursors, chunked streams, history and diff
/// rules) is shared code in the extension below, so SpatiaLite and PostGIS cannot drift apart.
/// The backends' public methods forward to these.
protocol FeatureBackend: FeatureStore {
    /// Every layer definition of the store.
    var definitions: DefinitionCache { get }
    /// Secret key of the `hash` masking rule.
    var maskingKey: [UInt8] { get }
    var sqlDialect: any SQLDialect { get }
    /// The table of a layer as SQL names it.
    func table(_ def: LayerDefinition) -> FeatureTable
    /// Runs `select.pageStatement` for `limit + 1` rows and assembles them with `PageAssembler`.
    func page(_ select: FeatureSelect, after cursor: PageCursor?, limit: Int) async throws -> FeaturePage
    /// Runs `select.countStatement`.
    func countRows(_ select: FeatureSelect) async throws -> Int
    /// The catalogue's (id, updated_at) pairs.
    func catalogueStamps() async throws -> [(id: String, stamp: Int64)]
    /// The catalogue's rows: id, updated_at, definition JSON.
    func catalogueRows() async throws -> [(id: String, stamp: Int64, text: String)]
}

extension FeatureBackend {
    /// The definition of `layer` if `caller` may read it; otherwise `layerNotFound`.
    func readableLayer(_ layer: String, _ caller: Caller) throws -> LayerDefinition {
        guard let def = definitions[layer] else {
            throw StoreError(.layerNotFound, "no layer \"\(layer)\"", layer: layer)
        }
        try AccessPolicy.requireRead(def, caller)
        return def
    }

    /// `readableLayer`, looking in the catalogue first when this process has not seen `layer`
    /// (another process — a worker, another server — created it since this one last looked).
    func currentReadableLayer(_ layer: String, _ caller: Caller) async throws -> LayerDefinition {
        if definitions[layer] == nil { try await refreshDefinitions() }
        return try readableLayer(layer, caller)
    }

    func mask(_ def: LayerDefinition, _ caller: Caller) -> AttributeMask {
        AttributeMask(layer: def, caller: caller, key: maskingKey)
    }

    func readableDefinition(_ id: String, _ caller: Caller) -> LayerDefinition? {
        guard let def = definitions[id], AccessPolicy.canRead(def, caller) else { return nil }
        return def
    }

    func selectPage(layer: String, _ query: FeatureQuery, by caller: Caller) async throws -> FeaturePage {
        let def = try await currentReadableLayer(layer, caller)
        guard (1...FeatureQuery.maximumLimit).contains(query.limit) else {
            throw StoreError(.invalidQuery, "limit must be between 1 and \(FeatureQuery.maximumLimit)", layer: layer, field: "limit")
        }
        let select = try FeatureSelect(table: table(def), query: query, mask: mask(def, caller))
        return try await page(select, after: query.after, limit: query.limit)
    }

    func selectFeature(layer: String, id: String, by caller: Caller) async throws -> Feature? {
        let def = try await currentReadableLayer(layer, caller)
        var select = try FeatureSelect(table: table(def), query: FeatureQuery(limit: 1), mask: mask(def, caller))
        select.featureID = id
        return try await page(select, after: nil, limit: 1).features.first
    }

    func selectCount(layer: String, _ query: FeatureQuery, by caller: Caller) async throws -> Int {
        let def = try await currentReadableLayer(layer, caller)
        var q = query
        q.after = nil
        q.sortBy = []
        return try await countRows(try FeatureSelect(table: table(def), query: q, mask: mask(def, caller)))
    }

    /// Pulls one keyset chunk (`query.limit`, at most `FeatureQuery.maximumLimit`) at a time:
    /// memory stays bounded however large the layer.
    func streamFeatures(layer: String, _ query: FeatureQuery, by caller: Caller) -> AsyncThrowingStream<Feature, any Error> {
        let reader = ChunkedReader(limit: min(max(query.limit, 1), FeatureQuery.maximumLimit), after: query.after) { cursor, limit in
            let def = try await self.currentReadableLayer(layer, caller)
            let select = try FeatureSelect(table: self.table(def), query: query, mask: self.mask(def, caller))
            return try await self.page(select, after: cursor, limit: limit)
        }
        return AsyncThrowingStream(unfolding: { try await reader.next() })
    }

    /// One version of a feature as `history` hands it out.
    func historyVersion(_ def: LayerDefinition, featureID: String, propertiesText: String, wkb: [UInt8]?,
                        validFrom: Int64, validTo: Int64?, author: String, department: String?, hash: String,
                        mask: AttributeMask, audits: Bool) throws -> FeatureVersion {
        let props = mask.apply(try CanonicalJSON.parseObject(propertiesText, layer: def.id, feature: featureID))
        let geometry = try wkb.map { try Geometry(wkb: $0) }
        return FeatureVersion(
            feature: Feature(id: .string(featureID), geometry: geometry, properties: props),
            validFrom: RFC3339.date(microseconds: validFrom), validTo: validTo.map(RFC3339.date(microseconds:)),
            author: audits ? author : nil, department: department,
            contentHash: audits || mask.isIdentity ? hash : "")
    }
}

/// The SQL of the version reads, for any dialect. Columns of `history`: props text, geometry
/// (EWKB/WKB or NULL), valid_from, valid_to, author, department, hash. Rows of `diff`: kind
/// ('added', 'removed', 'changed'), fid, vid at `from`, vid at `to`, in fid order.
enum VersionSQL {
    static func history(_ table: FeatureTable, _ d: any SQLDialect) -> String {
        let geom = table.layer.hasGeometry ? d.wkb("geom") : "NULL"
        return """
            SELECT \(d.propertiesText("props")), \(geom), valid_from, valid_to, author, department, hash
            FROM \(table.name) WHERE fid = \(d.placeholder(1)) ORDER BY valid_from, vid
            """
    }

    static func diff(_ table: FeatureTable, _ d: any SQLDialect) -> String {
        let t1 = d.placeholder(1), t2 = d.placeholder(2), n = table.name
        return """
            WITH a AS (SELECT fid, hash, vid FROM \(n) WHERE valid_from <= \(t1) AND (valid_to IS NULL OR valid_to > \(t1))),
                 b AS (SELECT fid, hash, vid FROM \(n) WHERE valid_from <= \(t2) AND (valid_to IS NULL OR valid_to > \(t2)))
            SELECT 'added', b.fid, CAST(NULL AS BIGINT), CAST(NULL AS BIGINT) FROM b LEFT JOIN a ON a.fid = b.fid WHERE a.fid IS NULL
            UNION ALL
            SELECT 'removed', a.fid, CAST(NULL AS BIGINT), CAST(NULL AS BIGINT) FROM a LEFT JOIN b ON a.fid = b.fid WHERE b.fid IS NULL
            UNION ALL
            SELECT 'changed', a.fid, a.vid, b.vid FROM a JOIN b ON a.fid = b.fid WHERE a.hash <> b.hash
            ORDER BY 2
            """
    }

    /// Props text and geometry of one version row by `vid`.
    static func version(_ table: FeatureTable, _ d: any SQLDialect) -> String {
        let geom = table.layer.hasGeometry ? d.wkb("geom") : "NULL"
        return "SELECT \(d.propertiesText("props")), \(geom) FROM \(table.name) WHERE vid = \(d.placeholder(1))"
    }

    /// Collects a diff from its rows. A changed row counts only when the content the caller may
    /// see differs: `visible(vid)` reads a version's props text and geometry bytes.
    static func collect(_ rows: [(kind: String, fid: String, from: Int64?, to: Int64?)], layer: String, mask: AttributeMask,
                        visible: (Int64) async throws -> (String, [UInt8]?)) async throws -> LayerDiff {
        var diff = LayerDiff(added: [], removed: [], changed: [])
        for row in rows {
            switch row.kind {
            case "added": diff.added.append(row.fid)
            case "removed": diff.removed.append(row.fid)
            default:
                guard !mask.isIdentity else { diff.changed.append(row.fid); continue }
                guard let v1 = row.from, let v2 = row.to else { continue }
                let a = try await visible(v1), b = try await visible(v2)
                let pa = mask.apply(try CanonicalJSON.parseObject(a.0, layer: layer, feature: row.fid))
                let pb = mask.apply(try CanonicalJSON.parseObject(b.0, layer: layer, feature: row.fid))
                if pa != pb || a.1 != b.1 { diff.changed.append(row.fid) }
            }
        }
        return diff
    }
}

/// Turns the rows of a page statement into a `FeaturePage`: masking, property selection and
/// the next cursor. Feed rows in order; `add` returns `false` for the look-ahead row.
struct PageAssembler {
    let select: FeatureSelect
    let limit: Int
    private(set) var features: [Feature] = []
    private(set) var next: PageCursor?
    private var lastKeys: [JSONValue] = []
    private let selection: Set<String>?

    init(_ select: FeatureSelect, limit: Int) {
        self.select = select
        self.limit = limit
        self.selection = select.query.properties.map(Set.init)
        features.reserveCapacity(min(limit, 1024))
    }

    /// Adds one row; `keys` reads its sort-key columns (only called when needed).
    mutating func add<W: Collection<UInt8>>(fid: String, propertiesText: String, wkb: W?, keys: () -> [JSONValue]) throws -> Bool {
        if features.count == limit {
            if let last = features.last, let id = last.id?.description {
                next = PageCursor(sortBy: select.query.sortBy, values: lastKeys, featureID: id)
            }
            return false
        }
        let layer = select.table.layer
        var props = select.mask.apply(try CanonicalJSON.parseObject(propertiesText, layer: layer.id, feature: fid))
        if let selection { props = props.filter { selection.contains($0.key) } }
        var geometry: Geometry?
        if layer.hasGeometry, let wkb { geometry = try Geometry(wkb: wkb) }
        lastKeys = select.query.sortBy.isEmpty ? [] : keys()
        features.append(Feature(id: .string(fid), geometry: geometry, properties: props))
        return true
    }

    var page: FeaturePage { FeaturePage(features: features, next: next) }
}

/// Pulls a query's features one keyset chunk at a time through `fetch`.
actor ChunkedReader {
    private let fetch: @Sendable (PageCursor?, Int) async throws -> FeaturePage
    private let limit: Int
    private var buffer: [Feature] = []
    private var index = 0
    private var cursor: PageCursor?
    private var finished = false

    init(limit: Int, after: PageCursor?, fetch: @escaping @Sendable (PageCursor?, Int) async throws -> FeaturePage) {
        self.fetch = fetch
        self.limit = limit
        self.cursor = after
    }

    func next() async throws -> Feature? {
        if index < buffer.count {
            defer { index += 1 }
            return buffer[index]
        }
        guard !finished else { return nil }
        let page = try await fetch(cursor, limit)
        buffer = page.features
        index = 0
        cursor = page.next
        if page.next == nil { finished = true }
        guard !buffer.isEmpty else { return nil }
        index = 1
        return buffer[0]
    }
}

/// The loaded layer definitions, shared by every call, with the catalogue's `updated_at` of
/// each: a layer another process created or changed (`citytwin import`, a worker writing result
/// layers, a second server) is found by comparing stamps (`isCurrent`) and only the definitions
/// whose stamp moved are decoded again (`merge`), so unchanged definitions keep their storage.
final class DefinitionCache: @unchecked Sendable {
    private let lock = NSLock()
    private var byID: [String: LayerDefinition] = [:]
    private var stamps: [String: Int64] = [:]

    /// From catalogue rows (id, updated_at, definition JSON).
    init(rows: [(id: String, stamp: Int64, text: String)]) throws {
        try merge(rows)
    }

    subscript(id: String) -> LayerDefinition? {
        lock.lock(); defer { lock.unlock() }
        return byID[id]
    }

    var all: [LayerDefinition] {
        lock.lock(); defer { lock.unlock() }
        return byID.values.sorted { $0.id < $1.id }
    }

    /// A definition this process wrote to the catalogue with `updated_at` = `stamp`.
    func set(_ def: LayerDefinition, stamp: Int64) {
        lock.lock(); defer { lock.unlock() }
        byID[def.id] = def
        stamps[def.id] = stamp
    }

    /// A definition this process removed from the catalogue (`dropLayer`).
    func remove(_ id: String) {
        lock.lock(); defer { lock.unlock() }
        byID[id] = nil
        stamps[id] = nil
    }

    /// Whether the catalogue's (id, updated_at) pairs are exactly the cached ones.
    func isCurrent(_ catalogue: [(id: String, stamp: Int64)]) -> Bool {
        lock.lock(); defer { lock.unlock() }
        return catalogue.count == stamps.count && catalogue.allSatisfy { stamps[$0.id] == $0.stamp }
    }

    /// Brings the cache to the catalogue's rows: new and changed definitions decoded, removed ones dropped.
    func merge(_ rows: [(id: String, stamp: Int64, text: String)]) throws {
        let known = lock.withLock { stamps }
        var decoded = [String: LayerDefinition]()
        for row in rows where known[row.id] != row.stamp {
            decoded[row.id] = try JSONDecoder().decode(LayerDefinition.self, from: Data(row.text.utf8))
        }
        let present = Set(rows.map(\.id))
        lock.withLock {
            for row in rows {
                if let def = decoded[row.id] { byID[row.id] = def }
                stamps[row.id] = row.stamp
            }
            for id in stamps.keys where !present.contains(id) {
                stamps[id] = nil
                byID[id] = nil
            }
        }
    }
}

extension FeatureBackend {
    /// Brings the definitions up to the catalogue when another process created or changed a
    /// layer: one read of the catalogue's (id, updated_at) pairs, and the definitions only when
    /// a stamp moved. Called where a layer may be new to this process: a definition lookup that
    /// misses, the layer list, and change events naming a layer the cache lacks.
    func refreshDefinitions() async throws {
        let stamps = try await catalogueStamps()
        guard !definitions.isCurrent(stamps) else { return }
        try definitions.merge(try await catalogueRows())
    }

    /// `readableDefinition`, looking in the catalogue first when this process has not seen `id`.
    func currentDefinition(_ id: String, _ caller: Caller) async throws -> LayerDefinition? {
        if definitions[id] == nil { try await refreshDefinitions() }
        return readableDefinition(id, caller)
    }
}
