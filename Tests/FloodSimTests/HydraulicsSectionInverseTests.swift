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
}
