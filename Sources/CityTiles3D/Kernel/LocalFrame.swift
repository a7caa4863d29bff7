import Foundation
import GeoCore

/// A local east-north-up (ENU) frame on the ellipsoid: where a tileset's vertices are written
/// (metres, as 32-bit floats, small numbers), with the tileset root's `transform` carrying them
/// to Earth-centred Earth-fixed coordinates (EPSG:4978).
///
/// Geodetic positions are CGCS2000 longitude/latitude (degrees) with heights in metres, taken as
/// ellipsoidal heights on WGS 84 (EPSG:4979: CityTwin treats CGCS2000 and WGS 84 as one frame, the
/// ellipsoids differ by 0.1 mm at the poles). Every vertex goes to ECEF through PROJ (one cached
/// transformation per thread, `CoordinateTransformer`), then into the frame by the exact rotation,
/// so a roof 2 km from the origin is where a reader transforming back expects it (the earth's
/// curvature there is 0.3 m, which a flat approximation would lose).
public struct LocalFrame: Sendable, Hashable {
    /// The origin: longitude, latitude (degrees) and ellipsoidal height (metres).
    public let origin: Position
    /// The origin in ECEF metres.
    public let originECEF: SIMD3<Double>
    /// Unit vectors of the frame's axes in ECEF.
    public let east: SIMD3<Double>, north: SIMD3<Double>, up: SIMD3<Double>

    /// Geodetic 3D (EPSG:4979) to geocentric (EPSG:4978).
    static func toECEF() throws -> CoordinateTransformer {
        try CoordinateTransformer.shared(from: CoordinateReferenceSystem(epsg: 4979), to: CoordinateReferenceSystem(epsg: 4978))
    }

    /// The frame at `origin` (longitude, latitude in degrees; `z` the height in metres, 0 if absent).
    /// - Throws: `GeometryError` `.crs` when PROJ cannot place the origin.
    public init(origin: Position) throws {
        let o = Position(x: origin.x, y: origin.y, z: origin.z ?? 0)
        self.origin = o
        let ecef = try Self.toECEF().transform(o)
        originECEF = SIMD3(ecef.x, ecef.y, ecef.z ?? 0)
        let lon = o.x * .pi / 180, lat = o.y * .pi / 180
        east = SIMD3(-sin(lon), cos(lon), 0)
        north = SIMD3(-sin(lat) * cos(lon), -sin(lat) * sin(lon), cos(lat))
        up = SIMD3(cos(lat) * cos(lon), cos(lat) * sin(lon), sin(lat))
    }

    /// The positions (longitude, latitude, height in metres) in the frame: x east, y north, z up, metres.
    /// - Throws: `GeometryError` `.crs` naming the first position PROJ could not transform.
    public func local(_ geodetic: [Position]) throws -> [SIMD3<Double>] {
        var ecef = geodetic.map { Position(x: $0.x, y: $0.y, z: $0.z ?? 0) }
        try Self.toECEF().transform(&ecef)
        return ecef.map { p in
            let d = SIMD3(p.x, p.y, p.z ?? 0) - originECEF
            return SIMD3((d * east).sum(), (d * north).sum(), (d * up).sum())
        }
    }

    /// The 4×4 matrix (column-major, as 3D Tiles' `transform`) from the frame to ECEF.
    public var transform: [Double] {
        [east.x, east.y, east.z, 0, north.x, north.y, north.z, 0, up.x, up.y, up.z, 0,
         originECEF.x, originECEF.y, originECEF.z, 1]
    }
}
