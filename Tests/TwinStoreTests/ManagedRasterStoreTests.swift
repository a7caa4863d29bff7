import Foundation
import GeoCore
import Testing
import TwinStore

/// The rasters a store manages (issue 58 §1): kept whole in the store on both backends, written
/// by the admin only, never overwritten unasked, every write an entry of the one audit chain; and
/// a whole layer dropped (`LayerRemoval`, what deleting a flood run does to its layers).
@Suite("Managed rasters in the store", .dropsTestSchemas)
struct ManagedRasterStoreTests {
    static func chain(_ store: any FeatureStore) async throws -> AuditChainCheck {
        switch store {
        case let s as SpatiaLiteStore: try await s.checkAuditChain(by: .admin)
        case let s as PostGISStore: try await s.checkAuditChain(by: .admin)
        default: throw StoreError(.backend, "no audit chain check for \(type(of: store))")
        }
    }

    @Test("put by the admin only, listed, read back byte for byte, replaced only when asked, deleted; three audit entries, chain intact",
          arguments: StoreBackend.available)
    func roundTrip(_ backend: StoreBackend) async throws {
        let store = try await backend.makeStore()
        let rasters = try #require(store as? any ManagedRasters)
        let grid = try Grid(width: 4, height: 3, geoTransform: .northUp(west: 500_000, north: 3_400_030, cellWidth: 10, cellHeight: 10),
                            values: (0..<12).map { Float(20 + $0) })
        let data = try grid.esriASCIIData(precision: 2)
        let raster = try ManagedRaster.describe(grid, data: data, id: "dem", title: nil, kind: .dem, crs: 4547, by: .admin)
        #expect(raster.bbox == [500_000, 3_400_000, 500_040, 3_400_030] && raster.width == 4 && raster.height == 3)
        let editor = await #expect(throws: StoreError.self) {
            try await rasters.putRaster(raster, data: data, replace: false, by: .department(name: "水务和湖泊局", role: .editor))
        }
        #expect(editor?.code == .forbidden)
        let before = try await Self.chain(store).entries
        try await rasters.putRaster(raster, data: data, replace: false, by: .admin)
        #expect(try await rasters.managedRasters() == [raster])
        #expect(try await rasters.managedRaster("dem") == raster)
        #expect(try await rasters.managedRasterData("dem") == data)
        #expect(try await rasters.managedRaster("other") == nil)
        let again = await #expect(throws: StoreError.self) { try await rasters.putRaster(raster, data: data, replace: false, by: .admin) }
        #expect(again?.code == .duplicateFeature)
        try await rasters.putRaster(raster, data: data, replace: true, by: .admin)
        #expect(try await rasters.deleteRaster("dem", by: .admin))
        #expect(try await rasters.deleteRaster("dem", by: .admin) == false)
        #expect(try await rasters.managedRasters().isEmpty)
        let after = try await Self.chain(store)
        #expect(after.entries == before + 3 && after.firstBreak == nil)
    }

    @Test("a raster id is a plain lower-case name: paths, upper case and empty ids are not ids")
    func ids() {
        for id in ["dem", "city-dem_2026", "a"] { #expect(ManagedRaster.isValidID(id), "\(id)") }
        for id in ["", "/etc/passwd", "../dem", "DEM", "dem.asc", "-dem", String(repeating: "a", count: 65)] {
            #expect(!ManagedRaster.isValidID(id), "\(id)")
        }
    }

    @Test("a layer is dropped whole by its owner's editor (not another department's): gone from the catalogue, its id free again, one audit entry",
          arguments: StoreBackend.available)
    func dropLayer(_ backend: StoreBackend) async throws {
        let store = try await backend.makeStore()
        let removal = try #require(store as? any LayerRemoval)
        try await store.insert(layer: "shelters", features: [Fixtures.shelter("s1", 114.36, 30.55, name: "东湖")], by: Fixtures.emergency, at: nil)
        let other = await #expect(throws: StoreError.self) { try await removal.dropLayer("shelters", by: Fixtures.fire) }
        #expect(other?.code == .forbidden)
        let before = try await Self.chain(store).entries
        #expect(try await removal.dropLayer("shelters", by: Fixtures.emergency))
        #expect(try await store.layerDefinition("shelters", for: .admin) == nil)
        #expect(try await !store.layers(for: .admin).contains { $0.definition.id == "shelters" })
        #expect(try await removal.dropLayer("shelters", by: .admin) == false)
        let after = try await Self.chain(store)
        #expect(after.entries == before + 1 && after.firstBreak == nil)
        // The id can be created again, empty.
        try await store.createLayer(try Fixtures.shelters)
        #expect(try await store.count(layer: "shelters", FeatureQuery(), by: .admin) == 0)
    }
}
