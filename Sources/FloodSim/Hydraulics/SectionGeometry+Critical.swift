import Foundation

/// Critical depth, and the trapezoid's normal depth, by Newton's method on polynomials where the
/// shape allows it: on a circle's tables A and W are linear in each 1/50 of the diameter, so inside
/// the interval the table search finds, A³ = (q²/g)·W is a cubic; a trapezoid's A³ − (q²/g)·W and
/// A⁵ − S³·P² (the section factor's equation without its 2/3 power) are polynomials in depth. Each
/// is solved to rounding, from a start inside its bracket, with bisection when a Newton step leaves it.
extension SectionGeometry {
    /// Critical depth for flow q (m³/s): A³/W = q²/g.
    func criticalDepth(_ q: Double, gravity g: Double) -> Double {
        let q2g = q * q / g
        if q2g <= 0 || form == .dummy { return 0 }
        switch form {
        case .rectOpen, .rectClosed:
            return min(yFull, pow(q2g / (b * b), 1.0 / 3.0))
        case .triangular:
            return min(yFull, pow(2 * q2g / (sL * sL), 1.0 / 5.0))
        default:
            break
        }
        let top = isOpen ? yFull : 0.999 * yFull
        let aTop = area(top)
        if aTop * aTop * aTop / max(width(top), 1e-12) <= q2g { return yFull }
        var hi = top
        if form == .circular {
            // A³/W is monotone and known at the table's depths: find the interval holding the root.
            let g = SectionGeometry.circleCriticalFactor
            let target = q2g * wMax / (aFull * aFull * aFull)
            if target < g[2] {
                // Below y/D = 0.04 the circle is exact (no table): a bracketed root.
                hi = min(top, 0.04 * yFull)
            } else {
                var i = 2, k = SectionGeometry.circleTableSize - 2
                if target < g[k] {
                    while k - i > 1 {
                        let mid = (i + k) / 2
                        if g[mid] <= target { i = mid } else { k = mid }
                    }
                } else {
                    i = k
                }
                return circleCriticalDepth(interval: i, target: target, top: top)
            }
        } else if form == .trapezoidal {
            return trapezoidCriticalDepth(q2g, top: top)
        }
        return SectionGeometry.risingRoot(0, hi, tolerance: 1e-13 * top) { y in
            let a = self.area(y)
            return a * a * a / max(self.width(y), 1e-12) - q2g
        }
    }

    /// The critical depth inside table interval `i` (y/D from i/50 to (i+1)/50, cut at `top`) of a
    /// circle, where (A/Afull)³/(W/Wmax) = `target`: the cubic (a₀ + f·Δa)³ − target·(w₀ + f·Δw) in the
    /// interval's fraction f, negative at f = 0 and positive at the cut (checked by the caller).
    private func circleCriticalDepth(interval i: Int, target: Double, top: Double) -> Double {
        let at = SectionGeometry.circleArea, wt = SectionGeometry.circleWidth, g = SectionGeometry.circleCriticalFactor
        let a0 = at[i], da = at[i + 1] - at[i], w0 = wt[i], dw = wt[i + 1] - wt[i]
        var lo = 0.0, hi = min(1, top / yFull * 50 - Double(i))
        // Start where A³/W interpolated between the interval's ends reaches the target.
        let span = g[i + 1] - g[i]
        var f = span.isFinite && span > 0 ? min(hi, max(0, (target - g[i]) / span)) : 0.5 * hi
        for _ in 0..<60 {
            let a = a0 + f * da, w = w0 + f * dw
            let h = a * a * a - target * w
            if h == 0 { break }
            if h < 0 { lo = f } else { hi = f }
            let dh = 3 * a * a * da - target * dw
            var next = dh > 0 ? f - h / dh : 0.5 * (lo + hi)
            if !(next > lo && next < hi) {
                // A step that rounds onto the bracket's end: converged.
                if dh > 0 && abs(h / dh) <= 1e-14 { break }
                next = 0.5 * (lo + hi)
            }
            // Newton converges quadratically: after a step below 1e-9 the next is at rounding.
            let done = abs(next - f) <= 1e-9
            f = next
            if done || hi - lo <= 1e-16 { break }
        }
        return yFull * (Double(i) + f) / 50
    }

    /// A trapezoid's critical depth: the root on [0, top] of y³(b + m·y)³ − c·(b + 2m·y), with
    /// m the mean side slope and c = q²/g. The polynomial is convex for y > 0, and both
    /// ∛(c/b²) and ⁵√(2c/m²) lie at or above its root (A³/W ≥ b²y³ and ≥ m²y⁵/2), so Newton
    /// from the smaller of them descends to the root.
    private func trapezoidCriticalDepth(_ c: Double, top: Double) -> Double {
        let m = 0.5 * (sL + sR)
        let fromBottom = b > 0 ? cbrt(c / (b * b)) : Double.infinity
        let fromSides = m > 0 ? pow(2 * c / (m * m), 0.2) : Double.infinity
        var lo = 0.0, hi = top
        var y = min(top, fromBottom, fromSides)
        for _ in 0..<60 {
            let a = y * (b + m * y), w = b + 2 * m * y
            let h = a * a * a - c * w
            if h == 0 { break }
            if h < 0 { lo = y } else { hi = y }
            let dh = 3 * a * a * w - 2 * m * c
            var next = dh > 0 ? y - h / dh : 0.5 * (lo + hi)
            if !(next > lo && next < hi) {
                if dh > 0 && abs(h / dh) <= 1e-14 * top { break }
                next = 0.5 * (lo + hi)
            }
            let done = abs(next - y) <= 1e-9 * y
            y = next
            if done || hi - lo <= 1e-15 * top { break }
        }
        return y
    }

    /// A trapezoid's depth whose section factor A·R^(2/3) is `s` (below the full one): the root on
    /// [0, top] of A⁵ − s³·P², with P the wetted perimeter, which has the same sign as S − s.
    func trapezoidDepth(ofSectionFactor s: Double, top: Double) -> Double {
        let m = 0.5 * (sL + sR), k = (1 + sL * sL).squareRoot() + (1 + sR * sR).squareRoot()
        let s3 = s * s * s
        var lo = 0.0, hi = top
        // Start at the wide channel's depth (R ≈ y): S ≈ b·y^(5/3).
        var y = b > 0 ? min(top, pow(s / b, 0.6)) : 0.5 * top
        for _ in 0..<80 {
            let a = y * (b + m * y), w = b + 2 * m * y, p = b + k * y
            let a2 = a * a
            let f = a2 * a2 * a - s3 * p * p
            if f == 0 { break }
            if f < 0 { lo = y } else { hi = y }
            let df = 5 * a2 * a2 * w - 2 * s3 * p * k
            var next = df > 0 ? y - f / df : 0.5 * (lo + hi)
            if !(next > lo && next < hi) {
                if df > 0 && abs(f / df) <= 1e-14 * top { break }
                next = 0.5 * (lo + hi)
            }
            let done = abs(next - y) <= 1e-9 * y
            y = next
            if done || hi - lo <= 1e-15 * top { break }
        }
        return y
    }
}
