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

    /// Every process CityTwin ships. The flood scenario finds the DEM and writes its rasters
    /// beside a SpatiaLite store (`forStore(directory:)`); without a directory it needs a `dem` input.
    public static let standard = forStore(directory: nil)

    /// The standard processes for a store whose files (DEM, result rasters) live in `directory`.
    public static func forStore(directory: URL?) -> ProcessRegistry {
        ProcessRegistry([
            FeaturesInArea(),
            NearestResourcesProcess(), ServiceAreaProcess(), CoverageProcess(), HazardOverlayProcess(),
            NetworkTraceProcess(), ValveIsolationProcess(),
            FloodScenarioProcess(storeDirectory: directory),
        ])
    }

    /// The process with `id`, or `nil`.
    public subscript(id: String) -> (any OGCProcess)? {
        processes.first { $0.id == id }
    }

    /// Ids of every process, for `JobStore.claimNextJob(worker:processes:)`.
    public var ids: [String] { processes.map(\.id) }

    /// Checks the generic rules (an object of inputs, no unknown input, required ones present),
    /// then the process's own `validate`.
    func validate(_ inputs: JSONValue?, for process: any OGCProcess, store: any FeatureStore, caller: Caller) async throws
        -> [String: JSONValue] {
        let given: [String: JSONValue]
        switch inputs {
        case nil, .null?: given = [:]
        case .object(let o)?: given = o
        default: throw Problem(.invalidBody, "member 'inputs' must be an object of input id to value", position: "$.inputs")
        }
        for name in given.keys.sorted() where process.inputs[name] == nil {
            throw Problem.invalidInput(name, "process '\(process.id)' has no such input (its inputs: \(process.inputs.keys.sorted().joined(separator: ", ")))")
        }
        for (name, input) in process.inputs.sorted(by: { $0.key < $1.key }) where input.minOccurs > 0 && given[name] == nil {
            throw Problem.invalidInput(name, "is required")
        }
        try await process.validate(given, store: store, caller: caller)
        return given
    }
}
