import ArgumentParser
import CityBuild
import CityModel
import Foundation
import GeoCore
import ProcessRuntime
import TwinStore

/// `citytwin city build`: a city's one map from its own data. `--osm EXTRACT` derives the road
/// network (roads split where OpenStreetMap joins them, intersections with their control) by the
/// rules of `RoadRules`, in the metric CRS of the extract's own zone.
struct CityCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "city",
        abstract: "Build a city's layers from its own data (OpenStreetMap extracts).",
        subcommands: [Build.self])

    struct Build: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Build the road network (roads, intersections) from an OpenStreetMap extract (.osm.pbf, .osm).",
            discussion: """
                Roads are split at every node two drivable ways share (never where a bridge or tunnel merely crosses), \
                classed by CJJ 37 from highway=*, with speeds, lanes and one-way from their tags or the documented \
                defaults (docs/capabilities/city-build.md); lengths in the extract's metric CRS (the CGCS2000 3-degree \
                Gauss-Krüger zone in China, the UTM zone elsewhere). Each layer is written whole in one transaction, \
                replacing what a previous build wrote.
                """)

        @Option(help: "The OpenStreetMap extract (.osm.pbf or .osm).")
        var osm: String

        @OptionGroup var storeOption: StoreOption

        @Option(help: "Directory of layer definitions (the roads and intersections layers are created from it).")
        var layers: String = ProjectFiles.path("Layers")

        func run() async throws {
            let url = URL(fileURLWithPath: osm)
            let bar = ProgressBar("building from \(url.lastPathComponent)")
            let extract: OSMExtract
            do { extract = try OSMExtract(file: url) } catch let e as ImportError { throw CommandFailure("city build failed, nothing written: \(e)") }
            guard let extent = extract.extent else { throw CommandFailure("\(url.lastPathComponent) holds no ways: nothing to build") }
            let metric = CoordinateReferenceSystem.metricZone(for: extent)
            let draft = try RoadNetworkDraft.build(ways: extract.ways, signals: extract.signals, stops: extract.stops,
                                                   metric: try CoordinateTransformer.shared(from: CoordinateReferenceSystem(epsg: 4326), to: metric))
            let network = draft.layers(file: url.lastPathComponent)
            let store = try await StoreLocation(storeOption.path).open()
            let catalog = try await LayerDefinitions.catalog(store, creating: network.layers.map(\.id),
                                                             from: URL(fileURLWithPath: layers, isDirectory: true))
            do {
                let summaries = try await network.run(catalog: catalog, store: store, by: .admin, replacing: true) { bar.update($0) }
                let count = Double(summaries.reduce(0) { $0 + $1.count })
                bar.finish(WorkProgress(stage: "done", completed: count, total: count, unit: "features"))
                print("metric CRS: \(metric) (the zone of the extract's centre)")
                for s in summaries { print("built \(s.count) features into \(s.layer)") }
                for (what, n) in draft.report.sorted(by: { $0.key < $1.key }) { print("  \(what): \(n)") }
            } catch let e as ImportError {
                throw CommandFailure("city build failed, nothing written: \(e)")
            }
        }
    }
}
