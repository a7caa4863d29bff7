import Foundation
import GeoCore
import Testing
import TwinStore

@Suite("Writes: transactions, audit log and change feed", .dropsTestSchemas)
struct StoreWriteTests {
    @Test(arguments: StoreBackend.available)
    func aNewLayerIsEmptyAndListedInTheCatalogue(backend: StoreBackend) async throws {
        let store = try await backend.makeStore()
        let info = try #require(try await store.layers(for: .admin).first { $0.definition.id == "shelters" })
        #expect(info.count == 0)
        #expect(info.extent == nil)
        #expect(info.lastChange == 0)
    }

    @Test(arguments: StoreBackend.available)
    func insertedFeaturesComeBackWithExtentAndCount(backend: StoreBackend) async throws {
        let store = try await backend.makeStore()
        try await store.insert(layer: "shelters", features: [
            Fixtures.shelter("s1", 114.30, 30.55, name: "东湖"),
            Fixtures.shelter("s2", 114.40, 30.60, name: "沙湖"),
        ], by: Fixtures.emergency, at: Fixtures.t0)
        let page = try await store.query(layer: "shelters", FeatureQuery(), by: .admin)
        #expect(Fixtures.ids(page.features) == ["s1", "s2"])
        #expect(page.features[0].geometry == .point(x: 114.30, y: 30.55))
        #expect(page.features[0].properties["name"] == "东湖")
        let info = try #require(try await store.layers(for: .admin).first { $0.definition.id == "shelters" })
        #expect(info.count == 2)
        #expect(info.extent == Envelope(minX: 114.30, minY: 30.55, maxX: 114.40, maxY: 30.60))
    }

