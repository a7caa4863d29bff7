import Foundation
import GeoCore

extension AddressGeocoder {
    /// Metres per degree of arc on the CGCS2000 ellipsoid's mean radius (6 371 008.8 m).
    static let metresPerDegree = 6_371_008.8 * Double.pi / 180

    /// The door plate (门牌) or building (楼栋) in use nearest to `position`.
    ///
    /// - Parameters:
    ///   - position: lon/lat in EPSG:4490 (degrees).
    ///   - maximumDistance: metres; farther records are not returned.
    /// - Returns: the record with `distance` in metres (equirectangular, accurate to about 0.1 %
    ///   over a district), or `nil` when none lies within `maximumDistance` or `position` is not finite.
    public func reverseGeocode(_ position: Position, maximumDistance: Double = 500) -> AddressMatch? {
        guard position.isFinite else { return nil }
        let x = position.x * cosLatitude, y = position.y
        let hit = reverseIndex.nearest(to: Position(x: x, y: y), k: 1) { i in
            let p = table.position(i)
            return hypot(p.x * cosLatitude - x, p.y - y)
        }
        guard let best = hit.first else { return nil }
        let metres = best.distance * Self.metresPerDegree
        guard metres <= maximumDistance else { return nil }
        let record = self.record(best.element)
        // Closer than a few metres is as good as standing at the entrance.
        let confidence = max(0.05, min(1, 1 - metres / max(1, maximumDistance)))
        return AddressMatch(record: record, level: record.level.matchLevel, confidence: (confidence * 1000).rounded() / 1000,
                            components: components(of: best.element), distance: (metres * 100).rounded() / 100)
    }
}
