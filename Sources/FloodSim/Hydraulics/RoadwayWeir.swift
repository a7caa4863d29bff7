import Foundation

/// Flow over a ROADWAY weir as SWMM 5.2 computes it (roadway.c): Q = Cd·L·h^1.5 over the road's
/// crest, no end contractions, no surcharge; with a road width and surface given, Cd follows the
/// FHWA HDS-5 roadway-overtopping curves (the free-flow coefficient from the head, or from head over
/// road width above 0.15, times the submergence factor from tailwater over headwater).
public enum RoadwayWeir {
    /// Road surface of a roadway weir (SWMM's RoadSurf).
    public enum Surface: Sendable, Hashable { case paved, gravel }

    static let foot = 0.3048
    /// SI discharge coefficient (m^½/s) per US one (ft^½/s): √0.3048.
    static let siPerUS = 0.3048.squareRoot()

    /// Free-flow coefficient (US units) at low heads: head (ft) → Cr.
    static let lowPaved: [(Double, Double)] = [(0, 2.85), (0.2, 2.95), (0.7, 3.03), (4, 3.05)]
    static let lowGravel: [(Double, Double)] = [(0, 2.5), (0.5, 2.7), (1, 2.8), (1.5, 2.9), (2, 2.98), (2.5, 3.02), (3, 3.03), (4, 3.05)]
    /// Free-flow coefficient at high heads: head / road width → Cr.
    static let highPaved: [(Double, Double)] = [(0.15, 3.05), (0.25, 3.10)]
    static let highGravel: [(Double, Double)] = [(0.15, 2.95), (0.30, 3.10)]
    /// Submergence factor: tailwater head / headwater head → kT.
    static let submergedPaved: [(Double, Double)] = [(0.8, 1), (0.85, 0.98), (0.9, 0.92), (0.93, 0.85), (0.95, 0.8), (0.97, 0.7),
                                                     (0.98, 0.6), (0.99, 0.5), (1, 0.4)]
    static let submergedGravel: [(Double, Double)] = [(0.75, 1), (0.8, 0.985), (0.83, 0.97), (0.86, 0.93), (0.89, 0.9), (0.9, 0.87),
                                                      (0.92, 0.8), (0.94, 0.7), (0.96, 0.6), (0.98, 0.5), (0.99, 0.4), (1, 0.24)]

    /// The discharge coefficient (SI, m^½/s) for headwater `hw` and tailwater `ht` metres above the
    /// road: the HDS-5 curves when the road's width and surface are known, the weir's own otherwise.
    static func coefficient(_ w: Weir, headwater hw: Double, tailwater ht: Double) -> Double {
        guard let surface = w.roadSurface, w.roadWidth > 0 else { return w.dischargeCoefficient }
        let h = hw / foot, paved = surface == .paved
        guard h > 0 else { return 0 }
        let ratio = hw / w.roadWidth
        let cr = ratio <= 0.15 ? interpolate(h, paved ? lowPaved : lowGravel) : interpolate(ratio, paved ? highPaved : highGravel)
        let kt = ht > 0 ? interpolate(ht / hw, paved ? submergedPaved : submergedGravel) : 1
        return cr * kt * siPerUS
    }

    /// Linear interpolation in a table, held constant beyond its ends.
    static func interpolate(_ x: Double, _ t: [(Double, Double)]) -> Double {
        if x <= t[0].0 { return t[0].1 }
        for i in 1..<t.count where x <= t[i].0 {
            return t[i - 1].1 + (x - t[i - 1].0) * (t[i].1 - t[i - 1].1) / (t[i].0 - t[i - 1].0)
        }
        return t[t.count - 1].1
    }
}

extension HydraulicState {
    /// Flow (signed by `dir`) over roadway weir j between heads h1 (upstream) and h2 above a road
    /// crest at `road` (m), setting its flow–head derivative, depth and flow class as SWMM does.
    mutating func roadwayInflow(_ j: Int, _ w: Weir, road: Double, h1: Double, h2: Double, dir: Double) -> Double {
        let hw = h1 - road, ht = h2 - road
        var q = 0.0
        dqdh[j] = 0
        if hw > SWMMConstant.fudge {
            q = RoadwayWeir.coefficient(w, headwater: hw, tailwater: ht) * w.length * pow(hw, 1.5)
            dqdh[j] = 1.5 * q / hw
        }
        linkNewDepth[j] = max(hw, 0)
        flowClass[j] = road > h2 ? (dir == 1 ? .dnCritical : .upCritical) : .subcritical
        return dir * q
    }
}
