import CityModel
import CityTiles3D
import Foundation
import GeoCore
import Testing
import TestSupport
import TwinStore

/// The sample district's buildings as a 3D tileset, checked by independent readers (py3dtiles,
/// pygltflib, pyproj: Tests/Clients/test_3dtiles.py) and rebuilt leaf by leaf after an edit.
@Suite("3D Tiles of the sample district's buildings and pipes", .serialized, .temporaryDirectories)
struct DistrictTilesetTests {
    static let repository = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
    static let python = repository.appendingPathComponent(".venv/bin/python").path
    static let reader = repository.appendingPathComponent("Tests/Clients/test_3dtiles.py").path
    /// The buildings' owner, who reads them (the public does not: they are shared, not open).
    static let housingBureau = Caller.department(name: "住房和城市更新局", role: .viewer)

    /// A store with the district's buildings and its DEM as managed raster `dem`; the DEM's text.
    static func districtStore(_ directory: TemporaryDirectory, layers: [String] = ["buildings"]) async throws -> (SpatiaLiteStore, Data) {
        let (store, _, district) = try await EmergencyDistrict.makeStore(layers, in: directory)
        let data = try district.elevation.esriASCIIData(precision: 2)
        let raster = try ManagedRaster.describe(try Grid(esriASCIIData: data), data: data, id: ManagedRaster.defaultDEM, title: "DEM",
                                                kind: .dem, crs: DistrictLoader.demCRS, by: .admin)
        try await store.putRaster(raster, data: data, replace: true, by: .admin)
        return (store, data)
    }

    static func features(_ store: SpatiaLiteStore, layer: String = "buildings", as caller: Caller) async throws -> [Feature] {
        var features: [Feature] = []
        for try await f in store.stream(layer: layer, FeatureQuery(limit: FeatureQuery.maximumLimit), by: caller) { features.append(f) }
        return features
    }

    @Test("py3dtiles and pygltflib read the exported tileset; every roof is its height above the DEM")
    func exportReadByIndependentReaders() async throws {
        let directory = try TemporaryDirectory.forTestCase("tiles3d-export")
        let (store, dem) = try await Self.districtStore(directory)
        let service = Tileset3DService(store: store)
        let out = directory.appending("tileset")
        let summary = try await service.export(layer: "buildings", caller: Self.housingBureau, to: out)
        #expect(summary.tiles > 4)
        await #expect(throws: Tiles3DError.self) { try await service.export(layer: "buildings", caller: Self.housingBureau, to: out) }
        try dem.write(to: directory.appending("dem.asc"))
        let features = try await Self.features(store, as: Self.housingBureau)
        try GeoJSON.encode(FeatureCollection(features)).write(to: directory.appending("buildings.geojson"))
        guard FileManager.default.isExecutableFile(atPath: Self.python) else {
            throw HarnessFailure("no .venv/bin/python: run Scripts/setup.sh --test (py3dtiles and pygltflib are the readers)")
        }
        let run = try await CommandProcess.run(Self.python, [Self.reader, out.path, directory.appending("dem.asc").path,
                                                             directory.appending("buildings.geojson").path], within: 600)
        #expect(run.exitStatus == 0, "test_3dtiles.py: \(run.output)")
        let standing = features.filter { ($0.properties["height_m"]?.doubleValue ?? 0) > 0 }.count
        #expect(run.output.contains("\(standing) buildings checked"), "\(run.output)")
    }

