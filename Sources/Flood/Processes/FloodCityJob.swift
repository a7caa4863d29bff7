import Foundation
import GeoCore
import ProcessRuntime
import TwinStore

/// A `flood-scenario` job over a city of several districts (issue 57 §4): the job becomes the
/// parent of one child job per district's drainage network (`flood-scenario` with `district`),
/// which the workers sharing the job table claim and run (`JobFanOut`), and its result joins the
/// children's into **one result set**: a flood run of its own (`flood_runs`, draft like any run)
/// whose layers `<stem>_depth|roads|buildings|cutoff|depth_steps` hold every district's features,
/// each with its `district`, and whose summary is the city's.
///
/// - Depth classes (and the classes per time step) are the districts' own polygons, their ids
///   prefixed with the district (`D007/class-3`): a district's surface ends at its extent.
/// - Roads, buildings and cut-off resources keep their ids (unique across the city). A road or
///   building near a seam lies in two districts' surfaces: the merged layer keeps it once, with
///   the larger maximum depth (the water either district's run put there).
/// - The summary adds what adds (volumes, cells, network sizes, run time), counts flooded roads,
///   buildings and cut-off resources and measures the flooded roads' length in the merged layers
///   (a seam's road is counted once) and
///   keeps the worst mass-balance error; `districts` lists each child's run, layers and summary.
///
/// The children's runs stay in `flood_runs` (each a district's run, with its maximum-depth
/// raster, which the merged summary lists); the merged run names them in its inputs (`parts`).
/// The merged layers are written in batches while the run is a draft (its owner's alone); if a
/// write fails, the merged run is recorded as failed and its layers dropped.
enum FloodCityJob {
    /// Summary fields that add up over districts.
    static let additive = ["cells", "nodes", "links", "subcatchments", "linkedManholes", "floodedAreaSquareMetres", "peakFloodVolume",
                           "spilledVolume", "drainedVolume", "outfallVolume", "runSeconds"]
    /// The layers a district's run writes, by suffix, in the order the merged run writes them.
    static let suffixes = FloodResultLayers.suffixes + ["depth_steps"]
    /// Features inserted per write into a merged layer.
    static let batch = 2_000

    static func run(_ input: FloodScenarioProcess.Input, scenario: FloodScenario, districts: [String], fanOut: JobFanOut,
                    runs: FloodRunCatalog, caller: Caller, progress: JobProgress) async throws -> JSONValue {
        var shared = input.given
        shared["durationScale"] = .number(input.durationScale)
        shared["demCoarsening"] = .integer(Int64(input.demCoarsening))
        shared["dem"] = .string(input.dem)
        let children = districts.map { key in
            var inputs = shared
            inputs["district"] = .string(key)
            return JobFanOut.Child(key: "district \(key)", process: "flood-scenario", inputs: inputs)
        }
        let finished = try await fanOut.run(children, caller: caller, progress: progress)
        let parts = zip(districts, finished).map { (district: $0, child: $1) }
        var inputs = shared
        inputs["scenario"] = .string(scenario.id)
        inputs["districts"] = .array(districts.map(JSONValue.string))
        inputs["parts"] = .array(parts.map { $0.child.result["run"]?["id"] ?? .null })
        return try await merge(parts, scenario: scenario, inputs: .object(inputs), runs: runs, caller: caller)
    }

    /// Writes the merged run of the districts' finished child jobs (in district order) and
    /// answers its result: `run`, `layers` (the merged run's), `summary` (the city's) and `districts`.
    static func merge(_ parts: [(district: String, child: JobFanOut.Finished)], scenario: FloodScenario, inputs: JSONValue,
                      runs: FloodRunCatalog, caller: Caller) async throws -> JSONValue {
        let store = runs.store
        let run = try await runs.begin(scenario, inputs: inputs, by: caller)
        var written: [String] = []
        var counts: [String: Int] = [:]
        var floodedRoadMetres = 0.0
        do {
            for suffix in suffixes {
                let sources: [(district: String, layer: String)] = parts.compactMap { part in
                    guard let stem = part.child.result["run"]?["stem"]?.stringValue else { return nil }
                    let layer = "\(stem)_\(suffix)"
                    let layers = part.child.result["layers"]?.arrayValue?.compactMap(\.stringValue) ?? []
                    return layers.contains(layer) ? (part.district, layer) : nil
                }
                guard !sources.isEmpty else { continue }
                var definition = try FloodResultLayers.definition(suffix: suffix, stem: run.stem, title: scenario.title,
                                                                  sharing: FloodRunCatalog.privateSharing, from: runs.templates)
                definition.schema = try withDistrict(definition.schema, layer: definition.id)
                try await store.createLayer(definition)
                written.append(definition.id)
                let merged = try await features(of: sources, suffix: suffix, store: store, caller: caller)
                counts[suffix] = merged.count
                if suffix == "roads" {
                    let flooded = merged.filter { $0.properties["flooded"] == .bool(true) }
                    counts["floodedRoads"] = flooded.count
                    floodedRoadMetres = try flooded.reduce(0) { $0 + (try $1.geometry?.geodesicLength() ?? 0) }
                }
                if suffix == "cutoff" { counts["cutOffResources"] = merged.filter { !$0.idText.hasPrefix("road/") }.count }
                var start = 0
                while start < merged.count {
                    let end = Swift.min(start + batch, merged.count)
                    try await store.insert(layer: definition.id, features: Array(merged[start..<end]), by: caller, at: nil)
                    start = end
                }
            }
        } catch {
            if let removal = store as? any LayerRemoval {
                for layer in written { _ = try? await removal.dropLayer(layer, by: caller) }
            }
            try? await runs.finish(run.id, layers: [], summary: nil, error: "merging the districts' results failed: \(error)", by: caller)
            throw error
        }
        let summary = joinedSummary(parts, scenario: scenario, counts: counts, floodedRoadMetres: floodedRoadMetres)
        try await runs.finish(run.id, layers: written, summary: summary, error: nil, by: caller)
        let entries: [JSONValue] = parts.map { district, child in
            ["district": .string(district), "job": .string(child.job), "run": child.result["run"] ?? .null,
             "layers": child.result["layers"] ?? .array([]), "summary": child.result["summary"] ?? .null]
        }
        let record = try await runs.run(run.id, by: caller)
        return ["run": record.document, "layers": .array(written.map(JSONValue.string)), "summary": summary, "districts": .array(entries)]
    }

