import Foundation
import GeoCore
import ProcessRuntime
import TwinStore

/// `compare-scenarios`: the per-object differences between two finished scenarios of one kind
/// and one district (`ScenarioComparison`): a diff layer (`diff_<a>_<b>`, served like any
/// layer) and a summary table, b against a (difference = b − a). For the flood p50 pair, a
/// without and b with storage, the table shows fewer flooded roads with storage.
public struct CompareScenariosProcess: TypedProcess {
    public let id = "compare-scenarios"
    public let version = "1.0.0"
    public let title = "Compare two scenarios"
    public let description = "Per-object differences between two finished scenarios of one district (road depth, flooded buildings, cut-off resources for flood scenarios; delay per intersection for signal scenarios; parking search time per lot for parking scenarios): a diff layer and a summary table, b against a."
    public let jobControlOptions: [JobControlOption] = [.syncExecute, .asyncExecute]

    public init() {}

    public var outputs: [String: ProcessParameter] {
        [
            "layers": ProcessParameter(title: "Diff layer", description: "Id of the diff layer: one feature per changed object (kind, object_id, a, b, difference, change).",
                                       schema: ["type": "array", "items": ["type": "string"]]),
            "summary": ProcessParameter(title: "Summary", description: "The summary table (measure, unit, a, b, difference) and the changed objects per kind and change.",
                                        schema: ["type": "object"]),
        ]
    }

    public struct Input: ProcessInput {
        var a: String
        var b: String
        var acceptingDifferentConditions: Bool

        public init(from r: ProcessInputReader) throws {
            a = try ScenarioRunProcess.scenarioID(r, "a", ProcessParameter(title: "Scenario A", description: "Id of the reference scenario (e.g. without storage).",
                                                                          schema: ["type": "string"]))
            b = try ScenarioRunProcess.scenarioID(r, "b", ProcessParameter(title: "Scenario B", description: "Id of the scenario compared with it (e.g. with storage).",
                                                                          schema: ["type": "string"]))
            acceptingDifferentConditions = try r.bool(
                "acceptDifferentConditions", title: "Compare runs of different conditions",
                description: "Two runs compare only when they differ in the plan alone (sandbox changes, network upgrades, parking guidance): another storm, river stage, duration scale, DEM coarsening, output interval, start or DEM is refused (400 naming b and each condition). true compares them anyway: the summary then lists the differing conditions (conditionsDiffer, sameConditions false) and a note that the table is not the plan's effect.")
        }
    }

    public func layers(_ inputs: [String: JSONValue]) -> ProcessLayers {
        guard let input = try? Input(reading: inputs), case let (a, b) = (input.a, input.b), Scenario.isValidID(a), Scenario.isValidID(b) else {
            return ProcessLayers(reads: [ScenarioCatalog.layerID])
        }
        let sa = Scenario(id: a, district: "", base: Date()), sb = Scenario(id: b, district: "", base: Date())
        let reads = (["roads", "buildings", "cutoff"] + TrafficScenarioRun.suffixes).flatMap { ["\(sa.layerStem)_\($0)", "\(sb.layerStem)_\($0)"] }
        return ProcessLayers(reads: [ScenarioCatalog.layerID] + reads,
                             writes: [ProcessLayers.Write(ScenarioComparison.layerID(a: sa, b: sb), owner: ScenarioCatalog.owner)])
    }

    func scenarios(_ r: Input, store: any FeatureStore, caller: Caller) async throws -> (Scenario, Scenario) {
        let catalog = ScenarioCatalog(store: store)
        return (try await catalog.scenario(r.a, by: caller, field: "a"), try await catalog.scenario(r.b, by: caller, field: "b"))
    }

    /// Both scenarios exist (404 naming the input), have finished (409), share kind and district
    /// and ran under the same conditions unless `acceptDifferentConditions` (400 naming b).
    public func check(_ r: Input, store: any FeatureStore, caller: Caller) async throws {
        let (a, b) = try await scenarios(r, store: store, caller: caller)
        _ = try ScenarioComparison.check(a, b, acceptingDifferentConditions: r.acceptingDifferentConditions)
    }

    public func run(_ r: Input, store: any FeatureStore, caller: Caller, progress: JobProgress) async throws -> JSONValue {
        let (a, b) = try await scenarios(r, store: store, caller: caller)
        try await progress.report(.stage("comparing", fraction: 0))
        let comparison = try await ScenarioComparison.compare(a, b, store: store, by: caller,
                                                              acceptingDifferentConditions: r.acceptingDifferentConditions)
        try await progress.report(.stage("writing the diff layer", fraction: 0.8))
        let layer = try await comparison.write(to: store, by: caller)
        return ["layers": [.string(layer)], "summary": comparison.summary]
    }
}
