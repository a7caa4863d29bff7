import CGEOS

// New geometries derived from one geometry: representative points, boundaries, clips, and
// polygons assembled from linework.

extension Geometry {
    /// The centre of mass (of the areas, else the lines, else the points); the empty point for
    /// an empty geometry. It may lie outside a concave polygon: see `pointOnSurface()`.
    public func centroid() throws -> Geometry {
        try geosUnary("centroid", GEOSGetCentroid_r)
    }

    /// A point guaranteed to lie in the interior of the geometry (on it, for lines and points):
    /// where to put the label of an L-shaped building.
    public func pointOnSurface() throws -> Geometry {
        try geosUnary("point on surface", GEOSPointOnSurface_r)
    }

    /// The closest pair of points, the first on this geometry and the second on `other`
    /// (equal when the geometries intersect).
    /// - Throws: `invalidArgument` when either geometry is empty.
    public func nearestPoints(to other: Geometry) throws -> (Position, Position) {
        let ctx = GEOSContext.current
        let pair = try ctx.withGEOS(self) { a in
            try ctx.withGEOS(other) { b -> [Position] in
                // GEOS answers NULL without a message for empty input: name the reason here.
                if GEOSisEmpty_r(ctx.handle, a) != 0 || GEOSisEmpty_r(ctx.handle, b) != 0 {
                    throw GeometryError(.invalidArgument, "nearest points to or from an empty geometry are undefined")
                }
                return try ctx.takeSequence(GEOSNearestPoints_r(ctx.handle, a, b), "nearest points")
            }
        }
        guard pair.count == 2 else {
            throw GeometryError(.geos, "nearest points: GEOS returned \(pair.count) positions instead of 2")
        }
        return (pair[0], pair[1])
    }

    /// The part of the geometry inside `rectangle` (fast rectangle clipping for tiles). The
    /// result may be invalid for invalid input and is not guaranteed to be normalized.
    public func clipped(to rectangle: Envelope) throws -> Geometry {
        try geosUnary("clip by rectangle") {
            GEOSClipByRect_r($0, $1, rectangle.minX, rectangle.minY, rectangle.maxX, rectangle.maxY)
        }
    }

    /// The topological boundary: a polygon's rings as lines, a line's end points (none for a
    /// closed line). GEOS rejects geometry collections with an error.
    public func boundary() throws -> Geometry {
        try geosUnary("boundary", GEOSBoundary_r)
    }

    /// The bounding rectangle as a geometry: a polygon, or a point or line when it is degenerate.
    public func envelopeGeometry() throws -> Geometry {
        try geosUnary("envelope", GEOSEnvelope_r)
    }

    /// The same geometry with the order of every line and ring reversed (flow direction of a pipe).
    public func reversed() throws -> Geometry {
        try geosUnary("reverse", GEOSReverse_r)
    }

    /// The canonical form GEOS compares by: rings start at their smallest vertex, exterior rings
    /// clockwise and holes counter-clockwise, parts sorted. Two geometries equal topologically and
    /// vertex-wise normalize to the same value.
    public func normalized() throws -> Geometry {
        let ctx = GEOSContext.current
        return try ctx.withGEOS(self) { g in
            _ = try ctx.checkCount(GEOSNormalize_r(ctx.handle, g), "normalize")
            return try ctx.makeGeometry(g)
        }
    }

    /// The polygons formed by a set of lines, e.g. city blocks from road centre lines. Lines must
    /// be noded (meet at their end points; node them with `unaryUnion()` first); dangling and
    /// cut edges are left out.
    /// - Returns: a geometry collection of polygons (empty when the lines enclose nothing).
    public static func polygonize(_ lines: [Geometry]) throws -> Geometry {
        let ctx = GEOSContext.current
        var parts = [OpaquePointer?]()
        parts.reserveCapacity(lines.count)
        defer { for p in parts { GEOSGeom_destroy_r(ctx.handle, p) } }
        for (i, line) in lines.enumerated() {
            do { parts.append(try ctx.makeGEOS(line)) } catch var e as GeometryError {
                e.position = e.position ?? "lines[\(i)]"
                throw e
            }
        }
        return try parts.withUnsafeBufferPointer {
            try ctx.takeGeometry(GEOSPolygonize_r(ctx.handle, $0.baseAddress, UInt32(lines.count)), "polygonize")
        }
    }
}
