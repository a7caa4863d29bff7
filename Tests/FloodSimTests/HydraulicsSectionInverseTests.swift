@testable import FloodSim
import Foundation
import SWMMFormat
import Testing

/// The inverse section functions the routing leans on every step (depth from flow area, normal
/// and critical depth) agree with the forward functions they invert, for every routed shape, to
/// rounding where SWMM 5.2.4 solves exactly and to SWMM's own tolerances where it stops early
/// (circles' segment angle to 1e-4 rad and their tables, critical depth by enumeration or Ridder).
@Suite("Cross-section inverses: depth from area, normal and critical depth")
struct HydraulicsSectionInverseTests {
    static let sections: [(String, CrossSection)] = [
        ("circle 1 m", .circular(diameter: 1)),
        ("filled circle 1.2 m, 0.2 m filled", .init(shape: .filledCircular, geometry1: 1.2, geometry2: 0.2)),
        ("closed box 1.5 × 2 m", .rectangularClosed(height: 1.5, width: 2)),
        ("open channel 1 × 3 m", .rectangularOpen(height: 1, width: 3)),
        ("trapezoid 2 m, 3 m bed, 1:2 and 1:1", .trapezoidal(height: 2, bottomWidth: 3, leftSlope: 2, rightSlope: 1)),
        ("triangle 1 m deep, 4 m wide", .triangular(height: 1, topWidth: 4)),
        ("parabola 1.5 m deep, 5 m wide", .init(shape: .parabolic, geometry1: 1.5, geometry2: 5)),
    ]

    @Test("an empty or full section gives depth 0 or the full depth")
    func emptyAndFull() throws {
        for (name, cs) in Self.sections {
            let x = try SectionGeometry(cs)
            #expect(x.depth(ofArea: 0) == 0, "\(name)")
            #expect(x.depth(ofArea: -1) == 0, "\(name)")
            #expect(x.depth(ofArea: x.aFull) == x.yFull, "\(name)")
            #expect(x.sectionFactor(ofArea: 0) == 0, "\(name)")
        }
    }

    @Test("depth from flow area returns the depth the area came from (circles: to SWMM's Y table)")
    func depthOfArea() throws {
        let fractions = [1e-5, 1e-3, 0.01, 0.039, 0.04, 0.041, 0.1, 0.333, 0.5, 0.77, 0.9, 0.999]
        for (name, cs) in Self.sections {
            let x = try SectionGeometry(cs)
            // A circle's depth is SWMM's: its Y table over A/Afull interpolated (0.0015·D from the
            // exact depth at most, near the crown), the segment's angle below A/Afull = 0.04. A filled
            // circle reads the same tables over the whole circle (its yFull is 5/6 of D here: 0.002·D).
            let tolerance = cs.shape == .circular ? 1.5e-3 : cs.shape == .filledCircular ? 2.5e-3 : 1e-9
            for f in fractions {
                let y = f * x.yFull
                let back = x.depth(ofArea: x.area(y))
                #expect(abs(back - y) <= tolerance * x.yFull, "\(name) at y/yFull = \(f): got \(back), want \(y)")
            }
        }
    }

    @Test("a shallow circle's depth, section factor and its slope follow the segment's angle to SWMM's 1e-4 rad")
    func shallowCircle() throws {
        let x = try SectionGeometry(.circular(diameter: 1.2))
        for alpha in [1e-7, 1e-5, 2e-5, 1e-4, 1e-3, 0.01, 0.02, 0.0399] {
            let a = alpha * x.aFull
            // The exact segment: θ − sin θ = 2π·α by bisection.
            var lo = 0.0, hi = Double.pi
            for _ in 0..<200 {
                let mid = 0.5 * (lo + hi)
                if mid - sin(mid) < 2 * Double.pi * alpha { lo = mid } else { hi = mid }
            }
            let theta = 0.5 * (lo + hi)
            let y = x.yFull * (1 - cos(theta / 2)) / 2
            let r = x.rFull * (1 - sin(theta) / theta)
            let s = a * pow(r, 2.0 / 3.0)
            // SWMM's power laws below A/Afull = 1e-5 are 1e-4 off the segment; its Newton far closer.
            #expect(abs(x.depth(ofArea: a) - y) <= 1e-3 * y, "depth at A/Afull = \(alpha)")
            #expect(abs(x.sectionFactor(ofArea: a) - s) <= 1e-3 * s, "section factor at A/Afull = \(alpha)")
            // dS/dA against a difference quotient, away from A/Afull = 1e-5 where SWMM switches from its
            // power law to the segment (the two differ by 1e-4 of S: a jump a quotient would see).
            if alpha != 1e-5 {
                let da = 1e-7 * a
                let slope = (x.sectionFactor(ofArea: a + da) - x.sectionFactor(ofArea: a - da)) / (2 * da)
                #expect(abs(x.sectionFactorSlope(ofArea: a) - slope) <= 1e-2 * slope, "dS/dA at A/Afull = \(alpha)")
            }
            #expect(abs(x.area(ofSectionFactor: s) - a) <= 1e-3 * a || s / x.sFull > 0.015, "area from S at A/Afull = \(alpha)")
        }
    }

