import Foundation
import GeoCore
import NIOCore
import PostgresNIO

extension PostGISStore: CityRecords {
    public func cityRecord() async throws -> CityRecord? {
        try await mapErrors(layer: nil) {
            var out: CityRecord?
            for try await value in try await client.query("SELECT value FROM \(unescaped: schema).store_meta WHERE key = \(CitySQL.key)",
                                                          logger: logger).decode(ByteBuffer.self) {
                out = try CitySQL.decode(Data(value.readableBytesView))
            }
            return out
        }
    }

    public func recordCity(_ record: CityRecord, by caller: Caller) async throws {
        try CitySQL.checkWriter(caller)
        let data = try CitySQL.encode(record)
        try await writeAudited(layer: CitySQL.auditLayer, featureID: CitySQL.featureID, caller: caller) { db, s, log in
            var exists = false
            for try await n in try await db.query("SELECT count(*) FROM \(unescaped: s).store_meta WHERE key = \(CitySQL.key)", logger: log)
                .decode(Int64.self) { exists = n > 0 }
            try await db.query("""
                INSERT INTO \(unescaped: s).store_meta (key, value) VALUES (\(CitySQL.key), \(ByteBuffer(data: data)))
                ON CONFLICT (key) DO UPDATE SET value = EXCLUDED.value
                """, logger: log)
            return (exists ? .update : .insert, CitySQL.contentHash(data))
        }
    }
}
