import Foundation
import GeoCore
import Testing
import TwinStore

/// The chunked bulk insert (`BulkFeatureLoading`) must leave exactly what one `insert` of all
/// the features leaves: the same features, versions, audit chain and change events.
@Suite("Bulk insert in chunks: one transaction, the same history as insert", .dropsTestSchemas)
struct BulkInsertTests {
    /// Shelters s0…s(n-1) on a small grid around East Lake (degrees).
    static func shelters(_ range: Range<Int>) -> [Feature] {
        range.map { i in
            Fixtures.shelter("s\(i)", 114.30 + Double(i % 10) * 0.01, 30.50 + Double(i / 10) * 0.01, name: "避难场所\(i)",
                             capacity: Int64(100 + i))
        }
    }

    /// A reader handing out `features` `size` at a time, failing with `failure` at chunk `failAt`.
    static func reader(_ features: [Feature], size: Int, failAt: Int? = nil, failure: any Error = StoreError(.invalidFeature, "bad chunk"))
        -> FeatureChunkReader {
        let state = ReaderState(features.chunked(size))
        return {
            try state.next(failAt: failAt, failure: failure)
        }
    }

    /// Everything a write leaves behind that a caller can read.
    struct Trace: Equatable {
        var features: [Feature]
        var histories: [[FeatureVersion]]
        var audit: [AuditEntry]
        var changes: [ChangeEvent]
        var info: LayerInfo?
    }

    static func trace(_ store: any FeatureStore) async throws -> Trace {
        let features = try await Fixtures.allPages(store, "shelters", FeatureQuery(limit: 1000), by: .admin)
        var histories = [[FeatureVersion]]()
        for id in Fixtures.ids(features) { histories.append(try await store.history(layer: "shelters", featureID: id, by: .admin)) }
        return Trace(features: features, histories: histories,
                     audit: try await store.auditLog(layer: "shelters", after: 0, limit: 10_000, by: .admin),
                     changes: try await store.changes(since: 0, limit: 10_000, by: .admin),
                     info: try await store.layers(for: .admin).first { $0.definition.id == "shelters" })
    }

    static func bulk(_ store: any FeatureStore) throws -> any BulkFeatureLoading {
        try #require(store as? any BulkFeatureLoading)
    }

    @Test(arguments: StoreBackend.available)
    func anEmptyBulkInsertWritesNothing(backend: StoreBackend) async throws {
        let store = try await backend.makeStore()
        let n = try await Self.bulk(store).insert(layer: "shelters", chunks: Self.reader([], size: 3), by: Fixtures.emergency, at: Fixtures.t0)
        #expect(n == 0)
        #expect(try await store.count(layer: "shelters", FeatureQuery(), by: .admin) == 0)
        #expect(try await store.changes(since: 0, limit: 10, by: .admin).isEmpty)
    }

    @Test(arguments: StoreBackend.available)
    func intoAnEmptyLayerItLeavesWhatOneInsertLeaves(backend: StoreBackend) async throws {
        let features = Self.shelters(0..<23)
        let plain = try await backend.makeStore()
        try await plain.insert(layer: "shelters", features: features, by: Fixtures.emergency, at: Fixtures.t0)
        let chunked = try await backend.makeStore()
        let n = try await Self.bulk(chunked).insert(layer: "shelters", chunks: Self.reader(features, size: 5),
                                                    by: Fixtures.emergency, at: Fixtures.t0)
        #expect(n == 23)
        let a = try await Self.trace(plain), b = try await Self.trace(chunked)
        #expect(a.features.count == 23)
        #expect(a == b)
    }

    @Test(arguments: StoreBackend.available)
    func intoALayerWithHistoryItLeavesWhatOneInsertLeaves(backend: StoreBackend) async throws {
        var stores = [any FeatureStore]()
        for _ in 0..<2 {
            let s = try await backend.makeStore()
            try await s.insert(layer: "shelters", features: Self.shelters(0..<4), by: Fixtures.emergency, at: Fixtures.t0)
            try await s.upsert(layer: "shelters", features: [Fixtures.shelter("s1", 114.9, 30.9, name: "搬迁")],
                               by: Fixtures.emergency, at: Fixtures.t1)
            try await s.delete(layer: "shelters", ids: ["s2"], by: Fixtures.emergency, at: Fixtures.t1)
            stores.append(s)
        }
        // s2 was deleted, so it may come back; s4… are new.
        let more = Self.shelters(4..<15) + [Fixtures.shelter("s2", 114.1, 30.1, name: "重建")]
        try await stores[0].insert(layer: "shelters", features: more, by: Fixtures.emergency, at: Fixtures.t2)
        _ = try await Self.bulk(stores[1]).insert(layer: "shelters", chunks: Self.reader(more, size: 4), by: Fixtures.emergency, at: Fixtures.t2)
        let a = try await Self.trace(stores[0]), b = try await Self.trace(stores[1])
        #expect(a.features.count == 15)
        #expect(a == b)
    }

    @Test(arguments: StoreBackend.available)
    func textThatCopyMustEscapeArrivesUnchanged(backend: StoreBackend) async throws {
        // PostgreSQL's COPY text format gives backslash, tab, newline and carriage return a meaning
        // (in ids as they are, in properties as the JSON escapes that carry them).
        let names = ["C:\\避难\\所", "一\t二", "第一行\n第二行", "回车\r", "\\N", "\"引号\" \\.", "末尾\\"]
        let features = names.enumerated().map { i, name in Fixtures.shelter(i == 0 ? "编号\\1\t甲" : "t\(i)", 114.3 + Double(i) * 0.01, 30.5, name: name) }
        let plain = try await backend.makeStore()
        try await plain.insert(layer: "shelters", features: features, by: Fixtures.emergency, at: Fixtures.t0)
        let chunked = try await backend.makeStore()
        _ = try await Self.bulk(chunked).insert(layer: "shelters", chunks: Self.reader(features, size: 3), by: Fixtures.emergency, at: Fixtures.t0)
        let a = try await Self.trace(plain), b = try await Self.trace(chunked)
        #expect(Set(b.features.compactMap { $0.properties["name"] }) == Set(names.map { JSONValue.string($0) }))
        #expect(a == b)
    }

