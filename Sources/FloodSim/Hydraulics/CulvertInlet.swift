import Foundation

/// Inlet control of a culvert (a conduit with a culvert code in SWMM's `[XSECTIONS]`): the FHWA
/// HDS-5 inlet equations as SWMM 5.2 applies them (culvert.c). While the headwater stays below
/// 0.95 of the barrel's height the unsubmerged form holds (form 1: critical depth plus the inlet
/// loss, solved for the critical flow; form 2: a power law of the headwater); above the submerged
/// limit HW/D = 16c + Y − slope correction the orifice-like submerged form holds; in between the
/// flow is interpolated. Whenever the inlet passes less than the barrel would, it controls: its flow
/// and its flow–head derivative replace the barrel's.
///
/// The equations are written for US customary units (the coefficients assume feet and cfs), so
/// they are evaluated in feet and their flows converted back to m³/s.
struct CulvertInlet: Sendable, Hashable {
    /// Equation form (1 or 2) and the coefficients K, M, c, Y of the culvert code.
    let form: Int, k: Double, m: Double, c: Double, y: Double
    /// Slope correction per unit barrel slope: −7 for mitered inlets (codes 5, 37, 46), 0.5 otherwise.
    let slopeFactor: Double

    static let foot = 0.3048
    static let cfs = 0.028316846592
    /// Gravity in ft/s², as SWMM computes in feet.
    static let gravityFeet = 32.2

    /// The inlet of culvert `code` (1…57); nil for code 0.
    /// - Throws: `HydraulicsError` for a code outside 0…57.
    init?(code: Int) throws {
        guard code != 0 else { return nil }
        guard code > 0, code <= Self.parameters.count else {
            throw HydraulicsError(.invalidValue, "culvert code \(code) is not one of SWMM's 1–57")
        }
        let p = Self.parameters[code - 1]
        form = Int(p[0]); k = p[1]; m = p[2]; c = p[3]; y = p[4]
        slopeFactor = [5, 37, 46].contains(code) ? -7 : 0.5
    }

    /// The inlet-controlled flow (m³/s per barrel) and its derivative with respect to head (m²/s)
    /// at headwater `head` metres above the barrel's upstream invert, on a barrel of `slope`, when
    /// it is below the barrel's flow `q0`; nil when the barrel controls.
    func control(q0: Double, head: Double, slope: Double, section x: SectionGeometry) -> (flow: Double, dqdh: Double)? {
        let ft = Self.foot
        let scf = slopeFactor * slope
        let d = x.yFull / ft, h = head / ft
        let ad = x.aFull / (ft * ft) * d.squareRoot()
        let submerged = d * (16 * c + y - scf)
        let unsubmerged = 0.95 * d
        let q: Double, dqdh: Double
        if h >= submerged {
            (q, dqdh) = submergedFlow(h, d, ad, scf)
        } else if h <= unsubmerged {
            (q, dqdh) = unsubmergedFlow(h, d, ad, scf, x)
        } else {
            let q1 = unsubmergedFlow(unsubmerged, d, ad, scf, x).q, q2 = submergedFlow(submerged, d, ad, scf).q
            q = q1 + (q2 - q1) * (h - unsubmerged) / (submerged - unsubmerged)
            dqdh = (q2 - q1) / (submerged - unsubmerged)
        }
        let flow = q * Self.cfs
        guard flow < q0 else { return nil }
        return (flow, dqdh * Self.cfs / ft)
    }

    /// Submerged form, HW/D = c·(Q/AD^0.5)² + Y − slope correction, in feet and cfs.
    private func submergedFlow(_ h: Double, _ d: Double, _ ad: Double, _ scf: Double) -> (q: Double, dqdh: Double) {
        let arg = (h / d - y + scf) / c
        guard arg > 0 else { return (1e10, 0) }
        let q = arg.squareRoot() * ad
        return (q, 0.5 * q / arg / d / c)
    }