    @Test("every pipe's tube lies around its axis at invert + offset + radius; every manhole is a well")
    func pipesAtTheirDepths() async throws {
        let directory = try TemporaryDirectory.forTestCase("tiles3d-pipes")
        let layers = ["drainage_pipes", "drainage_manholes", "drainage_outfalls"]
        let (store, _) = try await Self.districtStore(directory, layers: layers)
        let waterBureau = Caller.department(name: "水务和湖泊局", role: .viewer)
        let service = Tileset3DService(store: store)
        let out = directory.appending("pipes")
        #expect(try await service.export(layer: "drainage_pipes", caller: waterBureau, to: out).tiles > 1)
        for layer in layers {
            let features = try await Self.features(store, layer: layer, as: waterBureau)
            try GeoJSON.encode(FeatureCollection(features)).write(to: directory.appending("\(layer).geojson"))
        }
        guard FileManager.default.isExecutableFile(atPath: Self.python) else {
            throw HarnessFailure("no .venv/bin/python: run Scripts/setup.sh --test (py3dtiles and pygltflib are the readers)")
        }
        let run = try await CommandProcess.run(Self.python, [Self.reader, "--pipes", out.path] + layers.map { directory.appending("\($0).geojson").path },
                                               within: 600)
        #expect(run.exitStatus == 0, "test_3dtiles.py --pipes: \(run.output)")
        let pipes = try await Self.features(store, layer: "drainage_pipes", as: waterBureau).count
        #expect(run.output.contains("\(pipes) pipes checked"), "\(run.output)")
        // Manholes: one cylinder per well whose rim is above its invert.
        let wells = try await Self.features(store, layer: "drainage_manholes", as: waterBureau).filter {
            ($0.properties["rim_elevation_m"]?.doubleValue ?? 0) > ($0.properties["invert_elevation_m"]?.doubleValue ?? 0)
        }.count
        let document = try await service.tileset(layer: "drainage_manholes", caller: waterBureau)
        let json = try #require(try JSONSerialization.jsonObject(with: Data(document)) as? [String: Any])
        #expect((json["extras"] as? [String: Any])?["features"] as? Int == wells)
    }

    @Test("a change to one building rebuilds only the tile that holds it")
    func incrementalRebuild() async throws {
        let directory = try TemporaryDirectory.forTestCase("tiles3d-incremental")
        let (store, _) = try await Self.districtStore(directory)
        let service = Tileset3DService(store: store, followInterval: 0)
        _ = try await service.tileset(layer: "buildings", caller: .admin)
        let names = try await service.contentNames(layer: "buildings", caller: .admin)
        let built = await service.leavesBuilt
        #expect(built == names.count)
        var before: [String: [UInt8]] = [:]
        for name in names { before[name] = try await service.content(layer: "buildings", name: name, caller: .admin) }

        var building = try #require(try await Self.features(store, as: .admin).first)
        building.properties["height_m"] = .number((building.properties["height_m"]?.doubleValue ?? 0) + 6)
        try await store.upsert(layer: "buildings", features: [building], by: .admin, at: nil)
        _ = try await service.tileset(layer: "buildings", caller: .admin)
        let rebuilt = await service.leavesBuilt - built
        #expect(rebuilt == 1, "an edit of one building rebuilt \(rebuilt) tiles")
        var changed: [String] = []
        for name in names where try await service.content(layer: "buildings", name: name, caller: .admin) != before[name] { changed.append(name) }
        #expect(changed.count == 1, "tiles whose content changed: \(changed)")
        // Reading again builds nothing more.
        _ = try await service.tileset(layer: "buildings", caller: .admin)
        #expect(await service.leavesBuilt - built == 1)
    }

    @Test("the tileset is read as its caller: the public may not read the buildings")
    func accessRules() async throws {
        let directory = try TemporaryDirectory.forTestCase("tiles3d-access")
        let (store, _) = try await Self.districtStore(directory)
        let service = Tileset3DService(store: store)
        await #expect(throws: StoreError.self) { try await service.tileset(layer: "buildings", caller: .anonymous) }
        await #expect(throws: Tiles3DError.self) { try await service.tileset(layer: "roads", caller: .admin) }
        let document = try await service.tileset(layer: "buildings", caller: Self.housingBureau, contentPrefix: "3dtiles/")
        let json = try #require(try JSONSerialization.jsonObject(with: Data(document)) as? [String: Any])
        #expect((json["asset"] as? [String: Any])?["version"] as? String == "1.1")
        #expect(((json["root"] as? [String: Any])?["transform"] as? [Double])?.count == 16)
        #expect(String(decoding: document, as: UTF8.self).contains("\"uri\":\"3dtiles/content/"))
    }
}
