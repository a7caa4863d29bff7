import Flood
import Foundation
import GeoCore
import ProcessRuntime
import TwinStore

/// `scenario-run`: runs a stored `Scenario` as a job (`POST /scenarios/{id}/run` submits it,
/// `citytwin scenario run` runs it through `ProcessRunner`). The run reads the map as of the
/// scenario's base with its sandbox changes applied in memory only, so the live layers are never
/// touched. A flood scenario writes the result layers `scenario_<id>_depth|roads|buildings|cutoff`,
/// the depth per output step and the series over time (`FloodTimeSteps`); a signal scenario
/// `scenario_<id>_intersections` (delay per intersection), a parking scenario
/// `scenario_<id>_parking` (search time per lot) (`TrafficScenarioRun`). The run records status
/// and results in the scenario (a new version of its record). The results are a what-if and a
/// draft of the owner (`ScenarioCatalog`): no other department sees them until it publishes them.
public struct ScenarioRunProcess: TypedProcess {
    public let id = "scenario-run"
    public let version = "1.0.0"
    public let title = "Run a scenario"
    public let description = "Runs a stored scenario (its base map instant, sandbox changes and model parameters) and records its results: result layers scenario_<id>_*, depth per time step as grids and map tiles, hydrographs at nodes and depth over time on roads."
    public let jobControlOptions: [JobControlOption] = [.asyncExecute, .dismiss]

    /// The flood process whose DEM, storm catalogue, templates and raster directory a flood scenario uses.
    public let flood: FloodScenarioProcess

    public init(flood: FloodScenarioProcess) {
        self.flood = flood
    }

    public var outputs: [String: ProcessParameter] {
        [
            "scenario": ProcessParameter(title: "Scenario", description: "The scenario with its status and results.", schema: ["type": "object"]),
            "layers": ProcessParameter(title: "Result layers", description: "Ids of the layers written.", schema: ["type": "array", "items": ["type": "string"]]),
            "summary": ProcessParameter(title: "Summary", description: "The flood run's summary (as flood-scenario's), with timeSteps: the steps and the series' paths.",
                                        schema: ["type": "object"]),
        ]
    }

    public struct Input: ProcessInput {
        var scenario: String

        public init(from r: ProcessInputReader) throws {
            scenario = try ScenarioRunProcess.scenarioID(r, "scenario", ProcessParameter(
                title: "Scenario", description: "Id of a stored scenario (/scenarios).", schema: ["type": "string"]))
        }
    }

    /// The required input `name` (described by `parameter`): a stored scenario's id.
    static func scenarioID(_ r: ProcessInputReader, _ name: String, _ parameter: ProcessParameter) throws -> String {
        let value = r.value(name, parameter)
        guard !r.isDescribing else { return "" }
        guard let id = value?.stringValue else { throw ProcessInputError(name, "must be the id of a stored scenario (a string)") }
        return id
    }

    public func layers(_ inputs: [String: JSONValue]) -> ProcessLayers {
        let base = flood.layers([:])
        let stem = (try? Input(reading: inputs)).map(\.scenario).flatMap { Scenario.isValidID($0) ? Scenario(id: $0, district: "", base: Date()).layerStem : nil }
            ?? "scenario_<id>"
        return ProcessLayers(reads: base.reads + [ScenarioCatalog.layerID], optionalReads: base.optionalReads,
                             writes: (FloodResultLayers.suffixes + ["depth_steps"] + TrafficScenarioRun.suffixes)
                                 .map { ProcessLayers.Write("\(stem)_\($0)", owner: FloodResultLayers.owner) }
                                 + [ProcessLayers.Write(ScenarioCatalog.layerID, owner: ScenarioCatalog.owner)])
    }

    public func check(_ r: Input, store: any FeatureStore, caller: Caller) async throws {
        let scenario = try await ScenarioCatalog(store: store).scenario(r.scenario, by: caller)
        if scenario.kind == "flood" { _ = try request(scenario) } else { try TrafficScenarioRun.validate(scenario) }
    }

