import Foundation
import GeoCore

/// Horizontal distance in metres between two nearby EPSG:4490 longitude/latitude positions, on the
/// CGCS2000 ellipsoid's local tangent plane at their mid latitude. Good to millimetres over the few
/// hundred metres topology checks look at; not for long distances (use a geodesic for those).
public func groundDistance(_ a: Position, _ b: Position) -> Double {
    let mid = (a.y + b.y) / 2
    let phi = mid * .pi / 180
    let semiMajorAxis = 6_378_137.0
    let f = 1 / 298.257_222_101
    let e2 = f * (2 - f)
    let w = (1 - e2 * sin(phi) * sin(phi)).squareRoot()
    let meridian = semiMajorAxis * (1 - e2) / (w * w * w), primeVertical = semiMajorAxis / w
    let dx = (b.x - a.x) * .pi / 180 * primeVertical * cos(phi)
    let dy = (b.y - a.y) * .pi / 180 * meridian
    return (dx * dx + dy * dy).squareRoot()
}
