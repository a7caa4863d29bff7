#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The GCJ-02 ("火星坐标", AMap/Tencent/Google China) and BD-09 (Baidu) display offsets, with the
/// public reverse-engineered algorithm.
///
/// **Display output only, never storage.** Authoritative data stays in CGCS2000 (EPSG:4490).
/// GCJ-02 and BD-09 exist so our markers land on those base maps instead of 500-900 m off; they
/// are not geodetic frames, are in neither EPSG nor PROJ, and the mandatory GB 20263-2006 governs
/// the official processing. Never bulk-"correct" third-party GCJ-02 data and republish it as
/// survey-grade. The inverses are numerical (fixed-point iteration to under 1 cm), not official.
///
/// Positions are longitude/latitude in degrees (`x` = longitude, `y` = latitude); `z` is kept.
/// Outside the crude China box (`coverage`), every function returns its input unchanged.
/// WGS 84 and CGCS2000 are treated as the same frame here (they agree to centimetres at epoch 2000).
public enum ChinaDisplayOffset {
    /// The two display frames, as the pseudo-CRSs `GCJ02` and `BD09`.
    public enum Frame: String, Hashable, Sendable, CaseIterable {
        case gcj02 = "GCJ02"
        case bd09 = "BD09"

        /// A human name that says what the frame is for.
        public var name: String {
            switch self {
            case .gcj02: "GCJ-02 display offset (AMap, Tencent; display only, not for storage)"
            case .bd09: "BD-09 display offset (Baidu; display only, not for storage)"
            }
        }
    }

    /// One offset step between WGS 84 and the display frames, used by `CoordinateTransformer`.
    public enum Conversion: Hashable, Sendable, CaseIterable {
        case wgs84ToGCJ02, gcj02ToWGS84, gcj02ToBD09, bd09ToGCJ02

        /// The step in the opposite direction.
        public var inverse: Conversion {
            switch self {
            case .wgs84ToGCJ02: .gcj02ToWGS84
            case .gcj02ToWGS84: .wgs84ToGCJ02
            case .gcj02ToBD09: .bd09ToGCJ02
            case .bd09ToGCJ02: .gcj02ToBD09
            }
        }

        /// Applies the step to one longitude/latitude position (degrees).
        @inlinable
        public func apply(_ p: Position) -> Position {
            switch self {
            case .wgs84ToGCJ02: ChinaDisplayOffset.gcj02(fromWGS84: p)
            case .gcj02ToWGS84: ChinaDisplayOffset.wgs84(fromGCJ02: p)
            case .gcj02ToBD09: ChinaDisplayOffset.bd09(fromGCJ02: p)
            case .bd09ToGCJ02: ChinaDisplayOffset.gcj02(fromBD09: p)
            }
        }
    }

    /// The crude box outside which the offsets are not applied: longitude 72.004…137.8347°E,
    /// latitude 0.8293…55.8271°N. It is not the border (Seoul and Hanoi are inside it).
    public static let coverage = Envelope(minX: 72.004, minY: 0.8293, maxX: 137.8347, maxY: 55.8271)

    /// Whether the offsets apply at this longitude/latitude (inside `coverage`).
    @inlinable
    public static func isCovered(_ p: Position) -> Bool {
        p.x >= 72.004 && p.x <= 137.8347 && p.y >= 0.8293 && p.y <= 55.8271
    }

    /// Iterative inverses stop when the forward image is within this many degrees of the
    /// target (about 0.1 mm) or after `maximumIterations`.
    @usableFromInline static let inverseTolerance = 1e-9
    @usableFromInline static let maximumIterations = 30

    // MARK: - WGS 84 <-> GCJ-02

    /// GCJ-02 display coordinates of a WGS 84 (or CGCS2000) longitude/latitude, in degrees.
    /// Display output only, never storage.
    @inlinable
    public static func gcj02(fromWGS84 p: Position) -> Position {
        guard isCovered(p) else { return p }
        let (dLon, dLat) = gcjDelta(lon: p.x, lat: p.y)
        return Position(x: p.x + dLon, y: p.y + dLat, z: p.z)
    }

    /// The WGS 84 longitude/latitude whose GCJ-02 image is `p` (degrees), by fixed-point
    /// iteration w ← w − (gcj(w) − p) from the naive inverse; under 1 cm in 2-5 steps in Hubei.
    /// For display round trips only: it does not make GCJ-02 data survey-grade.
    @inlinable
    public static func wgs84(fromGCJ02 p: Position) -> Position {
        guard isCovered(p) else { return p }
        return invert(p, start: { q in
            let (dLon, dLat) = gcjDelta(lon: q.x, lat: q.y)
            return Position(x: q.x - dLon, y: q.y - dLat, z: q.z)
        }, forward: gcj02(fromWGS84:))
    }

