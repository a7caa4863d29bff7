import Foundation
import GeoCore
import Testing
import TwinStore

@Suite("Time-versioned features: as-of, history, diff", .dropsTestSchemas)
struct StoreVersionTests {
    /// s1 inserted at t0, moved at t1, deleted at t2; s2 inserted at t1; s3 inserted at t0, phone changed at t2.
    static func seeded(_ backend: StoreBackend) async throws -> any FeatureStore {
        let store = try await backend.makeStore()
        try await store.insert(layer: "shelters", features: [
            Fixtures.shelter("s1", 114.30, 30.50, name: "东湖"),
            Fixtures.shelter("s3", 114.32, 30.52, name: "月湖"),
        ], by: Fixtures.emergency, at: Fixtures.t0)
        try await store.upsert(layer: "shelters", features: [
            Fixtures.shelter("s1", 114.31, 30.50, name: "东湖"),
            Fixtures.shelter("s2", 114.40, 30.60, name: "沙湖"),
        ], by: Fixtures.emergency, at: Fixtures.t1)
        try await store.delete(layer: "shelters", ids: ["s1"], by: Fixtures.emergency, at: Fixtures.t2)
        try await store.upsert(layer: "shelters", features: [
            Fixtures.shelter("s3", 114.32, 30.52, name: "月湖", phone: "13900001111"),
        ], by: Fixtures.emergency, at: Fixtures.t2)
        return store
    }

    @Test(arguments: StoreBackend.available)
    func queriesDefaultToNowAndAcceptAnAsOfInstant(backend: StoreBackend) async throws {
        let store = try await Self.seeded(backend)
        func at(_ d: Date?) async throws -> [Feature] {
            try await store.query(layer: "shelters", FeatureQuery(asOf: d), by: .admin).features
        }
        #expect(Fixtures.ids(try await at(nil)) == ["s2", "s3"])
        #expect(Fixtures.ids(try await at(Fixtures.t0.addingTimeInterval(-1))) == [])
        #expect(Fixtures.ids(try await at(Fixtures.t0)) == ["s1", "s3"])
        let beforeMove = try await at(Fixtures.t1.addingTimeInterval(-1))
        #expect(beforeMove.first?.geometry == .point(x: 114.30, y: 30.50))
        let afterMove = try await at(Fixtures.t1.addingTimeInterval(1))
        #expect(Fixtures.ids(afterMove) == ["s1", "s2", "s3"])
        #expect(afterMove.first?.geometry == .point(x: 114.31, y: 30.50))
        #expect(try await store.count(layer: "shelters", FeatureQuery(asOf: Fixtures.t1), by: .admin) == 3)
    }

    @Test(arguments: StoreBackend.available)
    func historyListsEveryVersionWithItsInterval(backend: StoreBackend) async throws {
        let store = try await Self.seeded(backend)
        let h = try await store.history(layer: "shelters", featureID: "s1", by: Fixtures.emergency)
        #expect(h.count == 2)
        #expect(h[0].validFrom == Fixtures.t0 && h[0].validTo == Fixtures.t1)
        #expect(h[1].validFrom == Fixtures.t1 && h[1].validTo == Fixtures.t2)
        #expect(h[0].author == "李工" && h[0].department == "应急管理局")
        #expect(h[0].contentHash != h[1].contentHash)
        let public_ = try await store.history(layer: "shelters", featureID: "s1", by: .anonymous)
        #expect(public_.allSatisfy { $0.author == nil })
    }

    @Test(arguments: StoreBackend.available)
    func diffListsAddedRemovedAndChanged(backend: StoreBackend) async throws {
        let store = try await Self.seeded(backend)
        let d = try await store.diff(layer: "shelters", from: Fixtures.t0, to: Fixtures.t3, by: .admin)
        #expect(d == LayerDiff(added: ["s2"], removed: ["s1"], changed: ["s3"]))
        let d01 = try await store.diff(layer: "shelters", from: Fixtures.t0, to: Fixtures.t1, by: .admin)
        #expect(d01 == LayerDiff(added: ["s2"], removed: [], changed: ["s1"]))
        let none = try await store.diff(layer: "shelters", from: Fixtures.t3, to: Fixtures.t3, by: .admin)
        #expect(none == LayerDiff(added: [], removed: [], changed: []))
    }

    @Test(arguments: StoreBackend.available)
    func aWriteDatedBeforeTheCurrentVersionIsRejected(backend: StoreBackend) async throws {
        let store = try await Self.seeded(backend)
        let e = await #expect(throws: StoreError.self) {
            try await store.upsert(layer: "shelters", features: [Fixtures.shelter("s2", 114.4, 30.6, name: "x")],
                                   by: Fixtures.emergency, at: Fixtures.t0)
        }
        #expect(e?.feature == "s2")
    }
}
