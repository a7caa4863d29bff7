import Foundation
import GeoCore
import Testing
import TwinStore

/// The store-level compare-and-set: a write computed from what was read lands only if nothing
/// else was written in between, in this process or another one on the same store, and a
/// read-modify-write that lost the race is read and computed again, keeping the other change.
@Suite("Conditional writes: versions checked in the write's transaction", .dropsTestSchemas)
struct StoreConditionalWriteTests {
    static func seeded(_ backend: StoreBackend) async throws -> any FeatureStore {
        let store = try await backend.makeStore()
        try await store.insert(layer: "shelters", features: [
            Fixtures.shelter("s1", 114.30, 30.50, name: "东湖"),
            Fixtures.shelter("s2", 114.40, 30.60, name: "沙湖"),
        ], by: Fixtures.emergency, at: nil)
        return store
    }

    static func auditCount(_ store: any FeatureStore) async throws -> Int {
        try await store.auditLog(layer: "shelters", after: 0, limit: 1000, by: .admin).count
    }

    @Test(arguments: StoreBackend.available)
    func aStaleVersionWritesNothing(backend: StoreBackend) async throws {
        let store = try await Self.seeded(backend)
        let read = try await store.currentVersions(layer: "shelters", ids: ["s1", "s2", "s9"], by: Fixtures.emergency)
        #expect(Set(read.keys) == ["s1", "s2"])
        let s1 = try #require(read["s1"]), s2 = try #require(read["s2"])

        // Another writer changes s1 after it was read.
        try await store.upsert(layer: "shelters", features: [Fixtures.shelter("s1", 114.30, 30.50, name: "东湖 (A)")],
                               by: Fixtures.emergency, at: nil)
        let audited = try await Self.auditCount(store)
        let error = await #expect(throws: StoreError.self) {
            try await store.write(layer: "shelters", upserting: [Fixtures.shelter("s1", 114.30, 30.50, name: "东湖 (B)")],
                                  deleting: ["s2"], expecting: ["s1": .version(s1), "s2": .version(s2)],
                                  by: Fixtures.emergency, at: nil)
        }
        #expect(error?.code == .versionChanged)
        #expect(error?.feature == "s1")
        // Nothing of the batch landed: not the upsert, not the deletion, no audit entry.
        #expect(try await store.feature(layer: "shelters", id: "s1", by: .admin)?.properties["name"] == "东湖 (A)")
        #expect(try await store.feature(layer: "shelters", id: "s2", by: .admin) != nil)
        #expect(try await Self.auditCount(store) == audited)

