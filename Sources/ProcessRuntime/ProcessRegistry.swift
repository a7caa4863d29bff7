import GeoCore
import TwinStore

/// The processes the API offers, by id. Simulations and analyses add themselves to
/// `standard` (in `Scenarios`, above every capability) in their own issues.
public struct ProcessRegistry: Sendable {
    public let processes: [any OGCProcess]

    public init(_ processes: [any OGCProcess]) {
        self.processes = processes
    }

    /// The process with `id`, or `nil`.
    public subscript(id: String) -> (any OGCProcess)? {
        processes.first { $0.id == id }
    }

    /// Ids of every process, for `JobStore.claimNextJob(worker:processes:)`.
    public var ids: [String] { processes.map(\.id) }

    /// Runs process `id` for `caller`: the one way a process runs, for a synchronous request, a
    /// job (`ProcessWorker`), the CLI and the tests. Checks the inputs first (`validate`), then
    /// runs it to its end (`execute`).
    /// - Parameters:
    ///   - store: the store the run reads and writes; `nil` for inputs that read no layer (a
    ///     signal intersection given inline), which a `LayerFreeProcess` runs without any store.
    ///   - progress: see `OGCProcess.execute`.
    /// - Throws: `UnknownProcessError` when the registry has no process `id`; `ProcessInputError`
    ///   naming a bad input (also for inputs that read layers when no store is given); the
    ///   refusals and errors of `validate` and `execute`.
    public func run(_ id: String, inputs: [String: JSONValue], caller: Caller, store: (any FeatureStore)?,
                    progress: JobProgress = .ignored) async throws -> JSONValue {
        guard let process = self[id] else { throw UnknownProcessError(id: id, known: ids) }
        guard let store else {
            let layers = process.layers(inputs)
            guard let free = process as? any LayerFreeProcess, layers.reads.isEmpty, layers.optionalReads.isEmpty, layers.writes.isEmpty else {
                let named = (layers.reads + layers.optionalReads + layers.writes.map(\.layer)).joined(separator: ", ")
                throw ProcessInputError("inputs", "process '\(id)' runs on a store with these inputs\(named.isEmpty ? "" : " (it reads or writes \(named))"): give it one")
            }
            try checkGeneric(inputs, for: process)
            try await free.validate(inputs, caller: caller)
            return try await free.execute(inputs, caller: caller, progress: progress)
        }
        try await validate(inputs, for: process, store: store, caller: caller)
        return try await execute(process, inputs, store: store, caller: caller, progress: progress)
    }

    /// The generic rules every run's inputs meet: no unknown input, the required ones present.
    private func checkGeneric(_ given: [String: JSONValue], for process: any OGCProcess) throws {
        for name in given.keys.sorted() where process.inputs[name] == nil {
            throw ProcessInputError(name, "process '\(process.id)' has no such input (its inputs: \(process.inputs.keys.sorted().joined(separator: ", ")))")
        }
        for (name, input) in process.inputs.sorted(by: { $0.key < $1.key }) where input.minOccurs > 0 && given[name] == nil {
            throw ProcessInputError(name, "is required")
        }
    }

    /// Checks everything that can be checked before a run, in this order: the generic rules (no
    /// unknown input, required ones present), the caller's rights on the layers the run reads
    /// and writes (`OGCProcess.layers`), then the process's own `validate`. Synchronous and
    /// asynchronous execution both pass here before any work starts.
    /// - Throws: `ProcessInputError` naming the input; `StoreError` `.unauthenticated` or
    ///   `.forbidden` naming the layer and who may use it.
    public func validate(_ given: [String: JSONValue], for process: any OGCProcess, store: any FeatureStore,
                         caller: Caller) async throws {
        try checkGeneric(given, for: process)
        _ = try await process.layers(given).check(process: process.id, store: store, caller: caller)
        try await process.validate(given, store: store, caller: caller)
    }

    /// Runs `process` for `caller` to its end (`run`, after `validate`). Checks the caller's rights again (a job
    /// may run long after it was accepted) and marks an answer computed without layers the
    /// caller may not read: its `partial` member names them (`partialMember`); and an answer
    /// computed from a what-if's results (a scenario's layers): `whatIf: true` and the layers
    /// and scenarios in `whatIfSources` (`whatIfMember`).
    /// - Parameter progress: see `OGCProcess.execute`.
    private func execute(_ process: any OGCProcess, _ inputs: [String: JSONValue], store: any FeatureStore, caller: Caller,
                        progress: JobProgress = .ignored) async throws -> JSONValue {
        let layers = process.layers(inputs)
        let omitted = try await layers.check(process: process.id, store: store, caller: caller)
        let result = try await process.execute(inputs, store: store, caller: caller, progress: progress)
        let whatIf = try await layers.whatIf(store: store, caller: caller)
        guard !omitted.isEmpty || !whatIf.isEmpty, var members = result.objectValue else { return result }
        if !omitted.isEmpty {
            members[Self.partialMember] = [
                "omittedLayers": .array(omitted.map(JSONValue.string)),
                "reason": .string("the caller may not read these layers, so what they hold is not counted: the answer covers only the layers the caller may read"),
            ]
        }
        if !whatIf.isEmpty {
            members[Self.whatIfMember] = true
            members[Self.whatIfMember + "Sources"] = [
                "label": .string(LayerConditions.whatIfLabel.zh), "labelEn": .string(LayerConditions.whatIfLabel.en),
                "layers": .array(whatIf.map { .string($0.id) }),
                "scenarios": .array(Array(Set(whatIf.flatMap { $0.conditions?.scenarios ?? [] })).sorted().map(JSONValue.string)),
            ]
        }
        return .object(members)
    }

    /// The result member marking a partial answer: `{"omittedLayers": [ids], "reason": …}`.
    public static let partialMember = "partial"
    /// The result member marking an answer computed from a what-if's results: `true`, with
    /// `whatIfSources` `{"label": "情景（非实况）", "layers": [ids], "scenarios": [ids]}`.
    public static let whatIfMember = "whatIf"
}

/// A process id the registry does not know.
public struct UnknownProcessError: Error, Sendable, Hashable, CustomStringConvertible {
    public var id: String
    /// The ids the registry knows.
    public var known: [String]

    public init(id: String, known: [String]) {
        self.id = id
        self.known = known
    }

    public var description: String { "no process '\(id)' (the processes: \(known.joined(separator: ", ")))" }
}
