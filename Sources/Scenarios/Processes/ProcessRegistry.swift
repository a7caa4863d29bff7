import Foundation
import GeoCore
import TwinStore

/// The processes the API offers, by id. Simulations and analyses add themselves to
/// `standard` in their own issues.
public struct ProcessRegistry: Sendable {
    public let processes: [any OGCProcess]

    public init(_ processes: [any OGCProcess]) {
        self.processes = processes
    }

    /// Every process CityTwin ships. The flood scenario reads its DEM from the store's managed
    /// rasters and writes its result rasters beside a SpatiaLite store (`forStore(directory:)`);
    /// without a directory it writes no raster.
    public static let standard = forStore(directory: nil)

    /// The standard processes for a store whose files live in `directory` (the result rasters in
    /// `rasters`, by default `ResultRasters.beside(storeDirectory:)`).
    public static func forStore(directory: URL?, rasters: ResultRasters? = nil) -> ProcessRegistry {
        let flood = FloodScenarioProcess(rasters: rasters ?? directory.map(ResultRasters.beside(storeDirectory:)))
        return ProcessRegistry([
            FeaturesInArea(), RouteProcess(), GeocodingProcess(),
            NearestResourcesProcess(), ServiceAreaProcess(), CoverageProcess(), HazardOverlayProcess(),
            NetworkTraceProcess(), ValveIsolationProcess(),
            ParkingGuidanceProcess(), ParkingForecastProcess(), ParkingSimulationProcess(),
            flood, ScenarioRunProcess(flood: flood), CompareScenariosProcess(),
            SignalTimingProcess(), GreenWaveProcess(), SignalEvaluateProcess(),
        ])
    }

    /// The process with `id`, or `nil`.
    public subscript(id: String) -> (any OGCProcess)? {
        processes.first { $0.id == id }
    }

    /// Ids of every process, for `JobStore.claimNextJob(worker:processes:)`.
    public var ids: [String] { processes.map(\.id) }

    /// Checks everything that can be checked before a run, in this order: the generic rules (no
    /// unknown input, required ones present), the caller's rights on the layers the run reads
    /// and writes (`OGCProcess.layers`), then the process's own `validate`. Synchronous and
    /// asynchronous execution both pass here before any work starts.
    /// - Throws: `ProcessInputError` naming the input; `StoreError` `.unauthenticated` or
    ///   `.forbidden` naming the layer and who may use it.
    public func validate(_ given: [String: JSONValue], for process: any OGCProcess, store: any FeatureStore,
                         caller: Caller) async throws {
        for name in given.keys.sorted() where process.inputs[name] == nil {
            throw ProcessInputError(name, "process '\(process.id)' has no such input (its inputs: \(process.inputs.keys.sorted().joined(separator: ", ")))")
        }
        for (name, input) in process.inputs.sorted(by: { $0.key < $1.key }) where input.minOccurs > 0 && given[name] == nil {
            throw ProcessInputError(name, "is required")
        }
        _ = try await process.layers(given).check(process: process.id, store: store, caller: caller)
        try await process.validate(given, store: store, caller: caller)
    }

    /// Runs `process` for `caller` to its end: the one way an analysis runs, for a synchronous
    /// request, a job (`ProcessWorker`) and the CLI. Checks the caller's rights again (a job
    /// may run long after it was accepted) and marks an answer computed without layers the
    /// caller may not read: its `partial` member names them (`partialMember`).
    /// - Parameter progress: see `OGCProcess.execute`.
    public func execute(_ process: any OGCProcess, _ inputs: [String: JSONValue], store: any FeatureStore, caller: Caller,
                        progress: JobProgress = .ignored) async throws -> JSONValue {
        let omitted = try await process.layers(inputs).check(process: process.id, store: store, caller: caller)
        let result = try await process.execute(inputs, store: store, caller: caller, progress: progress)
        guard !omitted.isEmpty, var members = result.objectValue else { return result }
        members[Self.partialMember] = [
            "omittedLayers": .array(omitted.map(JSONValue.string)),
            "reason": .string("the caller may not read these layers, so what they hold is not counted: the answer covers only the layers the caller may read"),
        ]
        return .object(members)
    }

    /// The result member marking a partial answer: `{"omittedLayers": [ids], "reason": …}`.
    public static let partialMember = "partial"
}
