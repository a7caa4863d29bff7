import ArgumentParser
import CityBuild
import CityModel
import Foundation
import GeoCore
import ProcessRuntime
import TwinStore

/// `citytwin city build`: a city's one map from its own data. `--osm EXTRACT` derives the road
/// network (roads split where OpenStreetMap joins them, intersections with their control) by the
/// rules of `RoadRules`, and the emergency resources, parking lots and buildings by `FeatureRule`,
/// in the city's metric CRS (the zone of the extract's centre, recorded in the store).
struct CityCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "city",
        abstract: "Build a city's layers from its own data (OpenStreetMap extracts).",
        subcommands: [Build.self, BaseMap.self])

    struct Build: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Build a city's layers (roads, intersections, resources, parking lots, buildings) from an OpenStreetMap extract.",
            discussion: """
                Roads are split at every node two drivable ways share (never where a bridge or tunnel merely crosses), \
                classed by CJJ 37 from highway=*, with speeds, lanes and one-way from their tags or the documented \
                defaults (docs/capabilities/city-build.md); lengths in the extract's metric CRS (the CGCS2000 3-degree \
                Gauss-Krüger zone in China, the UTM zone elsewhere), which the store records as the city's. Fire \
                stations, hydrants, hospitals, assembly points, parking lots and buildings come from their tags \
                (FeatureRule); what OpenStreetMap cannot say is left empty, never invented, and those layers \
                require only what it can. Each layer is written whole in one transaction, replacing what a \
                previous build wrote; the report lists what was derived and what was dropped, and why.
                """)

        @Option(help: "The OpenStreetMap extract (.osm.pbf or .osm).")
        var osm: String

        @Option(help: "The city's name, recorded in the store (default: the extract's file name).")
        var name: String?

        @Option(help: "Also write the build's report (features written per layer; values derived, objects dropped and why) as JSON to this file.")
        var report: String?

        @OptionGroup var storeOption: StoreOption

        @Option(help: "Directory of layer definitions (the roads and intersections layers are created from it).")
        var layers: String = ProjectFiles.path("Layers")

        func run() async throws {
            let url = URL(fileURLWithPath: osm)
            let bar = ProgressBar("building from \(url.lastPathComponent)")
            let extract: OSMExtract
            do { extract = try OSMExtract(file: url) } catch let e as ImportError { throw CommandFailure("city build failed, nothing written: \(e)") }
            guard let extent = extract.extent else { throw CommandFailure("\(url.lastPathComponent) holds no ways: nothing to build") }
            let store = try await StoreLocation(storeOption.path).open()
            // The city's metric CRS: the one the store records, else the zone of the extract's centre.
            let recorded = try await (store as? any CityRecords)?.cityRecord()?.metricReferenceSystem
            let metric = recorded ?? CoordinateReferenceSystem.metricZone(for: extent)
            let toMetric = try CoordinateTransformer.shared(from: CoordinateReferenceSystem(epsg: 4326), to: metric)
            let roads = try RoadNetworkDraft.build(ways: extract.ways, signals: extract.signals, stops: extract.stops, metric: toMetric)
            let features = try CityFeatureDraft.build(extract.objects, metric: toMetric)
            let network = roads.layers(file: url.lastPathComponent)
            let others = features.records(file: url.lastPathComponent)
            var catalog = try await LayerDefinitions.catalog(store, creating: network.layers.map(\.id),
                                                             from: URL(fileURLWithPath: layers, isDirectory: true))
            // The other layers require only what OpenStreetMap can say (FeatureRule.required).
            let directory = try LayerCatalog.load(directory: URL(fileURLWithPath: layers, isDirectory: true))
            var definitions = catalog.definitions
            let requirements = FeatureRule.all.map { ($0.layer, $0.required) } + [("addresses", AddressDraft.required)]
            for (layer, required) in requirements where others.layers.contains(where: { $0.id == layer }) {
                guard let base = catalog[layer] ?? directory[layer] else {
                    throw CommandFailure("no layer \(layer) in the store or in \(layers)/")
                }
                let relaxed = try base.requiring(only: required)
                try await store.createLayer(relaxed)
                definitions.removeAll { $0.id == layer }
                definitions.append(relaxed)
            }
            catalog = LayerCatalog(definitions)
            do {
                var summaries = try await network.run(catalog: catalog, store: store, by: .admin, replacing: true) { bar.update($0) }
                do {
                    summaries += try await others.run(catalog: catalog, store: store, by: .admin, replacing: true) { bar.update($0) }
                } catch let e as ImportError {
                    // Each layer is one transaction: the roads and intersections are in, the failing layer is not.
                    throw CommandFailure("city build failed after writing \(summaries.map(\.layer).joined(separator: " and ")): \(e)")
                }
                let count = Double(summaries.reduce(0) { $0 + $1.count })
                bar.finish(WorkProgress(stage: "done", completed: count, total: count, unit: "features"))
                if let city = try await CityRecord.recordIfAbsent(in: store, name: name ?? Self.cityName(url), metricCRS: metric, by: .admin) {
                    print("recorded the city '\(city.name)' with its metric CRS \(city.metricCRS) (the zone of the extract's centre)")
                } else {
                    print("metric CRS: \(metric) (the city's, as the store records it)")
                }
                for s in summaries { print("built \(s.count) features into \(s.layer)") }
                var counts = roads.report.merging(features.report) { a, _ in a }
                if extract.unreadableAreas > 0 { counts["areas left out: a geometry GDAL cannot read (an open ring)"] = extract.unreadableAreas }
                for (what, n) in counts.sorted(by: { $0.key < $1.key }) { print("  \(what): \(n)") }
                if let report {
                    let document: JSONValue = [
                        "source": .string(url.lastPathComponent), "metric_crs": .string("\(metric)"),
                        "written": .object(Dictionary(uniqueKeysWithValues: summaries.map { ($0.layer, JSONValue.integer(Int64($0.count))) })),
                        "report": .object(counts.mapValues { JSONValue.integer(Int64($0)) }),
                    ]
                    try JSONOutput.encoder(.pretty).encode(document).write(to: URL(fileURLWithPath: report))
                }
            } catch let e as ImportError {
                throw CommandFailure("city build failed, nothing written: \(e)")
            }
        }

        /// `helsinki` for `Helsinki.osm.pbf`.
        static func cityName(_ url: URL) -> String {
            var name = url.lastPathComponent
            for suffix in [".pbf", ".osm", ".bz2"] where name.lowercased().hasSuffix(suffix) { name = String(name.dropLast(suffix.count)) }
            return name
        }
    }
}
