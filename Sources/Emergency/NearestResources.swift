import GeoCore
import NetworkAnalysis
import ProcessRuntime

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

/// The answer to a nearest-resources query.
public struct NearestResourcesAnswer: Sendable, Hashable {
    /// The resources reached, fastest first.
    public var reached: [ResourceReach]
    /// Straight metres from the incident to its road position (the snap distance used).
    public var incidentSnapMetres: Double
    /// The maximum snap distance applied to the incident and to the resources.
    public var maximumSnapMetres: Double
    /// Candidates left out because the roads do not reach them, with the reason.
    public var offRoad: [OffRoadResource]
    /// Candidates the city's conditions cut off (never ranked), nearest in the dry city first.
    public var cutOff: [CutOffResource] = []
}

/// A resource the city's conditions cut off from an incident.
public struct CutOffResource: Sendable, Hashable {
    public var resource: EmergencyResource
    /// Why, naming the road, the depth or the closure (`CityConditions.ClosedRoad.why`).
    public var reason: String
    /// Seconds from the incident in the dry city (`nil`: unreachable even then).
    public var drySeconds: Double?
}

/// "Which three shelters can take 800 people fastest from here?": the N resources with the
/// shortest travel time from an incident, one one-to-all search serving every candidate.
public enum NearestResources {
    /// The `count` resources fastest to reach from `incident` (lon/lat), fastest first (ties by
    /// the order of `resources`); unreachable ones are left out.
    /// - Throws: as `search(from:among:count:roads:avoiding:maximumSnapMetres:)`.
    public static func find(from incident: Position, among resources: [EmergencyResource], count: Int,
                            roads: StoreRoadGraph, avoiding closures: RoadClosures = .none) throws -> [ResourceReach] {
        try search(from: incident, among: resources, count: count, roads: roads, avoiding: closures).reached
    }

    /// The `count` resources fastest to reach from `incident` (lon/lat), fastest first (ties by
    /// the order of `resources`), with the snap distance used. The incident and each resource
    /// meet the roads at all their equally near positions (see `RoadAccess`): a shelter set back
    /// from four streets is reached through the fastest of them, an incident on a junction
    /// leaves along every road of the junction. Resources farther than `maximumSnapMetres` from
    /// every road are listed in `offRoad`, not ranked; unreachable ones are left out.
    /// - Parameters:
    ///   - resources: candidates, already filtered (category, status, capacity).
    ///   - closures: road pieces that may not be used (a flood).
    ///   - maximumSnapMetres: the farthest the incident or a resource may lie from the roads.
    /// - Throws: `ScenarioError` naming `incident` when it is not a lon/lat, no road is open, or
    ///   the roads are farther than `maximumSnapMetres`.
    public static func search(from incident: Position, among resources: [EmergencyResource], count: Int,
                              roads: StoreRoadGraph, avoiding closures: RoadClosures = .none,
                              maximumSnapMetres: Double = StoreRoadGraph.defaultMaximumSnapMetres) throws -> NearestResourcesAnswer {
        guard count > 0 else { throw ScenarioError(.invalidArgument, "must be ≥ 1, got \(count)", field: "count") }
        let origin = try roads.access(lonLat: incident, avoiding: closures, field: "incident", maximumMetres: maximumSnapMetres)
        let (accesses, offRoad) = try roads.access(resources: resources, avoiding: closures, maximumMetres: maximumSnapMetres)
        return try search(from: origin, among: resources, accesses: accesses, offRoad: offRoad, count: count, roads: roads,
                          avoiding: closures, maximumSnapMetres: maximumSnapMetres)
    }

    /// As `search(from:among:count:roads:avoiding:maximumSnapMetres:)` with the resources' road
    /// accesses already known (`snapped`, one per resource, no distance limit, on `roads` with no
    /// closures): what a cached resource layer answers from.
    public static func search(from incident: Position, among snapped: SnappedResources, count: Int, roads: StoreRoadGraph,
                              maximumSnapMetres: Double = StoreRoadGraph.defaultMaximumSnapMetres) throws -> NearestResourcesAnswer {
        guard count > 0 else { throw ScenarioError(.invalidArgument, "must be ≥ 1, got \(count)", field: "count") }
        let origin = try roads.access(lonLat: incident, field: "incident", maximumMetres: maximumSnapMetres)
        let (accesses, offRoad) = StoreRoadGraph.limit(resources: snapped.resources, accesses: snapped.accesses, maximumMetres: maximumSnapMetres)
        return try search(from: origin, among: snapped.resources, accesses: accesses, offRoad: offRoad, count: count, roads: roads,
                          avoiding: .none, maximumSnapMetres: maximumSnapMetres, sweeping: snapped.sweep)
    }

