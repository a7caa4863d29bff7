import Foundation
import GeoCore
import TwinStore

/// The city's metric CRS as the server reads it on hot paths (depth map tiles, collection
/// documents): the store's record (`CityRecord`), read once and kept, since a record is kept for
/// good. A store that records none (one written before cities were recorded) answers with the
/// metric zone of its data, which depth tiles keep too (their grids were computed in it).
final class CityMetricCRSCache: @unchecked Sendable {
    private let lock = NSLock()
    private var recorded: CoordinateReferenceSystem?
    private var grids: CoordinateReferenceSystem?

    /// The recorded metric CRS, else the zone of `extents` (EPSG:4490 degrees; the catalogue's when nil).
    func metricCRS(of store: any FeatureStore, orZoneOf extents: [Envelope]? = nil) async throws -> CoordinateReferenceSystem? {
        if let known = lock.withLock({ recorded }) { return known }
        if let records = store as? any CityRecords, let crs = try await records.cityRecord()?.metricReferenceSystem {
            lock.withLock { recorded = crs }
            return crs
        }
        return try await CityRecord.metricCRS(of: store, orZoneOf: extents)
    }

    /// The CRS of a flood run's depth grids: the city's metric CRS, resolved once.
    func gridCRS(of store: any FeatureStore) async throws -> CoordinateReferenceSystem {
        if let known = lock.withLock({ grids }) { return known }
        let crs = try await metricCRS(of: store) ?? .districtMetric
        lock.withLock { grids = crs }
        return crs
    }
}
