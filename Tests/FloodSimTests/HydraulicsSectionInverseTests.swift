@testable import FloodSim
import Foundation
import SWMMFormat
import Testing

/// The inverse section functions the routing leans on every step (depth from flow area, normal
/// and critical depth) agree with the forward functions they invert, for every routed shape.
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

    @Test("depth from flow area returns the depth the area came from, shallow circles included")
    func depthOfArea() throws {
        let fractions = [1e-5, 1e-3, 0.01, 0.039, 0.04, 0.041, 0.1, 0.333, 0.5, 0.77, 0.9, 0.999]
        for (name, cs) in Self.sections {
            let x = try SectionGeometry(cs)
            for f in fractions {
                let y = f * x.yFull
                let back = x.depth(ofArea: x.area(y))
                #expect(abs(back - y) <= 1e-9 * x.yFull, "\(name) at y/yFull = \(f): got \(back), want \(y)")
            }
        }
    }

    @Test("section factor from flow area matches the route through depth")
    func sectionFactorOfArea() throws {
        for (name, cs) in Self.sections {
            let x = try SectionGeometry(cs)
            for f in [1e-4, 0.01, 0.03, 0.2, 0.6, 0.95] {
                let a = f * x.aFull
                let direct = x.sectionFactor(ofArea: a)
                let viaDepth = x.sectionFactor(x.depth(ofArea: a))
                #expect(abs(direct - viaDepth) <= 1e-9 * x.sFull, "\(name) at A/Afull = \(f)")
            }
        }
    }

    @Test("normal depth carries the section factor it was asked for")
    func normalDepth() throws {
        for (name, cs) in Self.sections {
            let x = try SectionGeometry(cs)
            for f in [0.001, 0.05, 0.3, 0.7, 0.99] {
                let s = f * x.sMax
                let y = x.depth(ofSectionFactor: s)
                #expect(y > 0 && y <= x.yFull, "\(name)")
                #expect(abs(x.sectionFactor(y) - s) <= 1e-9 * x.sMax, "\(name) at S/Smax = \(f)")
            }
        }
    }

    @Test("critical depth balances A³/W with Q²/g")
    func criticalDepth() throws {
        let g = SWMMConstant.gravity
        for (name, cs) in Self.sections {
            let x = try SectionGeometry(cs)
            #expect(x.criticalDepth(0, gravity: g) == 0, "\(name)")
            for q in [1e-4, 0.01, 0.1, 0.5, 1.5] {
                let y = x.criticalDepth(q, gravity: g)
                if y >= (x.isOpen ? 1 : 0.999) * x.yFull - 1e-12 { continue }   // the section is too small for q
                let a = x.area(y), w = x.width(y)
                let lhs = a * a * a / w, rhs = q * q / g
                #expect(abs(lhs - rhs) <= 1e-8 * rhs, "\(name) at Q = \(q) m³/s: A³/W = \(lhs), Q²/g = \(rhs)")
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

    @Test("critical and normal depth agree with bisection over six decades of flow, in every table interval")
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
                #expect(abs(y - want) <= 1e-11 * x.yFull, "\(name): critical depth at Q = \(q) is \(y), bisection \(want)")
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
