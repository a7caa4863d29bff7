import Flood
import Foundation
import GeoCore
import ProcessRuntime
import Sponge
import TwinStore

/// `compare-scenarios`: the per-object differences between two finished scenarios of one kind
/// and one district (`ScenarioComparison`): a diff layer (`diff_<a>_<b>`, served like any
/// layer) and a summary table, b against a (difference = b − a). For the flood p50 pair, a
/// without and b with storage, the table shows fewer flooded roads with storage.
///
/// With `kind` `lid-plans`, a and b are two plans of the `lid_facilities` layer (a may be `base`,
/// the network without LID facilities), compared by `LIDPlanComparison`: capture rate over a
/// rainfall record, the design storm's peak flow at the outfalls and flooding volume, and cost.
public struct CompareScenariosProcess: TypedProcess {
    public let id = "compare-scenarios"
    public let version = "1.0.0"
    public let title = "Compare two scenarios"
    public let description = "Per-object differences between two finished scenarios of one district (road depth, flooded buildings, cut-off resources for flood scenarios; delay per intersection for signal scenarios; parking search time per lot for parking scenarios): a diff layer and a summary table, b against a. With kind lid-plans: two sponge-city LID plans (or a plan against base) by annual runoff volume capture rate, the design storm's peak flow at the outfalls, flooding volume and cost."
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

    /// What is compared.
    public enum Kind: String, Sendable, CaseIterable { case scenarios, lidPlans = "lid-plans" }

    /// The inputs of a LID plan comparison.
    public struct LIDPlanInputs: Sendable {
        var rainfall: RainfallRecordInput
        var storm: FloodScenario
    }

    public struct Input: ProcessInput {
        var kind: Kind
        var a: String
        var b: String
        var acceptingDifferentConditions: Bool
        /// Set for `lid-plans`.
        var lidPlans: LIDPlanInputs?

        public init(from r: ProcessInputReader) throws {
            kind = Kind(rawValue: try r.choice("kind", title: "What is compared",
                                               description: "scenarios (default): two finished scenarios. lid-plans: two plans of layer lid_facilities (a may be base, the network without LID facilities) by capture rate over a rainfall record, the design storm's peak flow at the outfalls, flooding and cost.",
                                               among: Kind.allCases.map(\.rawValue), default: Kind.scenarios.rawValue) {
                "is '\($0)'; one of \(Kind.allCases.map(\.rawValue).joined(separator: ", "))"
            }) ?? .scenarios
            if kind == .lidPlans {
                a = try r.string("a", title: "Scenario A", description: "", placeholder: LIDFacilityLayer.basePlan)
                b = try r.string("b", title: "Scenario B", description: "", placeholder: "")
                guard a != b else { throw ProcessInputError("b", "compares plan \(b) with itself: name two different plans") }
                guard b != LIDFacilityLayer.basePlan else { throw ProcessInputError("b", "is the base network; put the base as a and the plan as b") }
            } else {
                a = try ScenarioRunProcess.scenarioID(r, "a", ProcessParameter(title: "Scenario A", description: "Id of the reference scenario (e.g. without storage); with kind lid-plans the reference plan (base: the network without LID facilities).",
                                                                              schema: ["type": "string"]))
                b = try ScenarioRunProcess.scenarioID(r, "b", ProcessParameter(title: "Scenario B", description: "Id of the scenario compared with it (e.g. with storage); with kind lid-plans the plan compared with it.",
                                                                              schema: ["type": "string"]))
            }
            acceptingDifferentConditions = try r.bool(
                "acceptDifferentConditions", title: "Compare runs of different conditions",
                description: "Two runs compare only when they differ in the plan alone (sandbox changes, network upgrades, parking guidance): another storm, river stage, duration scale, DEM coarsening, output interval, start or DEM is refused (400 naming b and each condition). true compares them anyway: the summary then lists the differing conditions (conditionsDiffer, sameConditions false) and a note that the table is not the plan's effect.")
            let rainfall = try RainfallRecordInput.read(r, required: kind == .lidPlans)
            let period = try r.number("returnPeriod", title: "Design storm return period",
                                      description: "With kind lid-plans: the return period of the design storm routed for peak flows and flooding, years (1…100).", in: 1...100)
            let minutes = try r.number("stormMinutes", title: "Design storm duration",
                                       description: "With kind lid-plans: the design storm's duration, minutes (30…1440).", in: 30...1440)
            guard !r.isDescribing else { return }
            guard kind == .lidPlans else {
                for name in ["dailyRainfall", "datastream", "from", "to", "returnPeriod", "stormMinutes"] where r.isGiven(name) {
                    throw ProcessInputError(name, "applies to kind lid-plans only")
                }
                return
            }
            guard let rainfall else { throw ProcessInputError("dailyRainfall", "is required with kind lid-plans") }
            do {
                lidPlans = LIDPlanInputs(rainfall: rainfall, storm: try DistrictSponge.designStorm(returnPeriod: period ?? 2, minutes: minutes ?? 120))
            } catch let e as ScenarioError {
                throw ProcessInputError(e.field == "duration_min" ? "stormMinutes" : "returnPeriod", e.message)
            }
        }
    }

    public func layers(_ inputs: [String: JSONValue]) -> ProcessLayers {
        if let input = try? Input(reading: inputs), let lid = input.lidPlans {
            return ProcessLayers(reads: DistrictSponge.reads(plans: [input.a, input.b]) + lid.rainfall.reads,
                                 optionalReads: DistrictSponge.optionalNetworkLayers)
        }
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
        if r.lidPlans != nil {
            _ = try await LIDFacilityLayer.plan(r.a, store: store, caller: caller, field: "a")
            _ = try await LIDFacilityLayer.plan(r.b, store: store, caller: caller, field: "b")
            return
        }
        let (a, b) = try await scenarios(r, store: store, caller: caller)
        _ = try ScenarioComparison.check(a, b, acceptingDifferentConditions: r.acceptingDifferentConditions)
    }

    public func run(_ r: Input, store: any FeatureStore, caller: Caller, progress: JobProgress) async throws -> JSONValue {
        if let lid = r.lidPlans { return try await compareLIDPlans(r, lid, store: store, caller: caller, progress: progress) }
        let (a, b) = try await scenarios(r, store: store, caller: caller)
        try await progress.report(.stage("comparing", fraction: 0))
        let comparison = try await ScenarioComparison.compare(a, b, store: store, by: caller,
                                                              acceptingDifferentConditions: r.acceptingDifferentConditions)
        try await progress.report(.stage("writing the diff layer", fraction: 0.8))
        let layer = try await comparison.write(to: store, by: caller)
        return ["layers": [.string(layer)], "summary": comparison.summary]
    }

    /// Both plans measured over the same record and design storm, a then b, and compared.
    private func compareLIDPlans(_ r: Input, _ lid: LIDPlanInputs, store: any FeatureStore, caller: Caller,
                                 progress: JobProgress) async throws -> JSONValue {
        try await progress.report(.stage("reading the rainfall record", fraction: 0))
        let record = try await lid.rainfall.record(store: store)
        let comparison = try await LatestProgress.run(reporting: progress) { report in
            let a = try await LIDPlanMeasures.measure(plan: r.a, record: record, storm: lid.storm, store: store, caller: caller, field: "a") {
                report($0.within(0...0.5))
            }
            let b = try await LIDPlanMeasures.measure(plan: r.b, record: record, storm: lid.storm, store: store, caller: caller, field: "b") {
                report($0.within(0.5...1))
            }
            return LIDPlanComparison(a: a, b: b)
        }
        return ["layers": [], "summary": try ProcessOutput.json(comparison)]
    }
}
