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
/// store for a caller. The server and `citytwin worker` run it the same way; the store applies
/// the caller's access rules and masking to everything it reads.
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

    /// Throws `Problem.invalidInput` naming the first bad input.
    func validate(_ inputs: [String: JSONValue], store: any FeatureStore, caller: Caller) async throws

    /// Runs the process; the result document maps each output id to its value.
    /// - Parameter progress: report percent done (0…100); throws `CancellationError` once the job is dismissed.
    func execute(_ inputs: [String: JSONValue], store: any FeatureStore, caller: Caller,
                 progress: JobProgress) async throws -> JSONValue
}

/// Progress of a running process in percent (0…100). For a job it lands in the job row, where
/// `GET /jobs/{jobId}` shows it; a dismissed job makes the next report throw `CancellationError`.
public struct JobProgress: Sendable {
    private let sink: @Sendable (Double) async throws -> Void

    public init(_ sink: @escaping @Sendable (Double) async throws -> Void) {
        self.sink = sink
    }

    /// Progress that goes nowhere (synchronous execution).
    public static let ignored = JobProgress { _ in }

    /// Reports `percent` done.
    public func report(_ percent: Double) async throws {
        try await sink(percent)
    }
}

extension Problem.Kind {
    private static let processesExceptions = "http://www.opengis.net/def/exceptions/ogcapi-processes-1/1.0/"

    /// OGC API Processes: the process id names no process.
    public static let noSuchProcess = Problem.Kind(slug: "no-such-process", title: "No such process", status: .notFound,
                                                   standardType: processesExceptions + "no-such-process")
    /// OGC API Processes: the job id names no job the caller may see (or a dismissed one).
    public static let noSuchJob = Problem.Kind(slug: "no-such-job", title: "No such job", status: .notFound,
                                               standardType: processesExceptions + "no-such-job")
    /// OGC API Processes: the job has not finished yet.
    public static let resultNotReady = Problem.Kind(slug: "result-not-ready", title: "Result not ready", status: .notFound,
                                                    standardType: processesExceptions + "result-not-ready")
    /// A process input is missing, unknown or has a bad value.
    public static let invalidInput = Problem.Kind(slug: "invalid-input", title: "Invalid process input", status: .badRequest)
    /// The job ran and failed; `detail` says why.
    public static let jobFailed = Problem.Kind(slug: "job-failed", title: "Job failed", status: .internalServerError)
}

extension Problem {
    /// `invalid-input` naming `input`: "input 'area': must be a GeoJSON Polygon or MultiPolygon".
    public static func invalidInput(_ input: String, _ reason: String) -> Problem {
        Problem(.invalidInput, "input '\(input)': \(reason)", parameter: input)
    }
}
