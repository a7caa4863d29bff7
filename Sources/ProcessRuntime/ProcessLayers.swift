import GeoCore
import TwinStore

/// The layers one run of a process reads and writes, declared from its inputs so the registry
/// can hold them against the caller's rights BEFORE any work starts: an anonymous caller gets a
/// 401 and a department without the right a 403, each naming the layer and who may use it,
/// instead of a run that fails late or answers zeros over layers it could not see.
public struct ProcessLayers: Sendable, Hashable {
    /// A layer the run creates or replaces, with the department that owns it (and so may write it)
    /// for a layer that does not exist yet.
    public struct Write: Sendable, Hashable {
        public var layer: String
        public var owner: String

        public init(_ layer: String, owner: String) {
            self.layer = layer
            self.owner = owner
        }
    }

    /// Layers the answer cannot do without: a caller who may not read one is refused.
    public var reads: [String]
    /// Layers the answer uses when the caller may read them: without one the answer is marked
    /// partial, naming it (`ProcessRegistry.partialMember`).
    public var optionalReads: [String]
    public var writes: [Write]

    public init(reads: [String] = [], optionalReads: [String] = [], writes: [Write] = []) {
        self.reads = reads
        self.optionalReads = optionalReads
        self.writes = writes
    }

    /// Checks the layers against `caller`'s rights as the store's `AccessPolicy` has them.
    /// A layer the store lacks is left to the process (it says "no collection" naming its input);
    /// so is a not-shared or negative-listed layer the caller may not read: its existence is its
    /// owner's to tell, as in `/collections`. A shared or conditional layer is known to every
    /// department, so a caller without the right is told which one it needs.
    /// - Returns: the optional layers the caller may not read, sorted.
    /// - Throws: `StoreError` `.unauthenticated` for an anonymous caller, `.forbidden` for a
    ///   department, naming the layer and who may read or write it.
    public func check(process: String, store: any FeatureStore, caller: Caller) async throws -> [String] {
        for layer in reads {
            guard let definition = try await store.layerDefinition(layer, for: .admin),
                  !AccessPolicy.canRead(definition, caller), !AccessPolicy.isSecret(definition) else { continue }
            throw AccessPolicy.refusal(caller, layer: layer,
                                       "process '\(process)' reads layer '\(layer)', which \(AccessPolicy.readers(of: definition)) may read")
        }
        for write in writes {
            let owner = try await store.layerDefinition(write.layer, for: .admin)?.owner ?? write.owner
            guard !AccessPolicy.canWrite(owner: owner, caller) else { continue }
            throw AccessPolicy.refusal(caller, layer: write.layer,
                                       "process '\(process)' writes layer '\(write.layer)', which only an editor or admin of \(owner) (or the platform admin) may write")
        }
        var omitted: [String] = []
        for layer in optionalReads {
            guard let definition = try await store.layerDefinition(layer, for: .admin), !AccessPolicy.isSecret(definition) else { continue }
            if !AccessPolicy.canRead(definition, caller) { omitted.append(layer) }
        }
        return omitted.sorted()
    }

    /// The layers read (required and optional) that `caller` may read and that hold a what-if's
    /// results (`LayerDefinition.conditions`, a scenario's): an answer computed from them is a
    /// what-if too (`ProcessRegistry.whatIfMember`).
    public func whatIf(store: any FeatureStore, caller: Caller) async throws -> [LayerDefinition] {
        var found: [LayerDefinition] = []
        for layer in Set(reads + optionalReads).sorted() {
            guard let definition = try await store.layerDefinition(layer, for: caller), definition.isWhatIf else { continue }
            found.append(definition)
        }
        return found
    }
}
