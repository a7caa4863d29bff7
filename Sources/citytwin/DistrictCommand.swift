import ArgumentParser
import CityModel
import Foundation
import GeoCore
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
        abstract: "Create every layer of Layers/ and load the generated sample district; write the DEM beside the store.")

    @OptionGroup var storeOption: StoreOption
    var store: String { storeOption.path }

    @Option(help: "Seed of the district generator.")
    var seed: UInt64 = 2026

    @Option(help: "Directory of layer definitions (<id>.json).")
    var layers: String = "Layers"

    @Flag(help: "Rebuild even when the store already holds the district (a SpatiaLite file is replaced).")
    var force = false

    func run() async throws {
        let location = try StoreLocation(store)
        if force, case .spatiaLite(let path) = location { try StoreLocation.remove(spatiaLiteAt: path) }
        let featureStore = try await location.open()
        if try await DistrictLoader.isBuilt(featureStore) {
            print("The store \(store) already holds the sample district; nothing to do (use --force to rebuild).")
            return
        }
        let bar = ProgressBar("building the district")
        let started = Date()
        let summary = try await DistrictLoader.build(
            into: featureStore, layersDirectory: URL(fileURLWithPath: layers, isDirectory: true), seed: seed,
            dem: location.directory.map { $0.appendingPathComponent(DistrictLoader.demFileName) },
            progress: { bar.update($0) })
        bar.finish(WorkProgress(stage: "done", completed: Double(summary.counts.count), total: Double(summary.counts.count), unit: "layers"))
        let seconds = String(format: "%.1f", Date().timeIntervalSince(started))
        print("Built the sample district (seed \(seed)): \(summary.total) features in \(summary.counts.count) layers in \(seconds) s into \(store)")
        if let dem = summary.dem { print("DEM: \(dem.path)") }
    }
}
