import Foundation

/// Critical depth as SWMM 5.2.4's xsect_getYcrit finds it, and the trapezoid's normal depth by
/// Newton's method on a polynomial (A⁵ − S³·P², the section factor's equation without its 2/3 power),
/// solved to rounding from a start inside its bracket, with bisection when a Newton step leaves it.
extension SectionGeometry {
    /// Critical depth for flow q (m³/s), where A·√(g·A/W) = q (SWMM's xsect_getYcrit): closed forms
    /// for rectangles, triangles and parabolas; otherwise a start from the circle of the same depth,
    /// 1.01·(q²/(g·yFull))^(1/4) (0.97·yFull if that reaches the crown), refined by SWMM's enumeration
    /// over 25 equal depth steps with linear interpolation of the critical flow when the section's
    /// full area is within a factor of 2 of that circle's, by Ridder's method to 0.001 ft otherwise.
    /// Never above the full depth.
    func criticalDepth(_ q: Double, gravity g: Double) -> Double {
        let q2g = q * q / g
        if q2g <= 0 || form == .dummy { return 0 }
        var y: Double
        switch form {
        case .rectOpen, .rectClosed:
            y = pow(q2g / (b * b), 1.0 / 3.0)
        case .triangular:
            y = pow(2 * q2g / (sL * sL), 1.0 / 5.0)
        case .parabolic:
            // y = c·x² with 1/√c = wMax/(2·√yFull): A³/W = (32/27)·(1/c)·y⁴.
            let rBot = wMax / 2 / yFull.squareRoot()
            y = pow(27.0 / 32.0 * q2g / (rBot * rBot), 1.0 / 4.0)
        default:
            y = 1.01 * pow(q2g / yFull, 1.0 / 4.0)
            if y >= yFull { y = 0.97 * yFull }
            let ratio = aFull / (Double.pi / 4 * yFull * yFull)
            if ratio >= 0.5 && ratio <= 2 {
                y = criticalDepthByIntervals(q, gravity: g, start: y)
            } else {
                y = criticalDepthByRidder(q, gravity: g, start: y)
            }
        }
        return min(y, yFull)
    }

    /// The critical flow A·√(g·A/W) at depth y (0 where the width is 0), SWMM's getQcritical.
    @inline(__always)
    private func criticalFlow(_ y: Double, gravity g: Double) -> Double {
        let a = area(y), w = width(y)
        return w > 0 ? a * (g * a / w).squareRoot() : 0
    }

    /// SWMM's getYcritEnum: from the 1/25 of the full depth holding `start`, walk up (or down) the
    /// depth steps until the critical flow crosses q, and interpolate linearly in that step; the
    /// full depth if it never reaches q going up, 0 if it never falls below q going down.
    private func criticalDepthByIntervals(_ q: Double, gravity g: Double, start: Double) -> Double {
        let dy = yFull / 25
        let i1 = Int(start / dy)
        var q0 = criticalFlow(Double(i1) * dy, gravity: g)
        if q0 < q {
            if i1 + 1 <= 25 {
                for i in (i1 + 1)...25 {
                    if i == 25 && !isOpen { return criticalDepthBelowCrown(q, gravity: g, from: Double(i - 1) * dy) }
                    let qc = criticalFlow(Double(i) * dy, gravity: g)
                    if qc >= q { return ((q - q0) / (qc - q0) + Double(i - 1)) * dy }
                    q0 = qc
                }
            }
            return yFull
        }
        var i = i1 - 1
        while i >= 0 {
            let qc = criticalFlow(Double(i) * dy, gravity: g)
            if qc < q { return ((q - qc) / (q0 - qc) + Double(i)) * dy }
            q0 = qc
            i -= 1
        }
        return 0
    }

