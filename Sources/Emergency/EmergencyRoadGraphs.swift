import Foundation
import GeoCore
import NetworkAnalysis
import ProcessRuntime
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
        let key = Key(store: ObjectIdentifier(store as AnyObject), profile: profile, caller: caller.accessClass, layer: layer)
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
    /// How far (metres) a point may lie from the nearest road and still be routed from or to:
    /// 500 m. Beyond it the straight stretch to the road is not a detail of the answer but
    /// most of it (a vehicle does not cross 500 m of blocks; GB 51143 counts a shelter's whole
    /// walking catchment as 500 m), so an incident there is refused and a resource there is
    /// reported off the network, never given a confident travel time. Every analysis takes its
    /// own limit (process input `maximumSnapMetres`, CLI `--max-snap-metres`).
    public static let defaultMaximumSnapMetres = 500.0

    /// The open road positions nearest to a lon/lat point (ties included, see `RoadAccess`).
    /// - Parameter maximumMetres: the farthest the point may lie from the road.
    /// - Throws: `ScenarioError` naming `field` when the point is not finite, no road is open, or
    ///   the nearest road is farther than `maximumMetres` (the message gives the distance).
    public func access(lonLat: Position, avoiding closures: RoadClosures = .none, field: String,
                       maximumMetres: Double = defaultMaximumSnapMetres) throws -> RoadAccess {
        guard lonLat.x.isFinite, lonLat.y.isFinite, (-180...180).contains(lonLat.x), (-90...90).contains(lonLat.y) else {
            throw ScenarioError(.invalidArgument, "(\(lonLat.x), \(lonLat.y)) is not a longitude, latitude in degrees", field: field)
        }
        guard let access = graph.access(to: try metric(lonLat), avoiding: closures) else {
            throw ScenarioError(.noRoads, "the road network has no open road near (\(lonLat.x), \(lonLat.y))", field: field)
        }
        guard access.distance <= maximumMetres else {
            throw ScenarioError(.tooFarFromRoads,
                                "(\(lonLat.x), \(lonLat.y)) is \(Self.metresText(access.distance)) m from the nearest \(closures.isEmpty ? "" : "open ")road, beyond the maximum snap distance of \(Self.metresText(maximumMetres)) m",
                                field: field)
        }
        return access
    }

    /// The nearest open road position to a lon/lat point, ties broken by piece order.
    /// - Throws: `ScenarioError` as `access(lonLat:avoiding:field:maximumMetres:)`.
    public func snap(lonLat: Position, avoiding closures: RoadClosures = .none, field: String,
                     maximumMetres: Double = defaultMaximumSnapMetres) throws -> EdgePosition {
        try access(lonLat: lonLat, avoiding: closures, field: field, maximumMetres: maximumMetres).nearest
    }

    /// The road accesses of many lon/lat points in one reprojection batch, with no distance limit
    /// (the caller decides what is too far); `nil` only when no road is open.
    public func access(lonLats: [Position], avoiding closures: RoadClosures = .none) throws -> [RoadAccess?] {
        var xs = lonLats.map(\.x), ys = lonLats.map(\.y)
        try toMetric.transform(xs: &xs, ys: &ys)
        return zip(xs, ys).map { graph.access(to: Position(x: $0, y: $1), avoiding: closures) }
    }

    /// Metres for messages: whole metres from 10 m on, else centimetres.
    static func metresText(_ metres: Double) -> String {
        metres >= 10 ? String(Int(metres.rounded())) : String(format: "%.2f", metres)
    }

    /// A route's geometry in lon/lat (EPSG:4490).
    public func lonLatLine(_ route: Route) throws -> LineString {
        LineString(try storage(route.coordinates))
    }
}
