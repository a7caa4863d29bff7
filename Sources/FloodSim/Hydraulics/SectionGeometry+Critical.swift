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
        let hi = min(1, top / yFull * 50 - Double(i))
        // Start where A³/W interpolated between the interval's ends reaches the target.
        let span = g[i + 1] - g[i]
        let start = span.isFinite && span > 0 ? min(hi, max(0, (target - g[i]) / span)) : 0.5 * hi
        let f = SectionGeometry.newtonRoot(start, lo: 0, hi: hi, scale: 1) { f in
            let a = a0 + f * da, w = w0 + f * dw
            return (a * a * a - target * w, 3 * a * a * da - target * dw)
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
        return SectionGeometry.newtonRoot(min(top, fromBottom, fromSides), lo: 0, hi: top, scale: top) { y in
            let a = y * (b + m * y), w = b + 2 * m * y
            return (a * a * a - c * w, 3 * a * a * w - 2 * m * c)
        }
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