    /// A closed section's critical depth above its last enumerated step, where SWMM's walk meets the
    /// crown (width 0, so a critical flow of 0) and returns the full depth. SWMM's free outfall then
    /// stands at the crown, and whether its conduit counts as full hinges on how (invert + yFull) −
    /// invert rounds in feet (just below yFull in the culvert fixtures, so SWMM keeps inlet control;
    /// in metres it may land just above and the conduit turns full): the root of A³/W = q²/g below
    /// 0.999·yFull instead (the full depth beyond it), which keeps the conduit below its crown as
    /// SWMM's rounding does.
    private func criticalDepthBelowCrown(_ q: Double, gravity g: Double, from lo: Double) -> Double {
        let q2g = q * q / g, top = 0.999 * yFull
        let aTop = area(top)
        if aTop * aTop * aTop / max(width(top), 1e-12) <= q2g { return yFull }
        return SectionGeometry.risingRoot(lo, top, tolerance: 0.001 * 0.3048) { y in
            let a = self.area(y)
            return a * a * a / max(self.width(y), 1e-12) - q2g
        }
    }

    /// SWMM's getYcritRidder: the full depth if the critical flow at 0.99·yFull is below q; else the
    /// bracket [0, 0.99·yFull] narrowed by the critical flows at `start` and at half the full depth,
    /// searched by Ridder's method to 0.001 ft.
    private func criticalDepthByRidder(_ q: Double, gravity g: Double, start: Double) -> Double {
        var y1 = 0.0, y2 = 0.99 * yFull
        if criticalFlow(y2, gravity: g) < q { return yFull }
        let q0 = criticalFlow(start, gravity: g)
        let q1 = criticalFlow(0.5 * yFull, gravity: g)
        if q0 > q {
            y2 = start
            if q1 < q { y1 = 0.5 * yFull }
        } else {
            y1 = start
            if q1 > q { y2 = 0.5 * yFull }
        }
        let tolerance = 0.001 * 0.3048
        return SectionGeometry.swmmRidder(y1, y2, tolerance: tolerance) { criticalFlow($0, gravity: g) - q } ?? start
    }

    /// A trapezoid's depth whose section factor A·R^(2/3) is `s` (below the full one): the root on
    /// [0, top] of A⁵ − s³·P², with P the wetted perimeter, which has the same sign as S − s.
    func trapezoidDepth(ofSectionFactor s: Double, top: Double) -> Double {
        let m = 0.5 * (sL + sR), k = (1 + sL * sL).squareRoot() + (1 + sR * sR).squareRoot()
        let s3 = s * s * s
        // Start at the depth of the wide channel (R ≈ y, S ≈ b·y^(5/3)) or, without a bed, of the
        // triangle (S = m^(5/3)·k^(-2/3)·y^(8/3), exact).
        let start = b > 0 ? pow(s / b, 0.6) : pow(s * pow(k, 2.0 / 3.0) / pow(m, 5.0 / 3.0), 0.375)
        return SectionGeometry.newtonRoot(min(top, start), lo: 0, hi: top, scale: top) { y in
            let a = y * (b + m * y), w = b + 2 * m * y, p = b + k * y
            let a2 = a * a
            return (a2 * a2 * a - s3 * p * p, 5 * a2 * a2 * w - 2 * s3 * p * k)
        }
    }

    /// The root on [lo, hi] of a function `f` (returning its value and slope) that is negative below
    /// the root and positive above it: Newton's method from `start`, keeping the bracket and bisecting
    /// when a step leaves it, to rounding (`scale`: the size of the bracket's values).
    @inline(__always)
    static func newtonRoot(_ start: Double, lo lo0: Double, hi hi0: Double, scale: Double,
                           _ f: (Double) -> (value: Double, slope: Double)) -> Double {
        var lo = lo0, hi = hi0, x = start
        for _ in 0..<80 {
            let (h, dh) = f(x)
            if h == 0 { break }
            if h < 0 { lo = x } else { hi = x }
            var next = dh > 0 ? x - h / dh : 0.5 * (lo + hi)
            if !(next > lo && next < hi) {
                // A step that rounds onto the bracket's end: converged.
                if dh > 0 && abs(h / dh) <= 1e-14 * scale { break }
                next = 0.5 * (lo + hi)
            }
            // Newton converges quadratically: after a step below 1e-9 of the scale the next is at rounding.
            let done = abs(next - x) <= 1e-9 * max(x, 1e-300 * scale)
            x = next
            if done || hi - lo <= 1e-15 * scale { break }
        }
        return x
    }
}
