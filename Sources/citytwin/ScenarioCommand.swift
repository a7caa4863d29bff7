import ArgumentParser
import Flood
import Foundation
import GeoCore
import ProcessRuntime
import Scenarios
import TwinStore

/// `citytwin scenario create|list|show|run|compare`: planners' scenarios in the store
/// (`ScenarioCatalog`, the same records as `/scenarios`) on a local store as the admin. `run`
/// and `compare` run processes `scenario-run` and `compare-scenarios` through `ProcessRunner`.
struct ScenarioCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "scenario",
        abstract: "Scenarios: a base map instant, sandbox changes and model parameters; run them and compare two.",
        subcommands: [Create.self, List.self, Show.self, Run.self, Publish.self, Archive.self, Compare.self])

    struct Create: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Creates a scenario (from --file, a scenario document as POST /scenarios takes, or from the options).")

        @Argument(help: "Scenario id ([a-z][a-z0-9-]{0,24}; names the result layers scenario_<id>_*).")
        var id: String?
        @Option(help: "A JSON scenario document {id, title, kind, district, base, parameters, changes}.")
        var file: String?
        @Option(help: "Title.")
        var title: String?
        @Option(help: "What the scenario simulates: flood (default), signal (delay per intersection) or parking (search time per lot).")
        var kind: String?
        @Option(help: "Flood model: a file name of Models/scenarios, e.g. p50-waterlogging.")
        var model: String?
        @Option(help: "Signal scenario: the period whose counts load the plans, HH:MM-HH:MM (default 07:00-09:00).")
        var period: String?
        @Option(help: "Parking scenario: how drivers find a lot, unguided (default) or guided.")
        var guidance: String?
        @Option(help: "Base map instant (RFC 3339; default now).")
        var base: String?
        @Option(help: "District (admin division code; default the root division).")
        var district: String?
        @Option(help: "Scale the storm duration for a quick run (0–1].")
        var durationScale: Double?
        @Option(help: "Coarsen the DEM by this block factor (1–10).")
        var demCoarsening: Int?
        @Option(help: "Minutes between the depth snapshots kept (default 5).")
        var outputIntervalMinutes: Double?
        @Option(help: "A JSON file of sandbox changes: [{\"layer\", \"op\": \"upsert\"|\"delete\", \"feature\" | \"id\"}].")
        var changes: String?
        @OptionGroup var storeOption: StoreOption

        func run() async throws {
            var document: [String: JSONValue] = [:]
            if let file { document = try readJSON(file, option: "--file").objectValue ?? [:] }
            if let id { document["id"] = .string(id) }
            if let title { document["title"] = .string(title) }
            if let kind { document["kind"] = .string(kind) }
            if let base { document["base"] = .string(base) }
            if let district { document["district"] = .string(district) }
            var parameters = document["parameters"]?.objectValue ?? [:]
            if let model { parameters["model"] = .string(model) }
            if let period { parameters["period"] = .string(period) }
            if let guidance { parameters["guidance"] = .string(guidance) }
            if let durationScale { parameters["durationScale"] = .number(durationScale) }
            if let demCoarsening { parameters["demCoarsening"] = .integer(Int64(demCoarsening)) }
            if let outputIntervalMinutes { parameters["outputIntervalMinutes"] = .number(outputIntervalMinutes) }
            if !parameters.isEmpty { document["parameters"] = .object(parameters) }
            if let changes { document["changes"] = try readJSON(changes, option: "--changes") }
            let location = try StoreLocation(storeOption.path)
            let store = try await location.openExisting()
            let flood = ProcessRegistry.forStore(directory: location.directory)["flood-scenario"] as? FloodScenarioProcess ?? FloodScenarioProcess()
            let scenario = try await ScenarioCatalog(store: store).create(.object(document), by: .admin, flood: flood)
            try printJSONDocument(scenario.document)
        }
    }

    struct List: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Lists the scenarios: id, status, state (draft, published, archived), district, base, result layers.")
        @OptionGroup var storeOption: StoreOption

        func run() async throws {
            let store = try await StoreLocation(storeOption.path).openExisting()
            let list = try await ScenarioCatalog(store: store).list(by: .admin)
            if list.isEmpty { print("no scenarios (create one with `citytwin scenario create`)") }
            for s in list {
                let layers = s.result?.objectValue?["layers"]?.arrayValue?.compactMap(\.stringValue) ?? []
                print("\(s.id)\t\(s.status.rawValue)\t\(s.state.rawValue)\t\(s.kind)\tdistrict \(s.district)\tbase \(Scenario.instantText(s.base))\t\(s.changes.count) changes"
                      + (layers.isEmpty ? "" : "\t" + layers.joined(separator: ",")))
            }
        }
    }

    struct Show: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Prints a scenario as JSON.")
        @Argument(help: "Scenario id.")
        var id: String
        @OptionGroup var storeOption: StoreOption

        func run() async throws {
            let store = try await StoreLocation(storeOption.path).openExisting()
            try printJSONDocument(try await ScenarioCatalog(store: store).scenario(id, by: .admin).document)
        }
    }

    struct Run: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Runs a scenario (process scenario-run) and prints its summary; the live layers are not touched.")
        @Argument(help: "Scenario id.")
        var id: String
        @OptionGroup var storeOption: StoreOption

        func run() async throws {
            let bar = ProgressBar("scenario \(id)")
            let result = try await ProcessRunner(store: storeOption.path).run("scenario-run", ["scenario": .string(id)], progress: bar.progress)
            bar.finish(.stage("done", fraction: 1))
            let summary = result["summary"]
            func n(_ key: String) -> String { plain(summary?[key]) }
            print("Scenario \(id): \(n("floodedRoads")) flooded roads (\(n("floodedRoadKilometres")) km), \(n("floodedBuildings")) buildings, "
                  + "\(n("cutOffResources")) cut-off resources; mass balance error \(n("massBalanceErrorPercent")) %")
            print("  layers: " + (result["layers"]?.arrayValue?.compactMap(\.stringValue).joined(separator: ", ") ?? ""))
            if let steps = summary?["timeSteps"]?["steps"]?.arrayValue {
                print("  time steps: \(steps.count), depth tiles at /collections/scenario_\(id.replacingOccurrences(of: "-", with: "_"))_depth/map/tiles/WebMercatorQuad/{z}/{y}/{x}?datetime=…")
            }
        }
    }

    struct Publish: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Publishes a finished scenario's results (POST /scenarios/{id}/publish): shared with every department, marked 情景（非实况）, never on by default on the web map.")
        @Argument(help: "Scenario id.")
        var id: String
        @OptionGroup var storeOption: StoreOption

        func run() async throws {
            let store = try await StoreLocation(storeOption.path).openExisting()
            let scenario = try await ScenarioCatalog(store: store).publish(id, by: .admin)
            print("published \(scenario.id) as a what-if (情景（非实况）): layers \(scenario.resultLayers.joined(separator: ", "))")
        }
    }

    struct Archive: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Archives a scenario (POST /scenarios/{id}/archive): the record stays, its result layers are the owner's alone again.")
        @Argument(help: "Scenario id.")
        var id: String
        @OptionGroup var storeOption: StoreOption

        func run() async throws {
            let store = try await StoreLocation(storeOption.path).openExisting()
            let scenario = try await ScenarioCatalog(store: store).archive(id, by: .admin)
            print("archived \(scenario.id): layers \(scenario.resultLayers.joined(separator: ", ")) are \(ScenarioCatalog.owner)'s alone")
        }
    }

    struct Compare: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Compares two finished scenarios (process compare-scenarios): the summary table, and the diff layer's id.")
        @Argument(help: "Scenario A (the reference).")
        var a: String
        @Argument(help: "Scenario B.")
        var b: String
        @Flag(help: "Print the whole result as JSON.")
        var json = false
        @Flag(help: "Compare runs of different conditions (storm, river stage, duration scale, coarsening, output interval, start, DEM) anyway; the table is then marked.")
        var acceptDifferentConditions = false
        @OptionGroup var storeOption: StoreOption

        func run() async throws {
            var inputs: [String: JSONValue] = ["a": .string(a), "b": .string(b)]
            if acceptDifferentConditions { inputs["acceptDifferentConditions"] = .bool(true) }
            let result = try await ProcessRunner(store: storeOption.path).run("compare-scenarios", inputs)
            if json { return try printJSONDocument(result) }
            if let note = result["summary"]?["note"]?.stringValue { print(note) }
            print("measure\tunit\t\(a)\t\(b)\tdifference")
            for row in result["summary"]?["table"]?.arrayValue ?? [] {
                let cells = ["measure", "unit", "a", "b", "difference"].map { plain(row[$0]) }
                print(cells.joined(separator: "\t"))
            }
            print("diff layer: " + (result["layers"]?.arrayValue?.compactMap(\.stringValue).joined(separator: ", ") ?? ""))
        }
    }
}

/// A JSON scalar as plain text (numbers to 3 decimals at most).
private func plain(_ value: JSONValue?) -> String {
    switch value {
    case .string(let s)?: return s
    case .integer(let i)?: return String(i)
    case .number(let d)?: return d == d.rounded() && abs(d) < 1e15 ? String(Int64(d)) : String(format: "%.3f", d)
    case .bool(let b)?: return String(b)
    default: return "?"
    }
}

/// A JSON file's value.
private func readJSON(_ path: String, option: String) throws -> JSONValue {
    guard let data = FileManager.default.contents(atPath: path) else { throw CommandFailure("\(option) \(path): cannot be read") }
    guard let value = try? JSONDecoder().decode(JSONValue.self, from: data) else { throw CommandFailure("\(option) \(path): not JSON") }
    return value
}

