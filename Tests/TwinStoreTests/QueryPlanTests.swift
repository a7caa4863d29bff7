import Foundation
import GeoCore
import QueryLanguage
import Testing
@testable import TwinStore

/// The request path's queries use their indexes on both backends (issue 57 §3: a request's cost
/// must not grow with the city). Each case runs a store operation as a server request makes it,
/// records the SQL the store sent (`StatementLog`), and asks the database for its plan
/// (SpatiaLite `EXPLAIN QUERY PLAN`, PostgreSQL `EXPLAIN (FORMAT JSON)` with the same bound
/// values): no step may read the layer's whole table.
@Suite("Request-path queries use their indexes (EXPLAIN on both backends)", .dropsTestSchemas)
struct QueryPlanTests {
    /// Shelters on a 60 × 60 grid over 0.6° × 0.6°: enough rows that a planner scanning the table
    /// would say so (PostgreSQL chooses a sequential scan for a few hundred rows).
    static let side = 60

    static func seeded(_ backend: StoreBackend, _ layer: LayerDefinition? = nil) async throws -> any FeatureStore {
        let store = try await backend.makeStore(layers: [try layer ?? Fixtures.shelters])
        var features: [Feature] = []
        for i in 0..<(side * side) {
            let lon = 114.0 + Double(i % side) * 0.01, lat = 30.0 + Double(i / side) * 0.01
            features.append(Fixtures.shelter(String(format: "s%05d", i), lon, lat, name: "避难所 \(i)",
                                             kind: ["紧急", "固定", "中心"][i % 3], capacity: Int64(100 * (i % 7))))
        }
        try await store.insert(layer: "shelters", features: features, by: Fixtures.emergency, at: Fixtures.t0)
        // As autovacuum would after a load: the planner's row counts.
        if let pg = store as? PostGISStore { try await pg.analyze(table: "f_shelters") }
        return store
    }

    /// The plans of the SELECTs on `table` that `body` sends through `store`.
    static func plans(_ store: any FeatureStore, reading table: String = "f_shelters",
                      _ body: () async throws -> Void) async throws -> [QueryPlan] {
        switch store {
        case let s as SpatiaLiteStore: return try await s.plans(reading: table, during: body)
        case let s as PostGISStore: return try await s.plans(reading: table, during: body)
        default: throw StoreError(.backend, "not a SQL store: \(type(of: store))")
        }
    }

    /// The steps that read all of `table`: SQLite "SCAN <table or alias>" (with no index, or walking a
    /// whole index: allowed only when `walk` is true, for a first page whose LIMIT ends the walk) and an
    /// R*Tree scanned without a constraint; PostgreSQL "Seq Scan" on it. A step sorting every row it
    /// read (SQLite "USE TEMP B-TREE FOR ORDER BY", PostgreSQL "Sort") is reported too when `sorted` is false.
    static func wholeTableSteps(_ plan: QueryPlan, table: String = "f_shelters", sorted: Bool = true, walk: Bool = false) -> [String] {
        plan.steps.filter { step in
            let sqliteScan = (step == "SCAN f" || step == "SCAN \(table)" || step.hasPrefix("SCAN f ") || step.hasPrefix("SCAN \(table) "))
                && !(walk && step.contains("USING"))
            let rtreeScan = step.hasPrefix("SCAN idx_\(table)_geom VIRTUAL TABLE INDEX") && step.hasSuffix(":")
            let seqScan = step.hasPrefix("Seq Scan") && step.hasSuffix(" on \(table)")
            let sort = !sorted && (step.contains("TEMP B-TREE") || step == "Sort" || step == "Incremental Sort")
            return sqliteScan || rtreeScan || seqScan || sort
        }
    }

