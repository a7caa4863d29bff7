import CLibm
import Foundation

/// The segment angle a shallow circle's last area was solved for (SWMM's getThetaOfAlpha, a pure function of
/// A/Afull), kept by a conduit so the same area's depth and section factor do not solve it again (the
/// kinematic wave's exit area: its flow, then its depth, then the next step's first Newton trial). Keyed by
/// the exact A/Afull, so an answer read from it is the one solving gives, bit for bit.
struct CircleAngleMemo: Sendable {
    private var alpha = Double.nan
    private var theta = 0.0

    init() {}

    /// θ for A/Afull = `alpha`: the kept one when `alpha` is the kept area's, else solved and kept.
    @inline(__always)
    mutating func theta(ofNormArea alpha: Double) -> Double {
        if alpha == self.alpha { return theta }
        theta = SectionGeometry.swmmCircleTheta(ofNormArea: alpha)
        self.alpha = alpha
        return theta
    }
}

/// SWMM 5.2.4's own approximations where they are cheaper than solving to rounding (xsect.c,
/// findroot.c), ported as methods: the shallow circle's central angle by Newton from SWMM's fitted
/// start, stopped once a step is at most 1e-4 rad (with SWMM's power-law closed forms for the
/// tiniest areas), and the safeguarded Newton and Ridder searches SWMM stops at its tolerances.
/// Matching SWMM's stopping points keeps CityTwin's answers next to SWMM's, not only near the exact root.
extension SectionGeometry {
    /// The largest |step| (radians) at which SWMM's Newton iterations for a circle's central angle stop.
    static let circleAngleStep = 1e-4

    /// The central angle θ of a circle segment whose A/Afull = (θ − sin θ)/2π is `alpha` (SWMM's
    /// getThetaOfAlpha): Newton from a fitted start (linear above A/Afull = 0.04, a square-root fit
    /// below), each step capped at 1 rad, stopping after the first step of at most 1e-4 rad; the
    /// start itself when 40 steps do not get there.
    @inline(__always)
    static func swmmCircleTheta(ofNormArea alpha: Double) -> Double {
        let start = alpha > 0.04 ? 1.2 + 5.08 * (alpha - 0.04) / 0.96
                                 : 0.031715 - 12.79384 * alpha + 8.28479 * alpha.squareRoot()
        let target = 2 * Double.pi * alpha
        var theta = start
        var sine = 0.0, cosine = 0.0
        for _ in 0..<40 {
            sincos(theta, &sine, &cosine)
            var step = (theta - sine - target) / (1 - cosine)
            if step > 1 { step = 1 }
            theta -= step
            if abs(step) <= circleAngleStep { return theta }
        }
        return start
    }

    /// S/Sfull of a circle at A/Afull = `alpha` from the segment's angle (SWMM's getScircular):
    /// (θ − sin θ)^(5/3) / (2π·θ^(2/3)); below A/Afull = 1e-5 the small-angle power law
    /// θ = (37.6911·α)^(1/3), S/Sfull = θ^(13/3) / 124.4797.
    static func swmmCircleSectionFactor(ofNormArea alpha: Double, angle: inout CircleAngleMemo) -> Double {
        if alpha >= 1 { return 1 }
        if alpha <= 0 { return 0 }
        if alpha <= 1e-5 {
            let theta = pow(37.6911 * alpha, 1.0 / 3.0)
            return pow(theta, 13.0 / 3.0) / 124.4797
        }
        return circleSectionFactor(theta: angle.theta(ofNormArea: alpha))
    }

    /// S/Sfull of a circle segment of central angle θ: (θ − sin θ)^(5/3) / (2π·θ^(2/3)), written
    /// with one power, (θ − sin θ)·((θ − sin θ)/θ)^(2/3) / 2π (glibc's pow is faster than its cbrt,
    /// and SWMM's powers are pow too).
    @inline(__always)
    static func circleSectionFactor(theta: Double) -> Double {
        let segment = theta - sin(theta)
        return segment * pow(segment / theta, 2.0 / 3.0) / (2 * Double.pi)
    }

    /// y/D of a circle at A/Afull = `alpha` from the segment's angle (SWMM's getYcircular):
    /// (1 − cos(θ/2))/2; below A/Afull = 1e-5 the small-angle form θ²/16.
    static func swmmCircleDepth(ofNormArea alpha: Double, angle: inout CircleAngleMemo) -> Double {
        if alpha >= 1 { return 1 }
        if alpha <= 0 { return 0 }
        if alpha <= 1e-5 {
            let theta = pow(37.6911 * alpha, 1.0 / 3.0)
            return theta * theta / 16
        }
        let theta = angle.theta(ofNormArea: alpha)
        return (1 - cos(theta / 2)) / 2
    }

