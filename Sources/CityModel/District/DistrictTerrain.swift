import Foundation
import GeoCore

/// The sample district's ground surface as a smooth function of local metres (x east, y north from
/// the district's south-west corner, 0…5000): a plain rising gently to the north-east, low hills in
/// the north, the 举水 valley in the west, the Yangtze bank along the south edge, the 东港渠 drainage
/// channel and 涨渡湖 in the east, and a small upland reservoir basin in the north-east. Heights are
/// metres on the 1985 national height datum, in the range of the real ground around 邾城 (≈18–60 m).
struct DistrictTerrain: Sendable {
    let phases: [Double]

    init(rng: inout SplitMix64) {
        phases = (0..<8).map { _ in rng.uniform(0, 2 * .pi) }
    }

    /// Local x of the 举水 centreline at northing y (metres); the river meanders ±120 m around x = 350.
    func riverCentre(y: Double) -> Double { 350 + 120 * sin(y / 800 + phases[0]) }

    /// Bed elevation of the 举水 at y: 15.5 m at the Yangtze, rising 1.6 m per km upstream.
    func riverBed(y: Double) -> Double { 15.5 + 0.0016 * y }

    static let channelX = 4330.0
    static let lakeCentre = (x: 4650.0, y: 700.0)
    static let lakeRadii = (x: 320.0, y: 260.0)
    static let lakeBottom = 15.0
    static let reservoirCentre = (x: 4520.0, y: 4650.0)
    static let reservoirRadius = 190.0
    static let yangtzeBankY = 120.0

    /// Whether (x, y) lies in 涨渡湖 (normalised ellipse distance < 1).
    func lakeDistance(x: Double, y: Double) -> Double {
        let dx = (x - Self.lakeCentre.x) / Self.lakeRadii.x, dy = (y - Self.lakeCentre.y) / Self.lakeRadii.y
        return (dx * dx + dy * dy).squareRoot()
    }

    func elevation(x: Double, y: Double) -> Double {
        var z = 20.5 + 0.0045 * y + 0.0015 * x
        z += 1.6 * sin(x / 700 + phases[1]) * sin(y / 900 + phases[2]) + 0.9 * sin(x / 1300 + phases[3])
        // Hills in the north (将军山-like), strongest in the north-east.
        let north = max(0, min(1, (y - 3900) / 1100))
        z += north * north * (14 + 8 * sin(x / 520 + phases[4])) * (0.6 + 0.4 * x / 5000)
        // 举水 valley and channel.
        let d = abs(x - riverCentre(y: y))
        z -= 6.5 * exp(-(d / 200) * (d / 200))
        if d < 45 { z = min(z, riverBed(y: y)) }
        let dc = abs(x - Self.channelX)
        if y < 4200 { z -= 2.8 * exp(-(dc / 22) * (dc / 22)) }
        // The Yangtze bank: fall to the river in the southern strip (after the
        // valleys, so the 举水 mouth meets the Yangtze at its level).
        if y < 400 {
            let t = max(0, y - Self.yangtzeBankY) / (400 - Self.yangtzeBankY)
            z = 14.0 + (z - 14.0) * t
        }
        // 涨渡湖: a bowl below the lake's normal level.
        let r = lakeDistance(x: x, y: y)
        if r < 1.6 {
            let bowl = Self.lakeBottom + 2.2 * r * r
            z = r < 1 ? bowl : min(z, bowl + (r - 1) * 6)
        }
        // 道观河水库 (stylised): an upland basin.
        let rx = x - Self.reservoirCentre.x, ry = y - Self.reservoirCentre.y
        let rr = (rx * rx + ry * ry).squareRoot() / Self.reservoirRadius
        if rr < 1.5 { z = min(z, 38 + 3 * rr * rr + max(0, rr - 1) * 10) }
        return z
    }
}
