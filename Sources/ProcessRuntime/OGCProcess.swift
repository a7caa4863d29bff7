import GeoCore
import TwinStore

/// How a process may be executed (OGC API Processes 1.0 `jobControlOptions`).
public enum JobControlOption: String, Hashable, Sendable, CaseIterable {
    case syncExecute = "sync-execute"
    case asyncExecute = "async-execute"
    case dismiss
}

/// One input or output of a process as its description lists it.
public struct ProcessParameter: Sendable {
    public var title: String
    public var description: String
    /// JSON Schema of the value.
    public var schema: JSONValue
    /// 0 for an optional input, 1 for a required one.
    public var minOccurs: Int

    public init(title: String, description: String, schema: JSONValue, minOccurs: Int = 1) {
        self.title = title
        self.description = description
        self.schema = schema
        self.minOccurs = minOccurs
    }
}

/// A process the API offers (`/processes/{id}`): an analysis or simulation run over the
/// store for a caller. The server, `citytwin worker` and the CLI's analysis commands run it the
/// same way, through `ProcessRegistry`; the store applies the caller's access rules and masking
/// to everything it reads.
///
/// `validate` runs before a job is accepted, so bad inputs are a 400 naming the input even for
/// asynchronous execution; `execute` may assume they passed it.
public protocol OGCProcess: Sendable {
    /// The process id in the path, e.g. `features-in-area`.
    var id: String { get }
    var version: String { get }
    var title: String { get }
    var description: String { get }
    var inputs: [String: ProcessParameter] { get }
    var outputs: [String: ProcessParameter] { get }
    var jobControlOptions: [JobControlOption] { get }

    /// The layers a run with `inputs` reads and writes, checked against the caller before it
    /// starts (`ProcessRegistry.validate`). Inputs not yet validated may be malformed: declare
    /// what can be read from them and leave the rest to `validate`.
    func layers(_ inputs: [String: JSONValue]) -> ProcessLayers

    /// Throws `ProcessInputError` naming the first bad input.
    func validate(_ inputs: [String: JSONValue], store: any FeatureStore, caller: Caller) async throws

    /// Runs the process; the result document maps each output id to its value.
    /// - Parameter progress: report percent done (0…100); throws `CancellationError` once the job is dismissed.
    func execute(_ inputs: [String: JSONValue], store: any FeatureStore, caller: Caller,
                 progress: JobProgress) async throws -> JSONValue
}

/// A process some of whose runs read no layer (an input given inline instead of a stored
/// feature's id): `ProcessRegistry.run` runs those without a store, through these two, when
/// `layers` declares nothing for the inputs.
public protocol LayerFreeProcess: OGCProcess {
    /// As `validate`, for inputs that read no layer.
    func validate(_ inputs: [String: JSONValue], caller: Caller) async throws
    /// As `execute`, for inputs that read no layer.
    func execute(_ inputs: [String: JSONValue], caller: Caller, progress: JobProgress) async throws -> JSONValue
}

/// Where a running process reports its progress (`WorkProgress`, the one progress report). For a
/// job its share of the whole lands in the job row as percent, where `GET /jobs/{jobId}` shows
/// it; a dismissed job makes the next report throw `CancellationError`. The CLI's runner draws
/// it as its progress bar.
public struct JobProgress: Sendable {
    private let sink: @Sendable (WorkProgress) async throws -> Void

    public init(_ sink: @escaping @Sendable (WorkProgress) async throws -> Void) {
        self.sink = sink
    }

    /// Progress that goes nowhere (synchronous execution).
    public static let ignored = JobProgress { _ in }

    /// Reports `progress`.
    public func report(_ progress: WorkProgress) async throws {
        try await sink(progress)
    }

    /// Reports `percent` (0…100) of the whole done, for a process whose steps count nothing.
    public func report(_ percent: Double) async throws {
        try await sink(.stage("running", fraction: percent / 100))
    }
}
