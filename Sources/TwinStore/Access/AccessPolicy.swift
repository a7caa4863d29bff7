import GeoCore

/// The read and write rules of the store, in one place (cim-and-layers.md §5–6).
///
/// - anonymous: `open` layers not on the negative list;
/// - a department: open, shared and conditional layers, plus `not-shared` layers it owns;
///   negative-listed layers only when it owns them;
/// - admin: everything.
///
/// Writes need a department with role editor or admin on a layer it owns, or the admin.
public enum AccessPolicy {
    /// Whether `caller` may see that `layer` exists and read it.
    public static func canRead(_ layer: LayerDefinition, _ caller: Caller) -> Bool {
        switch caller {
        case .admin:
            return true
        case .anonymous:
            return layer.sharing.type == .open && !layer.negativeList
        case .department(let name, _, _):
            if name == layer.owner { return true }
            if layer.negativeList { return false }
            return layer.sharing.type != .notShared
        }
    }

    /// Whether `caller` may insert, update or delete features of `layer` (of a co-built layer:
    /// its own features, `canWrite(feature:of:_:)`).
    public static func canWrite(_ layer: LayerDefinition, _ caller: Caller) -> Bool {
        if let co = layer.coBuilt, case .department(let name, let role, _) = caller {
            return role != .viewer && co.admits(name, owner: layer.owner)
        }
        return canWrite(owner: layer.owner, caller)
    }

    /// Whether `caller` may update or delete a feature of co-built `layer` that belongs to
    /// `department` (nil: the layer's owner): its own department's editors, the owner's, the admin.
    public static func canWrite(feature department: String?, of layer: LayerDefinition, _ caller: Caller) -> Bool {
        switch caller {
        case .admin: true
        case .anonymous: false
        case .department(let name, let role, _): role != .viewer && (name == layer.owner || name == (department ?? layer.owner))
        }
    }

    /// Whether `caller` may write a layer owned by `owner`, also one not created yet.
    public static func canWrite(owner: String, _ caller: Caller) -> Bool {
        switch caller {
        case .admin: true
        case .anonymous: false
        case .department(let name, let role, _): name == owner && role != .viewer
        }
    }

    /// Whether `caller` sees the clear value of `attribute` (admin, owner, or listed in `visibleTo`).
    public static func seesClearValue(of attribute: SensitiveAttribute, in layer: LayerDefinition, _ caller: Caller) -> Bool {
        switch caller {
        case .admin: true
        case .anonymous: false
        case .department(let name, _, _): name == layer.owner || attribute.visibleTo.contains(name)
        }
    }

    /// Whether `caller` may read version authors and the audit log of `layer`.
    public static func canAudit(_ layer: LayerDefinition, _ caller: Caller) -> Bool {
        switch caller {
        case .admin: true
        case .anonymous: false
        case .department(let name, _, _): name == layer.owner
        }
    }

    /// Whether only a layer's owner may know it exists (not shared, or on the negative list).
    public static func isSecret(_ layer: LayerDefinition) -> Bool {
        layer.negativeList || layer.sharing.type == .notShared
    }

    /// Who may read a layer that is not secret, in words.
    public static func readers(of layer: LayerDefinition) -> String {
        switch layer.sharing.type {
        case .open: "anyone"
        case .conditional: "any department (under its use requirements; owner \(layer.owner)) or the admin"
        default: "any department (owner \(layer.owner)) or the admin"
        }
    }

    /// A refusal of `caller` that says what it needs: `.unauthenticated` for an anonymous caller
    /// (send a token), `.forbidden` for a department or the admin, with `reason` naming the layer.
    public static func refusal(_ caller: Caller, layer: String, _ reason: String) -> StoreError {
        switch caller {
        case .anonymous:
            StoreError(.unauthenticated, reason + "; send a bearer token", layer: layer)
        case .department(let name, let role, _):
            StoreError(.forbidden, reason + "; the token acts for \(name) as \(role.rawValue)", layer: layer)
        case .admin:
            StoreError(.forbidden, reason, layer: layer)
        }
    }

    /// Why `caller` may not read `layer` (what it asked for named by `what`), or nil when it may.
    /// A secret layer is `layerNotFound`, as if it did not exist (its existence is its owner's
    /// to tell); a shared or conditional layer is known to every department, so the caller is told
    /// who may read it (`refusal`: 401 anonymous, 403 a department).
    public static func readRefusal(_ layer: LayerDefinition, _ caller: Caller, reading what: String) -> StoreError? {
        guard !canRead(layer, caller) else { return nil }
        if isSecret(layer) { return StoreError(.layerNotFound, "no layer \"\(layer.id)\"", layer: layer.id) }
        return refusal(caller, layer: layer.id, "\(what) belongs to layer '\(layer.id)', which \(readers(of: layer)) may read")
    }

    /// Throws `layerNotFound` when the caller may not read: a hidden layer is indistinguishable
    /// from a missing one.
    static func requireRead(_ layer: LayerDefinition, _ caller: Caller) throws {
        guard canRead(layer, caller) else {
            throw StoreError(.layerNotFound, "no layer \"\(layer.id)\"", layer: layer.id)
        }
    }

    static func requireWrite(_ layer: LayerDefinition, _ caller: Caller) throws {
        try requireRead(layer, caller)
        guard canWrite(layer, caller) else {
            let who = layer.coBuilt.map { co in co.contributors.map { "an editor of \(([layer.owner] + $0).joined(separator: ", "))" } ?? "a department's editor" }
                ?? "an editor of \(layer.owner)"
            throw StoreError(.forbidden, "writing to \"\(layer.id)\" needs \(who) or an admin", layer: layer.id)
        }
    }
}
