import Foundation
import GeoCore
import NIOCore
import PostgresNIO

extension PostGISStore: DisclosureLedger {
    public func releases(requester: String, layer: String, since: Date, sizes: [ClosedRange<Int>]) async throws -> DisclosureLedgerPage {
        try await mapErrors(layer: layer) {
            var head: Int64 = 0
            for try await h in try await client.query("""
                SELECT head FROM \(unescaped: schema).disclosure_heads WHERE requester = \(requester) AND layer = \(layer)
                """, logger: logger).decode(Int64.self) {
                head = h
            }
            var sets: [ReleasedSet] = []
            for range in DisclosureLedgerSQL.merged(sizes) {
                let (low, high, from) = (Int64(range.lowerBound), Int64(range.upperBound), RFC3339.microseconds(since))
                for try await (at, label, members) in try await client.query("""
                    SELECT released_at, label, members FROM \(unescaped: schema).disclosure_releases
                    WHERE requester = \(requester) AND layer = \(layer) AND size BETWEEN \(low) AND \(high) AND released_at >= \(from)
                    """, logger: logger).decode((Int64, String, ByteBuffer).self) {
                    sets.append(ReleasedSet(sortedMembers: ReleasedSet.decodeMembers(Data(members.readableBytesView)),
                                            releasedAt: RFC3339.date(microseconds: at), label: label))
                }
            }
            return DisclosureLedgerPage(head: head, sets: sets)
        }
    }

    public func recordReleases(_ sets: [ReleasedSet], requester: String, layer: String, expecting head: Int64, pruneBefore: Date) async throws -> Bool {
        let s = schema
        return try await mapErrors(layer: layer) {
            try await client.withTransaction(logger: logger) { db in
                try await db.query("""
                    INSERT INTO \(unescaped: s).disclosure_heads (requester, layer, head) VALUES (\(requester), \(layer), 0)
                    ON CONFLICT (requester, layer) DO NOTHING
                    """, logger: self.logger)
                // The row lock this update takes orders two deciders of the same pair: the second
                // finds the head moved and records nothing.
                var moved = false
                for try await _ in try await db.query("""
                    UPDATE \(unescaped: s).disclosure_heads SET head = head + 1
                    WHERE requester = \(requester) AND layer = \(layer) AND head = \(head) RETURNING head
                    """, logger: self.logger).decode(Int64.self) {
                    moved = true
                }
                guard moved else { return false }
                try await db.query("""
                    DELETE FROM \(unescaped: s).disclosure_releases
                    WHERE requester = \(requester) AND layer = \(layer) AND released_at < \(RFC3339.microseconds(pruneBefore))
                    """, logger: self.logger)
                for set in sets {
                    let (size, at, members) = (Int64(set.size), RFC3339.microseconds(set.releasedAt), ByteBuffer(bytes: set.encodedMembers))
                    try await db.query("""
                        INSERT INTO \(unescaped: s).disclosure_releases (requester, layer, size, released_at, label, members)
                        VALUES (\(requester), \(layer), \(size), \(at), \(set.label), \(members))
                        """, logger: self.logger)
                }
                return true
            }
        }
    }
}
