import GeoCore
import TwinStore

/// Why a job failed, as its row keeps it (`JobOutcome.failed`) and `/jobs/{id}/results` answers
/// it: the kind of failure, the text a caller may read and, for a bad input, its name. An error
/// of the caller's making (an input, the caller's rights) or of the district's data keeps its
/// own text; any other error is internal: its text stays in the worker's log (it may hold SQL or
/// paths), and the job says where to look.
public struct JobFailure: Error, Sendable, Hashable, CustomStringConvertible {
    public enum Kind: String, Sendable, Hashable {
        /// An input is bad (`ProcessInputError`); `input` names it.
        case invalidInput = "invalid-input"
        /// The job needs a caller with a token.
        case unauthenticated
        /// The caller may not read or write a layer the job uses.
        case forbidden
        /// The analysis could not answer from the district's data (a kernel's or store's own
        /// error, e.g. a hydraulic model that does not converge).
        case failed
        /// Anything else: a fault of the system, logged by the worker.
        case `internal`
    }

    public var kind: Kind
    public var message: String
    /// The input at fault for `invalidInput`.
    public var input: String?

    public init(_ kind: Kind, _ message: String, input: String? = nil) {
        self.kind = kind
        self.message = message
        self.input = input
    }

    /// The failure an error stands for, raised while `worker` ran a job.
    public init(_ error: any Error, worker: String) {
        switch error {
        case let f as JobFailure:
            self = f
        case let e as ProcessInputError:
            self.init(.invalidInput, e.description, input: e.input)
        case let e as StoreError where e.code == .unauthenticated:
            self.init(.unauthenticated, e.message)
        case let e as StoreError where e.code == .forbidden:
            self.init(.forbidden, e.message)
        case let e as StoreError where [.layerNotFound, .invalidQuery, .invalidFeature, .featureNotFound].contains(e.code):
            self.init(.failed, e.message)
        case let e as ScenarioError:
            self.init(.failed, e.message)
        case let e as any AnalysisFailure:
            self.init(.failed, e.failureMessage)
        case let e as any InputFailure:
            self.init(.invalidInput, "input '\(e.failedInput)': \(e.failureReason)", input: e.failedInput)
        case let e as SensingFilterError:
            self.init(.invalidInput, "parameter '$filter': \(e.description)", input: "$filter")
        case let e as GeometryError where e.code != .geos:
            self.init(.failed, e.message)
        default:
            self.init(.internal, "the job failed on an internal error; the log of worker '\(worker)' has it under this job's id")
        }
    }

    public var description: String { message }

    /// The outcome to record in the job row.
    public var outcome: JobOutcome {
        var error: [String: JSONValue] = ["kind": .string(kind.rawValue)]
        if let input { error["input"] = .string(input) }
        return .failed(message, error: .object(error))
    }

    /// The failure of a failed job, from its row; a job recorded without one is internal.
    public init(job: JobRecord) {
        let message = job.message ?? "no reason recorded"
        guard let kind = job.error?["kind"]?.stringValue.flatMap(Kind.init(rawValue:)) else {
            self.init(.internal, message)
            return
        }
        self.init(kind, message, input: job.error?["input"]?.stringValue)
    }
}

/// An error that says why an analysis could not answer from the district's data (a kernel's, a
/// format's or an adapter's own refusal, e.g. a hydraulic model that does not converge): a job
/// that ends on one is `failed` with this text, which the caller may read. Each capability
/// declares its kernels' errors so (`JobFailure.init(_:worker:)`).
public protocol AnalysisFailure: Error {
    /// The text the caller reads.
    var failureMessage: String { get }
}

/// A kernel's input error that names the input at fault by its path (`lots[3].capacity`), which no
/// adapter named first: a job that ends on one is `invalid-input` naming it, and an HTTP answer a 400
/// naming it. Each capability declares its kernels' input errors so.
public protocol InputFailure: Error {
    /// The input's path.
    var failedInput: String { get }
    /// Why it was refused.
    var failureReason: String { get }
}
