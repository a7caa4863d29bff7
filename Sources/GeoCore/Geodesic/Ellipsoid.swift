import CPROJ

/// A reference ellipsoid for geodesic measures (Karney's algorithms in PROJ's `geodesic.h`).
/// The `geod_geodesic` coefficients are computed once when the value is made: `.cgcs2000` and
/// `.wgs84` are static, so they are initialised once per process.
public struct Ellipsoid: Hashable, Sendable {
    /// Equatorial radius a, in metres.
    public let semiMajorAxis: Double
    /// Inverse flattening 1/f (dimensionless).
    public let inverseFlattening: Double
    /// The initialised geodesic coefficients for this ellipsoid.
    let geodesic: geod_geodesic

    /// An ellipsoid from its equatorial radius (metres) and inverse flattening.
    public init(semiMajorAxis: Double, inverseFlattening: Double) {
        self.semiMajorAxis = semiMajorAxis
        self.inverseFlattening = inverseFlattening
        var g = geod_geodesic()
        geod_init(&g, semiMajorAxis, 1 / inverseFlattening)
        geodesic = g
    }

    /// The CGCS2000 ellipsoid (EPSG:1024): a = 6378137 m, 1/f = 298.257222101. CityTwin's default.
    public static let cgcs2000 = Ellipsoid(semiMajorAxis: 6_378_137, inverseFlattening: 298.257222101)
    /// The WGS 84 ellipsoid (EPSG:7030): a = 6378137 m, 1/f = 298.257223563.
    public static let wgs84 = Ellipsoid(semiMajorAxis: 6_378_137, inverseFlattening: 298.257223563)

    public static func == (a: Ellipsoid, b: Ellipsoid) -> Bool {
        a.semiMajorAxis == b.semiMajorAxis && a.inverseFlattening == b.inverseFlattening
    }

    public func hash(into hasher: inout Hasher) {
        hasher.combine(semiMajorAxis)
        hasher.combine(inverseFlattening)
    }
}
