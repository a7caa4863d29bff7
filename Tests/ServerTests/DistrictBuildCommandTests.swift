import Foundation
import Testing
import TestSupport
import TwinStore

/// `citytwin district build` as a new user runs it (issue 58 §15): from any working directory
/// (the project's Layers/ found without --layers), its DEM inside the store (a copied store keeps
/// it), and a failed build leaves the store as it was, never half a district.
@Suite("citytwin district build from another directory, whole or not at all", .serialized, .temporaryDirectories)
struct DistrictBuildCommandTests {
    @Test("built from a directory outside the project: every layer and the DEM (raster 'dem') in the store, one file with no log beside it; a copy of the file keeps its DEM")
    func fromElsewhere() async throws {
        let directory = try TemporaryDirectory.forTestCase("district-elsewhere")
        let store = directory.appending("city.sqlite").path
        let build = try await CommandProcess.run(try OutageHarness.binary(), ["district", "build", "--store", store],
                                                 directory: directory.url.path, within: 600)
        #expect(build.exitStatus == 0, "\(build.output)")
        #expect(build.output.contains("DEM: raster 'dem' in the store"), "\(build.output)")
        #expect(!FileManager.default.fileExists(atPath: directory.appending("dem.asc").path), "no DEM file beside the store")
        // The finished store is one file and its audit key: the partial store's log was checkpointed into
        // it and removed (it was left behind, 25 MB, and a file moved without its log could lose the log's
        // last commits); the key of its chain moved with it.
        let beside = try FileManager.default.contentsOfDirectory(atPath: directory.url.path).filter { $0.hasPrefix("city.sqlite") }
        #expect(beside.sorted() == ["city.sqlite", "city.sqlite" + AuditKey.fileSuffix], "a finished build left \(beside.sorted())")
        let verify = try await CommandProcess.run(try OutageHarness.binary(), ["audit", "verify", "--store", store],
                                                  directory: directory.url.path, within: 120)
        #expect(verify.exitStatus == 0 && verify.output.contains("keyed,"), "\(verify.output)")
        let copy = try TemporaryDirectory.forTestCase("district-copy").appending("copied.sqlite").path
        try FileManager.default.copyItem(atPath: store, toPath: copy)
        let list = try await CommandProcess.run(try OutageHarness.binary(), ["raster", "list", "--store", copy],
                                                directory: directory.url.path, within: 60)
        #expect(list.exitStatus == 0, "\(list.output)")
        #expect(list.output.contains("\"id\" : \"dem\"") && list.output.contains("EPSG:4547"), "\(list.output)")
        let again = try await CommandProcess.run(try OutageHarness.binary(), ["district", "build", "--store", store],
                                                 directory: directory.url.path, within: 120)
        #expect(again.exitStatus == 0 && again.output.contains("already holds the sample district"), "\(again.output)")
    }

    @Test("a build that fails part-way (a layer directory without the district's layers) leaves no store behind, and an existing store's catalogue as it was")
    func failedBuildLeavesNothing() async throws {
        let directory = try TemporaryDirectory.forTestCase("district-failed")
        let layers = directory.appending("layers")
        try FileManager.default.createDirectory(at: layers, withIntermediateDirectories: true)
        let repository = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        // Only the buildings: the district's other layers are not defined, so the build stops.
        try FileManager.default.copyItem(at: repository.appendingPathComponent("Layers/buildings.json"), to: layers.appendingPathComponent("buildings.json"))
        let store = directory.appending("city.sqlite").path
        let failed = try await CommandProcess.run(try OutageHarness.binary(), ["district", "build", "--store", store, "--layers", layers.path],
                                                  directory: directory.url.path, within: 300)
        #expect(failed.exitStatus != 0, "\(failed.output)")
        let left = try FileManager.default.contentsOfDirectory(atPath: directory.url.path).filter { $0.hasPrefix("city.sqlite") }
        #expect(left.isEmpty, "a failed build left \(left)")
        // A store that exists (one layer, not a district) keeps its catalogue as it was: no layer added, none lost.
        let existing = directory.appending("kept.sqlite").path
        let kept = try SpatiaLiteStore(path: existing)
        for definition in try LayerCatalog.load(directory: layers).definitions { try await kept.createLayer(definition) }
        try kept.close()
        let again = try await CommandProcess.run(try OutageHarness.binary(), ["district", "build", "--store", existing, "--layers", layers.path],
                                                 directory: directory.url.path, within: 300)
        #expect(again.exitStatus != 0, "\(again.output)")
        let reopened = try SpatiaLiteStore(path: existing)
        #expect(try await reopened.layers(for: .admin).map(\.definition.id) == ["buildings"])
        try reopened.close()
        let stray = try FileManager.default.contentsOfDirectory(atPath: directory.url.path).filter { $0.contains(".building-") }
        #expect(stray.isEmpty, "a failed build left \(stray)")
    }
}
