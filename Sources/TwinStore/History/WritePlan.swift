import Foundation
import GeoCore

/// A feature's current version as a backend holds it before a write.
struct CurrentVersion: Sendable {
    /// The backend's version row id.
    var vid: Int64
    var hash: String
    /// Microseconds since 1970 UTC.
    var validFrom: Int64
    /// EPSG:4490 degrees; `nil` without geometry.
    var envelope: Envelope?
    /// The feature's department on a co-built layer (`CoBuilding.property`; nil: the owner's).
    var department: String? = nil
}

/// One write call, checked and validated before any transaction starts: the layer, the
/// caller's right to write, the prepared features and the write instant. Both backends build
/// this, then read the current versions of `lookupIDs` and apply `plan(current:)`, so access,
/// validation, duplicate and time rules are the same code everywhere.
struct WriteBatch: Sendable {
    enum Mode: Sendable {
        case insert([Feature]), upsert([Feature]), delete([String])
        /// Upserts and deletions in one batch (`replace(layer:with:by:at:)`).
        case upsertAndDelete([Feature], [String])
    }

    let layer: LayerDefinition
    /// Microseconds since 1970 UTC.
    let time: Int64
    let actor: String
    let department: String?
    let role: String
    let features: [PreparedFeature]
    /// The features as given, on co-built layers (their department is resolved when planned); else empty.
    let sources: [Feature]
    let caller: Caller
    let deletions: [String]
    let isInsert: Bool
    /// The versions a conditional write expects, checked against the current versions before anything is planned.
    var expecting: [String: ExpectedVersion] = [:]

    /// Checks write access (a hidden layer is `layerNotFound`) and validates every feature.
    init(layer definition: LayerDefinition?, named layer: String, mode: Mode, by caller: Caller, at: Date?) throws {
        guard let def = definition else {
            throw StoreError(.layerNotFound, "no layer \"\(layer)\"", layer: layer)
        }
        try AccessPolicy.requireWrite(def, caller)
        self.layer = def
        self.time = RFC3339.microseconds(at ?? TwinClock.current.now)
        self.actor = caller.author
        self.department = caller.departmentName
        self.role = caller.auditRole
        self.caller = caller
        switch mode {
        case .insert(let fs), .upsert(let fs), .upsertAndDelete(let fs, _):
            sources = def.coBuilt == nil ? [] : fs
        case .delete:
            sources = []
        }
        switch mode {
        case .insert(let fs), .upsert(let fs):
            features = try fs.enumerated().map { try PreparedFeature($0.element, layer: def, index: $0.offset) }
            deletions = []
        case .delete(let ids):
            features = []
            deletions = ids
        case .upsertAndDelete(let fs, let ids):
            features = try fs.enumerated().map { try PreparedFeature($0.element, layer: def, index: $0.offset) }
            deletions = ids
        }
        if case .insert = mode { isInsert = true } else { isInsert = false }
    }

    /// The feature ids whose current versions the plan needs, without repeats.
    var lookupIDs: [String] {
        var seen = Set<String>()
        return (features.map(\.id) + deletions + expecting.keys.sorted()).filter { seen.insert($0).inserted }
    }