    @Test(arguments: StoreBackend.available)
    func aDuplicateInALaterChunkWritesNothing(backend: StoreBackend) async throws {
        let store = try await backend.makeStore()
        try await store.insert(layer: "shelters", features: Self.shelters(0..<2), by: Fixtures.emergency, at: Fixtures.t0)
        let before = try await Self.trace(store)
        let repeated = Self.shelters(2..<9) + [Fixtures.shelter("s4", 114.0, 30.0, name: "重复")]
        let e = await #expect(throws: StoreError.self) {
            _ = try await Self.bulk(store).insert(layer: "shelters", chunks: Self.reader(repeated, size: 3), by: Fixtures.emergency, at: Fixtures.t1)
        }
        #expect(e?.code == .duplicateFeature)
        #expect(try await Self.trace(store) == before)
    }

    @Test(arguments: StoreBackend.available)
    func aDuplicateOfAStoredFeatureFailsAsInsertDoes(backend: StoreBackend) async throws {
        let store = try await backend.makeStore()
        try await store.insert(layer: "shelters", features: Self.shelters(0..<2), by: Fixtures.emergency, at: Fixtures.t0)
        let e = await #expect(throws: StoreError.self) {
            _ = try await Self.bulk(store).insert(layer: "shelters", chunks: Self.reader(Self.shelters(1..<5), size: 2),
                                                  by: Fixtures.emergency, at: Fixtures.t1)
        }
        #expect(e?.code == .duplicateFeature)
        #expect(e?.feature == "s1")
        #expect(try await store.count(layer: "shelters", FeatureQuery(), by: .admin) == 2)
    }

    @Test(arguments: StoreBackend.available)
    func anInvalidFeatureOrAReaderErrorInALaterChunkWritesNothing(backend: StoreBackend) async throws {
        let store = try await backend.makeStore()
        var features = Self.shelters(0..<10)
        features[8] = Fixtures.shelter("s8", 114.5, 30.5, name: "坏", kind: "临时")
        let e = await #expect(throws: StoreError.self) {
            _ = try await Self.bulk(store).insert(layer: "shelters", chunks: Self.reader(features, size: 3), by: Fixtures.emergency, at: nil)
        }
        #expect(e?.feature == "s8")
        #expect(e?.field == "kind")
        struct Unreadable: Error {}
        await #expect(throws: Unreadable.self) {
            _ = try await Self.bulk(store).insert(layer: "shelters", chunks: Self.reader(Self.shelters(0..<10), size: 3, failAt: 2,
                                                                                         failure: Unreadable()),
                                                  by: Fixtures.emergency, at: nil)
        }
        #expect(try await store.count(layer: "shelters", FeatureQuery(), by: .admin) == 0)
        #expect(try await store.changes(since: 0, limit: 10, by: .admin).isEmpty)
    }

    @Test(arguments: StoreBackend.available)
    func theSpatialIndexFindsBulkAndLaterFeatures(backend: StoreBackend) async throws {
        let store = try await backend.makeStore()
        _ = try await Self.bulk(store).insert(layer: "shelters", chunks: Self.reader(Self.shelters(0..<30), size: 7), by: Fixtures.emergency, at: Fixtures.t0)
        try await store.insert(layer: "shelters", features: [Fixtures.shelter("late", 114.355, 30.515, name: "后加")],
                               by: Fixtures.emergency, at: Fixtures.t1)
        var q = FeatureQuery(limit: 100)
        q.bbox = BoundingBox(Envelope(minX: 114.345, minY: 30.505, maxX: 114.365, maxY: 30.525))
        let found = Set(Fixtures.ids(try await store.query(layer: "shelters", q, by: .admin).features))
        // The grid points inside: x in {114.35, 114.36}, y in {30.51, 30.52}.
        #expect(found == ["s15", "s16", "s25", "s26", "late"])
    }

    @Test
    func aCallerWithoutWriteAccessIsRefusedBeforeReading() async throws {
        let store = try await StoreBackend.spatiaLite.makeStore()
        let e = await #expect(throws: StoreError.self) {
            _ = try await Self.bulk(store).insert(layer: "shelters", chunks: Self.reader(Self.shelters(0..<3), size: 2),
                                                  by: Fixtures.emergencyViewer, at: nil)
        }
        #expect(e?.code == .forbidden)
    }
}

/// The chunks a test reader hands out, one call at a time.
final class ReaderState: @unchecked Sendable {
    private let lock = NSLock()
    private var chunks: [[Feature]]
    private var index = 0

    init(_ chunks: [[Feature]]) { self.chunks = chunks }

    func next(failAt: Int?, failure: any Error) throws -> [Feature]? {
        lock.lock(); defer { lock.unlock() }
        if index == failAt { throw failure }
        guard index < chunks.count else { return nil }
        defer { index += 1 }
        return chunks[index]
    }
}

extension Array {
    func chunked(_ size: Int) -> [[Element]] {
        stride(from: 0, to: count, by: size).map { Array(self[$0..<Swift.min($0 + size, count)]) }
    }
}
