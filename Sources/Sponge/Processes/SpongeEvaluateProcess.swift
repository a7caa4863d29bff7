import Foundation
import GeoCore
import ProcessRuntime
import TwinStore

/// `sponge-evaluate`: `citytwin sponge evaluate` over the store's district — the annual runoff
/// volume capture rate of each subcatchment, drainage zone and the whole district by continuous
/// simulation over a rainfall record (inline or a rain gauge's Datastream), for the base network
/// or a named plan of the `lid_facilities` layer written into it (`DistrictSponge`), with the
/// record's design depth for the target rate. A long record runs as a job with progress.
public struct SpongeEvaluateProcess: TypedProcess {
    public let id = "sponge-evaluate"
    public let version = "1.0.0"
    public let title = "Sponge city: capture rate of a LID plan (GB/T 51345-2018)"
    public let description = "The annual runoff volume capture rate (年径流总量控制率) of each subcatchment, drainage zone and the whole district by continuous runoff simulation over a daily rainfall record (inline or a rain gauge's SensorThings Datastream), for the store's drainage network as the flood runs build it, with the LID facilities of a named plan of layer lid_facilities written into it (base: none); and the record's design rainfall depth for the target rate."
    public let jobControlOptions: [JobControlOption] = [.syncExecute, .asyncExecute]

    public init() {}

    public struct Input: ProcessInput {
        var rainfall: RainfallRecordInput
        var plan: String
        var targetRate: Double

        public init(from r: ProcessInputReader) throws {
            rainfall = try RainfallRecordInput(from: r)
            plan = try r.optionalString("plan", title: "LID plan",
                                        description: "The plan (lid_facilities.plan) whose facilities are written into the district's model; \(LIDFacilityLayer.basePlan) (default): the network without LID facilities.")
                ?? LIDFacilityLayer.basePlan
            targetRate = try r.number("targetRate", title: "Target capture rate",
                                      description: "The rate whose design rainfall depth the answer gives from the same record, 0.5…0.95.", in: 0.5...0.95, default: 0.75)
        }
    }

    public var outputs: [String: ProcessParameter] {
        ["plan": ProcessParameter(title: "Plan", description: "The plan's facilities, area (m²), Σ total cost (元) and facilities by type.", schema: ["type": "object"]),
         "designRainfall": ProcessParameter(title: "Design depth", description: "The target rate and its design rainfall depth from the record (mm).", schema: ["type": "object"]),
         "evaluation": ProcessParameter(title: "Capture rates", description: "`citytwin sponge evaluate --json`'s document: capture rate per subcatchment, drainage zone and the model, runoff continuity, the record, warnings.",
                                        schema: ["type": "object"])]
    }

    public func layers(_ inputs: [String: JSONValue]) -> ProcessLayers {
        let input = try? Input(reading: inputs)
        let plan = input?.plan ?? ProcessInputs.unwrap(inputs["plan"])?.stringValue ?? LIDFacilityLayer.basePlan
        return ProcessLayers(reads: DistrictSponge.reads(plans: [plan]) + (input?.rainfall.reads ?? []),
                             optionalReads: DistrictSponge.optionalNetworkLayers)
    }

    /// The plan exists and its facilities are sound (before a job is accepted).
    public func check(_ input: Input, store: any FeatureStore, caller: Caller) async throws {
        _ = try await LIDFacilityLayer.plan(input.plan, store: store, caller: caller)
    }

    public func run(_ input: Input, store: any FeatureStore, caller: Caller, progress: JobProgress) async throws -> JSONValue {
        try await progress.report(.stage("reading the plan and the rainfall record", fraction: 0))
        let facilities = try await LIDFacilityLayer.plan(input.plan, store: store, caller: caller)
        let record = try await input.rainfall.record(store: store)
        let design = try DesignRainfall(record: record, rate: input.targetRate, source: "dailyRainfall")
        let evaluation = try await LatestProgress.run(reporting: progress) { report in
            try await DistrictSponge.evaluate(plan: facilities, record: record, store: store, caller: caller, progress: report)
        }
        return ["plan": try ProcessOutput.json(LIDPlanSummary(plan: input.plan, facilities: facilities)),
                "designRainfall": ["targetRate": .number(input.targetRate), "depthMillimetres": .number(design.designRainfallMillimetres),
                                   "countedDays": .integer(Int64(design.countedDays))],
                "evaluation": try ProcessOutput.json(evaluation)]
    }
}