    /// As `search(from:among:count:roads:maximumSnapMetres:)` under the city's conditions
    /// (`CityConditions.roads(on:vehicle:)`): the incident meets the nearest road open to the
    /// vehicle; each resource keeps its own road access (its door), and one the conditions cut
    /// off (its every access road closed or flooded beyond the vehicle's wading depth, or no open
    /// way from the incident) is never ranked but listed in `cutOff` with why and its dry time.
    public static func search(from incident: Position, among snapped: SnappedResources, count: Int, roads: StoreRoadGraph,
                              under state: CityConditions.Roads,
                              maximumSnapMetres: Double = StoreRoadGraph.defaultMaximumSnapMetres) throws -> NearestResourcesAnswer {
        guard !state.closures.isEmpty else {
            return try search(from: incident, among: snapped, count: count, roads: roads, maximumSnapMetres: maximumSnapMetres)
        }
        guard count > 0 else { throw ScenarioError(.invalidArgument, "must be ≥ 1, got \(count)", field: "count") }
        let closures = state.closures
        let origin = try roads.access(lonLat: incident, avoiding: closures, field: "incident", maximumMetres: maximumSnapMetres)
        let (accesses, offRoad) = StoreRoadGraph.limit(resources: snapped.resources, accesses: snapped.accesses, maximumMetres: maximumSnapMetres)
        var answer = try search(from: origin, among: snapped.resources, accesses: accesses, offRoad: offRoad, count: count, roads: roads,
                                avoiding: closures, maximumSnapMetres: maximumSnapMetres)
        var targets: [RoadAccess] = [], kept: [Int] = []
        for (i, a) in accesses.enumerated() {
            if let a { targets.append(a); kept.append(i) }
        }
        let wet = roads.graph.travelTimes(from: origin, to: targets, avoiding: closures)
        let dry = roads.graph.travelTimes(from: origin, to: targets)
        for k in targets.indices where wet[k] == nil {
            let resource = snapped.resources[kept[k]]
            let why: String
            if targets[k].positions.allSatisfy({ closures.contains($0.piece) }),
               let road = state.closedRoad(piece: targets[k].positions[0].piece) {
                why = "its access road: " + road.why(state.vehicle)
            } else {
                why = "isolated: every way from the incident crosses a closed or flooded road"
            }
            answer.cutOff.append(CutOffResource(resource: resource, reason: why, drySeconds: dry[k]))
        }
        answer.cutOff.sort { ($0.drySeconds ?? .infinity, $0.resource.id) < ($1.drySeconds ?? .infinity, $1.resource.id) }
        return answer
    }

    private static func search(from origin: RoadAccess, among resources: [EmergencyResource], accesses: [RoadAccess?],
                               offRoad: [OffRoadResource], count: Int, roads: StoreRoadGraph, avoiding closures: RoadClosures,
                               maximumSnapMetres: Double, sweeping selection: [Int32]? = nil) throws -> NearestResourcesAnswer {
        var targets: [RoadAccess] = []
        var kept: [Int] = []
        for (i, a) in accesses.enumerated() {
            if let a { targets.append(a); kept.append(i) }
        }
        let reached = roads.graph.nearest(from: origin, targets: targets, count: count, avoiding: closures, withRoutes: true,
                                          sweeping: selection)
        let found = try reached.compactMap { r -> ResourceReach? in
            guard let route = r.route else { return nil }
            return ResourceReach(resource: resources[kept[r.index]], seconds: r.seconds, metres: route.metres,
                                 route: try roads.lonLatLine(route), accessMetres: targets[r.index].distance)
        }
        return NearestResourcesAnswer(reached: found, incidentSnapMetres: origin.distance, maximumSnapMetres: maximumSnapMetres,
                                      offRoad: offRoad)
    }
}