    /// Unsubmerged forms in feet and cfs: form 1 solves HW/D = yc/D + (A/W)/(2D) + K·(Q/AD^0.5)^M −
    /// slope correction for the critical depth yc (Q the critical flow there); form 2 is
    /// HW/D = K·(Q/AD^0.5)^M.
    private func unsubmergedFlow(_ h: Double, _ d: Double, _ ad: Double, _ scf: Double, _ x: SectionGeometry) -> (q: Double, dqdh: Double) {
        let q: Double
        if form == 1 {
            q = formOneFlow(h, d, ad, scf, x)
        } else {
            q = ad * pow(h / d / k, 1 / m)
        }
        return (q, h > 0 ? q / h / m : 0)
    }

    /// The critical flow of form 1, found as SWMM does: Ridder's method on the critical depth over
    /// [0.01·h, h] to 0.001 ft, the flow being the one of the last depth tried.
    private func formOneFlow(_ h: Double, _ d: Double, _ ad: Double, _ scf: Double, _ x: SectionGeometry) -> Double {
        let ft = Self.foot
        let hPlus = h / d + scf
        var qc = 0.0
        func f(_ yc: Double) -> Double {
            let a = x.area(yc * ft) / (ft * ft), w = x.width(yc * ft) / ft
            let yh = a / w
            qc = a * (Self.gravityFeet * yh).squareRoot()
            return hPlus - yc / d - yh / 2 / d - k * pow(qc / ad, m)
        }
        Self.ridder(0.01 * h, h, tolerance: 0.001, f)
        return qc
    }

    /// SWMM's findroot_Ridder (the root is not needed, only the function's last evaluation).
    static func ridder(_ x1: Double, _ x2: Double, tolerance: Double, _ f: (Double) -> Double) {
        var flo = f(x1), fhi = f(x2)
        if flo == 0 || fhi == 0 { return }
        guard (flo > 0 && fhi < 0) || (flo < 0 && fhi > 0) else { return }
        func sign(_ a: Double, _ b: Double) -> Double { b >= 0 ? abs(a) : -abs(a) }
        var xlo = x1, xhi = x2, ans = 0.5 * (x1 + x2)
        for _ in 0..<60 {
            let xm = 0.5 * (xlo + xhi)
            let fm = f(xm)
            let s = (fm * fm - flo * fhi).squareRoot()
            if s == 0 { return }
            let xnew = xm + (xm - xlo) * ((flo >= fhi ? 1.0 : -1.0) * fm / s)
            if abs(xnew - ans) <= tolerance { return }
            ans = xnew
            let fnew = f(ans)
            if sign(fm, fnew) != fm {
                xlo = xm; flo = fm; xhi = ans; fhi = fnew
            } else if sign(flo, fnew) != flo {
                xhi = ans; fhi = fnew
            } else if sign(fhi, fnew) != fhi {
                xlo = ans; flo = fnew
            } else { return }
            if abs(xhi - xlo) <= tolerance { return }
        }
    }

