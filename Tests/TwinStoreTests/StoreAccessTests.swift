import Foundation
import GeoCore
import Testing
import TwinStore

@Suite("Masking and the negative list hold in every read path", .dropsTestSchemas)
struct StoreAccessTests {
    static func seeded(_ backend: StoreBackend) async throws -> any FeatureStore {
        let store = try await backend.makeStore()
        try await store.insert(layer: "shelters", features: [
            Fixtures.shelter("s1", 114.30, 30.50, name: "东湖", phone: "13812345678", manager: "张三"),
            Fixtures.shelter("s2", 114.31, 30.51, name: "沙湖", phone: "13987654321", manager: "李四"),
        ], by: Fixtures.emergency, at: Fixtures.t0)
        try await store.upsert(layer: "shelters", features: [
            Fixtures.shelter("s1", 114.30, 30.50, name: "东湖", phone: "13899995678", manager: "王五"),
        ], by: Fixtures.emergency, at: Fixtures.t1)
        try await store.insert(layer: "reserves", features: [
            Feature(id: .string("r1"), geometry: .point(x: 114.2, y: 30.4), properties: ["name": "一号库"]),
        ], by: Fixtures.emergency, at: Fixtures.t0)
        try await store.insert(layer: "wells", features: [
            Feature(id: .string("w1"), geometry: .point(x: 114.1, y: 30.3), properties: ["depth_m": 40]),
        ], by: Fixtures.water, at: Fixtures.t0)
        return store
    }

    /// No clear value of a hidden attribute appears anywhere in the feature.
    private func expectMasked(_ fs: [Feature], _ where_: String) {
        for f in fs {
            #expect(f.properties["manager"] == nil, "manager leaked in \(where_)")
            let phone = f.properties["phone"]?.stringValue ?? ""
            #expect(phone.contains("****"), "phone not masked in \(where_): \(phone)")
            #expect(f.properties["code"]?.stringValue?.hasPrefix("420102") == false, "code leaked in \(where_)")
        }
    }

    @Test(arguments: StoreBackend.available)
    func anonymousAndOtherDepartmentsNeverSeeSensitiveValues(backend: StoreBackend) async throws {
        let store = try await Self.seeded(backend)
        for caller in [Caller.anonymous, Fixtures.water] {
            let page = try await store.query(layer: "shelters", FeatureQuery(), by: caller).features
            #expect(page.count == 2)
            expectMasked(page, "query")
            #expect(page.first { $0.id == .string("s1") }?.properties["phone"] == "138****5678")
            var streamed = [Feature]()
            for try await f in store.stream(layer: "shelters", FeatureQuery(limit: 1), by: caller) { streamed.append(f) }
            #expect(streamed.count == 2)
            expectMasked(streamed, "stream")
            let old = try await store.query(layer: "shelters", FeatureQuery(asOf: Fixtures.t0), by: caller).features
            expectMasked(old, "as-of query")
            let history = try await store.history(layer: "shelters", featureID: "s1", by: caller)
            expectMasked(history.map(\.feature), "history")
            // s1 changed only in what masking hides (the middle of the phone, the manager): invisible here.
            let diff = try await store.diff(layer: "shelters", from: Fixtures.t0, to: Fixtures.t1, by: caller)
            #expect(diff.changed.isEmpty)
            #expect(history.allSatisfy { $0.contentHash.isEmpty })
        }
    }

    @Test(arguments: StoreBackend.available)
    func hashedValuesAreStableAndNotTheClearValue(backend: StoreBackend) async throws {
        let store = try await Self.seeded(backend)
        let a = try await store.query(layer: "shelters", FeatureQuery(), by: .anonymous).features
        let b = try await store.query(layer: "shelters", FeatureQuery(), by: Fixtures.water).features
        #expect(a.map { $0.properties["code"] } == b.map { $0.properties["code"] })
        #expect(a[0].properties["code"] != a[1].properties["code"])
        #expect(a[0].properties["code"]?.stringValue?.count == 16)
    }

    @Test(arguments: StoreBackend.available)
    func ownersAdminsAndListedDepartmentsSeeClearValues(backend: StoreBackend) async throws {
        let store = try await Self.seeded(backend)
        let owner = try await store.query(layer: "shelters", FeatureQuery(), by: Fixtures.emergencyViewer).features
        #expect(owner.first?.properties["manager"] == "王五")
        #expect(owner.first?.properties["code"] == "420102-s1")
        let fire = try await store.query(layer: "shelters", FeatureQuery(), by: Fixtures.fire).features
        #expect(fire.first?.properties["phone"] == "13899995678")   // listed in visibleTo
        #expect(fire.first?.properties["manager"] == nil)           // but not for manager
        let diff = try await store.diff(layer: "shelters", from: Fixtures.t0, to: Fixtures.t1, by: .admin)
        #expect(diff.changed == ["s1"])
    }