    /// What the batch does, given the current versions of `lookupIDs`: the existing versions
    /// to close, the versions to add (in order) and one change per written feature. Features
    /// are applied in order, so a batch that names a feature twice behaves as two writes.
    func plan(current: [String: CurrentVersion]) throws -> WritePlan {
        for (id, expected) in expecting.sorted(by: { $0.key < $1.key }) {
            let found = current[id].map { ExpectedVersion.version($0.vid) } ?? .absent
            guard found == expected else {
                throw StoreError(.versionChanged, found == .absent
                                 ? "feature \"\(id)\" was ended by another writer after it was read"
                                 : "feature \"\(id)\" was written by another writer after it was read",
                                 layer: layer.id, feature: id)
            }
        }
        let (features, transfers) = try resolvingOwnership(current: current)
        var plan = WritePlan()
        enum Slot { case stored(CurrentVersion), added(Int) }
        var state = [String: Slot]()
        for (id, v) in current { state[id] = .stored(v) }

        func hashAndEnvelope(_ slot: Slot) -> (String, Envelope?) {
            switch slot {
            case .stored(let v): (v.hash, v.envelope)
            case .added(let i): (plan.versions[i].feature.hash, plan.versions[i].feature.envelope)
            }
        }
        func requireNotBefore(_ slot: Slot, _ fid: String) throws {
            guard case .stored(let v) = slot, v.validFrom > time else { return }
            throw StoreError(.invalidFeature, "the write time is before the current version's start (\(RFC3339.format(RFC3339.date(microseconds: v.validFrom))))",
                             layer: layer.id, feature: fid, field: "at")
        }
        func close(_ slot: Slot) {
            switch slot {
            case .stored(let v): plan.closes.append(v.vid)
            case .added(let i): plan.versions[i].validTo = time
            }
        }
        func add(_ f: PreparedFeature) {
            plan.versions.append(WritePlan.NewVersion(feature: f, validTo: nil))
            state[f.id] = .added(plan.versions.count - 1)
        }

        for f in features {
            guard let slot = state[f.id] else {
                add(f)
                plan.changes.append(WritePlan.Change(featureID: f.id, kind: .insert, before: nil, after: f))
                continue
            }
            if isInsert {
                throw StoreError(.duplicateFeature, "feature \"\(f.id)\" already exists", layer: layer.id, feature: f.id)
            }
            try requireNotBefore(slot, f.id)
            let before = hashAndEnvelope(slot)
            if before.0 == f.hash { continue }
            close(slot)
            add(f)
            plan.changes.append(WritePlan.Change(featureID: f.id, kind: transfers.contains(f.id) ? .transfer : .update, before: before, after: f))
        }
        for fid in deletions {
            guard let slot = state[fid] else {
                throw StoreError(.featureNotFound, "no current feature \"\(fid)\" to delete", layer: layer.id, feature: fid)
            }
            try requireNotBefore(slot, fid)
            let before = hashAndEnvelope(slot)
            close(slot)
            state[fid] = nil
            plan.changes.append(WritePlan.Change(featureID: fid, kind: .delete, before: before, after: nil))
        }
        return plan
    }

    /// The audit rows of `plan`, chained from `previous` (the newest entry hash, or the genesis
    /// hash), signed with `key` (`nil`: an unkeyed chain).
    func auditRows(_ plan: WritePlan, previous: String, key: AuditKey?) -> [WritePlan.AuditRow] {
        var chain = previous
        return plan.changes.map { c in
            chain = AuditChain.entryHash(previous: chain, at: time, actor: actor, department: department, role: role,
                                         layer: layer.id, featureID: c.featureID, kind: c.kind,
                                         before: c.before?.hash, after: c.after?.hash, key: key)
            return WritePlan.AuditRow(change: c, entryHash: chain)
        }
    }
}

/// The rows one write batch changes.
struct WritePlan: Sendable {
    struct NewVersion: Sendable {
        var feature: PreparedFeature
        /// Set when a later feature of the same batch replaced this version at once.
        var validTo: Int64?
    }

    struct Change: Sendable {
        var featureID: String
        var kind: ChangeKind
        var before: (hash: String, envelope: Envelope?)?
        var after: PreparedFeature?
    }

    struct AuditRow: Sendable {
        var change: Change
        var entryHash: String
    }

    /// Row ids of stored versions that end at the write time.
    var closes: [Int64] = []
    var versions: [NewVersion] = []
    var changes: [Change] = []
}

extension FeatureStore {
    /// The one batch of `replace(layer:with:by:at:)`: `features` upserted by id (an unchanged
    /// feature writes nothing, so its history stays whole) and every other current feature of
    /// `layer` ended, at one instant.
    func replacementBatch(layer: String, with features: [Feature], by caller: Caller, at: Date?) async throws -> WriteBatch {
        guard let definition = try await layerDefinition(layer, for: caller) else {
            throw StoreError(.layerNotFound, "no layer \"\(layer)\"", layer: layer)
        }
        try AccessPolicy.requireWrite(definition, caller)
        let kept = Set(features.compactMap { $0.id.map { "\($0)" } })
        var ended: [String] = []
        for try await f in stream(layer: layer, FeatureQuery(properties: [], limit: 5000), by: caller) {
            if let id = f.id.map({ "\($0)" }), !kept.contains(id) { ended.append(id) }
        }
        return try WriteBatch(layer: definition, named: layer, mode: .upsertAndDelete(features, ended), by: caller, at: at)
    }
}