    /// A/Afull of a circle at S/Sfull = `psi` (SWMM's getAcircular): the segment's angle by Newton on
    /// 2π·ψ·θ^(2/3) = (θ − sin θ)^(5/3) from SWMM's piecewise-linear start, stopped at a step of at
    /// most 1e-4 rad; below S/Sfull = 1e-6 the small-angle power law θ = (124.4797·ψ)^(3/13).
    static func swmmCircleArea(ofNormSectionFactor psi: Double) -> Double {
        if psi >= 1 { return 1 }
        if psi <= 0 { return 0 }
        if psi <= 1e-6 {
            let theta = pow(124.4797 * psi, 3.0 / 13.0)
            return theta * theta * theta / 37.6911
        }
        let start: Double
        if psi > 0.9 { start = 4.17 + 1.12 * (psi - 0.9) / 0.176 }
        else if psi > 0.5 { start = 3.14 + 1.03 * (psi - 0.5) / 0.4 }
        else if psi > 0.015 { start = 1.2 + 1.94 * (psi - 0.015) / 0.485 }
        else { start = 0.12103 - 55.5075 * psi + 15.62254 * psi.squareRoot() }
        let target = 2 * Double.pi * psi
        var theta = start, converged = false
        var sine = 0.0, cosine = 0.0
        for _ in 0..<40 {
            theta = abs(theta)
            sincos(theta, &sine, &cosine)
            let segment = theta - sine
            let segment23 = pow(segment, 2.0 / 3.0)
            let theta13 = pow(theta, 1.0 / 3.0)
            let value = target * theta / theta13 - segment * segment23
            let slope = target * (2.0 / 3.0) / theta13 - 5.0 / 3.0 * segment23 * (1 - cosine)
            let step = value / slope
            theta -= step
            if abs(step) <= circleAngleStep { converged = true; break }
        }
        if !converged { theta = start }
        return (theta - sin(theta)) / (2 * Double.pi)
    }

    /// A circle's dS/dA (SWMM's circ_getdSdA): below A/Afull = 0.04 the derivative of A·R^(2/3) at the
    /// segment's angle, [5/3 − (2/3)·(dP/dA)·R]·R^(2/3) with P = θ·D/2 and dP/dA = 4/(D·(1 − cos θ));
    /// above it the slope of the S table's interval; 1e-30 for an empty pipe.
    func circleSectionFactorSlope(ofArea a: Double) -> Double {
        let alpha = a / aFull
        if alpha <= 1e-30 { return 1e-30 }
        if alpha < 0.04 { return circleSectionFactorSlope(ofArea: a, theta: SectionGeometry.swmmCircleTheta(ofNormArea: alpha)) }
        return SectionGeometry.tableSlope(alpha, SectionGeometry.circleSectionFactor) * sFull / aFull
    }

    /// A circle's dS/dA at flow area `a` whose segment's central angle is θ.
    @inline(__always)
    private func circleSectionFactorSlope(ofArea a: Double, theta: Double) -> Double {
        let r = a / (theta * yFull / 2)
        let dPdA = 4 / yFull / (1 - cos(theta))
        return (5.0 / 3.0 - 2.0 / 3.0 * dPdA * r) * pow(r, 2.0 / 3.0)
    }

    /// The section factor and dS/dA at flow area `a` (what SWMM's kinematic-wave Newton evaluates
    /// at each step), equal to `sectionFactor(ofArea:)` and `sectionFactorSlope(ofArea:)`: a shallow
    /// circle's segment angle is found once for both, and taken from `angle` when it holds this area's.
    @inline(__always)
    func sectionFactorAndSlope(ofArea a: Double, angle: inout CircleAngleMemo) -> (value: Double, slope: Double) {
        guard form == .circular else { return (sectionFactor(ofArea: a), sectionFactorSlope(ofArea: a)) }
        let alpha = a / aFull
        guard alpha > 1e-5 && alpha < 0.04 else { return (sectionFactor(ofArea: a), circleSectionFactorSlope(ofArea: a)) }
        let theta = angle.theta(ofNormArea: alpha)
        return (sFull * SectionGeometry.circleSectionFactor(theta: theta), circleSectionFactorSlope(ofArea: a, theta: theta))
    }

    /// The slope of a table over equal intervals of [0, 1] in the interval holding `x` (the last
    /// interval at and beyond its end), SWMM's tabular_getdSdA before scaling.
    @inline(__always)
    static func tableSlope(_ x: Double, _ t: [Double]) -> Double {
        let n = t.count
        let dx = 1 / Double(n - 1)
        var i = Int(x / dx)
        if i >= n - 1 { i = n - 2 }
        if i < 0 { i = 0 }
        return (t[i + 1] - t[i]) / dx
    }

