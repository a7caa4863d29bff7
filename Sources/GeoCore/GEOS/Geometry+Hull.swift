import CGEOS

extension Geometry {
    /// The smallest convex polygon containing every point (a point or line when degenerate).
    public func convexHull() throws -> Geometry {
        try geosUnary("convex hull", GEOSConvexHull_r)
    }

    /// A concave hull of the vertices (GEOS 3.11, after JTS's ConcaveHull), e.g. the outline of a
    /// cluster of incident reports.
    /// - Parameters:
    ///   - ratio: 0...1, the maximum edge length as a fraction of the difference between the
    ///     longest and shortest Delaunay edges: 1 gives the convex hull, smaller is tighter.
    ///   - allowHoles: whether the hull may contain holes.
    public func concaveHull(ratio: Double, allowHoles: Bool = false) throws -> Geometry {
        guard ratio >= 0, ratio <= 1 else {
            throw GeometryError(.invalidArgument, "ratio must be in 0...1, got \(ratio)", position: "ratio")
        }
        return try geosUnary("concave hull") { GEOSConcaveHull_r($0, $1, ratio, allowHoles ? 1 : 0) }
    }
}
