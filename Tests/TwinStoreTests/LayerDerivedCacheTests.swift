import Foundation
import GeoCore
import Synchronization
import Testing
import TwinStore

/// The cache of values built from whole layers (the address index, the water and gas networks):
/// one build per view, shared by callers who read the layers alike; built again only when the
/// change feed shows one of its layers changed; a caller with another view (another masked
/// attribute, a layer it may not read) never gets a value built for someone else.
@Suite("Values derived from layers, cached per store and view", .dropsTestSchemas)
struct LayerDerivedCacheTests {
    /// What a build saw: the shelters' names and phones, and how many builds ran.
    final class Builds: Sendable {
        let count = Mutex(0)
        var made: Int { count.withLock { $0 } }
    }

    static func cache(_ builds: Builds, maximumViews: Int = 16) -> LayerDerivedCache<[String]> {
        LayerDerivedCache(layers: ["shelters", "reserves"], maximumViews: maximumViews) { store, caller in
            builds.count.withLock { $0 += 1 }
            let shelters = try await store.query(layer: "shelters", FeatureQuery(), by: caller).features
            let reserves = try await store.layerDefinition("reserves", for: caller) == nil ? []
                : try await store.query(layer: "reserves", FeatureQuery(), by: caller).features
            return (shelters + reserves).map { f in
                "\(f.id?.description ?? "")|\(f.properties["phone"]?.stringValue ?? "")"
            }.sorted()
        }
    }

    static func seeded(_ backend: StoreBackend) async throws -> any FeatureStore {
        let store = try await backend.makeStore()
        try await store.insert(layer: "shelters", features: [
            Fixtures.shelter("s1", 114.30, 30.50, name: "东湖", phone: "13812345678", manager: "张三"),
        ], by: Fixtures.emergency, at: Fixtures.t0)
        try await store.insert(layer: "reserves", features: [
            Feature(id: .string("r1"), geometry: .point(x: 114.2, y: 30.4), properties: ["name": "一号库"]),
        ], by: Fixtures.emergency, at: Fixtures.t0)
        return store
    }

    @Test("callers with one view share one build; a change elsewhere builds nothing; a change to its layers builds it again",
          arguments: StoreBackend.available)
    func sharedAndRefreshed(backend: StoreBackend) async throws {
        let store = try await Self.seeded(backend)
        let builds = Builds()
        let cache = Self.cache(builds)
        // Two viewers of the owning department read the layers alike: one build.
        let owner = try await cache.value(for: store, by: Fixtures.emergency)
        #expect(try await cache.value(for: store, by: Fixtures.emergencyViewer) == owner)
        #expect(builds.made == 1)
        #expect(owner == ["r1|", "s1|13812345678"])

        // A write to a layer the value is not built from changes nothing.
        try await store.insert(layer: "wells", features: [
            Feature(id: .string("w1"), geometry: .point(x: 114.1, y: 30.3), properties: ["depth_m": 40]),
        ], by: Fixtures.water, at: Fixtures.t1)
        #expect(try await cache.value(for: store, by: Fixtures.emergency) == owner)
        #expect(builds.made == 1)

        // A write to one of its layers: the next call waits for the new value; one accepting the
        // previous value gets it, marked, while the new one builds.
        try await store.insert(layer: "shelters", features: [
            Fixtures.shelter("s2", 114.31, 30.51, name: "沙湖", phone: "13987654321", manager: "李四"),
        ], by: Fixtures.emergency, at: Fixtures.t1)
        let during = try await cache.lookup(for: store, by: Fixtures.emergency, acceptingPrevious: true)
        #expect(during.rebuilding && during.value == owner)
        #expect(try await cache.value(for: store, by: Fixtures.emergency) == ["r1|", "s1|13812345678", "s2|13987654321"])
        #expect(builds.made == 2)
    }

    @Test("a caller with another masked attribute or without a layer gets its own value, never another view's; the least recently used view is dropped beyond the bound",
          arguments: StoreBackend.available)
    func viewsStayApart(backend: StoreBackend) async throws {
        let store = try await Self.seeded(backend)
        let builds = Builds()
        let cache = Self.cache(builds, maximumViews: 2)
        #expect(try await cache.value(for: store, by: .admin) == ["r1|", "s1|13812345678"])
        // The fire brigade sees the phone in clear but not the negative-listed reserves.
        #expect(try await cache.value(for: store, by: Fixtures.fire) == ["s1|13812345678"])
        #expect(builds.made == 2)
        // The water bureau sees the phone masked: a third view, and the least recently used of the
        // two kept (the administrator's) is dropped.
        let water = try await cache.value(for: store, by: Fixtures.water)
        #expect(water.count == 1 && water[0].hasPrefix("s1|138") && water[0].contains("*"))
        #expect(builds.made == 3)
        #expect(await cache.cachedViews == 2)
        // An anonymous reader sees what the water bureau sees: its value, no build.
        #expect(try await cache.value(for: store, by: .anonymous) == water)
        #expect(builds.made == 3)
        #expect(try await cache.value(for: store, by: .admin) == ["r1|", "s1|13812345678"])
        #expect(builds.made == 4)
    }

    @Test("another store never meets the first store's values", arguments: StoreBackend.available)
    func storesStayApart(backend: StoreBackend) async throws {
        let builds = Builds()
        let cache = Self.cache(builds)
        let first = try await Self.seeded(backend)
        _ = try await cache.value(for: first, by: .admin)
        let second = try await backend.makeStore()
        #expect(try await cache.value(for: second, by: .admin) == [])
        #expect(builds.made == 2)
    }
}
