import Foundation
import GeoCore
import Testing
@testable import TwinStore

/// The audit chain's key and the check of the stored versions against the log (issue 78 §11),
/// on both backends: every kind of write the store makes leaves versions the check finds as the
/// log records them (no false alarm: inserts, updates, unchanged upserts, one feature twice in a
/// batch, deletes and re-inserts, replacements, bulk loads, co-built transfers, a layer removed and
/// made again, rasters, sandbox entries, SensorThings entities); the chain is keyed from a new
/// store's first entry.
@Suite("Audit data check and key: every write of the store checks clean, on both backends", .dropsTestSchemas)
struct AuditDataCheckTests {
    static func check(_ store: any FeatureStore) async throws -> AuditChainCheck {
        switch store {
        case let s as SpatiaLiteStore: try await s.checkAuditChain(by: .admin, data: true)
        case let s as PostGISStore: try await s.checkAuditChain(by: .admin, data: true)
        default: throw StoreError(.backend, "no audit chain check for \(type(of: store))")
        }
    }

    @Test("every kind of write leaves a log and versions the check finds intact", arguments: StoreBackend.available)
    func everyWriteChecksClean(_ backend: StoreBackend) async throws {
        let store = try await backend.makeStore()
        let emergency = Fixtures.emergency
        try await store.insert(layer: "shelters", features: (0..<5).map { Fixtures.shelter("s\($0)", 114.30 + Double($0) * 0.01, 30.5, name: "甲\($0)") },
                               by: emergency, at: Fixtures.t0)
        // An update, an unchanged upsert (nothing written), one feature twice in a batch, a feature without geometry.
        try await store.upsert(layer: "shelters", features: [
            Fixtures.shelter("s1", 114.31, 30.5, name: "改名"), Fixtures.shelter("s2", 114.32, 30.5, name: "甲2"),
            Fixtures.shelter("s5", 114.35, 30.5, name: "一"), Fixtures.shelter("s5", 114.35, 30.5, name: "二"),
            Feature(id: .string("s6"), geometry: nil, properties: ["name": "无位置", "kind": "固定"]),
        ], by: emergency, at: Fixtures.t1)
        try await store.delete(layer: "shelters", ids: ["s3"], by: .admin, at: Fixtures.t2)
        try await store.insert(layer: "shelters", features: [Fixtures.shelter("s3", 114.33, 30.5, name: "又来")], by: emergency, at: Fixtures.t3)
        try await store.replace(layer: "shelters", with: [Fixtures.shelter("s0", 114.30, 30.5, name: "甲0"), Fixtures.shelter("s7", 114.37, 30.5, name: "新")],
                                by: emergency, at: nil)
        // A bulk load, in chunks.
        let bulk = try #require(store as? any BulkFeatureLoading)
        let squares = (0..<20).map { i in
            Feature(id: .string("d\(i)"), geometry: Fixtures.square(114.0 + Double(i) * 0.01, 30.0, 114.005 + Double(i) * 0.01, 30.005),
                    properties: ["name": .string("区\(i)")])
        }
        let chunks = LockedChunks(squares, size: 7)
        _ = try await bulk.insert(layer: "districts", chunks: { try chunks.next() }, by: .admin, at: Fixtures.t1)
        // A layer made, written, removed and made again under the same id.
        var temporary = try Fixtures.shelters
        temporary.id = "shelters_tmp"
        try await store.createLayer(temporary)
        try await store.insert(layer: "shelters_tmp", features: [Fixtures.shelter("x1", 114.3, 30.5, name: "临时")], by: .admin, at: nil)
        let removal = try #require(store as? any LayerRemoval)
        #expect(try await removal.dropLayer("shelters_tmp", by: .admin))
        try await store.createLayer(temporary)
        try await store.insert(layer: "shelters_tmp", features: [Fixtures.shelter("x1", 114.3, 30.5, name: "再来")], by: .admin, at: nil)
        // Entries that are no feature's: a raster, a sandbox act, SensorThings entities.
        let rasters = try #require(store as? any ManagedRasters)
        let grid = try Grid(width: 2, height: 2, geoTransform: .northUp(west: 500_000, north: 3_400_020, cellWidth: 10, cellHeight: 10),
                            values: [1, 2, 3, 4])
        let data = try grid.esriASCIIData(precision: 1)
        try await rasters.putRaster(try ManagedRaster.describe(grid, data: data, id: "dem", title: nil, kind: .dem, crs: 4547, by: .admin),
                                    data: data, replace: false, by: .admin)
        try await (try #require(store as? any AccessJournal)).recordAccess(layer: "shelters", subject: "sandbox: count", detail: "{}",
                                                                           kind: .access, by: emergency)
        let sensing = try #require(store as? any SensingStore)
        let ids = try await sensing.reserveSensingIDs(1)
        var change = SensingChange(caller: emergency, auditLayer: "shelters")
        change.inserts = [SensingEntity(kind: .sensor, id: ids[0], body: ["name": "s", "description": "d", "encodingType": "text/html", "metadata": "m"])]
        _ = try await sensing.applySensing(change)

        let check = try await Self.check(store)
        #expect(check.isIntact, "\(check)")
        #expect(check.keying == .keyed(fromSequence: 0), "a new store's chain is keyed from its first entry: \(check.keying)")
        let versions = try #require(check.data)
        #expect(versions.findingCount == 0, "\(versions.findings)")
        // shelters: s0…s4, s1 twice, s5 twice, s6, s3 again, s7 (the replacement ends the others without a version); districts 20; shelters_tmp 1.
        #expect(versions.versions == 5 + 1 + 2 + 1 + 1 + 1 + 20 + 1, "\(versions)")
    }
}

/// Hands out `features` `size` at a time, from any thread (`FeatureChunkReader`).
final class LockedChunks: @unchecked Sendable {
    private var rest: [Feature]
    private let size: Int
    private let lock = NSLock()

    init(_ features: [Feature], size: Int) {
        rest = features
        self.size = size
    }

    func next() throws -> [Feature]? {
        lock.withLock {
            guard !rest.isEmpty else { return nil }
            defer { rest.removeFirst(min(size, rest.count)) }
            return Array(rest.prefix(size))
        }
    }
}
