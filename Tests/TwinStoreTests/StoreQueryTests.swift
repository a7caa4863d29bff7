import Foundation
import GeoCore
import Testing
import TwinStore

@Suite("Queries: bbox, filters, sort, keyset paging, count", .dropsTestSchemas)
struct StoreQueryTests {
    /// Ten shelters on a line of longitudes 114.30…114.39, kinds cycling, some capacities missing.
    static func seeded(_ backend: StoreBackend) async throws -> any FeatureStore {
        let store = try await backend.makeStore()
        let kinds = ["紧急", "固定", "中心"]
        let names = ["Wuhan Park A", "wuhan park b", "东湖", "沙湖", "月湖", "墨水湖", "南湖", "汤逊湖", "后官湖", "严西湖"]
        var features = [Feature]()
        for i in 0..<10 {
            let capacity: Int64? = i % 4 == 3 ? nil : Int64(100 * (i % 5))
            let lon: Double = 114.30 + Double(i) * 0.01
            let extra: [String: JSONValue] = ["area_m2": .number(Double(50 * i)),
                                              "checked_at": .string("2024-0\(1 + i % 9)-15T00:00:00Z")]
            features.append(Fixtures.shelter("s\(i)", lon, 30.50, name: names[i], kind: kinds[i % 3],
                                             capacity: capacity, extra: extra))
        }
        try await store.insert(layer: "shelters", features: features, by: Fixtures.emergency, at: Fixtures.t0)
        try await store.insert(layer: "districts", features: [
            Feature(id: .string("sq1"), geometry: Fixtures.square(114.0, 30.0, 114.1, 30.1), properties: ["name": "一"]),
            Feature(id: .string("sq2"), geometry: Fixtures.square(114.1, 30.0, 114.2, 30.1), properties: ["name": "二"]),
            Feature(id: .string("sq3"), geometry: Fixtures.square(114.05, 30.05, 114.15, 30.15), properties: ["name": "三"]),
            Feature(id: .string("sq4"), geometry: Fixtures.square(114.5, 30.5, 114.6, 30.6), properties: ["name": "四"]),
        ], by: Fixtures.emergency, at: Fixtures.t0)
        return store
    }

    private func ids(_ store: any FeatureStore, _ filter: FilterExpression, layer: String = "shelters") async throws -> Set<String> {
        Set(Fixtures.ids(try await store.query(layer: layer, FeatureQuery(filter: filter, limit: 1000), by: .admin).features))
    }

    @Test(arguments: StoreBackend.available)
    func bboxSelectsFeaturesInsideInEitherLonLatCRS(backend: StoreBackend) async throws {
        let store = try await Self.seeded(backend)
        let box = Envelope(minX: 114.325, minY: 30.4, maxX: 114.355, maxY: 30.6)
        for crs in ["EPSG:4490", "OGC:CRS84"] {
            let q = FeatureQuery(bbox: BoundingBox(box, crs: crs))
            #expect(Fixtures.ids(try await store.query(layer: "shelters", q, by: .admin).features) == ["s3", "s4", "s5"])
        }
        // A degenerate box on one shelter still finds it.
        let point = FeatureQuery(bbox: BoundingBox(Envelope(minX: 114.30, minY: 30.50, maxX: 114.30, maxY: 30.50)))
        #expect(Fixtures.ids(try await store.query(layer: "shelters", point, by: .admin).features) == ["s0"])
        let unknown = FeatureQuery(bbox: BoundingBox(box, crs: "EPSG:999999"))
        await #expect(throws: StoreError.self) { _ = try await store.query(layer: "shelters", unknown, by: .admin) }
    }

