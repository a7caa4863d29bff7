import CGEOS

// The DE-9IM spatial predicates (OGC Simple Features §6.1.15), computed by GEOS in the plane of
// the geometries' CRS. Each converts both geometries on this thread's GEOS context; to test one
// geometry against many others, prepare it once (`PreparedGeometry`).

extension Geometry {
    /// Whether the two geometries share at least one point (interior or boundary).
    public func intersects(_ other: Geometry) throws -> Bool {
        try geosPredicate(other, "intersects", GEOSIntersects_r)
    }

    /// Whether the two geometries share no point at all: the negation of `intersects`.
    public func disjoint(_ other: Geometry) throws -> Bool {
        try geosPredicate(other, "disjoint", GEOSDisjoint_r)
    }

    /// Whether the geometries meet only at their boundaries (no interior point in common).
    public func touches(_ other: Geometry) throws -> Bool {
        try geosPredicate(other, "touches", GEOSTouches_r)
    }

    /// Whether the geometries share some but not all interior points and the intersection has
    /// lower dimension than the larger of the two (a road crossing a district boundary).
    public func crosses(_ other: Geometry) throws -> Bool {
        try geosPredicate(other, "crosses", GEOSCrosses_r)
    }

    /// Whether every point of this geometry lies in `other` and the interiors meet.
    public func within(_ other: Geometry) throws -> Bool {
        try geosPredicate(other, "within", GEOSWithin_r)
    }

    /// Whether every point of `other` lies in this geometry and the interiors meet
    /// (a point on the boundary is *not* contained; see `covers`).
    public func contains(_ other: Geometry) throws -> Bool {
        try geosPredicate(other, "contains", GEOSContains_r)
    }

    /// Whether the geometries have the same dimension, share some interior points, and each
    /// has points outside the other.
    public func overlaps(_ other: Geometry) throws -> Bool {
        try geosPredicate(other, "overlaps", GEOSOverlaps_r)
    }

    /// Topological equality: the same point set, whatever the vertex order or start point.
    public func equals(_ other: Geometry) throws -> Bool {
        try geosPredicate(other, "equals", GEOSEquals_r)
    }

    /// Whether no point of `other` lies outside this geometry (boundary points included).
    public func covers(_ other: Geometry) throws -> Bool {
        try geosPredicate(other, "covers", GEOSCovers_r)
    }

    /// Whether no point of this geometry lies outside `other` (boundary points included).
    public func coveredBy(_ other: Geometry) throws -> Bool {
        try geosPredicate(other, "coveredBy", GEOSCoveredBy_r)
    }

    /// Structural equality: the same type and structure with every vertex pair within
    /// `tolerance` (CRS units) of each other, in the same order.
    public func equalsExact(_ other: Geometry, tolerance: Double = 0) throws -> Bool {
        try requireFiniteArgument(tolerance, "tolerance")
        return try geosPredicate(other, "equalsExact") { GEOSEqualsExact_r($0, $1, $2, tolerance) }
    }

    /// The DE-9IM intersection matrix of this geometry with `other`, as GEOS writes it:
    /// nine characters from `F012`, row by row (interior, boundary, exterior of `self`),
    /// e.g. `"212101212"` for two overlapping squares.
    public func relate(_ other: Geometry) throws -> String {
        let ctx = GEOSContext.current
        return try ctx.withGEOS(self) { a in
            try ctx.withGEOS(other) { b in try ctx.takeString(GEOSRelate_r(ctx.handle, a, b), "relate") }
        }
    }

    /// Whether the DE-9IM matrix of this geometry with `other` matches `pattern`: nine
    /// characters from `T F * 0 1 2` (e.g. `"T*F**F***"` is `within`). A malformed pattern is
    /// a thrown error carrying GEOS's message.
    public func relate(_ other: Geometry, pattern: String) throws -> Bool {
        try geosPredicate(other, "relate pattern \"\(pattern)\"") { h, a, b in GEOSRelatePattern_r(h, a, b, pattern) }
    }
}