    // MARK: - GCJ-02 <-> BD-09

    /// BD-09 (Baidu) display coordinates of a GCJ-02 longitude/latitude, in degrees.
    /// Display output only, never storage.
    @inlinable
    public static func bd09(fromGCJ02 p: Position) -> Position {
        guard isCovered(p) else { return p }
        let k = 3000.0 * Double.pi / 180.0
        let x = p.x, y = p.y
        let z = (x * x + y * y).squareRoot() + 0.00002 * sin(y * k)
        let theta = atan2(y, x) + 0.000003 * cos(x * k)
        return Position(x: z * cos(theta) + 0.0065, y: z * sin(theta) + 0.006, z: p.z)
    }

    /// The GCJ-02 longitude/latitude whose BD-09 image is `p` (degrees): the usual approximate
    /// closed form, refined by fixed-point iteration to under 1 cm.
    @inlinable
    public static func gcj02(fromBD09 p: Position) -> Position {
        guard isCovered(p) else { return p }
        return invert(p, start: { q in
            let k = 3000.0 * Double.pi / 180.0
            let x = q.x - 0.0065, y = q.y - 0.006
            let z = (x * x + y * y).squareRoot() - 0.00002 * sin(y * k)
            let theta = atan2(y, x) - 0.000003 * cos(x * k)
            return Position(x: z * cos(theta), y: z * sin(theta), z: q.z)
        }, forward: bd09(fromGCJ02:))
    }

    // MARK: - WGS 84 <-> BD-09

    /// BD-09 display coordinates of a WGS 84 (or CGCS2000) longitude/latitude (via GCJ-02).
    @inlinable
    public static func bd09(fromWGS84 p: Position) -> Position { bd09(fromGCJ02: gcj02(fromWGS84: p)) }

    /// The WGS 84 longitude/latitude of a BD-09 position (via GCJ-02; both inverses iterative).
    @inlinable
    public static func wgs84(fromBD09 p: Position) -> Position { wgs84(fromGCJ02: gcj02(fromBD09: p)) }

    // MARK: - The algorithm

    /// Fixed-point inversion of `forward` at `target`, starting from `start(target)`.
    @inlinable
    static func invert(_ target: Position, start: (Position) -> Position, forward: (Position) -> Position) -> Position {
        var w = start(target)
        for _ in 0..<maximumIterations {
            let f = forward(w)
            let ex = f.x - target.x, ey = f.y - target.y
            if abs(ex) < inverseTolerance && abs(ey) < inverseTolerance { break }
            w.x -= ex
            w.y -= ey
        }
        return Position(x: w.x, y: w.y, z: target.z)
    }

    /// The GCJ-02 shift (Δlon, Δlat) in degrees at a WGS 84 position: the public forward
    /// algorithm's local offsets in metres, converted with the Krasovsky 1940 ellipsoid
    /// (a = 6378245.0 m, e² = 0.00669342162296594323).
    @inlinable
    static func gcjDelta(lon: Double, lat: Double) -> (dLon: Double, dLat: Double) {
        let a = 6378245.0
        let ee = 0.00669342162296594323
        let x = lon - 105.0, y = lat - 35.0
        let pi = Double.pi
        let periodic = 2.0 / 3.0 * (20.0 * sin(6.0 * x * pi) + 20.0 * sin(2.0 * x * pi))
        var tLat = -100.0 + 2.0 * x + 3.0 * y + 0.2 * y * y + 0.1 * x * y + 0.2 * abs(x).squareRoot() + periodic
        tLat += 2.0 / 3.0 * (20.0 * sin(y * pi) + 40.0 * sin(y / 3.0 * pi))
        tLat += 2.0 / 3.0 * (160.0 * sin(y / 12.0 * pi) + 320.0 * sin(y * pi / 30.0))
        var tLon = 300.0 + x + 2.0 * y + 0.1 * x * x + 0.1 * x * y + 0.1 * abs(x).squareRoot() + periodic
        tLon += 2.0 / 3.0 * (20.0 * sin(x * pi) + 40.0 * sin(x / 3.0 * pi))
        tLon += 2.0 / 3.0 * (150.0 * sin(x / 12.0 * pi) + 300.0 * sin(x / 30.0 * pi))
        let radLat = lat / 180.0 * pi
        let s = sin(radLat)
        let w = 1.0 - ee * s * s
        let sqrtW = w.squareRoot()
        let meridian = a * (1.0 - ee) / (w * sqrtW)
        let primeVertical = a / sqrtW
        return (dLon: tLon * 180.0 / (primeVertical * cos(radLat) * pi),
                dLat: tLat * 180.0 / (meridian * pi))
    }
}
