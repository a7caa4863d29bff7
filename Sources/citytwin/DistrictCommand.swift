import ArgumentParser
import CityModel
import Foundation
import GeoCore
import ProcessRuntime
import Scenarios
import TwinStore

/// `citytwin district build`: the sample district, generated and loaded into a store.
struct DistrictCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "district",
        abstract: "The sample district (邾城, Xinzhou, Wuhan): build it into a store.",
        subcommands: [DistrictBuildCommand.self])
}

struct DistrictBuildCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "build",
        abstract: "Create every layer of Layers/ and load the generated sample district and its DEM (managed raster 'dem') into the store.")

    @OptionGroup var storeOption: StoreOption
    var store: String { storeOption.path }

    @Option(help: "Seed of the district generator.")
    var seed: UInt64 = 2026

    @Option(help: ArgumentHelp(
        "Districts per side of a sample city: 1 (the default) is the sample district; N builds N × N districts (N² times its features), each with its own ids, codes and names, joined by connecting roads, the DEM one mosaic (1…\(DistrictTile.maximumCount)).",
        valueName: "N"))
    var scale: Int = 1

    @Option(help: "Directory of layer definitions (<id>.json).")
    var layers: String = ProjectFiles.path("Layers")

    @Flag(help: "Rebuild even when the store already holds the district (a SpatiaLite file is replaced).")
    var force = false

    func validate() throws {
        guard (1...DistrictTile.maximumCount).contains(scale) else {
            throw ValidationError("--scale must be 1 (the sample district) to \(DistrictTile.maximumCount) districts per side, got \(scale)")
        }
    }

    func run() async throws {
        let location = try StoreLocation(store)
        if case .spatiaLite(let path) = location {
            if !force, FileManager.default.fileExists(atPath: path), try await DistrictLoader.isBuilt(try await location.open()) {
                print("The store \(store) already holds the sample district; nothing to do (use --force to rebuild).")
                return
            }
            // Built whole into a file beside the target and moved into place only when complete:
            // a failed or interrupted build leaves the store as it was, never half a district.
            let partial = path + ".building-\(ProcessInfo.processInfo.processIdentifier)"
            try StoreLocation.remove(spatiaLiteAt: partial)
            do {
                let building = try await StoreLocation(partial).open()
                let summary = try await build(into: building)
                // Closed, its log checkpointed into the file and emptied: the file alone holds the district.
                try (building as? SpatiaLiteStore)?.close()
                try StoreLocation.remove(spatiaLiteAt: path)
                try FileManager.default.moveItem(atPath: partial, toPath: path)
                // The new store's audit key goes with it (its chain is keyed from the first entry).
                if FileManager.default.fileExists(atPath: partial + AuditKey.fileSuffix) {
                    try FileManager.default.moveItem(atPath: partial + AuditKey.fileSuffix, toPath: path + AuditKey.fileSuffix)
                }
                try StoreLocation.remove(spatiaLiteAt: partial)  // the emptied log and shared-memory files
                report(summary)
            } catch {
                try? StoreLocation.remove(spatiaLiteAt: partial)
                throw error
            }
            return
        }
        let featureStore = try await location.open()
        if !force, try await DistrictLoader.isBuilt(featureStore) {
            print("The store \(store) already holds the sample district; nothing to do (use --force to rebuild).")
            return
        }
        report(try await build(into: featureStore, replace: force))
    }

    private func build(into featureStore: any FeatureStore, replace: Bool = false) async throws -> (DistrictLoader.Summary, TimeInterval) {
        let bar = ProgressBar("building the district")
        let started = ContinuousClock.now
        let summary = try await DistrictLoader.build(
            into: featureStore, layersDirectory: URL(fileURLWithPath: layers, isDirectory: true), seed: seed, scale: scale, replace: replace,
            progress: { bar.update($0) })
        bar.finish(WorkProgress(stage: "done", completed: Double(summary.counts.count), total: Double(summary.counts.count), unit: "layers"))
        return (summary, (ContinuousClock.now - started).seconds)
    }

    private func report(_ built: (DistrictLoader.Summary, TimeInterval)) {
        let (summary, elapsed) = built
        let what = scale == 1 ? "the sample district" : "a sample city of \(scale) × \(scale) districts"
        print("Built \(what) (seed \(seed)): \(summary.total) features in \(summary.counts.count) layers in "
              + String(format: "%.1f", elapsed) + " s into \(store)")
        if let dem = summary.dem {
            print("DEM: raster '\(dem.id)' in the store, \(dem.width) x \(dem.height) cells of \(Int(dem.cellSize[0])) m, \(dem.crs) (citytwin raster list)")
        }
    }
}