    @Test(arguments: StoreBackend.available)
    func aBatchWithOneInvalidFeatureWritesNothing(backend: StoreBackend) async throws {
        let store = try await backend.makeStore()
        let bad = Fixtures.shelter("s3", 114.5, 30.5, name: "坏", kind: "临时")
        let e = await #expect(throws: StoreError.self) {
            try await store.insert(layer: "shelters", features: [
                Fixtures.shelter("s1", 114.3, 30.5, name: "a"), Fixtures.shelter("s2", 114.4, 30.5, name: "b"), bad,
            ], by: Fixtures.emergency, at: nil)
        }
        #expect(e?.feature == "s3")
        #expect(e?.field == "kind")
        #expect(try await store.count(layer: "shelters", FeatureQuery(), by: .admin) == 0)
        #expect(try await store.changes(since: 0, limit: 100, by: .admin).isEmpty)
        #expect(try await store.latestChange() == 0)
    }

    @Test(arguments: StoreBackend.available)
    func aDuplicateIdLateInTheBatchRollsBackTheWholeBatch(backend: StoreBackend) async throws {
        let store = try await backend.makeStore()
        try await store.insert(layer: "shelters", features: [Fixtures.shelter("s1", 114.3, 30.5, name: "a")],
                               by: Fixtures.emergency, at: Fixtures.t0)
        let e = await #expect(throws: StoreError.self) {
            try await store.insert(layer: "shelters", features: [
                Fixtures.shelter("s2", 114.3, 30.5, name: "b"), Fixtures.shelter("s1", 114.3, 30.5, name: "again"),
            ], by: Fixtures.emergency, at: Fixtures.t1)
        }
        #expect(e?.code == .duplicateFeature)
        #expect(Fixtures.ids(try await store.query(layer: "shelters", FeatureQuery(), by: .admin).features) == ["s1"])
    }

    @Test(arguments: StoreBackend.available)
    func geometriesOfTheWrongTypeOrOutsideLonLatAreRejected(backend: StoreBackend) async throws {
        let store = try await backend.makeStore()
        var line = Fixtures.shelter("s1", 114.3, 30.5, name: "a")
        line.geometry = .lineString([Position(114, 30), Position(115, 31)])
        let e1 = await #expect(throws: StoreError.self) {
            try await store.insert(layer: "shelters", features: [line], by: Fixtures.emergency, at: nil)
        }
        #expect(e1?.field == "geometry")
        var empty = Fixtures.shelter("s2", 0, 0, name: "b")
        empty.geometry = .point(Point(nil))
        await #expect(throws: StoreError.self) {
            try await store.insert(layer: "shelters", features: [empty], by: Fixtures.emergency, at: nil)
        }
        let projected = Fixtures.shelter("s3", 538_000, 3_380_000, name: "metres")
        await #expect(throws: StoreError.self) {
            try await store.insert(layer: "shelters", features: [projected], by: Fixtures.emergency, at: nil)
        }
    }

    @Test(arguments: StoreBackend.available)
    func upsertReplacesDeleteEndsAndUnchangedContentWritesNothing(backend: StoreBackend) async throws {
        let store = try await backend.makeStore()
        try await store.insert(layer: "shelters", features: [Fixtures.shelter("s1", 114.3, 30.5, name: "a")],
                               by: Fixtures.emergency, at: Fixtures.t0)
        try await store.upsert(layer: "shelters", features: [
            Fixtures.shelter("s1", 114.35, 30.5, name: "a2"), Fixtures.shelter("s2", 114.4, 30.6, name: "b"),
        ], by: Fixtures.emergency, at: Fixtures.t1)
        try await store.upsert(layer: "shelters", features: [Fixtures.shelter("s2", 114.4, 30.6, name: "b")],
                               by: Fixtures.emergency, at: Fixtures.t2)
        try await store.delete(layer: "shelters", ids: ["s1"], by: Fixtures.emergency, at: Fixtures.t2)
        let now = try await store.query(layer: "shelters", FeatureQuery(), by: .admin).features
        #expect(Fixtures.ids(now) == ["s2"])
        let events = try await store.changes(since: 0, limit: 100, by: .admin)
        #expect(events.map(\.kind) == [.insert, .update, .insert, .delete])
        // Where a subscriber with nothing cached starts following: the newest event.
        #expect(try await store.latestChange() == events.last?.sequence)
        #expect(events.map(\.featureID) == ["s1", "s1", "s2", "s1"])
        #expect(zip(events, events.dropFirst()).allSatisfy { $0.sequence < $1.sequence })
        // The update's envelopes tell the tile cache which tiles to drop: old and new position.
        #expect(events[1].envelopeBefore == Envelope(minX: 114.3, minY: 30.5, maxX: 114.3, maxY: 30.5))
        #expect(events[1].envelopeAfter == Envelope(minX: 114.35, minY: 30.5, maxX: 114.35, maxY: 30.5))
        #expect(events[3].envelopeAfter == nil)
        let later = try await store.changes(since: events[1].sequence, limit: 100, by: .admin)
        #expect(later.map(\.sequence) == Array(events.map(\.sequence).dropFirst(2)))

        let e = await #expect(throws: StoreError.self) {
            try await store.delete(layer: "shelters", ids: ["s2", "nope"], by: Fixtures.emergency, at: Fixtures.t3)
        }
        #expect(e?.code == .featureNotFound)
        #expect(try await store.count(layer: "shelters", FeatureQuery(), by: .admin) == 1)
    }

    @Test(arguments: StoreBackend.available)
    func everyWriteHasAnAuditEntryWithHashesAndAnIntactChain(backend: StoreBackend) async throws {
        let store = try await backend.makeStore()
        try await store.insert(layer: "shelters", features: [Fixtures.shelter("s1", 114.3, 30.5, name: "a")],
                               by: Fixtures.emergency, at: Fixtures.t0)
        try await store.upsert(layer: "shelters", features: [Fixtures.shelter("s1", 114.3, 30.5, name: "b")],
                               by: Fixtures.emergency, at: Fixtures.t1)
        try await store.delete(layer: "shelters", ids: ["s1"], by: .admin, at: Fixtures.t2)
        let log = try await store.auditLog(layer: "shelters", after: 0, limit: 10, by: Fixtures.emergencyViewer)
        #expect(log.map(\.kind) == [.insert, .update, .delete])
        #expect(log[0].actor == "李工")
        #expect(log[0].department == "应急管理局")
        #expect(log[0].at == Fixtures.t0)
        #expect(log[0].beforeHash == nil && log[0].afterHash?.count == 64)
        #expect(log[1].beforeHash == log[0].afterHash && log[1].afterHash != log[0].afterHash)
        #expect(log[2].beforeHash == log[1].afterHash && log[2].afterHash == nil)
        #expect(log[2].actor == "admin")
        await #expect(throws: StoreError.self) {
            _ = try await store.auditLog(layer: "shelters", after: 0, limit: 10, by: Fixtures.fire)
        }
        if let spatiaLite = store as? SpatiaLiteStore {
            #expect(try await spatiaLite.verifyAuditChain(by: .admin))
        }
    }

    @Test(arguments: StoreBackend.available)
    func writesNeedAnEditorOfTheOwnerDepartment(backend: StoreBackend) async throws {
        let store = try await backend.makeStore()
        let f = [Fixtures.shelter("s1", 114.3, 30.5, name: "a")]
        for caller in [Caller.anonymous, Fixtures.fire, Fixtures.emergencyViewer] {
            let e = await #expect(throws: StoreError.self) {
                try await store.insert(layer: "shelters", features: f, by: caller, at: nil)
            }
            #expect(e?.code == .forbidden)
        }
        // A layer the caller may not even see is "not found", not "forbidden".
        let e = await #expect(throws: StoreError.self) {
            try await store.insert(layer: "wells", features: [], by: Fixtures.emergency, at: nil)
        }
        #expect(e?.code == .layerNotFound)
        #expect(try await store.count(layer: "shelters", FeatureQuery(), by: .admin) == 0)
    }

    @Test(arguments: StoreBackend.available)
    func tablesWithoutGeometryStoreReadings(backend: StoreBackend) async throws {
        let store = try await backend.makeStore()
        let readings = (0..<5).map { i in
            Feature(id: .string("r\(i)"), geometry: nil, properties: [
                "station": "汉口", "level_m": .number(20.5 + Double(i)),
                "observed_at": .string("2024-07-0\(i + 1)T08:00:00+08:00"),
            ])
        }
        try await store.insert(layer: "water_levels", features: readings, by: Fixtures.water, at: nil)
        let q = FeatureQuery(datetime: .interval(start: Fixtures.date("2024-07-02T00:00:00Z"), end: Fixtures.date("2024-07-03T12:00:00Z")))
        let got = try await store.query(layer: "water_levels", q, by: Fixtures.fire).features
        #expect(Fixtures.ids(got) == ["r1", "r2"])
        #expect(got.allSatisfy { $0.geometry == nil })
    }
}
