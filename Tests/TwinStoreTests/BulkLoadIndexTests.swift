import Foundation
import GeoCore
import GRDB
import Testing
@testable import TwinStore

/// A bulk insert into an empty layer builds the layer's indexes after the load (B-trees by
/// sorting, SpatiaLite's R*Tree packed, PostGIS's GiST by sorting): the result must answer
/// exactly as indexes kept row by row, a repeated id must still fail naming it, and the indexes
/// must be there (and work) for the writes that follow.
@Suite("Bulk insert into an empty layer: indexes built after the load", .dropsTestSchemas)
struct BulkLoadIndexTests {
    /// `columns` × `rows` shelters 0.001° apart from (114.30, 30.50), ids g0, g1, ….
    static func grid(columns: Int, rows: Int) -> [Feature] {
        (0..<(columns * rows)).map { i in
            Fixtures.shelter("g\(i)", 114.30 + Double(i % columns) * 0.001, 30.50 + Double(i / columns) * 0.001,
                             name: "网格\(i)", capacity: Int64(i))
        }
    }

    /// The ids of `features` whose point lies in `box` (degrees), the answer without any index.
    static func inside(_ features: [Feature], _ box: Envelope) -> Set<String> {
        Set(features.compactMap { f -> String? in
            guard case .point(let p)? = f.geometry, let q = p.position,
                  q.x >= box.minX, q.x <= box.maxX, q.y >= box.minY, q.y <= box.maxY else { return nil }
            return f.id?.description
        })
    }

    static func found(_ store: any FeatureStore, _ box: Envelope) async throws -> Set<String> {
        var q = FeatureQuery(limit: 1000)
        q.bbox = BoundingBox(box)
        return Set(Fixtures.ids(try await Fixtures.allPages(store, "shelters", q, by: .admin)))
    }

