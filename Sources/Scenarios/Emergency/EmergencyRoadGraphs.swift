import GeoCore
import NetworkAnalysis
import TwinStore

/// The road graphs the emergency analyses route on, built once per store, profile and caller
/// and refreshed from the change feed when the roads layer changes (a process call costs one
/// change-feed query instead of a graph and hierarchy build).
public actor EmergencyRoadGraphs {
    /// The graphs shared by every process of this server or worker.
    public static let shared = EmergencyRoadGraphs()

    private struct Key: Hashable {
        var store: ObjectIdentifier
        var profile: TravelProfile
        var caller: Caller
        var layer: String
    }
    private var graphs: [Key: StoreRoadGraph] = [:]

    public init() {}

    /// The graph of `layer` for `profile` as `caller` reads it, rebuilt if the layer changed.
    /// Stores that are not classes are not cached (a value has no identity to key on).
    public func graph(for store: any FeatureStore, profile: TravelProfile, layer: String = "roads",
                      by caller: Caller) async throws -> StoreRoadGraph {
        guard type(of: store) is AnyClass else {
            return try await StoreRoadGraph.load(from: store, profile: profile, layer: layer, by: caller)
        }
        let key = Key(store: ObjectIdentifier(store as AnyObject), profile: profile, caller: caller, layer: layer)
        let graph: StoreRoadGraph
        if let cached = graphs[key] {
            graph = try await cached.refreshed(from: store, layer: layer, by: caller)
        } else {
            graph = try await StoreRoadGraph.load(from: store, profile: profile, layer: layer, by: caller)
        }
        graphs[key] = graph
        return graph
    }
}

extension StoreRoadGraph {
    /// The open road position nearest to a lon/lat point.
    /// - Throws: `ScenarioError` naming `field` when the point is not finite or no road is open.
    public func snap(lonLat: Position, avoiding closures: RoadClosures = .none, field: String) throws -> EdgePosition {
        guard lonLat.x.isFinite, lonLat.y.isFinite, (-180...180).contains(lonLat.x), (-90...90).contains(lonLat.y) else {
            throw ScenarioError(.invalidArgument, "(\(lonLat.x), \(lonLat.y)) is not a longitude, latitude in degrees", field: field)
        }
        guard let e = graph.snap(try metric(lonLat), avoiding: closures) else {
            throw ScenarioError(.noRoads, "the road network has no open road near (\(lonLat.x), \(lonLat.y))", field: field)
        }
        return e
    }

    /// Snaps many lon/lat points in one reprojection batch (no closures).
    public func snap(lonLats: [Position]) throws -> [EdgePosition?] {
        var xs = lonLats.map(\.x), ys = lonLats.map(\.y)
        try toMetric.transform(xs: &xs, ys: &ys)
        return zip(xs, ys).map { graph.network.snap(Position(x: $0, y: $1)) }
    }

    /// A route's geometry in lon/lat (EPSG:4490).
    public func lonLatLine(_ route: Route) throws -> LineString {
        LineString(try storage(route.coordinates))
    }
}
