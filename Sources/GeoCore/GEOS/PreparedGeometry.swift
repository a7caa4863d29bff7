import CGEOS

/// A geometry prepared once for many predicate tests against it: which of 100,000 sensors lie
/// in this flood zone, which parcels a district boundary touches.
///
/// GEOS indexes the prepared geometry's segments lazily on the first test, so each later test
/// costs O(log n) instead of O(n). Points have fast paths (`contains(x:y:)`,
/// `intersects(x:y:)`, the batch `contains(_:)`) that skip building a `Geometry` and reject
/// points outside the bounding box without calling GEOS at all.
///
/// Like `GEOSGeometry`, it is not `Sendable`: use it from one thread at a time (prepare one per
/// worker). Calls use the calling thread's `GEOSContext`.
public final class PreparedGeometry {
    /// The geometry as given.
    public let geometry: Geometry
    /// Bounding box of `geometry` (`nil` when empty): the first, GEOS-free filter for points.
    public let envelope: Envelope?
    /// Owns the GEOS geometry the prepared one points into; released after `prepared`.
    private let native: GEOSGeometry
    private let prepared: OpaquePointer
    /// For polygonal geometries, the point locator the fast paths use (built on first use).
    private lazy var pointLocator: IndexedPointInArea? = IndexedPointInArea(geometry)

    /// Converts and prepares `geometry` (on this thread's GEOS context).
    public init(_ geometry: Geometry) throws {
        let ctx = GEOSContext.current
        let native = try GEOSGeometry(geometry, context: ctx)
        self.prepared = try ctx.check(GEOSPrepare_r(ctx.handle, native.pointer), "prepare")
        self.native = native
        self.geometry = geometry
        self.envelope = geometry.envelope
    }

    deinit {
        // Before `native` (a stored property, released after this body): the prepared geometry
        // refers to it.
        GEOSPreparedGeom_destroy_r(GEOSContext.current.handle, prepared)
    }

    // MARK: - Predicates against any geometry (same meaning as `Geometry`'s, faster when repeated)

    /// Whether the prepared geometry contains `other` (`other` within it, interiors meeting).
    public func contains(_ other: Geometry) throws -> Bool { try test(other, "prepared contains", GEOSPreparedContains_r) }
    /// Whether `other` lies in the prepared geometry's interior, not touching its boundary.
    public func containsProperly(_ other: Geometry) throws -> Bool {
        try test(other, "prepared containsProperly", GEOSPreparedContainsProperly_r)
    }
    /// Whether no point of `other` lies outside the prepared geometry.
    public func covers(_ other: Geometry) throws -> Bool { try test(other, "prepared covers", GEOSPreparedCovers_r) }
    /// Whether no point of the prepared geometry lies outside `other`.
    public func coveredBy(_ other: Geometry) throws -> Bool { try test(other, "prepared coveredBy", GEOSPreparedCoveredBy_r) }
    /// Whether the prepared geometry crosses `other`.
    public func crosses(_ other: Geometry) throws -> Bool { try test(other, "prepared crosses", GEOSPreparedCrosses_r) }
    /// Whether the two share no point.
    public func disjoint(_ other: Geometry) throws -> Bool { try test(other, "prepared disjoint", GEOSPreparedDisjoint_r) }
    /// Whether the two share at least one point.
    public func intersects(_ other: Geometry) throws -> Bool { try test(other, "prepared intersects", GEOSPreparedIntersects_r) }
    /// Whether the two overlap (same dimension, each with points outside the other).
    public func overlaps(_ other: Geometry) throws -> Bool { try test(other, "prepared overlaps", GEOSPreparedOverlaps_r) }
    /// Whether the two meet only at their boundaries.
    public func touches(_ other: Geometry) throws -> Bool { try test(other, "prepared touches", GEOSPreparedTouches_r) }
    /// Whether the prepared geometry lies within `other`.
    public func within(_ other: Geometry) throws -> Bool { try test(other, "prepared within", GEOSPreparedWithin_r) }

    // MARK: - Point fast paths

    /// Whether the point (`x`, `y`) in the geometry's CRS lies in the prepared geometry's interior
    /// (a point on the boundary is not contained).
    @inline(__always)
    public func contains(x: Double, y: Double) throws -> Bool {
        try testPoint(x, y, "prepared contains", GEOSContext.current, .contains)
    }

    /// Whether the point (`x`, `y`) in the geometry's CRS lies in or on the prepared geometry.
    @inline(__always)
    public func intersects(x: Double, y: Double) throws -> Bool {
        try testPoint(x, y, "prepared intersects", GEOSContext.current, .intersects)
    }

    /// For each position (its `x`, `y`; heights ignored), whether the prepared geometry contains it.
    /// - Throws: `invalidArgument` naming the first non-finite position (`positions[i]`).
    public func contains(_ positions: [Position]) throws -> [Bool] {
        try batch(positions, "prepared contains", .contains)
    }

    /// For each position (its `x`, `y`; heights ignored), whether it lies in or on the prepared geometry.
    /// - Throws: `invalidArgument` naming the first non-finite position (`positions[i]`).
    public func intersects(_ positions: [Position]) throws -> [Bool] {
        try batch(positions, "prepared intersects", .intersects)
    }

    // MARK: - Shapes

    private typealias PreparedPredicate = (GEOSContextHandle_t, OpaquePointer, OpaquePointer) -> CChar

    /// The two predicates with point fast paths.
    private enum PointPredicate {
        case contains, intersects
        var function: PreparedPredicate {
            switch self {
            case .contains: GEOSPreparedContains_r
            case .intersects: GEOSPreparedIntersects_r
            }
        }
    }

    private func test(_ other: Geometry, _ operation: @autoclosure () -> String, _ f: PreparedPredicate) throws -> Bool {
        let ctx = GEOSContext.current
        return try ctx.withGEOS(other) { try ctx.checkBool(f(ctx.handle, prepared, $0), operation()) }
    }

    /// Both fast-path predicates (contains, intersects) are false for a point outside the
    /// envelope, so such points never reach GEOS.
    @inline(__always)
    private func testPoint(_ x: Double, _ y: Double, _ operation: @autoclosure () -> String,
                           _ ctx: GEOSContext, _ f: PointPredicate) throws -> Bool {
        guard x.isFinite, y.isFinite else {
            throw GeometryError(.invalidArgument, "\(operation()): point (\(x), \(y)) is not finite")
        }
        guard let envelope, x >= envelope.minX, x <= envelope.maxX, y >= envelope.minY, y <= envelope.maxY else {
            return false
        }
        if let pointLocator {
            // Polygonal: contains means interior (GEOS's rule for a point), intersects means not exterior.
            let location = pointLocator.locate(x, y)
            return f == .contains ? location == .interior : location != .exterior
        }
        let point = try ctx.check(GEOSGeom_createPointFromXY_r(ctx.handle, x, y), "point")
        defer { GEOSGeom_destroy_r(ctx.handle, point) }
        return try ctx.checkBool(f.function(ctx.handle, prepared, point), operation())
    }

    private func batch(_ positions: [Position], _ operation: String, _ f: PointPredicate) throws -> [Bool] {
        let ctx = GEOSContext.current
        var out = [Bool]()
        out.reserveCapacity(positions.count)
        for (i, p) in positions.enumerated() {
            do {
                out.append(try testPoint(p.x, p.y, operation, ctx, f))
            } catch var e as GeometryError {
                e.position = "positions[\(i)]"
                throw e
            }
        }
        return out
    }
}