    /// Chunks of 5 start with ids in ascending byte order (g0 … g4), so SpatiaLite keeps its
    /// indexes through the load; chunks of 12 do not (… g9, g10, g11), so it rebuilds them after.
    @Test(arguments: StoreBackend.available, [5, 12])
    func aRepeatedIDNamesTheFirstRepeatAndLeavesTheLayerEmptyAndIndexed(backend: StoreBackend, chunk: Int) async throws {
        let store = try await backend.makeStore()
        let bulk = try BulkInsertTests.bulk(store)
        // g3 comes back after the grid, then g5: the error names g3.
        let features = Self.grid(columns: 4, rows: 3) + [Fixtures.shelter("g3", 114.0, 30.0, name: "重复"),
                                                         Fixtures.shelter("g5", 114.0, 30.0, name: "重复")]
        let e = await #expect(throws: StoreError.self) {
            _ = try await bulk.insert(layer: "shelters", chunks: BulkInsertTests.reader(features, size: chunk), by: Fixtures.emergency, at: Fixtures.t0)
        }
        #expect(e?.code == .duplicateFeature)
        #expect(e?.feature == "g3")
        #expect(try await store.count(layer: "shelters", FeatureQuery(), by: .admin) == 0)
        #expect(try await store.changes(since: 0, limit: 10, by: .admin).isEmpty)
        // The rollback restored the unique index: a later insert of an existing id fails.
        let n = try await bulk.insert(layer: "shelters", chunks: BulkInsertTests.reader(Self.grid(columns: 4, rows: 3), size: 5),
                                      by: Fixtures.emergency, at: Fixtures.t0)
        #expect(n == 12)
        let again = await #expect(throws: StoreError.self) {
            try await store.insert(layer: "shelters", features: [Fixtures.shelter("g7", 114.1, 30.1, name: "重复")],
                                   by: Fixtures.emergency, at: Fixtures.t1)
        }
        #expect(again?.code == .duplicateFeature)
    }

    @Test(arguments: StoreBackend.available)
    func aPackedSpatialIndexAnswersBoxQueriesExactlyAndTakesLaterEdits(backend: StoreBackend) async throws {
        let store = try await backend.makeStore()
        // 3,000 points: more than 51 × 51, so SpatiaLite's R*Tree gets three levels.
        let features = Self.grid(columns: 60, rows: 50)
        let n = try await BulkInsertTests.bulk(store).insert(layer: "shelters", chunks: BulkInsertTests.reader(features, size: 700),
                                                             by: Fixtures.emergency, at: Fixtures.t0)
        #expect(n == 3000)
        if let lite = store as? SpatiaLiteStore {
            #expect(try await lite.spatialIndexCheck(layer: "shelters") == "ok")
        }
        let boxes = [
            Envelope(minX: 114.2995, minY: 30.4995, maxX: 114.3005, maxY: 30.5005),  // one corner point
            Envelope(minX: 114.3105, minY: 30.5205, maxX: 114.3255, maxY: 30.5305),  // inside
            Envelope(minX: 114.3585, minY: 30.5485, maxX: 114.40, maxY: 30.60),      // the far corner
            Envelope(minX: 114.20, minY: 30.40, maxX: 114.29, maxY: 30.49),          // outside: nothing
        ]
        for box in boxes {
            #expect(try await Self.found(store, box) == Self.inside(features, box))
        }
        // Later writes go through the tree as usual.
        try await store.insert(layer: "shelters", features: [Fixtures.shelter("late", 114.3150, 30.5250, name: "后加")],
                               by: Fixtures.emergency, at: Fixtures.t1)
        try await store.delete(layer: "shelters", ids: ["g1400"], by: Fixtures.emergency, at: Fixtures.t1)
        let box = boxes[1]
        var expected = Self.inside(features, box)
        expected.insert("late")
        expected.remove("g1400")
        #expect(try await Self.found(store, box) == expected)
        if let lite = store as? SpatiaLiteStore {
            #expect(try await lite.spatialIndexCheck(layer: "shelters") == "ok")
        }
    }

    /// The bulk writer packs the R*Tree from the MBRs of the BLOBs it writes (never reading the
    /// rows back), into an empty tree or repacking a tree a large batch joins: every entry must
    /// be the box SpatiaLite's own trigger gives the stored geometry (MbrMinX… of the row,
    /// rounded outwards to floats), including polygons with holes, and every row must satisfy
    /// the column's type constraint the trigger checks.
    @Test
    func packedEntriesAreTheBoxesSpatiaLiteGivesTheStoredGeometries() async throws {
        let store = try #require(try await StoreBackend.spatiaLite.makeStore() as? SpatiaLiteStore)
        var features = [Feature]()
        for i in 0..<400 {
            let x = 114.30 + Double(i % 20) * 0.003, y = 30.50 + Double(i / 20) * 0.002
            let shell = Fixtures.square(x, y, x + 0.0021 + Double(i % 7) * 1e-7, y + 0.0013)
            guard case .polygon(var p) = shell else { continue }
            if i % 3 == 0 {  // a hole: it must not change the box
                p.interiors.append([Position(x: x + 0.0005, y: y + 0.0005), Position(x: x + 0.0006, y: y + 0.0005),
                                    Position(x: x + 0.0006, y: y + 0.0006), Position(x: x + 0.0005, y: y + 0.0005)])
            }
            features.append(Feature(id: .string("d\(i)"), geometry: .polygon(p), properties: ["name": .string("区\(i)")]))
        }
        // Into the empty tree (packed), then 300 more (large against the tree: repacked
        // whole), then 20 (small, north of the tree: grafted), then 5 over ground the tree covers
        // (inserted one by one).
        for i in 0..<5 {
            let x = 114.301 + Double(i) * 0.004
            features.append(Feature(id: .string("o\(i)"), geometry: Fixtures.square(x, 30.511, x + 0.0017, x < 114.31 ? 30.5122 : 30.5131),
                                    properties: ["name": .string("叠\(i)")]))
        }
        let bulk = try BulkInsertTests.bulk(store)
        #expect(try await bulk.insert(layer: "districts", chunks: BulkInsertTests.reader(Array(features[..<80]), size: 150),
                                      by: Fixtures.emergency, at: Fixtures.t0) == 80)
        #expect(try await bulk.insert(layer: "districts", chunks: BulkInsertTests.reader(Array(features[80..<380]), size: 150),
                                      by: Fixtures.emergency, at: Fixtures.t1) == 300)
        #expect(try await store.spatialIndexCheck(layer: "districts") == "ok")
        #expect(try await bulk.insert(layer: "districts", chunks: BulkInsertTests.reader(Array(features[380..<400]), size: 150),
                                      by: Fixtures.emergency, at: Fixtures.t2) == 20)
        #expect(try await store.spatialIndexCheck(layer: "districts") == "ok")
        #expect(try await bulk.insert(layer: "districts", chunks: BulkInsertTests.reader(Array(features[400...]), size: 150),
                                      by: Fixtures.emergency, at: Fixtures.t3) == 5)
        #expect(try await store.spatialIndexCheck(layer: "districts") == "ok")
        let (rows, unfit) = try await store.pool.read { db in
            let rows = try Row.fetchAll(db, sql: """
                SELECT MbrMinX(t.geom), MbrMaxX(t.geom), MbrMinY(t.geom), MbrMaxY(t.geom), i.xmin, i.xmax, i.ymin, i.ymax
                FROM f_districts AS t LEFT JOIN idx_f_districts_geom AS i ON i.pkid = t.vid
                """)
            let unfit = try Int.fetchOne(db, sql: """
                SELECT count(*) FROM f_districts AS t, geometry_columns AS g
                WHERE Lower(g.f_table_name) = 'f_districts' AND GeometryConstraints(t.geom, g.geometry_type, g.srid) IS NOT 1
                """)
            return (rows, unfit)
        }
        #expect(rows.count == 405)
        #expect(unfit == 0)
        for r in rows {
            let trigger = PackedRTree.Box(id: 0, minX: r[0], maxX: r[1], minY: r[2], maxY: r[3])
            let stored: [Double?] = [r[4], r[5], r[6], r[7]]
            #expect(stored == [Double(trigger.minX), Double(trigger.maxX), Double(trigger.minY), Double(trigger.maxY)])
        }
    }

    /// A city loaded district by district: each batch beside the tree is packed on its own and hung
    /// from the root (`PackedRTree.graft`), the root growing a level when it overflows; the
    /// result is a tree SQLite's `rtree` module checks, answers and edits as its own, and a batch
    /// over ground the tree covers is left to row-by-row inserts (nothing written).
    @Test
    func graftedSubtreesMakeOneTreeThatAnswersAndTakesEdits() throws {
        let db = try DatabaseQueue()
        try db.write { db in
            try db.execute(sql: "CREATE VIRTUAL TABLE idx_t_geom USING rtree(pkid, xmin, xmax, ymin, ymax)")
            // A district's points: `n` × `n` 0.001° apart, its south-west corner `k` × 0.05° east.
            var next: Int64 = 1
            func district(_ k: Int, _ n: Int) -> [PackedRTree.Box] {
                (0..<(n * n)).map { i in
                    let x = 114.0 + Double(k) * 0.05 + Double(i % n) * 0.001, y = 30.0 + Double(i / n) * 0.001
                    defer { next += 1 }
                    return PackedRTree.Box(id: next, minX: x, maxX: x + 0.0004, minY: y, maxY: y + 0.0004)
                }
            }
            var all = district(0, 15)
            try PackedRTree.write(db, index: "idx_t_geom", boxes: all)
            func rootDepth() throws -> Int {
                let root = try #require(try Data.fetchOne(db, sql: "SELECT data FROM idx_t_geom_node WHERE nodeno = 1"))
                return Int(root[0]) << 8 | Int(root[1])
            }
            #expect(try rootDepth() == 1)  // 225 boxes: 5 leaves under the root
            for k in 1...60 {
                let batch = district(k, 6)
                #expect(try PackedRTree.graft(db, index: "idx_t_geom", boxes: batch), "district \(k)")
                all += batch
            }
            // 5 + 60 children overflowed the root's 51: one more level.
            #expect(try rootDepth() == 2)
            #expect(try String.fetchOne(db, sql: "SELECT rtreecheck('idx_t_geom')") == "ok")
            func found(_ x0: Double, _ y0: Double, _ x1: Double, _ y1: Double) throws -> Set<Int64> {
                Set(try Int64.fetchAll(db, sql: "SELECT pkid FROM idx_t_geom WHERE xmax >= ? AND xmin <= ? AND ymax >= ? AND ymin <= ?",
                                       arguments: [x0, x1, y0, y1]))
            }
            func expected(_ x0: Double, _ y0: Double, _ x1: Double, _ y1: Double) -> Set<Int64> {
                Set(all.filter { Double($0.maxX) >= x0 && Double($0.minX) <= x1 && Double($0.maxY) >= y0 && Double($0.minY) <= y1 }.map(\.id))
            }
            for w in [(114.0, 30.0, 114.0125, 30.0085), (114.047, 30.001, 114.104, 30.004), (113.0, 29.0, 117.0, 31.0),
                      (114.5, 30.002, 114.5021, 30.0031), (114.0, 30.1, 114.2, 30.2)] {
                #expect(try found(w.0, w.1, w.2, w.3) == expected(w.0, w.1, w.2, w.3))
            }
            // Over the first district: not grafted, nothing written.
            let nodes = try Int.fetchOne(db, sql: "SELECT count(*) FROM idx_t_geom_node")
            #expect(try !PackedRTree.graft(db, index: "idx_t_geom", boxes: district(0, 4)))
            #expect(try Int.fetchOne(db, sql: "SELECT count(*) FROM idx_t_geom_node") == nodes)
            // The module's own inserts and deletes on the grafted tree.
            try db.execute(sql: "INSERT INTO idx_t_geom VALUES (100000, 114.3001, 114.3002, 30.0021, 30.0022)")
            try db.execute(sql: "DELETE FROM idx_t_geom WHERE pkid IN (1, 300, 2000)")
            #expect(try String.fetchOne(db, sql: "SELECT rtreecheck('idx_t_geom')") == "ok")
            var window = expected(114.25, 30.0, 114.35, 30.01)
            window.insert(100000)
            window.subtract([1, 300, 2000])
            #expect(try found(114.25, 30.0, 114.35, 30.01) == window)
        }
    }

    @Test
    func aGeometryOutsideTheColumnsTypeIsRefusedByTheBulkWriter() {
        let point = [UInt8](SpatiaLiteBlob.make(wkb: Geometry.point(x: 114.3, y: 30.5).wkb(), srid: 4490) ?? [])
        #expect(SpatiaLiteBlob.satisfies(point, declaredType: 1))       // POINT
        #expect(SpatiaLiteBlob.satisfies(point, declaredType: 0))       // GEOMETRY: any class
        #expect(!SpatiaLiteBlob.satisfies(point, declaredType: 3))      // POLYGON
        #expect(!SpatiaLiteBlob.satisfies(point, declaredType: 1001))   // POINT Z
        #expect(!SpatiaLiteBlob.satisfies(point, declaredType: 1000))   // GEOMETRY Z
        #expect(!SpatiaLiteBlob.satisfies([], declaredType: 0))
    }

    @Test
    func boxesRoundOutwardsAsSQLiteRTreeRoundsThem() {
        // 0.1 is not a float: the minimum rounds down, the maximum up, both within one float step.
        let b = PackedRTree.Box(id: 1, minX: 0.1, maxX: 0.1, minY: -0.1, maxY: -0.1)
        #expect(Double(b.minX) <= 0.1 && Double(b.maxX) >= 0.1 && b.minX < b.maxX)
        #expect(Double(b.minY) <= -0.1 && Double(b.maxY) >= -0.1 && b.minY < b.maxY)
        // A float value stays as it is.
        let exact = PackedRTree.Box(id: 2, minX: 114.5, maxX: 114.5, minY: 30.25, maxY: 30.25)
        #expect(exact.minX == 114.5 && exact.maxX == 114.5 && exact.minY == 30.25 && exact.maxY == 30.25)
    }
}
