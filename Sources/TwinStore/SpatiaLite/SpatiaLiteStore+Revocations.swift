import Foundation
import GRDB

extension SpatiaLiteStore: TokenRevocations {
    public func revokeToken(digest: String, expiresAt: Int64) async throws {
        try await mapErrors(layer: nil) {
            try await pool.write { db in
                try db.execute(sql: "INSERT OR REPLACE INTO store_meta (key, value) VALUES (?, ?)",
                               arguments: [RevocationSQL.prefix + digest, Data(String(expiresAt).utf8)])
            }
        }
    }

    public func revokedTokens(now: Int64) async throws -> Set<String> {
        try await mapErrors(layer: nil) {
            try await pool.read { db in
                var out = Set<String>()
                for row in try Row.fetchAll(db, sql: "SELECT key, value FROM store_meta WHERE key LIKE 'revoked:%'") {
                    let key: String = row[0], value: Data = row[1]
                    guard (Int64(String(decoding: value, as: UTF8.self)) ?? .max) > now else { continue }
                    out.insert(String(key.dropFirst(RevocationSQL.prefix.count)))
                }
                return out
            }
        }
    }
}