    /// Form, K, M, c and Y of culvert codes 1–57 (FHWA HDS-5, as SWMM 5.2 lists them).
    static let parameters: [[Double]] = [
        // Circular concrete: square edge with headwall; groove end with headwall; groove end projecting.
        [1, 0.0098, 2.00, 0.0398, 0.67], [1, 0.0018, 2.00, 0.0292, 0.74], [1, 0.0045, 2.00, 0.0317, 0.69],
        // Circular corrugated metal: headwall; mitered to slope; projecting.
        [1, 0.0078, 2.00, 0.0379, 0.69], [1, 0.0210, 1.33, 0.0463, 0.75], [1, 0.0340, 1.50, 0.0553, 0.54],
        // Circular, beveled ring: 45° bevels; 33.7° bevels.
        [1, 0.0018, 2.50, 0.0300, 0.74], [1, 0.0018, 2.50, 0.0243, 0.83],
        // Box with flared wingwalls: 30–75°; 90° or 15°; 0° (straight sides).
        [1, 0.026, 1.0, 0.0347, 0.81], [1, 0.061, 0.75, 0.0400, 0.80], [1, 0.061, 0.75, 0.0423, 0.82],
        // Box, flared wingwalls and top edge bevel: 45° flare 0.43D bevel; 18–33.7° flare 0.083D bevel.
        [2, 0.510, 0.667, 0.0309, 0.80], [2, 0.486, 0.667, 0.0249, 0.83],
        // Box, 90° headwall: chamfered 3/4 in; beveled 1/2 in/ft at 45°; beveled 1 in/ft at 33.7°.
        [2, 0.515, 0.667, 0.0375, 0.79], [2, 0.495, 0.667, 0.0314, 0.82], [2, 0.486, 0.667, 0.0252, 0.865],
        // Box, skewed headwall: chamfered 45°, 30°, 15° skew; beveled 10–45° skew.
        [2, 0.545, 0.667, 0.04505, 0.73], [2, 0.533, 0.667, 0.0425, 0.705], [2, 0.522, 0.667, 0.0402, 0.68],
        [2, 0.498, 0.667, 0.0327, 0.75],
        // Box, non-offset flared wingwalls, 3/4 in chamfer: 45° flare; 18.4° flare; 18.4° flare 30° skew.
        [2, 0.497, 0.667, 0.0339, 0.803], [2, 0.493, 0.667, 0.0361, 0.806], [2, 0.495, 0.667, 0.0386, 0.71],
        // Box, offset flared wingwalls, beveled top edge: 45° flare; 33.7° flare; 18.4° flare.
        [2, 0.497, 0.667, 0.0302, 0.835], [2, 0.495, 0.667, 0.0252, 0.881], [2, 0.493, 0.667, 0.0227, 0.887],
        // Corrugated metal box: 90° headwall; thick wall projecting; thin wall projecting.
        [1, 0.0083, 2.00, 0.0379, 0.69], [1, 0.0145, 1.75, 0.0419, 0.64], [1, 0.0340, 1.50, 0.0496, 0.57],
        // Horizontal ellipse concrete: square edge with headwall; grooved end with headwall; grooved end projecting.
        [1, 0.0100, 2.00, 0.0398, 0.67], [1, 0.0018, 2.50, 0.0292, 0.74], [1, 0.0045, 2.00, 0.0317, 0.69],
        // Vertical ellipse concrete: the same three.
        [1, 0.0100, 2.00, 0.0398, 0.67], [1, 0.0018, 2.50, 0.0292, 0.74], [1, 0.0095, 2.00, 0.0317, 0.69],
        // Pipe arch, 18 in corner radius, corrugated metal: 90° headwall; mitered; projecting.
        [1, 0.0083, 2.00, 0.0379, 0.69], [1, 0.0300, 1.00, 0.0463, 0.75], [1, 0.0340, 1.50, 0.0496, 0.57],
        // Pipe arch, 18 in corner radius: projecting; no bevels; 33.7° bevels.
        [1, 0.0300, 1.50, 0.0496, 0.57], [1, 0.0088, 2.00, 0.0368, 0.68], [1, 0.0030, 2.00, 0.0269, 0.77],
        // Pipe arch, 31 in corner radius: projecting; no bevels; 33.7° bevels.
        [1, 0.0300, 1.50, 0.0496, 0.57], [1, 0.0088, 2.00, 0.0368, 0.68], [1, 0.0030, 2.00, 0.0269, 0.77],
        // Arch, corrugated metal: 90° headwall; mitered; thin wall projecting.
        [1, 0.0083, 2.00, 0.0379, 0.69], [1, 0.0300, 1.00, 0.0473, 0.75], [1, 0.0340, 1.50, 0.0496, 0.57],
        // Circular: smooth tapered inlet throat; rough tapered inlet throat.
        [2, 0.534, 0.555, 0.0196, 0.90], [2, 0.519, 0.640, 0.0210, 0.90],
        // Elliptical inlet face, tapered: beveled edges; square edges; thin edge projecting.
        [2, 0.536, 0.622, 0.0368, 0.83], [2, 0.5035, 0.719, 0.0478, 0.80], [2, 0.547, 0.800, 0.0598, 0.75],
        // Rectangular, tapered inlet throat.
        [2, 0.475, 0.667, 0.0179, 0.97],
        // Rectangular concrete, side tapered: less favourable edges; more favourable edges.
        [2, 0.560, 0.667, 0.0446, 0.85], [2, 0.560, 0.667, 0.0378, 0.87],
        // Rectangular concrete, slope tapered: less favourable edges; more favourable edges.
        [2, 0.500, 0.667, 0.0446, 0.65], [2, 0.500, 0.667, 0.0378, 0.71],
    ]
}
