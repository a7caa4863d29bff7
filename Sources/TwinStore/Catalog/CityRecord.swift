import Foundation
import GeoCore

/// The city a store holds, as its catalogue records it (issue 52 §4): its name and the metric CRS
/// every metric computation works in — lengths, buffers, routing costs, flood grids, DEMs. Chosen
/// once from where the city's data lies (`CoordinateReferenceSystem.metricZone(for:)`: the CGCS2000
/// 3° Gauss–Krüger zone inside China, the UTM zone elsewhere) when the city is first built or
/// imported, and kept, so data added later at the city's edge never moves the city into another
/// zone under its stored DEM and flood grids. Storage stays EPSG:4490.
///
/// Kept in `store_meta` under `city`; recording it is an administrator's write with an entry in
/// the audit chain (layer `catalog`, feature `city`).
public struct CityRecord: Codable, Sendable, Hashable {
    /// The city's name as its builder gave it (e.g. `Helsinki`, `新洲区`).
    public var name: String
    /// The metric CRS, `EPSG:<code>`.
    public var metricCRS: String
    /// Who recorded it (`Caller.author`) and when (RFC 3339).
    public var recordedBy: String
    public var recordedAt: String

    public init(name: String, metricCRS: CoordinateReferenceSystem, by caller: Caller, at now: Date = TwinClock.current.now) {
        self.name = name
        self.metricCRS = "\(metricCRS.authority):\(metricCRS.code)"
        recordedBy = caller.author
        recordedAt = RFC3339.format(now)
    }

    /// ``metricCRS`` as a CRS.
    public var metricReferenceSystem: CoordinateReferenceSystem? {
        let parts = metricCRS.split(separator: ":", maxSplits: 1)
        guard parts.count == 2 else { return nil }
        return CoordinateReferenceSystem(authority: String(parts[0]), code: String(parts[1]))
    }

    /// The metric CRS of the city in `store`: the recorded one; for a store that records none (one
    /// written before the city was recorded), the metric zone of `extents` (EPSG:4490 degrees; the
    /// catalogue's extent when nil); nil without a record or any extent.
    public static func metricCRS(of store: any FeatureStore, orZoneOf extents: [Envelope]? = nil) async throws -> CoordinateReferenceSystem? {
        if let records = store as? any CityRecords, let recorded = try await records.cityRecord()?.metricReferenceSystem {
            return recorded
        }
        guard let extents else {
            return try await CityExtent.of(store).map { CoordinateReferenceSystem.metricZone(for: $0.catalogue) }
        }
        let finite = extents.filter { [$0.minX, $0.minY, $0.maxX, $0.maxY].allSatisfy(\.isFinite) }
        guard var union = finite.first else { return nil }
        for e in finite.dropFirst() { union.expand(toInclude: e) }
        return CoordinateReferenceSystem.metricZone(for: union)
    }

    /// Records the city of `store` unless it records one already.
    /// - Parameters:
    ///   - name: the city's name (`city` when nil).
    ///   - metricCRS: the metric CRS; nil chooses the metric zone of the catalogue's extent.
    /// - Returns: the record written; nil when one was recorded before, or nothing can be recorded
    ///   (a store that keeps no records, or one without geometries and no `metricCRS` given).
    @discardableResult
    public static func recordIfAbsent(in store: any FeatureStore, name: String?, metricCRS: CoordinateReferenceSystem? = nil,
                              by caller: Caller) async throws -> CityRecord? {
        guard let records = store as? any CityRecords else { return nil }
        if try await records.cityRecord() != nil { return nil }
        var crs = metricCRS
        if crs == nil { crs = try await CityExtent.of(store).map { CoordinateReferenceSystem.metricZone(for: $0.catalogue) } }
        guard let crs else { return nil }
        let record = CityRecord(name: name ?? "city", metricCRS: crs, by: caller)
        try await records.recordCity(record, by: caller)
        return record
    }
}

/// A store that records its city (`CityRecord`): both backends.
public protocol CityRecords: Sendable {
    /// The recorded city, nil when none is.
    func cityRecord() async throws -> CityRecord?
    /// Records `record` as the store's city, replacing any recorded before.
    /// - Throws: `StoreError` `.forbidden` for any caller but the admin.
    func recordCity(_ record: CityRecord, by caller: Caller) async throws
}

/// What both backends share of the city's record.
enum CitySQL {
    static let key = "city"
    /// The audit log's layer and feature of a city record's write.
    static let auditLayer = "catalog"
    static let featureID = "city"

    static func checkWriter(_ caller: Caller) throws {
        guard caller == .admin else {
            throw StoreError(.forbidden, "only the platform administrator may record the city and its metric CRS", field: "city")
        }
    }

    static func encode(_ record: CityRecord) throws -> Data {
        try JSONOutput.encoder(.canonical).encode(record)
    }

    static func decode(_ data: Data) throws -> CityRecord {
        do { return try JSONDecoder().decode(CityRecord.self, from: data) } catch {
            throw StoreError(.backend, "the city's record in the store cannot be read")
        }
    }

    /// The content hash of a record in the audit chain.
    static func contentHash(_ data: Data) -> String { SHA256.hex(Array(data)) }
}
