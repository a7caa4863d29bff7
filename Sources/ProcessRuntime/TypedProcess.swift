import Foundation
import GeoCore
import TwinStore

/// A process's inputs as a type: one `init(from:)` reads every field through a
/// `ProcessInputReader`, and the same init, run against a describing reader, gives the
/// process's input descriptions (`parameters`). Each input's range, default and description is
/// therefore declared once, where it is read.
///
/// It is `Decodable` from any decoder holding the input object (`{"radius_m": 800, …}`), so a
/// caller with JSON in hand decodes the type as any other.
public protocol ProcessInput: Decodable, Sendable {
    /// Reads every field from `reader`, throwing `ProcessInputError` naming the first bad one.
    /// While `reader.isDescribing` the values are placeholders: skip checks across fields.
    init(from reader: ProcessInputReader) throws
}

extension ProcessInput {
    public init(from decoder: any Decoder) throws {
        try self.init(from: ProcessInputReader(try [String: JSONValue](from: decoder)))
    }

    /// Reads the inputs of a run.
    public init(reading inputs: [String: JSONValue]) throws {
        try self.init(from: ProcessInputReader(inputs))
    }

    /// Every field the type reads, as the process description lists it.
    /// - Throws: whatever `init(from:)` throws on placeholders (a bug of that init).
    public static func describe() throws -> [String: ProcessParameter] {
        let reader = ProcessInputReader.describing()
        _ = try Self(from: reader)
        return reader.parameters
    }

    /// `describe()`, for a type whose init reads placeholders cleanly (`TypedProcessTests` checks
    /// every process's).
    public static var parameters: [String: ProcessParameter] {
        do { return try describe() } catch { preconditionFailure("\(Self.self) cannot describe its inputs: \(error)") }
    }
}

/// A process with typed inputs and outputs: `Input` is read (and its schema derived) by
/// `ProcessInput`, `run` computes `Output`. It is an `OGCProcess` through the extension below, so
/// `ProcessRegistry.run`, the routes, the worker and the CLI run it as any other:
/// `inputs` is `Input.parameters`, `validate` reads the input and calls `check`, `execute` reads
/// it again, calls `run` and gives the output as JSON.
public protocol TypedProcess: OGCProcess {
    associatedtype Input: ProcessInput
    /// The result document; `JSONValue` where a process builds it member by member.
    associatedtype Output: Encodable & Sendable

    /// The checks beyond the input's own that need the store (the layer named exists and has
    /// geometry, …), made before a run is accepted; by default none. `execute` does not repeat
    /// them: a `run` that needs them again (a job runs long after it was accepted) calls it.
    func check(_ input: Input, store: any FeatureStore, caller: Caller) async throws

    /// Runs the process on checked input.
    /// - Parameter progress: see `OGCProcess.execute`.
    func run(_ input: Input, store: any FeatureStore, caller: Caller, progress: JobProgress) async throws -> Output
}

extension TypedProcess {
    public var inputs: [String: ProcessParameter] { Input.parameters }

    public func check(_ input: Input, store: any FeatureStore, caller: Caller) async throws {}

    /// `inputs` read as `Input` (the checks needing no store), as `validate` and `execute` read them.
    public func input(_ inputs: [String: JSONValue]) throws -> Input {
        try Input(reading: inputs)
    }

    public func validate(_ inputs: [String: JSONValue], store: any FeatureStore, caller: Caller) async throws {
        try await check(try input(inputs), store: store, caller: caller)
    }

    public func execute(_ inputs: [String: JSONValue], store: any FeatureStore, caller: Caller,
                        progress: JobProgress) async throws -> JSONValue {
        try ProcessOutput.json(try await run(try input(inputs), store: store, caller: caller, progress: progress))
    }
}

/// A process output as the JSON document the registry returns.
public enum ProcessOutput {
    /// `output` as JSON: a `JSONValue` as it is, any other `Encodable` through JSON.
    public static func json(_ output: some Encodable) throws -> JSONValue {
        if let json = output as? JSONValue { return json }
        return try JSONDecoder().decode(JSONValue.self, from: JSONEncoder().encode(output))
    }
}

/// A typed process some of whose runs read no layer (an input given inline instead of a stored
/// feature's id): `ProcessRegistry.run` runs those without a store through these two, when
/// `layers` declares nothing for the inputs.
public protocol LayerFreeTypedProcess: TypedProcess, LayerFreeProcess {
    /// As `check`, for input that reads no layer; refuses input that needs a store, naming it.
    func check(_ input: Input, caller: Caller) async throws

    /// As `run`, for input that reads no layer.
    func run(_ input: Input, caller: Caller, progress: JobProgress) async throws -> Output
}

extension LayerFreeTypedProcess {
    public func validate(_ inputs: [String: JSONValue], caller: Caller) async throws {
        try await check(try input(inputs), caller: caller)
    }

    public func execute(_ inputs: [String: JSONValue], caller: Caller, progress: JobProgress) async throws -> JSONValue {
        try ProcessOutput.json(try await run(try input(inputs), caller: caller, progress: progress))
    }
}
