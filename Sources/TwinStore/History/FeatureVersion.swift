import Foundation
import GeoCore

/// One version of a feature: its content and the interval it was current.
public struct FeatureVersion: Sendable, Hashable {
    /// The feature as the caller may see it (masked).
    public var feature: Feature
    /// When this version became current.
    public var validFrom: Date
    /// When it was replaced or deleted; `nil` while current.
    public var validTo: Date?
    /// Who wrote it; `nil` unless the caller may audit the layer.
    public var author: String?
    /// The department that wrote it.
    public var department: String?
    /// SHA-256 of the version's full content (geometry WKB and canonical properties).
    public var contentHash: String
}

/// What changed in a layer between two instants.
public struct LayerDiff: Sendable, Hashable {
    /// Features current at `to` but not at `from`.
    public var added: [String]
    /// Features current at `from` but not at `to`.
    public var removed: [String]
    /// Features current at both instants whose content, as the caller may see it, differs.
    public var changed: [String]

    public init(added: [String], removed: [String], changed: [String]) {
        self.added = added
        self.removed = removed
        self.changed = changed
    }
}

/// The kind of change a write made to one feature, or of an audited act that changed nothing.
public enum ChangeKind: String, Sendable, Hashable, Codable {
    case insert, update, delete
    /// An update that changes a co-built layer's feature's department (`CoBuilding`).
    case transfer
    /// An audited read that is no feature's: a sandbox aggregate query answered (`AccessJournal`).
    /// In the audit log only, never in the change feed.
    case access
    /// An audited refusal: a sandbox query refused because it would isolate a row, or a write
    /// of a co-built layer's feature with a forged department (`AccessJournal`).
    /// In the audit log only, never in the change feed.
    case refused

    /// Whether entries of this kind changed data (and so belong in the change feed).
    public var changesData: Bool { self == .insert || self == .update || self == .delete || self == .transfer }
}

/// One entry of the audit log: who changed which feature when, with content hashes before and
/// after. Entries are chained: `entryHash` covers the previous entry's hash, so removing or
/// editing a row breaks the chain (`verifyAuditChain`).
public struct AuditEntry: Sendable, Hashable {
    public var sequence: Int64
    public var at: Date
    /// The caller's description: a person for departments, "admin" or "anonymous".
    public var actor: String
    public var department: String?
    public var role: String
    public var layer: String
    public var featureID: String
    public var kind: ChangeKind
    public var beforeHash: String?
    public var afterHash: String?
    public var entryHash: String
}

/// One event of the change feed. `sequence` grows strictly; subscribers remember the last one
/// they saw. The envelopes (EPSG:4490 degrees) let the tile cache drop exactly the touched tiles.
public struct ChangeEvent: Sendable, Hashable {
    public var sequence: Int64
    public var layer: String
    public var featureID: String
    public var kind: ChangeKind
    public var at: Date
    public var envelopeBefore: Envelope?
    public var envelopeAfter: Envelope?
}
