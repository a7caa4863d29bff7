import Foundation
import GeoCore
import GRDB
import Logging
import PostgresNIO

/// Audited acts that change no feature: a sandbox aggregate query answered or refused
/// (数据可用不可见). Each is one entry in the layer's audit log, in the one tamper-evident chain,
/// visible to the layer's owner department and the admin (`auditLog`), never in the change feed.
///
/// The entry's feature id describes the act (`"sandbox: count, sum(residents) by grid 500 m"`,
/// at most ``maximumSubjectLength`` characters) and its after-hash is the SHA-256 of the act's
/// full canonical text, so an auditor holding the request can prove which one it was.
public protocol AccessJournal: Sendable {
    /// Appends one audit entry of kind `kind` (`.access` or `.refused`) to `layer`'s log.
    /// - Parameters:
    ///   - subject: what was done, in words (cut to ``maximumSubjectLength`` characters).
    ///   - detail: the act's full canonical text, recorded by its SHA-256.
    func recordAccess(layer: String, subject: String, detail: String, kind: ChangeKind, by caller: Caller) async throws
}

public enum AccessJournalEntry {
    /// The longest subject an audit entry keeps.
    public static let maximumSubjectLength = 500

    /// The feature id an entry records for `subject`.
    static func featureID(_ subject: String) -> String {
        String(subject.prefix(maximumSubjectLength))
    }

    /// The hash an entry records for `detail`.
    static func detailHash(_ detail: String) -> String { SHA256.hex(Array(detail.utf8)) }

    static func requireAuditedKind(_ kind: ChangeKind, layer: String) throws {
        guard !kind.changesData else {
            throw StoreError(.invalidFeature, "an access entry records an act that changes nothing (access or refused), not \(kind.rawValue)", layer: layer)
        }
    }
}

extension SpatiaLiteStore: AccessJournal {
    public func recordAccess(layer: String, subject: String, detail: String, kind: ChangeKind, by caller: Caller) async throws {
        try AccessJournalEntry.requireAuditedKind(kind, layer: layer)
        let time = RFC3339.microseconds(TwinClock.current.now)
        try await mapErrors(layer: layer) {
            try await pool.write { db in
                try self.appendAudit(db, caller: caller, layer: layer, featureID: AccessJournalEntry.featureID(subject), kind: kind,
                                     after: AccessJournalEntry.detailHash(detail), time: time)
            }
        }
    }
}

extension PostGISStore: AccessJournal {
    public func recordAccess(layer: String, subject: String, detail: String, kind: ChangeKind, by caller: Caller) async throws {
        try AccessJournalEntry.requireAuditedKind(kind, layer: layer)
        let hash = AccessJournalEntry.detailHash(detail)
        try await writeAudited(layer: layer, featureID: AccessJournalEntry.featureID(subject), caller: caller) { _, _, _ in (kind, hash) }
    }
}
