import GeoCore
import NetworkAnalysis

/// A resource (or demand point) the road network does not reach: farther from every road than
/// the maximum snap distance, or with no open road at all. Listed with the reason instead of
/// being given a travel time that would hide a long walk across blocks.
public struct OffRoadResource: Sendable, Hashable {
    public var resource: EmergencyResource
    /// Straight metres to the nearest open road, `nil` when no road is open.
    public var accessMetres: Double?
    /// Why it is left out, e.g. "612 m from the nearest road, beyond the maximum snap distance of 500 m".
    public var reason: String

    public init(resource: EmergencyResource, accessMetres: Double?, reason: String) {
        self.resource = resource
        self.accessMetres = accessMetres
        self.reason = reason
    }
}

extension StoreRoadGraph {
    /// The road access of each resource (`nil` when it is off the network), and the off-network
    /// ones with the reason, in the order of `resources`.
    /// - Parameter maximumMetres: the farthest a resource may lie from the road and still count.
    /// - Throws: `GeometryError` from reprojection.
    public func access(resources: [EmergencyResource], avoiding closures: RoadClosures = .none,
                       maximumMetres: Double = defaultMaximumSnapMetres) throws
        -> (accesses: [RoadAccess?], offRoad: [OffRoadResource]) {
        try Self.limit(resources: resources, accesses: try access(lonLats: resources.map(\.position), avoiding: closures),
                       maximumMetres: maximumMetres)
    }

    /// `accesses` (one per resource, no distance limit, `nil` when no road is open) with those farther
    /// than `maximumMetres` removed, and the removed ones listed with the reason.
    static func limit(resources: [EmergencyResource], accesses all: [RoadAccess?], maximumMetres: Double)
        -> (accesses: [RoadAccess?], offRoad: [OffRoadResource]) {
        var offRoad: [OffRoadResource] = []
        let kept = all.enumerated().map { i, a -> RoadAccess? in
            guard let a else {
                offRoad.append(OffRoadResource(resource: resources[i], accessMetres: nil, reason: "no open road"))
                return nil
            }
            guard a.distance <= maximumMetres else {
                offRoad.append(OffRoadResource(
                    resource: resources[i], accessMetres: a.distance,
                    reason: "\(Self.metresText(a.distance)) m from the nearest road, beyond the maximum snap distance of \(Self.metresText(maximumMetres)) m"))
                return nil
            }
            return a
        }
        return (kept, offRoad)
    }
}
