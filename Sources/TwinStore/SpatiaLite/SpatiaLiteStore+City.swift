import Foundation
import GeoCore
import GRDB

extension SpatiaLiteStore: CityRecords {
    public func cityRecord() async throws -> CityRecord? {
        try await mapErrors(layer: nil) {
            try await pool.read { db in
                try Data.fetchOne(db, sql: "SELECT value FROM store_meta WHERE key = ?", arguments: [CitySQL.key]).map(CitySQL.decode)
            }
        }
    }

    public func recordCity(_ record: CityRecord, by caller: Caller) async throws {
        try CitySQL.checkWriter(caller)
        let data = try CitySQL.encode(record)
        let time = RFC3339.microseconds(TwinClock.current.now)
        try await mapErrors(layer: nil) {
            try await pool.write { db in
                let exists = try Bool.fetchOne(db, sql: "SELECT count(*) > 0 FROM store_meta WHERE key = ?", arguments: [CitySQL.key]) ?? false
                try db.execute(sql: "INSERT OR REPLACE INTO store_meta (key, value) VALUES (?, ?)", arguments: [CitySQL.key, data])
                try self.appendAudit(db, caller: caller, layer: CitySQL.auditLayer, featureID: CitySQL.featureID,
                                     kind: exists ? .update : .insert, after: CitySQL.contentHash(data), time: time)
            }
        }
    }
}
