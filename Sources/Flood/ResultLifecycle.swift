import Foundation
import GeoCore
import TwinStore

/// Where a run's results are in their life: the one lifecycle of flood runs (`FloodRunCatalog`)
/// and of scenarios (`ScenarioCatalog` in `Scenarios`).
///
/// - **draft**: just run; the result layers are their owner's alone (sharing `not-shared`), the
///   record too, so a quick look or an absurd input is seen by no other department;
/// - **published**: the owner vouches for it; the layers are shared (a flood run's as its
///   templates say; a scenario's as a what-if, `LayerConditions`), the record listed for every
///   department;
/// - **archived**: kept for the record (still listed), the layers the owner's alone again.
public enum ResultState: String, Sendable, Codable, CaseIterable {
    case draft, published, archived
}

/// The rules of that lifecycle, in one place: who sees a record, who changes its state, and
/// how the result layers' sharing follows it. Each state change is a write of the record (a
/// feature of the catalogue's layer), versioned and audited like any feature.
public enum ResultLifecycle {
    /// Whether `caller` sees a record in `state` of results owned by `owner`: a draft is the owner
    /// department's (and the admin's) alone; published and archived records every department's.
    /// The public sees none.
    public static func sees(_ state: ResultState, owner: String, _ caller: Caller) -> Bool {
        switch caller {
        case .admin: true
        case .anonymous: false
        case .department(let name, _, _): state != .draft || name == owner
        }
    }

    /// Whether `caller` may change the state of results owned by `owner`: its editors and the admin.
    public static func mayChange(owner: String, _ caller: Caller) -> Bool {
        AccessPolicy.canWrite(owner: owner, caller)
    }

    /// Refuses a caller who may not change the state (`mayChange`): `.unauthenticated` for the
    /// public (send a token, 401), `.forbidden` for another department or a viewer (403), naming
    /// `layer` (the catalogue's) and `what` is refused.
    public static func requireChange(owner: String, _ caller: Caller, layer: String, _ what: String) throws {
        guard mayChange(owner: owner, caller) else {
            throw AccessPolicy.refusal(caller, layer: layer, "\(what) needs an editor of \(owner) or the admin")
        }
    }

    /// Gives each of `layers` that exists the sharing `sharing` says for its definition (a
    /// layer's definition is written again; its features are not touched). Layers the store
    /// lacks (a failed run's) are skipped. The caller must be allowed to change the state
    /// (`requireChange`, checked by the catalogue before).
    public static func share(_ layers: [String], store: any FeatureStore, by caller: Caller,
                             _ sharing: (LayerDefinition) throws -> SharingPolicy) async throws {
        for layer in layers {
            guard var definition = try await store.layerDefinition(layer, for: .admin) else { continue }
            let next = try sharing(definition)
            guard next != definition.sharing else { continue }
            definition.sharing = next
            try await store.createLayer(definition)
        }
    }
}
