import Foundation

/// Removing a whole layer from the store (a flood run's result layers when the run is deleted):
/// its table, its definition and every version go, in one transaction, with one audit entry
/// (feature `*`, action `delete`) in the one chain. Only the layer's owner department's editors
/// and the admin may; the layer's features stay in no history afterwards, which is why the
/// callers that remove layers keep a record of what they removed (the flood run's record).
public protocol LayerRemoval: Sendable {
    /// Drops layer `id`; false when the store has no such layer (or the caller may not see it).
    /// - Throws: `StoreError` `.forbidden` when the caller may not write the layer.
    func dropLayer(_ id: String, by caller: Caller) async throws -> Bool
}

enum LayerRemovalSQL {
    /// The audit entry's feature id for a whole layer.
    static let featureID = "*"

    static func auditHash(previous: String, at time: Int64, caller: Caller, layer: String, key: AuditKey?) -> String {
        AuditChain.entryHash(previous: previous, at: time, actor: caller.author, department: caller.departmentName, role: caller.auditRole,
                             layer: layer, featureID: featureID, kind: .delete, before: nil, after: nil, key: key)
    }
}