    /// dS/dA at flow area `a` as SWMM's xsect_getdSdA computes it: analytically for circles, open
    /// and closed rectangles, trapezoids and triangles ([5/3 − (2/3)·(dP/dA)·R]·R^(2/3)), from the S
    /// table's interval for tabulated shapes, and by a central difference over ±0.001·Afull otherwise.
    func sectionFactorSlope(ofArea a: Double) -> Double {
        let alpha = a / aFull
        switch form {
        case .circular:
            return circleSectionFactorSlope(ofArea: a)
        case .rectOpen, .rectClosed, .trapezoidal, .triangular:
            // A closed rectangle's S above the peak is not A·R^(2/3) in SWMM: the difference there.
            if alpha > 1e-30 && !(form == .rectClosed && alpha > 0.97) {
                let y = depth(ofArea: a)
                let r = hydraulicRadius(y)
                let dPdA: Double
                switch form {
                case .trapezoidal:
                    let k = (1 + sL * sL).squareRoot() + (1 + sR * sR).squareRoot()
                    dPdA = k / width(y)
                case .triangular:
                    dPdA = (1 + sL * sL).squareRoot() / (sL * y)
                default:
                    dPdA = 2 / b
                }
                return (5.0 / 3.0 - 2.0 / 3.0 * dPdA * r) * pow(r, 2.0 / 3.0)
            }
        case .tabulated:
            if let s = registered({ $0.sectionFactorTable }) ?? nil {
                return SectionGeometry.tableSlope(alpha, s) * sFull / aFull
            }
        default:
            break
        }
        let a1 = max(0, alpha - 0.001) * aFull, a2 = (alpha + 0.001) * aFull
        return (sectionFactor(ofArea: a2) - sectionFactor(ofArea: a1)) / (a2 - a1)
    }

    /// SWMM's findroot_Newton: Newton–Raphson from `start` inside the bracket [xNeg, xPos] (f < 0 at
    /// xNeg, > 0 at xPos, either order), bisecting whenever a Newton step would leave the bracket or
    /// shrink too slowly, until a step is smaller than `tolerance` (at most 60 steps). The answer is
    /// the last point stepped to, which the search has not evaluated.
    @inline(__always)
    static func swmmNewton(_ xNeg: Double, _ xPos: Double, start: Double, tolerance: Double,
                           _ f: (Double) -> (value: Double, slope: Double)) -> Double {
        var lo = xNeg, hi = xPos
        var x = start
        var lastStep = abs(xPos - xNeg), step = lastStep
        var (fx, dfx) = f(x)
        for _ in 0..<60 {
            let leaves = ((x - hi) * dfx - fx) * ((x - lo) * dfx - fx) >= 0
            if leaves || abs(2 * fx) > abs(lastStep * dfx) {
                lastStep = step
                step = 0.5 * (hi - lo)
                x = lo + step
                if x == lo { break }
            } else {
                lastStep = step
                step = fx / dfx
                let before = x
                x -= step
                if x == before { break }
            }
            if abs(step) < tolerance { break }
            (fx, dfx) = f(x)
            if fx < 0 { lo = x } else { hi = x }
        }
        return x
    }

    /// SWMM's findroot_Ridder: Ridder's method on [x1, x2] for a function that changes sign there,
    /// until the new estimate moves by at most `tolerance` or the bracket is that narrow (60 steps
    /// at most); nil without a sign change.
    static func swmmRidder(_ x1: Double, _ x2: Double, tolerance: Double, _ f: (Double) -> Double) -> Double? {
        var fLo = f(x1), fHi = f(x2)
        if fLo == 0 { return x1 }
        if fHi == 0 { return x2 }
        guard (fLo > 0 && fHi < 0) || (fLo < 0 && fHi > 0) else { return nil }
        var lo = x1, hi = x2
        var answer = 0.5 * (x1 + x2)
        for _ in 0..<60 {
            let mid = 0.5 * (lo + hi)
            let fMid = f(mid)
            let s = (fMid * fMid - fLo * fHi).squareRoot()
            if s == 0 { return answer }
            let next = mid + (mid - lo) * ((fLo >= fHi ? 1.0 : -1.0) * fMid / s)
            if abs(next - answer) <= tolerance { break }
            answer = next
            let fNext = f(answer)
            if (fMid < 0) != (fNext < 0) && fMid != 0 {
                lo = mid; fLo = fMid
                hi = answer; fHi = fNext
            } else if (fLo < 0) != (fNext < 0) && fLo != 0 {
                hi = answer; fHi = fNext
            } else if (fHi < 0) != (fNext < 0) && fHi != 0 {
                lo = answer; fLo = fNext
            } else {
                return answer
            }
            if abs(hi - lo) <= tolerance { return answer }
        }
        return answer
    }
}
