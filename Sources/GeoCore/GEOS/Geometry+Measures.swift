import CGEOS

// Planar measures in the units of the geometry's CRS: square metres and metres in a projected
// CRS such as Gauss-Krüger EPSG:4547; square degrees and degrees in EPSG:4490, which are rarely
// what a caller wants (geodesic measures on the CGCS2000 ellipsoid live elsewhere).

extension Geometry {
    /// Planar area (CRS units squared); 0 for points and lines. Holes are subtracted.
    public var area: Double {
        get throws { try geosMeasure("area", GEOSArea_r) }
    }

    /// Planar length (CRS units): the length of lines, the perimeter of polygons (holes
    /// included), 0 for points.
    public var length: Double {
        get throws { try geosMeasure("length", GEOSLength_r) }
    }

    /// The smallest planar distance (CRS units) between any point of this geometry and any
    /// point of `other`; 0 when they intersect.
    /// - Throws: `invalidArgument` when either geometry is empty (there is no distance; GEOS
    ///   itself would answer 0, which reads as "touching").
    public func distance(to other: Geometry) throws -> Double {
        try distanceMeasure(other, "distance", GEOSDistance_r)
    }

    /// The discrete Hausdorff distance (CRS units): how far the farthest vertex of either geometry
    /// is from the other one; a measure of how alike two digitizations of the same feature are.
    /// - Throws: `invalidArgument` when either geometry is empty.
    public func hausdorffDistance(to other: Geometry) throws -> Double {
        try distanceMeasure(other, "Hausdorff distance", GEOSHausdorffDistance_r)
    }

    private func distanceMeasure(_ other: Geometry, _ operation: String, _ f: GEOSBinaryMeasure) throws -> Double {
        try geosMeasure(other, operation) { h, a, b, d in
            // Checked here, on the GEOS side, in O(1); the sentinel -1 below is never a GEOS answer.
            if GEOSisEmpty_r(h, a) != 0 || GEOSisEmpty_r(h, b) != 0 { d.pointee = -1; return 1 }
            return f(h, a, b, d)
        }
        .nonNegative(or: GeometryError(.invalidArgument, "\(operation) to or from an empty geometry is undefined"))
    }
}

extension Double {
    fileprivate func nonNegative(or error: GeometryError) throws -> Double {
        if self < 0 { throw error }
        return self
    }
}
