@testable import CityTiles3D
import CityModel
import Foundation
import GeoCore
import Testing
import TestSupport
import TwinStore

/// The DEM as terrain mesh tiles (CIM1): the pyramid's levels and measured errors on plain grids,
/// and the sample district's DEM exported and checked by py3dtiles, pygltflib and pyproj
/// (Tests/Clients/test_3dtiles_terrain.py), then made again when the DEM is replaced.
@Suite("3D Tiles terrain from the managed DEM", .serialized, .temporaryDirectories)
struct TerrainTilesetTests {
    static let terrainReader = DistrictTilesetTests.repository.appendingPathComponent("Tests/Clients/test_3dtiles_terrain.py").path

    /// A `width` × `height` grid of 10 m cells in the city's metric zone, heights `f(column, row)`.
    static func grid(_ width: Int, _ height: Int, _ f: (Int, Int) -> Float) throws -> Grid {
        try Grid(width: width, height: height, geoTransform: GeoTransform(originX: 500_000, pixelWidth: 10, originY: 3_390_000, pixelHeight: -10),
                 values: (0..<height).flatMap { r in (0..<width).map { c in f(c, r) } })
    }

    @Test("levels halve the nodes until one tile holds the DEM; a plane has no error, a peak's error is measured")
    func pyramid() throws {
        let plane = try TerrainPyramid(grid: Self.grid(9, 5) { c, r in Float(3 * c + 2 * r) }, leafCells: 2)
        // 8 × 4 intervals: leaves 4 × 2, then 2 × 1, then 1 × 1.
        #expect(plane.levels == 3)
        #expect(plane.tiles(level: 0).count == 8 && plane.tiles(level: 1).count == 2 && plane.tiles(level: 2).count == 1)
        #expect(plane.nodes(of: .init(level: 2, column: 0, row: 0)).columns == [0, 4, 8])
        #expect(plane.nodes(of: .init(level: 2, column: 0, row: 0)).rows == [0, 4])
        #expect(plane.children(of: .init(level: 1, column: 1, row: 0)).count == 4)
        for level in 0..<plane.levels {
            for tile in plane.tiles(level: level) { #expect(plane.maximumError(of: tile) < 1e-9) }
        }
        // A 7 m peak at node (2, 2). The level-1 tiles (every other node) keep it as a corner and
        // slope to it across two cells, 3.5 m above the flat nodes half way; level 2 drops it.
        let peak = try TerrainPyramid(grid: Self.grid(5, 5) { c, r in c == 2 && r == 2 ? 7 : 0 }, leafCells: 1)
        #expect(peak.levels == 3)
        #expect(peak.maximumError(of: .init(level: 0, column: 2, row: 2)) == 0)
        #expect(peak.maximumError(of: .init(level: 1, column: 0, row: 0)) == 3.5)
        #expect(peak.maximumError(of: .init(level: 2, column: 0, row: 0)) == 7)
        #expect(TerrainPyramid.TileID("2_0_1") == .init(level: 2, column: 0, row: 1))
        #expect(TerrainPyramid.TileID("2_0") == nil && TerrainPyramid.TileID("a_0_1") == nil)
        #expect(throws: Tiles3DError.self) { try TerrainPyramid(grid: Self.grid(1, 5) { _, _ in 0 }) }
    }

    @Test("py3dtiles and pygltflib read the terrain; leaves on the DEM, every error bounded, skirts deep enough")
    func exportReadByIndependentReaders() async throws {
        let directory = try TemporaryDirectory.forTestCase("tiles3d-terrain")
        let (store, dem) = try await DistrictTilesetTests.districtStore(directory)
        let service = Tileset3DService(store: store)
        let water = Caller.department(name: "水务和湖泊局", role: .viewer)
        await #expect(throws: StoreError.self) { try await service.terrainTileset(raster: "dem", caller: .anonymous) }
        await #expect(throws: Tiles3DError.self) { try await service.terrainTileset(raster: "nodem", caller: water) }
        let out = directory.appending("terrain")
        let summary = try await service.exportTerrain(raster: "dem", caller: water, to: out)
        #expect(summary.tiles > 1)
        try dem.write(to: directory.appending("dem.asc"))
        guard FileManager.default.isExecutableFile(atPath: DistrictTilesetTests.python) else {
            throw HarnessFailure("no .venv/bin/python: run Scripts/setup.sh --test (py3dtiles and pygltflib are the readers)")
        }
        let run = try await CommandProcess.run(DistrictTilesetTests.python, [Self.terrainReader, out.path, directory.appending("dem.asc").path],
                                               within: 600)
        #expect(run.exitStatus == 0, "test_3dtiles_terrain.py: \(run.output)")
        #expect(run.output.contains("\(summary.tiles) terrain tiles checked"), "\(run.output)")
    }

    @Test("replacing the DEM makes the terrain again and stands the buildings on the new one")
    func regeneratedWhenTheDEMIsReplaced() async throws {
        let directory = try TemporaryDirectory.forTestCase("tiles3d-terrain-replace")
        let (store, _) = try await DistrictTilesetTests.districtStore(directory)
        let service = Tileset3DService(store: store, followInterval: 0)
        let before = try await service.terrainTileset(raster: "dem", caller: .admin)
        _ = try await service.terrainTileset(raster: "dem", caller: .admin)
        #expect(await service.terrainsBuilt == 1)
        let buildings = try await service.tileset(layer: "buildings", caller: .admin)

        // The same DEM 5 m higher.
        let stored = try #require(try await store.managedRasterData(ManagedRaster.defaultDEM))
        let raised = try Grid(esriASCIIData: stored).map { $0 + 5 }
        let data = try raised.esriASCIIData(precision: 2)
        let raster = try ManagedRaster.describe(raised, data: data, id: ManagedRaster.defaultDEM, title: "DEM", kind: .dem,
                                                crs: DistrictLoader.demCRS, by: .admin)
        try await store.putRaster(raster, data: data, replace: true, by: .admin)
        let after = try await service.terrainTileset(raster: "dem", caller: .admin)
        #expect(await service.terrainsBuilt == 2)
        #expect(after.version == raster.sha256 && after.version != before.version)
        #expect(after.root.box.max.z - before.root.box.max.z > 4.9)
        let rebuilt = try await service.tileset(layer: "buildings", caller: .admin)
        #expect(rebuilt != buildings, "the buildings' tileset was not made again on the new DEM")
    }

    @Test("each layer file states a CIM level; a layer with a 3D tileset states the level its tileset reaches")
    func cimLevels() throws {
        let catalog = try LayerCatalog.load(directory: DistrictTilesetTests.repository.appendingPathComponent("Layers"))
        for definition in catalog.definitions where definition.hasGeometry {
            let level = try #require(definition.cimLevel, "\(definition.id) has no cim_level")
            #expect(level == SolidRule.rule(for: definition.id)?.cimLevel ?? .cim1, "\(definition.id)")
        }
        #expect(TerrainTileset.cimLevel == .cim1 && SolidRule.rule(for: "buildings")?.cimLevel == .cim2)
        var wrong = try #require(catalog["buildings"]?.json.objectValue)
        wrong["cim_level"] = "CIM9"
        let error = try #require(throws: StoreError.self) { try LayerDefinition(json: .object(wrong)) }
        #expect(error.field == "cim_level")
    }
}