        // Absent when read, present now: refused too.
        let absent = await #expect(throws: StoreError.self) {
            try await store.write(layer: "shelters", upserting: [Fixtures.shelter("s1", 114.30, 30.50, name: "东湖 (C)")],
                                  deleting: [], expecting: ["s1": .absent], by: Fixtures.emergency, at: nil)
        }
        #expect(absent?.code == .versionChanged)

        // The versions as they are now: the upsert and the deletion land in one batch.
        let now = try await store.currentVersions(layer: "shelters", ids: ["s1", "s2"], by: Fixtures.emergency)
        #expect(now["s1"] != s1 && now["s2"] == s2)
        try await store.write(layer: "shelters", upserting: [Fixtures.shelter("s1", 114.30, 30.50, name: "东湖 (B)")],
                              deleting: ["s2"], expecting: ["s1": .version(try #require(now["s1"])), "s2": .version(s2)],
                              by: Fixtures.emergency, at: nil)
        #expect(try await store.feature(layer: "shelters", id: "s1", by: .admin)?.properties["name"] == "东湖 (B)")
        #expect(try await store.feature(layer: "shelters", id: "s2", by: .admin) == nil)
        #expect(try await Self.auditCount(store) == audited + 2)
        // A feature ended is absent again, and may be expected so.
        try await store.write(layer: "shelters", upserting: [Fixtures.shelter("s2", 114.40, 30.60, name: "沙湖")],
                              deleting: [], expecting: ["s2": .absent], by: Fixtures.emergency, at: nil)
        #expect(try await store.feature(layer: "shelters", id: "s2", by: .admin) != nil)
    }

    @Test(arguments: StoreBackend.available)
    func aReadModifyWriteThatLostTheRaceRunsAgain(backend: StoreBackend) async throws {
        let store = try await Self.seeded(backend)
        var attempts = 0
        // Two writers each set their own property of s1 from what they read; the second writes
        // while the first is between its read and its write.
        try await store.update(layer: "shelters", reading: ["s1"], by: Fixtures.emergency) {
            attempts += 1
            var s1 = try #require(try await store.feature(layer: "shelters", id: "s1", by: Fixtures.emergency))
            if attempts == 1 {
                try await store.update(layer: "shelters", reading: ["s1"], by: Fixtures.emergency) {
                    var other = try #require(try await store.feature(layer: "shelters", id: "s1", by: Fixtures.emergency))
                    other.properties["phone"] = "13900001111"
                    return (FeatureChanges(upserts: [other]), ())
                }
            }
            s1.properties["name"] = "东湖 (renamed)"
            return (FeatureChanges(upserts: [s1]), ())
        }
        #expect(attempts == 2)
        let s1 = try #require(try await store.feature(layer: "shelters", id: "s1", by: .admin))
        #expect(s1.properties["name"] == "东湖 (renamed)")
        #expect(s1.properties["phone"] == "13900001111")  // the other writer's change is kept
        #expect(try await store.history(layer: "shelters", featureID: "s1", by: .admin).count == 3)

        // A writer that keeps losing gives up with `versionChanged`, having written nothing of its own.
        var tries = 0
        let error = await #expect(throws: StoreError.self) {
            try await store.update(layer: "shelters", reading: ["s2"], by: Fixtures.emergency, attempts: 3) {
                tries += 1
                try await store.upsert(layer: "shelters", features: [Fixtures.shelter("s2", 114.40, 30.60, name: "沙湖 \(tries)")],
                                       by: Fixtures.emergency, at: nil)
                return (FeatureChanges(upserts: [Fixtures.shelter("s2", 114.40, 30.60, name: "mine")]), ())
            }
        }
        #expect(error?.code == .versionChanged)
        #expect(tries == 3)
        #expect(try await store.feature(layer: "shelters", id: "s2", by: .admin)?.properties["name"] == "沙湖 3")
    }

    @Test(arguments: StoreBackend.available)
    func aWriteBasedOnWhatWasReadChecksItsContent(backend: StoreBackend) async throws {
        let store = try await Self.seeded(backend)
        let read = try await store.feature(layer: "shelters", id: "s1", by: Fixtures.emergency)
        try await store.upsert(layer: "shelters", features: [Fixtures.shelter("s1", 114.31, 30.50, name: "东湖")],
                               by: Fixtures.emergency, at: nil)
        let error = await #expect(throws: StoreError.self) {
            try await store.write(FeatureChanges(upserts: [Fixtures.shelter("s1", 114.30, 30.50, name: "东湖 (B)")]),
                                  layer: "shelters", basedOn: ["s1": read], by: Fixtures.emergency)
        }
        #expect(error?.code == .versionChanged)
        #expect(try await store.feature(layer: "shelters", id: "s1", by: .admin)?.geometry == .point(x: 114.31, y: 30.50))
        // Read again: it lands; a new feature is based on its absence.
        let now = try await store.feature(layer: "shelters", id: "s1", by: Fixtures.emergency)
        let basis: [String: Feature?] = ["s1": now, "s7": Feature?.none]
        try await store.write(FeatureChanges(upserts: [Fixtures.shelter("s1", 114.30, 30.50, name: "东湖 (B)"),
                                                       Fixtures.shelter("s7", 114.35, 30.55, name: "南湖")]),
                              layer: "shelters", basedOn: basis, by: Fixtures.emergency)
        #expect(try await store.feature(layer: "shelters", id: "s1", by: .admin)?.properties["name"] == "东湖 (B)")
        #expect(try await store.feature(layer: "shelters", id: "s7", by: .admin) != nil)
    }
}
