import Foundation
import GeoCore

/// The store's journal of writes, in both backends: ONE row per change to one feature in
/// `audit_log`, written in the transaction of the change. The row is read two ways:
/// - as an `AuditEntry` (who, department, role, when, layer, feature, kind, content hashes
///   before and after, and the chained entry hash), for auditors;
/// - as a `ChangeEvent` (sequence, layer, feature, kind, when, and the feature's envelope before
///   and after), for subscribers such as the tile cache and the road graph.
///
/// Audit entries and change events used to be two tables with one row each per change; they
/// always came in pairs, written together, so one row serves both: a change costs one row
/// insert and one index entry instead of two of each, and the two views can never disagree.
/// The sequence is the audit entry's: strictly increasing in commit order, as subscribers need.
enum JournalSQL {
    /// The envelope columns (EPSG:4490 degrees; NULL when the feature had no geometry, or did
    /// not exist on that side of the change).
    static let boxColumns = ["before_minx", "before_miny", "before_maxx", "before_maxy",
                             "after_minx", "after_miny", "after_maxx", "after_maxy"]

    /// Every column a change writes, in the order `WritePlan.AuditRow`s are bound.
    static let writtenColumns = ["at", "actor", "department", "role", "layer", "fid", "action", "before_hash", "after_hash", "entry_hash"]
        + boxColumns

    /// The columns of an `AuditEntry`, in `auditEntry(...)`'s parameter order.
    static let auditColumns = "seq, at, actor, department, role, layer, fid, action, before_hash, after_hash, entry_hash"

    /// The columns of a `ChangeEvent`, in `changeEvent(...)`'s parameter order.
    static let changeColumns = "seq, layer, fid, action, at, " + boxColumns.joined(separator: ", ")

    /// The condition selecting rows that changed data: audited acts that changed nothing (a
    /// sandbox query, `ChangeKind.access` and `.refused`) stay out of the change feed and of a
    /// layer's last change.
    static let changedData = "action IN ('insert', 'update', 'delete', 'transfer')"

    /// The last change of `layer` (an SQL expression: a column of an outer query or a parameter)
    /// in the audit log of `schema` (PostgreSQL), as a subquery: one entry read backwards from
    /// the index of changes `audit_log_layer_changes (layer, seq)`.
    ///
    /// Not `max(seq) … WHERE layer = x`: planned once for every layer, with the layer unknown,
    /// PostgreSQL takes it to match most of the log and walks back from the log's end along the
    /// primary key, filtering by layer, which reads the whole log for a layer that changed long
    /// ago or never (under the mixed load, 65 ms and 70,000 pages on every `/collections`). The
    /// layer is bounded from both sides instead (the same rows under a deterministic collation,
    /// PostgreSQL's default), which leaves the layer in the index's order: only the index of
    /// changes gives `ORDER BY layer DESC, seq DESC` without sorting the layer's entries.
    static func lastChangeOfLayer(schema: String, layer: String) -> String {
        "SELECT a.seq FROM \(schema).audit_log AS a WHERE a.layer >= \(layer) AND a.layer <= \(layer) AND a.\(changedData) "
            + "ORDER BY a.layer DESC, a.seq DESC LIMIT 1"
    }

    /// The envelope in four optional columns, when all four hold a value.
    static func envelope(_ minX: Double?, _ minY: Double?, _ maxX: Double?, _ maxY: Double?) -> Envelope? {
        guard let minX, let minY, let maxX, let maxY else { return nil }
        return Envelope(minX: minX, minY: minY, maxX: maxX, maxY: maxY)
    }

    /// The box values of one change, before then after, in `boxColumns` order.
    static func boxValues(_ change: WritePlan.Change) -> [Double?] {
        let b = change.before?.envelope, a = change.after?.envelope
        return [b?.minX, b?.minY, b?.maxX, b?.maxY, a?.minX, a?.minY, a?.maxX, a?.maxY]
    }

    /// An audit entry from the `auditColumns` of one row (`at` in microseconds, `action` as stored).
    static func auditEntry(sequence: Int64, at: Int64, actor: String, department: String?, role: String, layer: String,
                           featureID: String, action: String, beforeHash: String?, afterHash: String?, entryHash: String) -> AuditEntry {
        AuditEntry(sequence: sequence, at: RFC3339.date(microseconds: at), actor: actor, department: department, role: role,
                   layer: layer, featureID: featureID, kind: ChangeKind(rawValue: action) ?? .update,
                   beforeHash: beforeHash, afterHash: afterHash, entryHash: entryHash)
    }

    /// A change event from the `changeColumns` of one row, its boxes already read.
    static func changeEvent(sequence: Int64, layer: String, featureID: String, kind: String, at: Int64,
                            before: Envelope?, after: Envelope?) -> ChangeEvent {
        ChangeEvent(sequence: sequence, layer: layer, featureID: featureID, kind: ChangeKind(rawValue: kind) ?? .update,
                    at: RFC3339.date(microseconds: at), envelopeBefore: before, envelopeAfter: after)
    }
}
