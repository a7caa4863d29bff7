import Foundation
import GeoCore
import ProcessRuntime
import TwinStore

/// A `flood-scenario` job over a city of several districts (issue 57 §4): the job becomes the
/// parent of one child job per district's drainage network (`flood-scenario` with `district`),
/// which the workers sharing the job table claim and run (`JobFanOut`), and its result joins the
/// children's: every district's run, layers and summary, and the city's totals.
///
/// Each child is a flood run of its own in `flood_runs` (its own layers and rasters, its ids and
/// names the district's: `D007-…`), so the joined result lists the runs it is made of; the totals
/// add what adds (areas, volumes, counts) and keep the worst mass-balance error.
enum FloodCityJob {
    /// Summary fields that add up over districts.
    static let additive = ["cells", "nodes", "links", "subcatchments", "linkedManholes", "floodedAreaSquareMetres", "peakFloodVolume",
                           "spilledVolume", "drainedVolume", "outfallVolume", "floodedRoadKilometres", "floodedRoads", "floodedBuildings",
                           "cutOffResources", "runSeconds"]

    static func run(_ input: FloodScenarioProcess.Input, districts: [String], fanOut: JobFanOut, caller: Caller,
                    progress: JobProgress) async throws -> JSONValue {
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
        return join(zip(districts, finished).map { ($0, $1) })
    }

    /// The joined result of the districts' finished child jobs (in district order).
    static func join(_ parts: [(district: String, child: JobFanOut.Finished)]) -> JSONValue {
        var layers: [JSONValue] = []
        var entries: [JSONValue] = []
        var totals: [String: Double] = [:]
        var worstBalance = 0.0
        var rasters: [JSONValue] = []
        for (district, child) in parts {
            let result = child.result
            layers += result["layers"]?.arrayValue ?? []
            entries.append(["district": .string(district), "job": .string(child.job), "run": result["run"] ?? .null,
                            "layers": result["layers"] ?? .array([]), "summary": result["summary"] ?? .null])
            guard let summary = result["summary"] else { continue }
            for key in additive { totals[key, default: 0] += summary[key]?.doubleValue ?? 0 }
            if let e = summary["massBalanceErrorPercent"]?.doubleValue, abs(e) > abs(worstBalance) { worstBalance = e }
            if let raster = summary["maxDepthRaster"], !raster.isNull { rasters.append(raster) }
        }
        var summary: [String: JSONValue] = [
            "scenario": parts.first?.child.result["summary"]?["scenario"] ?? .null,
            "districts": .integer(Int64(parts.count)),
            "massBalanceErrorPercent": .number(worstBalance),
            "maxDepthRasters": .array(rasters),
        ]
        for key in additive { summary[key] = .number(totals[key] ?? 0) }
        return ["layers": .array(layers), "summary": .object(summary), "districts": .array(entries)]
    }
}