    static func expectIndexed(_ plans: [QueryPlan], _ what: String, table: String = "f_shelters", sorted: Bool = true,
                              walk: Bool = false, sourceLocation: SourceLocation = #_sourceLocation) {
        #expect(!plans.isEmpty, "\(what): no SELECT on \(table) was recorded", sourceLocation: sourceLocation)
        for plan in plans {
            let bad = wholeTableSteps(plan, table: table, sorted: sorted, walk: walk)
            #expect(bad.isEmpty, "\(what) reads the whole table (\(bad.joined(separator: "; "))):\n\(plan)", sourceLocation: sourceLocation)
        }
    }

    @Test(arguments: StoreBackend.available)
    func pagesOfABoxAndDeepKeysetPagesUseTheirIndexes(backend: StoreBackend) async throws {
        let store = try await Self.seeded(backend)
        // A bbox page (the items request and a tile's read, TileSource.features): 5 × 5 shelters.
        let box = FeatureQuery(bbox: BoundingBox(Envelope(minX: 114.105, minY: 30.105, maxX: 114.145, maxY: 30.145)), limit: 100)
        var page = FeaturePage(features: [], next: nil)
        var plans = try await Self.plans(store) { page = try await store.query(layer: "shelters", box, by: .admin) }
        #expect(page.features.count == 16)
        Self.expectIndexed(plans, "a bbox page")
        // Its next page, as a tile with more features than one page reads on (keyset after a bbox page).
        var small = box
        small.limit = 5
        let first = try await store.query(layer: "shelters", small, by: .admin)
        small.after = try #require(first.next)
        plans = try await Self.plans(store) { page = try await store.query(layer: "shelters", small, by: .admin) }
        #expect(page.features.count == 5)
        Self.expectIndexed(plans, "a bbox page after a cursor")

        // A keyset page deep in the layer: after 3,000 of its 3,600 features, in id order (no sort of every row).
        var deep = FeatureQuery(limit: 1000)
        for _ in 0..<3 { deep.after = try #require(try await store.query(layer: "shelters", deep, by: .admin).next) }
        plans = try await Self.plans(store) { page = try await store.query(layer: "shelters", deep, by: .admin) }
        #expect(page.features.first?.id == .string("s03000") && page.features.count == 600)
        Self.expectIndexed(plans, "a keyset page at 3,000", sorted: false)
        // The first page in id order (the collection's items with no parameters).
        plans = try await Self.plans(store) { _ = try await store.query(layer: "shelters", FeatureQuery(limit: 10), by: .admin) }
        Self.expectIndexed(plans, "the first page", sorted: false, walk: true)
    }

    @Test(arguments: StoreBackend.available)
    func singleFeaturesAndSpatialFiltersUseTheirIndexes(backend: StoreBackend) async throws {
        let store = try await Self.seeded(backend)
        var feature: Feature?
        var plans = try await Self.plans(store) { feature = try await store.feature(layer: "shelters", id: "s01234", by: .admin) }
        #expect(feature?.id == .string("s01234"))
        Self.expectIndexed(plans, "a single-feature read", sorted: false)

        // CQL2 on the indexed field, the geometry: S_INTERSECTS(geometry, a polygon around 3 × 3 shelters).
        let area = Fixtures.square(114.205, 30.205, 114.235, 30.235)
        let cql = FeatureQuery(filter: .and([.spatial(.intersects, area), .comparison(.notEqual, "kind", .literal("无"))]), limit: 100)
        var count = 0
        plans = try await Self.plans(store) {
            count = try await store.query(layer: "shelters", cql, by: .admin).features.count
            _ = try await store.count(layer: "shelters", cql, by: .admin)
        }
        #expect(count == 9)
        Self.expectIndexed(plans, "a CQL2 S_INTERSECTS filter and its count")

        // The check sees a whole-table read: the count of a filter on a property no index holds.
        let unindexed = FeatureQuery(filter: .comparison(.equal, "kind", .literal("中心")), limit: 100)
        plans = try await Self.plans(store) { count = try await store.count(layer: "shelters", unindexed, by: .admin) }
        #expect(count == Self.side * Self.side / 3)
        #expect(plans.contains { !Self.wholeTableSteps($0).isEmpty }, "no whole-table read seen in \(plans)")
    }

    @Test(arguments: StoreBackend.available)
    func comparisonsAndSortsOnDeclaredAttributesReadTheirIndexes(backend: StoreBackend) async throws {
        // The layer declares attribute indexes on `capacity` and `kind` (LayerDefinition.indexes).
        let indexed = try Fixtures.definition(Fixtures.sheltersJSON.replacingOccurrences(
            of: #""style":"#, with: #""indexes": ["capacity", "kind"], "style":"#))
        #expect(indexed.indexes == ["capacity", "kind"])
        let store = try await Self.seeded(backend, indexed)
        // Three large shelters among 3,600: a selective comparison, as `height_m > 50` is on buildings.
        try await store.insert(layer: "shelters", features: (0..<3).map {
            Fixtures.shelter("big\($0)", 114.5, 30.5, name: "大型避难所 \($0)", kind: "中心", capacity: 10_000 + Int64($0))
        }, by: Fixtures.emergency, at: Fixtures.t0)
        if let pg = store as? PostGISStore { try await pg.analyze(table: "f_shelters") }
        let big = FeatureQuery(filter: .comparison(.greater, "capacity", .literal(.integer(5_000))), limit: 100)
        var ids: [String] = []
        var count = 0
        var plans = try await Self.plans(store) {
            ids = try await store.query(layer: "shelters", big, by: .admin).features.compactMap(\.id?.description)
            count = try await store.count(layer: "shelters", big, by: .admin)
        }
        #expect(ids == ["big0", "big1", "big2"] && count == 3)
        Self.expectIndexed(plans, "a CQL2 comparison on an indexed property and its count")
        Self.expectUses(plans, indexOn: "capacity", of: indexed)

        // Equality on an indexed text property, and the three largest shelters by a sort on the index.
        let centre = FeatureQuery(filter: .and([.comparison(.equal, "kind", .literal(.string("中心"))),
                                                .comparison(.greaterOrEqual, "capacity", .literal(.integer(600)))]), limit: 1000)
        plans = try await Self.plans(store) { count = try await store.count(layer: "shelters", centre, by: .admin) }
        #expect(count == 3 + (0..<(Self.side * Self.side)).filter { $0 % 3 == 2 && $0 % 7 == 6 }.count)
        Self.expectIndexed(plans, "a count of two indexed comparisons")
        let largest = FeatureQuery(sortBy: [SortKey("capacity", ascending: false)], limit: 3)
        plans = try await Self.plans(store) {
            ids = try await store.query(layer: "shelters", largest, by: .admin).features.compactMap(\.id?.description)
        }
        #expect(ids == ["big2", "big1", "big0"])
        Self.expectIndexed(plans, "the first page sorted by an indexed property", walk: true)
        Self.expectUses(plans, indexOn: "capacity", of: indexed)

        // Dropping the declaration drops the index: the same comparison walks the layer again.
        try await store.createLayer(try Fixtures.shelters)
        plans = try await Self.plans(store) { count = try await store.count(layer: "shelters", big, by: .admin) }
        #expect(count == 3)
        #expect(plans.contains { !Self.wholeTableSteps($0).isEmpty }, "no whole-table read seen in \(plans)")
    }

    /// Some step of `plans` names the attribute index on `property`.
    static func expectUses(_ plans: [QueryPlan], indexOn property: String, of layer: LayerDefinition,
                           sourceLocation: SourceLocation = #_sourceLocation) {
        let name = AttributeIndex.declared(by: layer, dialect: SpatiaLiteDialect(), bare: "f_shelters")
            .first { $0.property == property }?.name ?? "?"
        for plan in plans {
            #expect(plan.steps.contains { $0.contains(name) }, "no step uses \(name):\n\(plan)", sourceLocation: sourceLocation)
        }
    }

    @Test(arguments: StoreBackend.available)
    func theChangeChecksOfCachedIndexesUseTheJournalsKey(backend: StoreBackend) async throws {
        // Geocoding one address reads no layer: the address index is built once and kept while
        // `changes(to:since:)` (AddressGeocoders.geocoder) says the addresses did not change.
        let store = try await Self.seeded(backend)
        let latest = try await store.latestChange()
        var touched = true
        let plans = try await Self.plans(store, reading: "audit_log") {
            touched = try await store.changes(to: ["addresses"], since: latest - 1, by: .admin).touched
        }
        #expect(!touched)
        // The journal's key bounds the read to the changes since the index was built (PostgreSQL may
        // sort those few rows after a bitmap scan of the key): never the whole journal.
        Self.expectIndexed(plans, "the change check of a cached index", table: "audit_log")
    }

    @Test(arguments: StoreBackend.available)
    func theLayerListReadsTheCatalogueNotTheLayers(backend: StoreBackend) async throws {
        // `/collections`, a collection and the tile sets list counts and extents: the catalogue's
        // numbers (`LayerStats`), not a scan of each layer.
        let store = try await Self.seeded(backend)
        var infos: [LayerInfo] = []
        let layerReads = try await Self.plans(store) { infos = try await store.layers(for: .admin) }
        #expect(layerReads.isEmpty, "the layer list read the layer: \(layerReads)")
        let shelters = try #require(infos.first { $0.definition.id == "shelters" })
        #expect(shelters.count == Self.side * Self.side)
        #expect(shelters.extent == Envelope(minX: 114.0, minY: 30.0, maxX: 114.0 + Double(Self.side - 1) * 0.01,
                                            maxY: 30.0 + Double(Self.side - 1) * 0.01))
        // Each layer's last change: the journal's key, never the whole journal; also once the
        // planner knows the journal's numbers (with them, a `max(seq)` had walked the log back).
        if let pg = store as? PostGISStore { try await pg.analyze(table: "audit_log") }
        let journal = try await Self.plans(store, reading: "audit_log") { _ = try await store.layers(for: .admin) }
        Self.expectIndexed(journal, "the layer list's last changes", table: "audit_log")
        if backend == .postGIS {
            // One entry of the index of changes, not a walk back from the log's end (which reads
            // the whole log for a layer changed long ago: 1.5 s cold at 100×).
            #expect(journal.allSatisfy { $0.steps.contains { $0.contains("using audit_log_layer_changes") } }, "\(journal)")
        }
    }

    @Test
    func aWriteOnPostGISReadsAndWritesThroughTheIndexes() async throws {
        // A write on PostGIS is one read of the state it is planned against and one write of its
        // rows (issue 57 §4): the current version it replaces found by an index on the feature id, the version it closes by its row id, never the layer's whole table.
        guard StoreBackend.available.contains(.postGIS) else { return }
        let store = try await Self.seeded(.postGIS)
        let moved = Fixtures.shelter("s01234", 114.5, 30.5, name: "避难所 1234 (moved)")
        let plans = try await Self.plans(store) {
            try await store.upsert(layer: "shelters", features: [moved], by: Fixtures.emergency, at: Fixtures.t0.addingTimeInterval(60))
        }
        #expect(plans.count == 2, "the write sent \(plans.count) statements naming the layer: \(plans)")
        // By feature id: the index of current versions or that of versions (fid, valid_from), as the planner likes.
        #expect(plans.contains { $0.sql.hasPrefix("SELECT") && $0.steps.contains { $0.contains("using f_shelters_current") || $0.contains("using f_shelters_versions") } },
                "the state read does not find the current version by its id: \(plans)")
        #expect(plans.contains { $0.sql.hasPrefix("WITH") && $0.steps.contains { $0.contains("using f_shelters_pkey") } },
                "the write does not close the version by its row id: \(plans)")
        Self.expectIndexed(plans, "a write's state read and its rows")
        let stored = try await store.feature(layer: "shelters", id: "s01234", by: .admin)
        #expect(stored?.geometry == moved.geometry)
        let history = try await store.history(layer: "shelters", featureID: "s01234", by: .admin)
        #expect(history.count == 2)
        #expect(try await (store as? PostGISStore)?.verifyAuditChain(by: .admin) == true)
    }
}
