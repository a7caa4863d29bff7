import Foundation
import GeoCore
import Testing
import TwinStore

/// `replace(layer:with:)`: a layer rewritten whole (a flood scenario's results, an import with
/// `--mode replace`) changes in one transaction, so a reader never sees it emptied and a failed
/// write leaves the old set; features are matched by id, so an unchanged one writes nothing.
@Suite("Replacing a layer's features in one transaction", .dropsTestSchemas)
struct StoreReplaceTests {
    @Test(arguments: StoreBackend.available)
    func replaceEndsTheOldSetAndInsertsTheNewAtOneInstant(backend: StoreBackend) async throws {
        let store = try await backend.makeStore()
        try await store.insert(layer: "shelters", features: [
            Fixtures.shelter("s1", 114.30, 30.55, name: "东湖"), Fixtures.shelter("s2", 114.40, 30.60, name: "沙湖"),
        ], by: Fixtures.emergency, at: Fixtures.t0)
        try await store.replace(layer: "shelters", with: [
            Fixtures.shelter("s2", 114.41, 30.61, name: "沙湖新址"), Fixtures.shelter("s3", 114.50, 30.50, name: "南湖"),
        ], by: Fixtures.emergency, at: Fixtures.t1)
        let now = try await store.query(layer: "shelters", FeatureQuery(), by: .admin).features
        #expect(Fixtures.ids(now) == ["s2", "s3"])
        #expect(now.first?.properties["name"] == "沙湖新址")
        let before = try await store.query(layer: "shelters", FeatureQuery(asOf: Fixtures.t0), by: .admin).features
        #expect(Fixtures.ids(before) == ["s1", "s2"])
        // Replacing with nothing empties the layer, still as one change of state.
        try await store.replace(layer: "shelters", with: [], by: Fixtures.emergency, at: nil)
        #expect(try await store.count(layer: "shelters", FeatureQuery(), by: .admin) == 0)
    }

    @Test(arguments: StoreBackend.available)
    func aFailedReplacementLeavesTheOldSet(backend: StoreBackend) async throws {
        let store = try await backend.makeStore()
        try await store.insert(layer: "shelters", features: [Fixtures.shelter("s1", 114.30, 30.55, name: "东湖")],
                               by: Fixtures.emergency, at: Fixtures.t0)
        let changes = try await store.latestChange()
        await #expect(throws: StoreError.self) {
            try await store.replace(layer: "shelters", with: [
                Fixtures.shelter("s2", 114.4, 30.5, name: "b"), Fixtures.shelter("s3", 114.5, 30.5, name: "坏", kind: "临时"),
            ], by: Fixtures.emergency, at: Fixtures.t1)
        }
        #expect(Fixtures.ids(try await store.query(layer: "shelters", FeatureQuery(), by: .admin).features) == ["s1"])
        #expect(try await store.latestChange() == changes)
        // Only the owner's editors may replace, as they alone may write.
        await #expect(throws: StoreError.self) {
            try await store.replace(layer: "shelters", with: [], by: .anonymous, at: nil)
        }
    }

    @Test(arguments: StoreBackend.available)
    func replaceUpsertsByIDAndEndsTheRest(backend: StoreBackend) async throws {
        let store = try await backend.makeStore()
        try await store.insert(layer: "shelters", features: [Fixtures.shelter("s1", 114.3, 30.5, name: "a"),
                                                             Fixtures.shelter("s2", 114.4, 30.5, name: "b")],
                               by: Fixtures.emergency, at: Fixtures.t0)
        let next = [Fixtures.shelter("s2", 114.4, 30.5, name: "b2"), Fixtures.shelter("s3", 114.5, 30.5, name: "c")]
        try await store.replace(layer: "shelters", with: next, by: Fixtures.emergency, at: Fixtures.t1)
        let page = try await store.query(layer: "shelters", FeatureQuery(), by: .admin).features
        #expect(Fixtures.ids(page) == ["s2", "s3"])
        #expect(page.first?.properties["name"] == "b2")
        // Two inserts, then s2 updated, s3 inserted, s1 ended.
        #expect(try await store.changes(since: 0, limit: 100, by: .admin).count == 5)
        // The same set again changes nothing: s2 keeps its two versions.
        try await store.replace(layer: "shelters", with: next, by: Fixtures.emergency, at: nil)
        #expect(try await store.changes(since: 0, limit: 100, by: .admin).count == 5)
        #expect(try await store.history(layer: "shelters", featureID: "s2", by: .admin).count == 2)
    }
}