    @Test(arguments: StoreBackend.available)
    func filteringOrSortingOnAMaskedAttributeIsRefused(backend: StoreBackend) async throws {
        let store = try await Self.seeded(backend)
        let probe = FeatureQuery(filter: .like("phone", pattern: "138%", caseInsensitive: false))
        let e = await #expect(throws: StoreError.self) { _ = try await store.query(layer: "shelters", probe, by: .anonymous) }
        #expect(e?.code == .forbidden && e?.field == "phone")
        await #expect(throws: StoreError.self) { _ = try await store.count(layer: "shelters", probe, by: Fixtures.water) }
        await #expect(throws: StoreError.self) {
            _ = try await store.query(layer: "shelters", FeatureQuery(sortBy: [SortKey("manager")]), by: .anonymous)
        }
        #expect(try await store.count(layer: "shelters", probe, by: Fixtures.fire) == 1)
    }

    /// A cache's change-feed walk (`changes(to:since:by:)`) ends at the feed's end even when the
    /// last events are on layers the caller may not read, so the next walk does not read them again.
    @Test(arguments: StoreBackend.available)
    func cacheWalksPassHiddenEvents(backend: StoreBackend) async throws {
        let store = try await Self.seeded(backend)
        let end = try await store.latestChange()
        let first = try await store.changes(to: ["shelters"], since: 0, by: .anonymous)
        #expect(first.touched && first.latest == end, "the wells event is the last one; anonymous callers do not see it")
        let again = try await store.changes(to: ["shelters"], since: first.latest, by: .anonymous)
        #expect(!again.touched && again.latest == end)
        try await store.insert(layer: "wells", features: [
            Feature(id: .string("w2"), geometry: .point(x: 114.1, y: 30.31), properties: ["depth_m": 20]),
        ], by: Fixtures.water, at: nil)
        let hidden = try await store.changes(to: ["shelters"], since: end, by: .anonymous)
        let endNow = try await store.latestChange()
        #expect(!hidden.touched && hidden.latest == endNow && hidden.latest > end)
        try await store.insert(layer: "shelters", features: [Fixtures.shelter("s3", 114.32, 30.52, name: "南湖", phone: "13700000000", manager: "赵六")],
                               by: Fixtures.emergency, at: nil)
        let seen = try await store.changes(to: ["shelters"], since: hidden.latest, by: .anonymous)
        #expect(seen.touched && seen.latest > hidden.latest)
    }

    @Test(arguments: StoreBackend.available)
    func negativeListedAndNotSharedLayersAreInvisible(backend: StoreBackend) async throws {
        let store = try await Self.seeded(backend)
        let anonymous = Set(try await store.layers(for: .anonymous).map(\.definition.id))
        #expect(anonymous == ["shelters"])
        let fire = Set(try await store.layers(for: Fixtures.fire).map(\.definition.id))
        #expect(fire == ["shelters", "districts", "water_levels"])
        let water = Set(try await store.layers(for: Fixtures.water).map(\.definition.id))
        #expect(water.contains("wells") && !water.contains("reserves"))
        let owner = Set(try await store.layers(for: Fixtures.emergencyViewer).map(\.definition.id))
        #expect(owner.contains("reserves") && !owner.contains("wells"))
        #expect(try await store.layers(for: .admin).count == 5)

        for caller in [Caller.anonymous, Fixtures.fire, Fixtures.water] {
            let e = await #expect(throws: StoreError.self) { _ = try await store.query(layer: "reserves", FeatureQuery(), by: caller) }
            #expect(e?.code == .layerNotFound)
            await #expect(throws: StoreError.self) { _ = try await store.history(layer: "reserves", featureID: "r1", by: caller) }
            await #expect(throws: StoreError.self) { _ = try await store.diff(layer: "reserves", from: Fixtures.t0, to: Fixtures.t3, by: caller) }
            var streamFailed = false
            do { for try await _ in store.stream(layer: "reserves", FeatureQuery(), by: caller) {} } catch { streamFailed = true }
            #expect(streamFailed)
            let events = try await store.changes(since: 0, limit: 100, by: caller)
            #expect(!events.contains { $0.layer == "reserves" })
        }
        #expect(try await store.changes(since: 0, limit: 100, by: .admin).contains { $0.layer == "reserves" })
    }
}
