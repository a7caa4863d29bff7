import Foundation
import NIOCore
import PostgresNIO

extension PostGISStore: TokenRevocations {
    public func revokeToken(digest: String, expiresAt: Int64) async throws {
        try await mapErrors(layer: nil) {
            let key = RevocationSQL.prefix + digest
            try await client.query("""
                INSERT INTO \(unescaped: schema).store_meta (key, value) VALUES (\(key), \(ByteBuffer(string: String(expiresAt))))
                ON CONFLICT (key) DO UPDATE SET value = EXCLUDED.value
                """, logger: logger)
        }
    }

    public func revokedTokens(now: Int64) async throws -> Set<String> {
        try await mapErrors(layer: nil) {
            var out = Set<String>()
            for try await (key, value) in try await client.query(
                "SELECT key, value FROM \(unescaped: schema).store_meta WHERE key LIKE 'revoked:%'", logger: logger
            ).decode((String, ByteBuffer).self) {
                guard (Int64(String(buffer: value)) ?? .max) > now else { continue }
                out.insert(String(key.dropFirst(RevocationSQL.prefix.count)))
            }
            return out
        }
    }
}
