import CGEOS

// Vertex reduction, e.g. for generalizing layers per zoom level. Tolerances are CRS units.

extension Geometry {
    /// Douglas-Peucker simplification: drops vertices closer than `tolerance` (CRS units) to the
    /// simplified line. Fast, but may produce self-intersections or collapse small polygons.
    public func simplify(tolerance: Double) throws -> Geometry {
        try requireTolerance(tolerance)
        return try geosUnary("simplify") { GEOSSimplify_r($0, $1, tolerance) }
    }

    /// Simplification within `tolerance` (CRS units) that keeps the result valid and the
    /// topology unchanged: no new self-intersections, holes stay inside their shells.
    public func simplifyPreservingTopology(tolerance: Double) throws -> Geometry {
        try requireTolerance(tolerance)
        return try geosUnary("simplify preserving topology") { GEOSTopologyPreserveSimplify_r($0, $1, tolerance) }
    }

    private func requireTolerance(_ tolerance: Double) throws {
        guard tolerance.isFinite, tolerance >= 0 else {
            throw GeometryError(.invalidArgument, "tolerance must be a finite number >= 0, got \(tolerance)", position: "tolerance")
        }
    }
}
