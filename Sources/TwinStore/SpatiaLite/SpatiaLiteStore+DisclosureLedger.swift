import Foundation
import GeoCore
import GRDB

extension SpatiaLiteStore: DisclosureLedger {
    public func releases(requester: String, layer: String, since: Date, sizes: [ClosedRange<Int>]) async throws -> DisclosureLedgerPage {
        try await mapErrors(layer: layer) {
            try await pool.read { db in
                let head = try Int64.fetchOne(db, sql: "SELECT head FROM disclosure_heads WHERE requester = ? AND layer = ?",
                                              arguments: [requester, layer]) ?? 0
                var sets: [ReleasedSet] = []
                for range in DisclosureLedgerSQL.merged(sizes) {
                    let rows = try Row.fetchCursor(db, sql: """
                        SELECT released_at, label, members FROM disclosure_releases
                        WHERE requester = ? AND layer = ? AND size BETWEEN ? AND ? AND released_at >= ?
                        """, arguments: [requester, layer, range.lowerBound, range.upperBound, RFC3339.microseconds(since)])
                    while let row = try rows.next() {
                        let at: Int64 = row[0], label: String = row[1], members: Data = row[2]
                        sets.append(ReleasedSet(sortedMembers: ReleasedSet.decodeMembers(members), releasedAt: RFC3339.date(microseconds: at), label: label))
                    }
                }
                return DisclosureLedgerPage(head: head, sets: sets)
            }
        }
    }

    public func recordReleases(_ sets: [ReleasedSet], requester: String, layer: String, expecting head: Int64, pruneBefore: Date) async throws -> Bool {
        try await mapErrors(layer: layer) {
            try await pool.write { db in
                let now = try Int64.fetchOne(db, sql: "SELECT head FROM disclosure_heads WHERE requester = ? AND layer = ?",
                                             arguments: [requester, layer]) ?? 0
                guard now == head else { return false }
                try db.execute(sql: "INSERT OR REPLACE INTO disclosure_heads (requester, layer, head) VALUES (?, ?, ?)",
                               arguments: [requester, layer, head + 1])
                try db.execute(sql: "DELETE FROM disclosure_releases WHERE requester = ? AND layer = ? AND released_at < ?",
                               arguments: [requester, layer, RFC3339.microseconds(pruneBefore)])
                let insert = try db.makeStatement(sql: """
                    INSERT INTO disclosure_releases (requester, layer, size, released_at, label, members) VALUES (?, ?, ?, ?, ?, ?)
                    """)
                for set in sets {
                    try insert.execute(arguments: [requester, layer, set.size, RFC3339.microseconds(set.releasedAt), set.label, set.encodedMembers])
                }
                return true
            }
        }
    }
}
