import Foundation
import GeoCore

/// What a department has been told about a layer's records through aggregates (the sandbox's
/// query audit, 数据可用不可见): every set of records whose aggregate was released to it, by the
/// hashes of the records' ids, kept in the store for a window so that every server on the store,
/// and the same server after a restart, checks a new answer against all of them.
///
/// Deciding and recording are one step for a (requester, layer): ``releases(requester:layer:since:sizes:)``
/// reads the ledger with its head (how many releases were ever recorded for the pair), and
/// ``recordReleases(_:requester:layer:expecting:pruneBefore:)`` records only if the head is still
/// the one read, so two answers decided at once on two servers cannot both pass unseen by each
/// other: the second reads again and decides again.
public protocol DisclosureLedger: Sendable {
    /// The sets released to `requester` on `layer` at or after `since` whose size lies in one of
    /// `sizes`, and the head to expect when recording.
    func releases(requester: String, layer: String, since: Date, sizes: [ClosedRange<Int>]) async throws -> DisclosureLedgerPage
    /// Records `sets` as released to `requester` on `layer`, if the head is still `expecting`;
    /// releases recorded before `pruneBefore` are forgotten in the same transaction.
    /// - Returns: `false` when another release was recorded since the head was read (nothing written).
    func recordReleases(_ sets: [ReleasedSet], requester: String, layer: String, expecting head: Int64, pruneBefore: Date) async throws -> Bool
}

/// The releases read from the ledger, with its head.
public struct DisclosureLedgerPage: Sendable {
    public var head: Int64
    public var sets: [ReleasedSet]

    public init(head: Int64, sets: [ReleasedSet]) {
        self.head = head
        self.sets = sets
    }
}

/// One set of records whose aggregates were released: the sorted, distinct hashes of its
/// records' ids (`ReleasedSet.memberHash`), when, and what it was in words (for a refusal's text).
public struct ReleasedSet: Sendable, Hashable {
    public var members: [UInt64]
    public var releasedAt: Date
    public var label: String

    /// - Parameter members: record hashes in any order; kept sorted and distinct.
    public init(members: [UInt64], releasedAt: Date, label: String) {
        var sorted = members.sorted()
        if sorted.count > 1 {
            var w = 1
            for i in 1..<sorted.count where sorted[i] != sorted[w - 1] {
                sorted[w] = sorted[i]
                w += 1
            }
            sorted.removeLast(sorted.count - w)
        }
        self.members = sorted
        self.releasedAt = releasedAt
        self.label = label
    }

    /// Members already sorted and distinct (read back from the ledger).
    init(sortedMembers: [UInt64], releasedAt: Date, label: String) {
        self.members = sortedMembers
        self.releasedAt = releasedAt
        self.label = label
    }

    public var size: Int { members.count }

    /// The ledger's name of a record: a 64-bit hash of its feature id.
    public static func memberHash(_ featureID: String) -> UInt64 { FNV1a.hash("record\u{0}" + featureID) }

    /// How many records lie in exactly one of `a` and `b`, counting no further than `limit`
    /// (the answer is `limit` when there are at least that many). Both sorted and distinct.
    public static func symmetricDifference(_ a: [UInt64], _ b: [UInt64], limit: Int) -> Int {
        if abs(a.count - b.count) >= limit { return limit }
        var i = 0, j = 0, d = 0
        while i < a.count && j < b.count {
            if a[i] == b[j] { i += 1; j += 1; continue }
            d += 1
            if d >= limit { return limit }
            if a[i] < b[j] { i += 1 } else { j += 1 }
        }
        return min(limit, d + (a.count - i) + (b.count - j))
    }

    /// The members as stored: 8 bytes each, little-endian.
    var encodedMembers: Data {
        var data = Data(capacity: members.count * 8)
        for m in members { withUnsafeBytes(of: m.littleEndian) { data.append(contentsOf: $0) } }
        return data
    }

    /// Members read back from `encodedMembers`.
    static func decodeMembers(_ data: Data) -> [UInt64] {
        var out: [UInt64] = []
        out.reserveCapacity(data.count / 8)
        data.withUnsafeBytes { raw in
            var offset = 0
            while offset + 8 <= raw.count {
                out.append(UInt64(littleEndian: raw.loadUnaligned(fromByteOffset: offset, as: UInt64.self)))
                offset += 8
            }
        }
        return out
    }
}

enum DisclosureLedgerSQL {
    /// The ledger's tables (`prefix`: a PostGIS schema and dot, or empty), their integer and blob types.
    static func schema(prefix p: String, integer: String, blob: String) -> [String] {
        [
            """
            CREATE TABLE IF NOT EXISTS \(p)disclosure_heads (
                requester TEXT NOT NULL, layer TEXT NOT NULL, head \(integer) NOT NULL, PRIMARY KEY (requester, layer))
            """,
            """
            CREATE TABLE IF NOT EXISTS \(p)disclosure_releases (
                requester TEXT NOT NULL, layer TEXT NOT NULL, size \(integer) NOT NULL, released_at \(integer) NOT NULL,
                label TEXT NOT NULL, members \(blob) NOT NULL)
            """,
            "CREATE INDEX IF NOT EXISTS disclosure_releases_size ON \(p)disclosure_releases (requester, layer, size)",
        ]
    }

    /// The size ranges merged where they overlap or touch, clamped to sizes ≥ 1.
    static func merged(_ sizes: [ClosedRange<Int>]) -> [ClosedRange<Int>] {
        var out: [ClosedRange<Int>] = []
        for r in sizes.map({ max(1, $0.lowerBound)...max(1, $0.upperBound) }).sorted(by: { $0.lowerBound < $1.lowerBound }) {
            if let last = out.last, r.lowerBound <= last.upperBound + 1 {
                out[out.count - 1] = last.lowerBound...max(last.upperBound, r.upperBound)
            } else {
                out.append(r)
            }
        }
        return out
    }
}
