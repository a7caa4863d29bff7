import GeoCore
import NetworkAnalysis

/// A resource reached from an incident along the roads.
public struct ResourceReach: Sendable, Hashable {
    public var resource: EmergencyResource
    /// Travel time along the roads in seconds, from the incident's road position to the resource's.
    public var seconds: Double
    /// Route length along the roads in metres.
    public var metres: Double
    /// The route in lon/lat (EPSG:4490), from the incident's road position to the resource's.
    public var route: LineString
    /// Straight distance in metres from the resource to its road position (the last stretch on foot).
    public var accessMetres: Double
}

/// "Which three shelters can take 800 people fastest from here?": the N resources with the
/// shortest travel time from an incident, one one-to-all search serving every candidate.
public enum NearestResources {
    /// The `count` resources fastest to reach from `incident` (lon/lat), fastest first (ties by
    /// the order of `resources`); unreachable ones are left out.
    /// - Parameters:
    ///   - resources: candidates, already filtered (category, status, capacity).
    ///   - closures: road pieces that may not be used (a flood).
    /// - Throws: `ScenarioError` naming `incident` when it is not a lon/lat or no road is open.
    public static func find(from incident: Position, among resources: [EmergencyResource], count: Int,
                            roads: StoreRoadGraph, avoiding closures: RoadClosures = .none) throws -> [ResourceReach] {
        guard count > 0 else { throw ScenarioError(.invalidArgument, "must be ≥ 1, got \(count)", field: "count") }
        let origin = try roads.snap(lonLat: incident, avoiding: closures, field: "incident")
        guard !resources.isEmpty else { return [] }
        var xs = resources.map(\.position.x), ys = resources.map(\.position.y)
        try roads.toMetric.transform(xs: &xs, ys: &ys)
        var targets: [EdgePosition] = []
        var kept: [Int] = []
        for i in resources.indices {
            if let e = roads.graph.snap(Position(x: xs[i], y: ys[i]), avoiding: closures) {
                targets.append(e)
                kept.append(i)
            }
        }
        let reached = roads.graph.nearest(from: origin, targets: targets, count: count, avoiding: closures, withRoutes: true)
        return try reached.compactMap { r in
            guard let route = r.route else { return nil }
            return ResourceReach(resource: resources[kept[r.index]], seconds: r.seconds, metres: route.metres,
                                 route: try roads.lonLatLine(route), accessMetres: targets[r.index].distance)
        }
    }
}
