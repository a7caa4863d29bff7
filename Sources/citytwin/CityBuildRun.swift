import ArgumentParser
import CityBuild
import CityModel
import Foundation
import GeoCore
import ProcessRuntime
import TwinStore

/// `citytwin city build`'s one path, for a manifest and for `--osm` alike: read and check every
/// source (`CityBuildPlan`; a bad manifest writes nothing), choose the city's metric CRS (the
/// manifest's, else the one the store records, else the zone of the data's extent), derive the
/// layers, check them all against their schemas, then write each in its own transaction, record
/// the city, import the drainage and water models and the DEM, and report.
struct CityBuildRun {
    let manifest: CityManifest
    /// The file the build names in its messages and report.
    let source: String
    let store: String
    let layers: URL
    let report: String?

    func run() async throws {
        let bar = ProgressBar("building from \(source)")
        // A store that does not exist yet is created only once the manifest has been checked.
        let existing = try? await StoreLocation(store).openExisting()
        let held = try await existing?.layers(for: .admin).map(\.definition) ?? []
        let directory = try LayerCatalog.load(directory: layers)
        let known = LayerCatalog(held + directory.definitions.filter { d in !held.contains { $0.id == d.id } })
        let plan: CityBuildPlan
        do { plan = try CityBuildPlan(manifest, catalog: known, source: source) } catch let e as ManifestError {
            throw CommandFailure("city build failed, nothing written: \(e)")
        } catch let e as ImportError {
            throw CommandFailure("city build failed, nothing written: \(e)")
        }
        let featureStore = if let existing { existing } else { try await StoreLocation(store).open() }
        let recorded = try await (featureStore as? any CityRecords)?.cityRecord()?.metricReferenceSystem
        if let given = manifest.metricCRS, let recorded, given != recorded {
            throw CommandFailure("city build failed, nothing written: manifest metric_crs: \(given) is not the city's, "
                                 + "which the store records as \(recorded) (allowed: \(recorded), or leave metric_crs out)")
        }
        guard let metric = manifest.metricCRS ?? recorded ?? plan.extent.map(CoordinateReferenceSystem.metricZone(for:)) else {
            throw CommandFailure("city build failed, nothing written: manifest: no vector layer places the city (allowed: a layer, or metric_crs)")
        }
        let toMetric = try CoordinateTransformer.shared(from: CoordinateReferenceSystem(epsg: 4326), to: metric)
        let (imports, counts) = try plan.layers(metric: toMetric)
        // The layers a build fills require only what their sources can say (ManifestLayerReader.required).
        var definitions = known.definitions
        var relaxed: [LayerDefinition] = []
        for (layer, required) in CityBuildPlan.requirements(imports, catalog: known) {
            guard let base = known[layer], Set(base.schema.required) != Set(required) else { continue }
            let r = try base.requiring(only: required)
            definitions.removeAll { $0.id == layer }
            definitions.append(r)
            relaxed.append(r)
        }
        let catalog = LayerCatalog(definitions)
        let checked: [(definition: LayerDefinition, features: [Feature])]
        do { checked = try imports.checked(catalog: catalog) } catch let e as ImportError {
            throw CommandFailure("city build failed, nothing written: \(e)")
        }
        // Only now is anything written: the layers the store lacks, the relaxed definitions, the features.
        for d in checked.map(\.definition) where !held.contains(where: { $0.id == d.id }) || relaxed.contains(where: { $0.id == d.id }) {
            try await featureStore.createLayer(d)
        }
        var summaries = try await imports.write(checked, store: featureStore, by: .admin, replacing: true) { bar.update($0) }
        let count = Double(summaries.reduce(0) { $0 + $1.count })
        bar.finish(WorkProgress(stage: "done", completed: count, total: count, unit: "features"))
        if let city = try await CityRecord.recordIfAbsent(in: featureStore, name: manifest.name, metricCRS: metric, by: .admin) {
            let why = manifest.metricCRS != nil ? "the manifest's" : "the zone of the data's extent"
            print("recorded the city '\(city.name)' with its metric CRS \(city.metricCRS) (\(why))")
        } else {
            print("metric CRS: \(metric) (the city's, as the store records it)")
        }
        let written = summaries.map(\.layer)
        do {
            summaries += try await models(plan, metric: metric, store: featureStore, bar: bar)
            if let dem = manifest.dem { try await importDEM(dem, metric: metric) }
        } catch {
            throw CommandFailure("city build failed after writing \(written.joined(separator: ", ")) (each layer is its own transaction): \(error)")
        }
        for s in summaries { print("built \(s.count) features into \(s.layer)") }
        for (what, n) in counts.sorted(by: { $0.key < $1.key }) { print("  \(what): \(n)") }
        if let report {
            var document: [String: JSONValue] = [
                "source": .string(source), "metric_crs": .string("\(metric)"),
                "written": .object(Dictionary(summaries.map { ($0.layer, JSONValue.integer(Int64($0.count))) }) { a, b in
                    .integer((a.integerValue ?? 0) + (b.integerValue ?? 0))
                }),
                "report": .object(counts.mapValues { JSONValue.integer(Int64($0)) }),
            ]
            if manifest.dem != nil { document["rasters"] = ["dem"] }
            try JSONOutput.encoder(.pretty).encode(JSONValue.object(document)).write(to: URL(fileURLWithPath: report))
        }
    }

    /// The drainage (SWMM) and water (EPANET) models into their layers, placed in their `crs`, the
    /// city's metric CRS, or local metres at their `origin`; each layer replaced in its own transaction.
    private func models(_ plan: CityBuildPlan, metric: CoordinateReferenceSystem, store: any FeatureStore,
                        bar: ProgressBar) async throws -> [ImportSummary] {
        var networks: [NetworkImport] = []
        if let input = plan.drainage, let m = manifest.drainage {
            networks.append(try input.network(origin: m.origin, crs: m.origin == nil ? m.crs ?? metric : metric))
        }
        if let (input, valves) = plan.water, let m = manifest.water {
            networks.append(try input.network(origin: m.origin, crs: m.origin == nil ? m.crs ?? metric : metric, valves: valves))
        }
        var summaries: [ImportSummary] = []
        for network in networks {
            let catalog = try await LayerDefinitions.catalog(store, creating: network.layers.map(\.id), from: layers)
            summaries += try await network.run(catalog: catalog, store: store, by: .admin, replacing: true) { bar.update($0) }
        }
        return summaries
    }

    /// The DEM through the managed-raster import (`citytwin raster import`): reprojected to the
    /// city's metric CRS, stored as the raster `dem` flood runs read, replacing an earlier build's.
    private func importDEM(_ dem: CityManifest.RasterSource, metric: CoordinateReferenceSystem) async throws {
        guard let code = metric.epsgCode else { throw CommandFailure("the city's metric CRS \(metric) has no EPSG code: the DEM cannot be stored in it") }
        var arguments = [dem.file.path, "--store", store, "--crs", String(code), "--replace", "--title", "DEM (city build, \(source))"]
        if let crs = dem.crs { arguments += ["--source-crs", "\(crs)"] }
        if let size = dem.cellSize { arguments += ["--cell-size", String(size)] }
        if let r = dem.resampling { arguments += ["--resampling", r] }
        let command = try RasterCommand.Import.parse(arguments)
        try await command.run()
    }
}
