import Foundation
import GeoCore

/// The ownership rules of a co-built layer's writes (`CoBuilding`), applied to a batch against
/// the stored departments of the features it touches, in both backends' transaction.
extension WriteBatch {
    /// Whether the caller writes every feature of the layer: the owner department's editors, the admin.
    var writesEveryFeature: Bool { caller == .admin || caller.departmentName == layer.owner }

    /// The batch's features with their department resolved (a feature that names none keeps its
    /// stored one; a new one gets the writer's), and the ids whose department changes (transfers).
    /// - Throws: `forbidden` for another department's feature, and for a forged ownership
    ///   (`field` ``CoBuilding/property``, which the backends audit).
    func resolvingOwnership(current: [String: CurrentVersion]) throws -> (features: [PreparedFeature], transfers: Set<String>) {
        guard let co = layer.coBuilt else { return (features, []) }
        let property = CoBuilding.property
        let writer = caller.departmentName ?? layer.owner
        var owners = current.mapValues { $0.department ?? layer.owner }
        var out: [PreparedFeature] = []
        var transfers = Set<String>()
        func refuse(_ id: String, _ why: String, forged: Bool) -> StoreError {
            StoreError(.forbidden, "feature \"\(id)\" of co-built layer \"\(layer.id)\" \(why)", layer: layer.id, feature: id, field: forged ? property : nil)
        }
        for (i, f) in features.enumerated() {
            let source = sources[i]
            let declared = source.properties[property]?.stringValue
            let resolved: String
            if let existing = owners[f.id] {
                guard writesEveryFeature || existing == writer else {
                    throw refuse(f.id, "belongs to \(existing): \(writer)'s editors write only their own department's features", forged: false)
                }
                resolved = declared ?? existing
                if resolved != existing {
                    guard writesEveryFeature else {
                        throw refuse(f.id, "belongs to \(existing); only \(layer.owner)'s editors or the admin transfer it (to \(resolved))", forged: true)
                    }
                    transfers.insert(f.id)
                }
            } else {
                resolved = declared ?? writer
                guard resolved == writer || writesEveryFeature else {
                    throw refuse(f.id, "would be created by \(writer) in the name of \(resolved)", forged: true)
                }
            }
            guard co.admits(resolved, owner: layer.owner) else {
                throw StoreError(.invalidFeature, "\(resolved) is not a department contributing to \"\(layer.id)\"", layer: layer.id, feature: f.id, field: property)
            }
            owners[f.id] = resolved
            if declared == resolved {
                out.append(f)
            } else {
                var stamped = source
                stamped.id = .string(f.id)
                stamped.properties[property] = .string(resolved)
                out.append(try PreparedFeature(stamped, layer: layer, index: i))
            }
        }
        for id in deletions {
            if let existing = owners[id], !writesEveryFeature, existing != writer {
                throw refuse(id, "belongs to \(existing): \(writer)'s editors delete only their own department's features", forged: false)
            }
        }
        return (out, transfers)
    }

    /// Whether a write refusal is a forged ownership (audited by the backends).
    static func isForgedOwnership(_ e: StoreError) -> Bool { e.code == .forbidden && e.field == CoBuilding.property }
}