    @Test("section factor from flow area matches the route through depth (circles: SWMM's S table)")
    func sectionFactorOfArea() throws {
        for (name, cs) in Self.sections {
            let x = try SectionGeometry(cs)
            // A circle's S is SWMM's S table over A/Afull, the route through depth SWMM's Y, A and R
            // tables (each rounded to 4–5 digits, as published): they differ by up to 0.53 % of sFull
            // (tables of the exact curve differed by up to 0.5 %).
            let tolerance = cs.shape == .circular || cs.shape == .filledCircular ? 6e-3 : 1e-9
            for f in [1e-4, 0.01, 0.03, 0.2, 0.6, 0.95] {
                let a = f * x.aFull
                let direct = x.sectionFactor(ofArea: a)
                let viaDepth = x.sectionFactor(x.depth(ofArea: a))
                #expect(abs(direct - viaDepth) <= tolerance * x.sFull, "\(name) at A/Afull = \(f)")
            }
        }
    }

    @Test("dS/dA is the section factor's slope (analytic, the S table's interval, or SWMM's central difference)")
    func sectionFactorSlope() throws {
        // Circles: the S table's interval slope above A/Afull = 0.04 (checked below it in shallowCircle).
        for (name, cs) in Self.sections where cs.shape != .circular {
            let x = try SectionGeometry(cs)
            for f in [0.05, 0.3, 0.6, 0.9] {
                let a = f * x.aFull, da = 1e-3 * x.aFull
                let slope = (x.sectionFactor(ofArea: a + da) - x.sectionFactor(ofArea: a - da)) / (2 * da)
                #expect(abs(x.sectionFactorSlope(ofArea: a) - slope) <= 0.02 * abs(slope) + 1e-3 * x.sFull / x.aFull,
                        "\(name) at A/Afull = \(f): \(x.sectionFactorSlope(ofArea: a)) vs \(slope)")
            }
        }
    }

    @Test("normal depth carries the section factor it was asked for")
    func normalDepth() throws {
        // A filled circle's normal depth is SWMM's generic_getAofS (checked below), not a depth search.
        for (name, cs) in Self.sections where cs.shape != .filledCircular {
            let x = try SectionGeometry(cs)
            for f in [0.001, 0.05, 0.3, 0.7, 0.99] {
                let s = f * x.sMax
                let y = x.depth(ofSectionFactor: s)
                #expect(y > 0 && y <= x.yFull, "\(name)")
                #expect(abs(x.sectionFactor(y) - s) <= 1e-9 * x.sMax, "\(name) at S/Smax = \(f)")
            }
        }
    }

    @Test("a filled circle's area from section factor is SWMM's Newton, to 1e-4 of the full area")
    func filledCircleAreaOfSectionFactor() throws {
        let x = try SectionGeometry(.init(shape: .filledCircular, geometry1: 1.2, geometry2: 0.2))
        for f in [0.001, 0.05, 0.3, 0.7, 0.99, 1.03] {
            let s = f * x.sFull
            let a = x.area(ofSectionFactor: s)
            // Below Sfull on the rising branch up to the peak's area; above it between the peak's and the full area.
            #expect(f < 1 ? a > 0 && a <= 0.9756 * x.aFull : a >= 0.9756 * x.aFull && a <= x.aFull, "S/Sfull = \(f)")
            // Within the search's tolerance in area: |S(a) − s| at most dS/dA · 1e-4·Afull (twice, for the last step).
            #expect(abs(x.sectionFactor(ofArea: a) - s) <= 2e-4 * x.aFull * abs(x.sectionFactorSlope(ofArea: a)) + 1e-12,
                    "S/Sfull = \(f): S(a) = \(x.sectionFactor(ofArea: a)), want \(s)")
        }
    }

    @Test("critical depth balances A³/W with Q²/g: exactly in closed form, to SWMM's interpolation or 0.001 ft otherwise")
    func criticalDepth() throws {
        let g = SWMMConstant.gravity
        for (name, cs) in Self.sections {
            let x = try SectionGeometry(cs)
            #expect(x.criticalDepth(0, gravity: g) == 0, "\(name)")
            let closedForm = ([.rectangularClosed, .rectangularOpen, .triangular, .parabolic] as [CrossSection.Shape]).contains(cs.shape)
            for q in [1e-4, 0.01, 0.1, 0.5, 1.5] {
                let y = x.criticalDepth(q, gravity: g)
                if y >= (x.isOpen ? 1 : 0.97) * x.yFull - 1e-12 { continue }   // the section is too small for q
                let q2g = q * q / g
                if closedForm {
                    let a = x.area(y), w = x.width(y)
                    #expect(abs(a * a * a / w - q2g) <= 1e-8 * q2g, "\(name) at Q = \(q) m³/s")
                } else {
                    let want = Self.bisect(0, 0.999 * x.yFull) { y in let a = x.area(y); return a * a * a / max(x.width(y), 1e-12) - q2g }
                    // SWMM's enumeration interpolates the critical flow linearly in steps of yFull/25.
                    #expect(abs(y - want) <= x.yFull / 25, "\(name) at Q = \(q) m³/s: \(y) vs \(want)")
                }
            }
        }
    }

    /// The root of a rising `f` on [lo, hi] by plain bisection: the reference the solvers are held to.
    static func bisect(_ lo0: Double, _ hi0: Double, _ f: (Double) -> Double) -> Double {
        var lo = lo0, hi = hi0
        for _ in 0..<200 where hi - lo > 0 {
            let mid = 0.5 * (lo + hi)
            if mid <= lo || mid >= hi { break }
            if f(mid) < 0 { lo = mid } else { hi = mid }
        }
        return 0.5 * (lo + hi)
    }

    @Test("critical depth as SWMM enumerates or searches it, normal depth as bisection, over six decades of flow")
    func againstBisection() throws {
        let g = SWMMConstant.gravity
        let shapes: [(String, CrossSection)] = [
            ("circle 1 m", .circular(diameter: 1)),
            ("circle 0.3 m", .circular(diameter: 0.3)),
            ("trapezoid 2 m, 3 m bed, 1:2 and 1:1", .trapezoidal(height: 2, bottomWidth: 3, leftSlope: 2, rightSlope: 1)),
            ("trapezoid without a bed", .trapezoidal(height: 1.5, bottomWidth: 0, leftSlope: 1.5, rightSlope: 0.5)),
            ("trapezoid with vertical sides", .trapezoidal(height: 1, bottomWidth: 2, leftSlope: 0, rightSlope: 0)),
        ]
        for (name, cs) in shapes {
            let x = try SectionGeometry(cs)
            let top = x.isOpen ? x.yFull : 0.999 * x.yFull
            let aTop = x.area(top), qTop = (aTop * aTop * aTop / x.width(top) * g).squareRoot()
            for k in 0...240 {
                let q = qTop * pow(10, -6 + 6.02 * Double(k) / 240)
                let q2g = q * q / g
                let y = x.criticalDepth(q, gravity: g)
                if q >= qTop { #expect(y == x.yFull, "\(name) at Q = \(q)"); continue }
                let want = Self.bisect(0, top) { y in let a = x.area(y); return a * a * a / max(x.width(y), 1e-12) - q2g }
                // SWMM's Ridder search gives the full depth once the critical flow at 0.99·yFull is below q.
                if x.isOpen && want > 0.99 * x.yFull && y == x.yFull { continue }
                // Within a circle-like section's 1/25-depth step (SWMM's enumeration) or, for a
                // section far from its circle (a wide trapezoid), within Ridder's 0.001 ft.
                let ratio = x.aFull / (Double.pi / 4 * x.yFull * x.yFull)
                let tolerance = ratio >= 0.5 && ratio <= 2 ? x.yFull / 25 : 2 * 0.001 * 0.3048
                #expect(abs(y - want) <= tolerance, "\(name): critical depth at Q = \(q) is \(y), bisection \(want)")
            }
            // The enumeration is exact at its steps' depths.
            let ratio = x.aFull / (Double.pi / 4 * x.yFull * x.yFull)
            if ratio >= 0.5 && ratio <= 2 {
                let step = x.yFull / 25
                for i in 1...24 {
                    let ys = Double(i) * step
                    let a = x.area(ys)
                    let qs = a * (g * a / x.width(ys)).squareRoot()
                    #expect(abs(x.criticalDepth(qs, gravity: g) - ys) <= 1e-9 * x.yFull, "\(name) at step \(i)")
                }
            }
            for k in 1...200 {
                let s = x.sMax * pow(10, -6 + 6 * Double(k) / 201)
                let y = x.depth(ofSectionFactor: s)
                let want = Self.bisect(0, x.isOpen ? x.yFull : x.depthOfMaxSectionFactor) { x.sectionFactor($0) - s }
                #expect(abs(y - want) <= 1e-11 * x.yFull, "\(name): normal depth at S = \(s) is \(y), bisection \(want)")
            }
        }
    }

    @Test("tabulated shapes are registered once and read the same through every section of any size")
    func registeredShapes() throws {
        let small = try SectionGeometry(.init(shape: .horseshoe, geometry1: 1))
        let large = try SectionGeometry(.init(shape: .horseshoe, geometry1: 2.5))
        #expect(RegisteredShape.of(SectionTable.horseshoe).toOpaque() == RegisteredShape.of(SectionTable.horseshoe).toOpaque())
        #expect(RegisteredShape.of(SectionTable.horseshoe).toOpaque() != RegisteredShape.of(SectionTable.egg).toOpaque())
        for f in [0.01, 0.2, 0.5, 0.9] {
            #expect(abs(small.area(f * small.yFull) / small.aFull - SectionTable.horseshoe.area(f)) <= 1e-15)
            #expect(abs(large.area(f * large.yFull) / large.aFull - SectionTable.horseshoe.area(f)) <= 1e-15)
            #expect(abs(large.width(f * large.yFull) / large.wMax - SectionTable.horseshoe.width(f)) <= 1e-15)
        }
    }
}
