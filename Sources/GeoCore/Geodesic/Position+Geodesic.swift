import CPROJ

/// The solution of the inverse geodesic problem between two positions.
public struct GeodesicInverse: Hashable, Sendable {
    /// Length of the shortest path on the ellipsoid, in metres.
    public var distance: Double
    /// Azimuth of the path at the start, in degrees clockwise from north (−180…180].
    public var initialAzimuth: Double
    /// Azimuth of the path at the end (the forward direction there), in degrees (−180…180].
    public var finalAzimuth: Double
}

extension Position {
    /// The geodesic (ellipsoidal, Karney) distance in metres to `other`; both positions are
    /// longitude/latitude in degrees. Heights are ignored. This is the metric to use for
    /// geographic coordinates; a planar distance in degrees means nothing on the ground.
    /// - Throws: `GeometryError` `.invalidArgument` for a non-finite coordinate or a latitude
    ///   outside −90…90.
    public func geodesicDistance(to other: Position, ellipsoid: Ellipsoid = .cgcs2000) throws -> Double {
        try geodesicInverse(to: other, ellipsoid: ellipsoid).distance
    }

    /// Distance (metres) and azimuths (degrees from north) of the geodesic to `other`
    /// (longitude/latitude degrees), with PROJ's `geod_inverse`.
    /// - Throws: `GeometryError` `.invalidArgument` for a non-finite coordinate or a latitude
    ///   outside −90…90.
    public func geodesicInverse(to other: Position, ellipsoid: Ellipsoid = .cgcs2000) throws -> GeodesicInverse {
        try checkGeographic(index: 0)
        try other.checkGeographic(index: 1)
        var result = GeodesicInverse(distance: 0, initialAzimuth: 0, finalAzimuth: 0)
        withUnsafePointer(to: ellipsoid.geodesic) { g in
            geod_inverse(g, y, x, other.y, other.x, &result.distance, &result.initialAzimuth, &result.finalAzimuth)
        }
        return result
    }

    /// Throws unless this is a usable longitude/latitude; `index` names it in the error.
    func checkGeographic(index: Int) throws {
        guard x.isFinite, y.isFinite else {
            throw GeometryError(.invalidArgument, "coordinate (\(x), \(y)) is not finite", position: "position \(index)")
        }
        guard (-90...90).contains(y) else {
            throw GeometryError(.invalidArgument, "latitude \(y) is outside -90...90 (positions are longitude, latitude in degrees)",
                                position: "position \(index)")
        }
    }
}
