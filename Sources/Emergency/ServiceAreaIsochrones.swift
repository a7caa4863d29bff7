import GeoCore
import NetworkAnalysis
import ProcessRuntime

/// One isochrone in lon/lat.
public struct Isochrone: Sendable, Hashable {
    /// The break in minutes.
    public var minutes: Double
    /// Polygon or MultiPolygon in lon/lat (EPSG:4490) containing every road reached within the
    /// break and no unreached intersection; empty when nothing is reachable.
    public var area: Geometry
    /// Length of reached roads in metres.
    public var reachedMetres: Double
    /// Intersections (graph nodes) reached.
    public var reachedNodes: Int
    /// Straight metres from the origin to its road position (the snap distance used).
    public var snapMetres: Double
}

/// Service areas from a point for several time breaks (the road graph's `serviceAreas`, in lon/lat).
public enum ServiceAreaIsochrones {
    /// Isochrones from `origin` (lon/lat) for each break in minutes, smallest first. The origin
    /// meets the roads at all its equally near positions (see `RoadAccess`); on a junction it
    /// leaves along every road of the junction, which is reached at 0 s.
    /// - Parameters:
    ///   - bufferMetres: half-width of the polygon around reached roads.
    ///   - maximumSnapMetres: the farthest the origin may lie from the roads.
    /// - Throws: `ScenarioError` naming `origin` (not a lon/lat, or farther than
    ///   `maximumSnapMetres` from the roads) or `breaks`; `GeometryError` from GEOS.
    public static func compute(from origin: Position, minutes breaks: [Double], roads: StoreRoadGraph,
                               avoiding closures: RoadClosures = .none, bufferMetres: Double = 25,
                               maximumSnapMetres: Double = StoreRoadGraph.defaultMaximumSnapMetres) throws -> [Isochrone] {
        guard !breaks.isEmpty else { throw ScenarioError(.invalidArgument, "needs at least one break", field: "breaks") }
        for (i, b) in breaks.enumerated() where !(b.isFinite && b > 0 && b <= 240) {
            throw ScenarioError(.invalidArgument, "break \(i) must be minutes in (0, 240], got \(b)", field: "breaks")
        }
        let start = try roads.access(lonLat: origin, avoiding: closures, field: "origin", maximumMetres: maximumSnapMetres)
        let areas = try roads.graph.serviceAreas(from: start, breaks: breaks.map { $0 * 60 }, avoiding: closures,
                                                 bufferMetres: bufferMetres)
        return try areas.map { a in
            Isochrone(minutes: a.seconds / 60, area: a.area.isEmpty ? a.area : try roads.toStorage.transform(a.area),
                      reachedMetres: a.reachedMetres, reachedNodes: a.reachedNodes, snapMetres: start.distance)
        }
    }
}
