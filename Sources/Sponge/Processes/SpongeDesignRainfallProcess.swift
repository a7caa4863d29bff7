import GeoCore
import ProcessRuntime
import TwinStore

/// `sponge-design-rainfall`: `citytwin sponge design-rainfall` as a process — the design rainfall
/// depth for a target annual runoff volume capture rate and the rate–depth curve by GB/T
/// 51345-2018 (`DesignRainfall`), from a record given inline (run without a store) or a rain
/// gauge's SensorThings Datastream.
public struct SpongeDesignRainfallProcess: LayerFreeTypedProcess {
    public let id = "sponge-design-rainfall"
    public let version = "1.0.0"
    public let title = "Sponge city: design rainfall for a capture rate (GB/T 51345-2018)"
    public let description = "The design rainfall depth (设计降雨量) for a target annual runoff volume capture rate (年径流总量控制率) and the rate–depth curve, by GB/T 51345-2018's statistical method (days of at most 2 mm and snow left out), from a daily rainfall record given inline or read from a rain gauge's SensorThings Datastream."
    public let jobControlOptions: [JobControlOption] = [.syncExecute, .asyncExecute]

    public init() {}

    public struct Input: ProcessInput {
        var rainfall: RainfallRecordInput
        var rate: Double

        public init(from r: ProcessInputReader) throws {
            rainfall = try RainfallRecordInput(from: r)
            rate = try r.number("rate", title: "Target capture rate", description: "The annual runoff volume capture rate, 0.5…0.95 (0.75 for 75 %).",
                                in: 0.5...0.95, default: 0.75)
        }
    }

    public var outputs: [String: ProcessParameter] {
        ["designRainfall": ProcessParameter(title: "Design rainfall", description: "`citytwin sponge design-rainfall --json`'s document: the design depth (mm), the curve, the record's coverage, the days counted and left out, warnings.",
                                            schema: ["type": "object"])]
    }

    public func layers(_ inputs: [String: JSONValue]) -> ProcessLayers {
        ProcessLayers(reads: ((try? Input(reading: inputs))?.rainfall.reads ?? (inputs["datastream"] == nil ? [] : [SensingAlerts.governingLayer])))
    }

    public func check(_ input: Input, caller: Caller) async throws {
        guard !input.rainfall.readsStore else { throw ProcessInputError("datastream", "a Datastream is read from a store; give dailyRainfall inline to run without one") }
    }

    public func run(_ input: Input, caller: Caller, progress: JobProgress) async throws -> JSONValue {
        try await answer(input, store: nil)
    }

    public func run(_ input: Input, store: any FeatureStore, caller: Caller, progress: JobProgress) async throws -> JSONValue {
        try await answer(input, store: store)
    }

    private func answer(_ input: Input, store: (any FeatureStore)?) async throws -> JSONValue {
        let record = try await input.rainfall.record(store: store)
        let design = try DesignRainfall(record: record, rate: input.rate, source: "dailyRainfall")
        return ["designRainfall": try ProcessOutput.json(design)]
    }
}