    /// The flood model and run options of `scenario`.
    func request(_ scenario: Scenario) throws -> (FloodScenario, FloodScenarioRun.Options) {
        let model = try ScenarioFloodModel(scenario, flood: flood)
        // A PostGIS store has no directory for the DEM: the scenario names it (`parameters.dem`).
        var options: FloodScenarioRun.Options
        do { options = try flood.runOptions(scenario.parameters["dem"].map { ["dem": $0] } ?? [:]) } catch let e as ProcessInputError {
            throw ScenarioError(.invalidScenario, e.reason, field: "parameters.\(e.input)")
        }
        options.durationScale = model.durationScale
        options.demCoarsening = model.demCoarsening
        options.asOf = scenario.base
        options.changes = scenario.changes
        options.outputInterval = model.outputInterval
        options.start = scenario.start
        // A what-if: its layers say so, and are the owner's until it publishes them (`ScenarioCatalog.publish`).
        options.resultSharing = ScenarioCatalog.draftSharing
        options.resultConditions = scenario.conditions
        return (model.flood, options)
    }

    public func run(_ r: Input, store: any FeatureStore, caller: Caller, progress: JobProgress) async throws -> JSONValue {
        let catalog = ScenarioCatalog(store: store)
        let id = r.scenario
        let read = try await catalog.scenario(id, by: caller)
        let flood = read.kind == "flood" ? try request(read) : nil
        if flood == nil { try TrafficScenarioRun.validate(read) }
        // Each status change is made to the record as stored when it lands (the server adds the job
        // id to it at about the same time): nothing another writer put there is lost.
        // A new run is a draft: the record says so first, then the last run's layers (and the
        // comparisons made of them) are hidden until the owner publishes the new results.
        let scenario = try await catalog.update(id, by: caller) {
            $0.status = .running
            $0.error = nil
            $0.state = .draft
        }
        try await catalog.shareResults(of: scenario)
        var layers: [String] = []
        let summaryJSON: JSONValue
        do {
            if let (model, options) = flood {
                let summary = try await LatestProgress.run(reporting: progress) { report in
                    try await FloodScenarioRun.run(model, store: store, caller: caller, options: options, progress: report)
                }
                layers = summary.layers
                summaryJSON = try JSONOutput.value(summary)
            } else {
                let report: (Double) async throws -> Void = { try await progress.report(.stage("running the \(scenario.kind) scenario", fraction: $0)) }
                let run = scenario.kind == "signal"
                    ? try await TrafficScenarioRun.runSignal(scenario, store: store, by: caller, progress: report)
                    : try await TrafficScenarioRun.runParking(scenario, store: store, by: caller, progress: report)
                layers = run.layers
                summaryJSON = run.summary
            }
        } catch {
            // The record says why; the job says it too (its failure is the error thrown on).
            let reason = error is CancellationError ? "the run was dismissed" : String(describing: error)
            _ = try? await catalog.update(id, by: caller) {
                $0.status = .failed
                $0.error = reason
            }
            if let e = error as? ScenarioError, let field = e.field { throw ProcessInputError(field == "dem" ? "dem" : "scenario", e.message) }
            throw error
        }
        var result: [String: JSONValue] = ["layers": .array(layers.map(JSONValue.string)), "summary": summaryJSON]
        if let (model, options) = flood {
            result["depthLayer"] = .string(scenario.depthLayer)
            // What the run depended on besides the plan: compare-scenarios compares like with like.
            result["conditions"] = ScenarioRunConditions.flood(model, durationScale: options.durationScale, demCoarsening: options.demCoarsening,
                                                               outputInterval: options.outputInterval, parameters: scenario.parameters).json
        }
        let done = try await catalog.update(id, by: caller) {
            $0.status = .successful
            $0.error = nil
            $0.result = .object(result)
        }
        return ["scenario": done.document, "layers": .array(layers.map(JSONValue.string)), "summary": summaryJSON]
    }
}