    /// The features of the districts' `suffix` layers as the merged layer holds them (see the type's note).
    static func features(of sources: [(district: String, layer: String)], suffix: String, store: any FeatureStore,
                         caller: Caller) async throws -> [Feature] {
        let perDistrict = suffix == "depth" || suffix == "depth_steps"
        var merged: [Feature] = []
        var index: [String: Int] = [:]
        for (district, layer) in sources {
            for try await f in store.stream(layer: layer, FeatureQuery(limit: 2_000), by: caller) {
                var feature = f
                feature.properties["district"] = .string(district)
                if perDistrict {
                    feature.id = .string("\(district)/\(f.idText)")
                    merged.append(feature)
                    continue
                }
                let id = f.idText
                if let k = index[id] {
                    let kept = merged[k].properties["max_depth_m"]?.doubleValue ?? 0
                    if (feature.properties["max_depth_m"]?.doubleValue ?? 0) > kept { merged[k] = feature }
                } else {
                    index[id] = merged.count
                    merged.append(feature)
                }
            }
        }
        return merged
    }

    /// `schema` with the `district` property the merged layers add.
    static func withDistrict(_ schema: PropertySchema, layer: String) throws -> PropertySchema {
        guard var root = schema.json.objectValue else { return schema }
        var properties = root["properties"]?.objectValue ?? [:]
        properties["district"] = ["type": "string", "title": "片区（区）编号"]
        root["properties"] = .object(properties)
        return try PropertySchema(json: .object(root), layer: layer)
    }

    /// The city's summary: the districts' additive fields summed, the counts of the merged layers
    /// (`counts`: flooded roads, buildings, cut-off resources), the flooded roads' length measured
    /// on the merged roads layer (a seam's road once, on the CGCS2000 ellipsoid: a district's own
    /// summary measures in its projected grid, within 0.1 % of it), the worst mass-balance error and
    /// every district's maximum-depth raster.
    static func joinedSummary(_ parts: [(district: String, child: JobFanOut.Finished)], scenario: FloodScenario,
                              counts: [String: Int], floodedRoadMetres: Double) -> JSONValue {
        var totals: [String: Double] = [:]
        var worstBalance = 0.0
        var rasters: [JSONValue] = []
        for (_, child) in parts {
            guard let summary = child.result["summary"] else { continue }
            for key in additive { totals[key, default: 0] += summary[key]?.doubleValue ?? 0 }
            if let e = summary["massBalanceErrorPercent"]?.doubleValue, abs(e) > abs(worstBalance) { worstBalance = e }
            if let raster = summary["maxDepthRaster"], !raster.isNull { rasters.append(raster) }
        }
        var summary: [String: JSONValue] = [
            "scenario": .string(scenario.id),
            "districts": .integer(Int64(parts.count)),
            "massBalanceErrorPercent": .number(worstBalance),
            "maxDepthRasters": .array(rasters),
            "floodedRoads": .integer(Int64(counts["floodedRoads"] ?? 0)),
            "floodedBuildings": .integer(Int64(counts["buildings"] ?? 0)),
            "cutOffResources": .integer(Int64(counts["cutOffResources"] ?? 0)),
            "floodedRoadKilometres": .number(floodedRoadMetres / 1000),
        ]
        for key in additive { summary[key] = .number(totals[key] ?? 0) }
        return .object(summary)
    }
}
