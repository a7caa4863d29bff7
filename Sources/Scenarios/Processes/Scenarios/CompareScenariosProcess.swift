import Foundation
import GeoCore
import TwinStore

/// `compare-scenarios`: the per-object differences between two finished scenarios of one kind
/// and one district (`ScenarioComparison`): a diff layer (`diff_<a>_<b>`, served like any
/// layer) and a summary table, b against a (difference = b − a). For the flood p50 pair, a
/// without and b with storage, the table shows fewer flooded roads with storage.
public struct CompareScenariosProcess: OGCProcess {
    public let id = "compare-scenarios"
    public let version = "1.0.0"
    public let title = "Compare two scenarios"
    public let description = "Per-object differences between two finished scenarios of one district (road depth, flooded buildings, cut-off resources for flood scenarios; delay per intersection for signal scenarios; parking search time per lot for parking scenarios): a diff layer and a summary table, b against a."
    public let jobControlOptions: [JobControlOption] = [.syncExecute, .asyncExecute]

    public init() {}

    public var inputs: [String: ProcessParameter] {
        [
            "a": ProcessParameter(title: "Scenario A", description: "Id of the reference scenario (e.g. without storage).", schema: ["type": "string"]),
            "b": ProcessParameter(title: "Scenario B", description: "Id of the scenario compared with it (e.g. with storage).", schema: ["type": "string"]),
        ]
    }

    public var outputs: [String: ProcessParameter] {
        [
            "layers": ProcessParameter(title: "Diff layer", description: "Id of the diff layer: one feature per changed object (kind, object_id, a, b, difference, change).",
                                       schema: ["type": "array", "items": ["type": "string"]]),
            "summary": ProcessParameter(title: "Summary", description: "The summary table (measure, unit, a, b, difference) and the changed objects per kind and change.",
                                        schema: ["type": "object"]),
        ]
    }

    static func ids(_ inputs: [String: JSONValue]) throws -> (String, String) {
        func id(_ name: String) throws -> String {
            guard let s = ProcessInputs.unwrap(inputs[name])?.stringValue else { throw ProcessInputError(name, "must be the id of a stored scenario (a string)") }
            return s
        }
        return (try id("a"), try id("b"))
    }

    public func layers(_ inputs: [String: JSONValue]) -> ProcessLayers {
        guard let (a, b) = try? Self.ids(inputs), Scenario.isValidID(a), Scenario.isValidID(b) else {
            return ProcessLayers(reads: [ScenarioCatalog.layerID])
        }
        let sa = Scenario(id: a, district: "", base: Date()), sb = Scenario(id: b, district: "", base: Date())
        let reads = (["roads", "buildings", "cutoff"] + TrafficScenarioRun.suffixes).flatMap { ["\(sa.layerStem)_\($0)", "\(sb.layerStem)_\($0)"] }
        return ProcessLayers(reads: [ScenarioCatalog.layerID] + reads,
                             writes: [ProcessLayers.Write(ScenarioComparison.layerID(a: sa, b: sb), owner: ScenarioCatalog.owner)])
    }

    func scenarios(_ inputs: [String: JSONValue], store: any FeatureStore, caller: Caller) async throws -> (Scenario, Scenario) {
        let (a, b) = try Self.ids(inputs)
        let catalog = ScenarioCatalog(store: store)
        return (try await catalog.scenario(a, by: caller, field: "a"), try await catalog.scenario(b, by: caller, field: "b"))
    }

    /// Both scenarios exist (404 naming the input), have finished (409) and share kind and district (400).
    public func validate(_ inputs: [String: JSONValue], store: any FeatureStore, caller: Caller) async throws {
        let (a, b) = try await scenarios(inputs, store: store, caller: caller)
        for (field, s) in [("a", a), ("b", b)] where s.status != .successful {
            throw ScenarioError(.scenarioNotFinished,
                                "scenario '\(s.id)' has no finished run (status \(s.status.rawValue)): run it first (POST /scenarios/\(s.id)/run)", field: field)
        }
        guard a.kind == b.kind, a.district == b.district else {
            throw ScenarioError(.invalidScenario,
                                "scenario '\(b.id)' (\(b.kind), district \(b.district)) and '\(a.id)' (\(a.kind), district \(a.district)) differ: only scenarios of one kind and one district compare",
                                field: "b")
        }
    }

    public func execute(_ inputs: [String: JSONValue], store: any FeatureStore, caller: Caller,
                        progress: JobProgress) async throws -> JSONValue {
        let (a, b) = try await scenarios(inputs, store: store, caller: caller)
        try await progress.report(.stage("comparing", fraction: 0))
        let comparison = try await ScenarioComparison.compare(a, b, store: store, by: caller)
        try await progress.report(.stage("writing the diff layer", fraction: 0.8))
        let layer = try await comparison.write(to: store, by: caller)
        return ["layers": [.string(layer)], "summary": comparison.summary]
    }
}