    @Test(arguments: StoreBackend.available)
    func comparisonAndArithmeticFilters(backend: StoreBackend) async throws {
        let store = try await Self.seeded(backend)
        #expect(try await ids(store, .comparison(.equal, "kind", .literal("中心"))) == ["s2", "s5", "s8"])
        #expect(try await ids(store, .comparison(.notEqual, "kind", .literal("紧急"))) == ["s1", "s2", "s4", "s5", "s7", "s8"])
        #expect(try await ids(store, .comparison(.greaterOrEqual, "capacity", .literal(300))) == ["s4", "s8", "s9"])
        #expect(try await ids(store, .comparison(.less, "area_m2", .literal(100.0))) == ["s0", "s1"])
        // Property against property, with arithmetic: area_m2 > capacity / 2.
        #expect(try await ids(store, .comparison(.greater, "area_m2", .arithmetic(.divide, "capacity", .literal(2))))
                == ["s5", "s6", "s8", "s9"])
        #expect(try await ids(store, .comparison(.equal, .arithmetic(.add, "capacity", .literal(100)), .literal(200))) == ["s1", "s6"])
        #expect(try await ids(store, .between("capacity", low: .literal(100), high: .literal(200))) == ["s1", "s2", "s6"])
        #expect(try await ids(store, .in("name", [.literal("东湖"), .literal("南湖"), .literal("不存在")])) == ["s2", "s6"])
        #expect(try await ids(store, .isNull("capacity")) == ["s3", "s7"])
        #expect(try await ids(store, .not(.isNull("capacity"))).count == 8)
        #expect(try await ids(store, .and([.comparison(.equal, "kind", .literal("紧急")), .comparison(.greater, "capacity", .literal(0))])) == ["s6", "s9"])
        #expect(try await ids(store, .or([.comparison(.equal, "name", .literal("东湖")), .comparison(.equal, "name", .literal("南湖"))])) == ["s2", "s6"])
    }

    @Test(arguments: StoreBackend.available)
    func likeIsCaseSensitiveUnlessAskedOtherwise(backend: StoreBackend) async throws {
        let store = try await Self.seeded(backend)
        #expect(try await ids(store, .like("name", pattern: "Wuhan%", caseInsensitive: false)) == ["s0"])
        #expect(try await ids(store, .like("name", pattern: "wuhan park _", caseInsensitive: true)) == ["s0", "s1"])
        #expect(try await ids(store, .like("name", pattern: "%湖", caseInsensitive: false)).count == 8)
    }

    @Test(arguments: StoreBackend.available)
    func spatialPredicatesFollowDE9IM(backend: StoreBackend) async throws {
        let store = try await Self.seeded(backend)
        let sq1 = Fixtures.square(114.0, 30.0, 114.1, 30.1)
        func run(_ p: SpatialPredicate, _ g: Geometry) async throws -> Set<String> {
            try await ids(store, .spatial(p, g), layer: "districts")
        }
        #expect(try await run(.intersects, sq1) == ["sq1", "sq2", "sq3"])
        #expect(try await run(.touches, sq1) == ["sq2"])
        #expect(try await run(.overlaps, sq1) == ["sq3"])
        #expect(try await run(.equals, sq1) == ["sq1"])
        #expect(try await run(.disjoint, sq1) == ["sq4"])
        #expect(try await run(.within, Fixtures.square(113.9, 29.9, 114.3, 30.3)) == ["sq1", "sq2", "sq3"])
        #expect(try await run(.contains, .point(x: 114.12, y: 30.02)) == ["sq2"])
        #expect(try await run(.crosses, .lineString([Position(114.07, 29.95), Position(114.07, 30.2)])) == ["sq1", "sq3"])
    }

    @Test(arguments: StoreBackend.available)
    func temporalFiltersOnADateTimeProperty(backend: StoreBackend) async throws {
        let store = try await Self.seeded(backend)
        let march = Fixtures.date("2024-03-15T00:00:00Z")
        #expect(try await ids(store, .temporal(.before, property: "checked_at", .instant(march))) == ["s0", "s1", "s9"])
        #expect(try await ids(store, .temporal(.equals, property: "checked_at", .instant(march))) == ["s2"])
        #expect(try await ids(store, .temporal(.after, property: "checked_at", .instant(Fixtures.date("2024-08-01T00:00:00Z")))) == ["s7", "s8"])
        #expect(try await ids(store, .temporal(.during, property: "checked_at",
                                               .interval(start: march, end: Fixtures.date("2024-04-30T00:00:00Z")))) == ["s2", "s3"])
    }

    @Test(arguments: StoreBackend.available)
    func propertySelectionReturnsOnlyTheNamedProperties(backend: StoreBackend) async throws {
        let store = try await Self.seeded(backend)
        let f = try await store.query(layer: "shelters", FeatureQuery(properties: ["name", "kind"], limit: 1), by: .admin).features
        #expect(f.first?.properties.keys.sorted() == ["kind", "name"])
    }

    @Test(arguments: StoreBackend.available)
    func keysetPagingVisitsEveryFeatureOnceInAStableOrder(backend: StoreBackend) async throws {
        let store = try await Self.seeded(backend)
        // Duplicate sort values (three kinds, repeated capacities, two nulls) force the id tie-break.
        let sort = [SortKey("kind"), SortKey("capacity", ascending: false)]
        let whole = try await store.query(layer: "shelters", FeatureQuery(sortBy: sort, limit: 1000), by: .admin).features
        for size in [1, 3, 4, 7] {
            let paged = try await Fixtures.allPages(store, "shelters", FeatureQuery(sortBy: sort, limit: size), by: .admin)
            #expect(Fixtures.ids(paged) == Fixtures.ids(whole), "page size \(size)")
        }
        // The order is the documented one: kind ascending, capacity descending with nulls last, then id.
        func key(_ f: Feature) -> (String, Int64, String) {
            (f.properties["kind"]?.stringValue ?? "", -(f.properties["capacity"]?.integerValue ?? -1), f.id?.description ?? "")
        }
        let expected = whole.sorted { key($0) < key($1) }
        #expect(Fixtures.ids(whole) == Fixtures.ids(expected))
        #expect(Set(Fixtures.ids(whole)).count == 10)
    }

    @Test(arguments: StoreBackend.available)
    func aCursorFromAnotherOrderOrGarbageIsRejected(backend: StoreBackend) async throws {
        let store = try await Self.seeded(backend)
        let page = try await store.query(layer: "shelters", FeatureQuery(sortBy: [SortKey("name")], limit: 2), by: .admin)
        let token = try #require(page.next?.token)
        #expect(token.allSatisfy { $0.isLetter || $0.isNumber || $0 == "-" || $0 == "_" })
        let again = try PageCursor(token: token)
        let e = await #expect(throws: StoreError.self) {
            _ = try await store.query(layer: "shelters", FeatureQuery(sortBy: [SortKey("kind")], after: again), by: .admin)
        }
        #expect(e?.code == .invalidCursor)
        #expect(throws: StoreError.self) { _ = try PageCursor(token: "not a cursor!") }
    }

    @Test(arguments: StoreBackend.available)
    func countIsExactAndIgnoresPaging(backend: StoreBackend) async throws {
        let store = try await Self.seeded(backend)
        #expect(try await store.count(layer: "shelters", FeatureQuery(limit: 2), by: .admin) == 10)
        #expect(try await store.count(layer: "shelters", FeatureQuery(filter: .isNull("capacity")), by: .admin) == 2)
        #expect(try await store.count(layer: "districts", FeatureQuery(bbox: BoundingBox(Envelope(minX: 114.55, minY: 30.55, maxX: 115, maxY: 31))), by: .admin) == 1)
    }

    @Test(arguments: StoreBackend.available)
    func aBadLimitIsAClearError(backend: StoreBackend) async throws {
        let store = try await Self.seeded(backend)
        for limit in [0, -1, FeatureQuery.maximumLimit + 1] {
            let e = await #expect(throws: StoreError.self) {
                _ = try await store.query(layer: "shelters", FeatureQuery(limit: limit), by: .admin)
            }
            #expect(e?.field == "limit")
        }
    }
}

@Suite("Bounding boxes in a projected CRS", .dropsTestSchemas)
struct ProjectedBBoxTests {
    @Test(arguments: StoreBackend.available)
    func aGaussKrugerBoxFindsTheSameShelters(backend: StoreBackend) async throws {
        let store = try await StoreQueryTests.seeded(backend)
        // The lon/lat box of s3…s5, transformed to EPSG:4547 metres by PROJ, then queried in metres.
        let lonLat = Envelope(minX: 114.325, minY: 30.45, maxX: 114.355, maxY: 30.55)
        let metres = try CoordinateTransformer.shared(from: .cgcs2000, to: CoordinateReferenceSystem(epsg: 4547))
            .transform(lonLat, densify: 21)
        #expect(metres.minX > 100_000)  // really metres, not degrees
        let q = FeatureQuery(bbox: BoundingBox(metres, crs: "EPSG:4547"))
        #expect(Fixtures.ids(try await store.query(layer: "shelters", q, by: .admin).features) == ["s3", "s4", "s5"])
    }
}
