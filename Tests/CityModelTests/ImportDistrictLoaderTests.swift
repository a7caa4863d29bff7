import Foundation
import GeoCore
import TestSupport
import Testing
import TwinStore
@testable import CityModel

@Suite("Import: the sample district loader", .temporaryDirectories)
struct ImportDistrictLoaderTests {
    @Test("an empty store is not a district; after the build every layer's count matches the generator, and the DEM is a managed raster 'dem' in the store")
    func roundTrip() async throws {
        let store = try await ImportFixtures.store([])
        #expect(try await DistrictLoader.isBuilt(store) == false)
        let summary = try await DistrictLoader.build(into: store, layersDirectory: ImportFixtures.layersDirectory)
        #expect(try await DistrictLoader.isBuilt(store))
        let district = try generatedDistrict()
        let infos = try await store.layers(for: .admin)
        #expect(infos.count == (try ImportFixtures.catalog.get()).definitions.count)
        for info in infos {
            #expect(info.count == district[layer: info.definition.id].count, "\(info.definition.id)")
            #expect(summary.counts[info.definition.id] == info.count)
        }
        let rasters = try #require(store as? any ManagedRasters)
        let raster = try #require(try await rasters.managedRaster(ManagedRaster.defaultDEM))
        #expect(summary.dem == raster)
        #expect(raster.kind == .dem && raster.crs == "EPSG:4547")
        let grid = try Grid(esriASCIIData: try #require(try await rasters.managedRasterData(ManagedRaster.defaultDEM)))
        #expect(grid.width == district.elevation.width && grid.height == district.elevation.height)
        #expect(raster.width == grid.width && raster.height == grid.height)
    }
}
