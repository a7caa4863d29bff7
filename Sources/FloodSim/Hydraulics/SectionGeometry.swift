import Foundation

/// Hydraulic properties of a conduit cross-section as functions of flow depth (SI units).
///
/// Follows SWMM 5.2's `xsect.c`: circular sections (and force mains) use 51-entry tables of
/// normalised area, hydraulic radius and top width over normalised depth, interpolated linearly;
/// the other supported shapes are evaluated in closed form.
struct SectionGeometry: Sendable {
    enum Form: Sendable { case dummy, circular, filledCircular, rectClosed, rectOpen, trapezoidal, triangular, parabolic }

    let form: Form
    /// Full depth (m).
    let yFull: Double
    /// Full area (m²).
    let aFull: Double
    /// Hydraulic radius at full depth (m).
    let rFull: Double
    /// Maximum top width (m).
    let wMax: Double
    /// Section factor A·R^(2/3) at full depth.
    let sFull: Double
    /// Largest section factor over all depths.
    private(set) var sMax: Double
    /// Whether the section is open at the top (no crown).
    let isOpen: Bool
    // Shape parameters.
    private let b: Double       // bottom width / width / diameter
    private let sL: Double, sR: Double
    private let yBot: Double    // filled depth (filled circular)
    private let aBot: Double, pBot: Double, wBot: Double

    static let circleTableSize = 51
    /// A/Afull, R/Rfull, W/Wmax of a circle at y/D = i/50.
    static let circleArea: [Double] = (0..<circleTableSize).map { circleNormArea(Double($0) / 50) }
    static let circleRadius: [Double] = (0..<circleTableSize).map { circleNormRadius(Double($0) / 50) }
    static let circleWidth: [Double] = (0..<circleTableSize).map { circleNormWidth(Double($0) / 50) }

    /// S/Sfull of a circle at A/Afull = i/50 (SWMM's S_Circ): used to invert Q → A by table.
    static let circleSectionFactor: [Double] = (0..<circleTableSize).map { i in
        let alpha = Double(i) / 50
        if alpha <= 0 { return 0 }
        if alpha >= 1 { return 1 }
        var lo = 0.0, hi = 1.0
        for _ in 0..<60 {
            let mid = 0.5 * (lo + hi)
            if circleNormArea(mid) < alpha { lo = mid } else { hi = mid }
        }
        return alpha * pow(circleNormRadius(0.5 * (lo + hi)), 2.0 / 3.0)
    }

    static func circleNormWidth(_ yn: Double) -> Double {
        let p: Double = yn * (1 - yn)
        return 2 * p.squareRoot()
    }

    static func circleTheta(_ yn: Double) -> Double { 2 * acos(max(-1, min(1, 1 - 2 * yn))) }
    static func circleNormArea(_ yn: Double) -> Double {
        let t = circleTheta(yn)
        return (t - sin(t)) / (2 * Double.pi)
    }
    static func circleNormRadius(_ yn: Double) -> Double {
        let t = circleTheta(yn)
        return t <= 0 ? 0 : 1 - sin(t) / t
    }

    init(_ section: CrossSection) throws {
        let g1 = section.geometry1, g2 = section.geometry2, g3 = section.geometry3, g4 = section.geometry4
        var yBot = 0.0, aBot = 0.0, pBot = 0.0, wBot = 0.0
        var bw = 0.0, l = 0.0, r = 0.0
        switch section.shape {
        case .dummy:
            form = .dummy
            yFull = 0; aFull = 0; rFull = 0; wMax = 0; isOpen = false
        case .circular, .forceMain:
            guard g1 > 0 else { throw HydraulicsError(.invalidValue, "circular section diameter must be > 0 (got \(g1))") }
            form = .circular
            bw = g1
            yFull = g1; aFull = Double.pi * g1 * g1 / 4; rFull = g1 / 4; wMax = g1; isOpen = false
        case .filledCircular:
            guard g1 > 0, g2 >= 0, g2 < g1 else {
                throw HydraulicsError(.invalidValue, "filled circular section needs 0 ≤ filled depth < diameter")
            }
            form = .filledCircular
            bw = g1
            yBot = g2
            let full = Double.pi * g1 * g1 / 4
            aBot = full * SectionGeometry.circleNormArea(g2 / g1)
            let thetaBot = SectionGeometry.circleTheta(g2 / g1)
            pBot = g1 / 2 * thetaBot
            wBot = 2 * (g2 * (g1 - g2)).squareRoot()
            yFull = g1 - g2
            aFull = full - aBot
            rFull = aFull / (Double.pi * g1 - pBot + wBot)
            wMax = g2 < g1 / 2 ? g1 : wBot
            isOpen = false
        case .rectangularClosed:
            guard g1 > 0, g2 > 0 else { throw HydraulicsError(.invalidValue, "closed rectangle needs height and width > 0") }
            form = .rectClosed
            bw = g2
            yFull = g1; aFull = g1 * g2; rFull = aFull / (2 * (g1 + g2)); wMax = g2; isOpen = false
        case .rectangularOpen:
            guard g1 > 0, g2 > 0 else { throw HydraulicsError(.invalidValue, "open rectangle needs height and width > 0") }
            form = .rectOpen
            bw = g2
            yFull = g1; aFull = g1 * g2; rFull = aFull / (g2 + 2 * g1); wMax = g2; isOpen = true
        case .trapezoidal:
            guard g1 > 0, g2 >= 0, g3 >= 0, g4 >= 0, g2 + g3 + g4 > 0 else {
                throw HydraulicsError(.invalidValue, "trapezoid needs height > 0 and a non-zero width")
            }
            form = .trapezoidal
            bw = g2; l = g3; r = g4
            yFull = g1
            aFull = g1 * (g2 + 0.5 * (g3 + g4) * g1)
            rFull = aFull / (g2 + g1 * ((1 + g3 * g3).squareRoot() + (1 + g4 * g4).squareRoot()))
            wMax = g2 + (g3 + g4) * g1
            isOpen = true
        case .triangular:
            guard g1 > 0, g2 > 0 else { throw HydraulicsError(.invalidValue, "triangle needs height and top width > 0") }
            form = .triangular
            l = g2 / (2 * g1); r = l
            yFull = g1
            aFull = l * g1 * g1
            rFull = aFull / (2 * g1 * (1 + l * l).squareRoot())
            wMax = g2
            isOpen = true
        case .parabolic:
            guard g1 > 0, g2 > 0 else { throw HydraulicsError(.invalidValue, "parabola needs height and top width > 0") }
            form = .parabolic
            bw = g2
            yFull = g1
            aFull = 2.0 / 3.0 * g1 * g2
            wMax = g2
            isOpen = true
            rFull = aFull / SectionGeometry.parabolaPerimeter(width: g2, depth: g1)
        default:
            throw HydraulicsError(.unsupported, "cross-section shape \(section.shape.rawValue) is not routed by this engine")
        }
        b = bw; sL = l; sR = r
        self.yBot = yBot; self.aBot = aBot; self.pBot = pBot; self.wBot = wBot
        sFull = aFull * pow(rFull, 2.0 / 3.0)
        sMax = sFull
        if form == .circular {
            sMax = 1.08 * sFull
        } else if !isOpen && form != .dummy {
            var best = sFull
            for i in 1...200 {
                let y = yFull * Double(i) / 200
                best = max(best, area(y) * pow(hydraulicRadius(y), 2.0 / 3.0))
            }
            sMax = best
        }
    }

    static func parabolaPerimeter(width w: Double, depth y: Double) -> Double {
        guard w > 0, y > 0 else { return 0 }
        let x = 4 * y / w
        let s = (1 + x * x).squareRoot()
        return w / 2 * (s + log(x + s) / x)
    }

    private static func tableLookup(_ yn: Double, _ table: [Double]) -> Double {
        if yn <= 0 { return table[0] }
        let n = table.count
        let pos = yn * Double(n - 1)
        let i = Int(pos)
        if i >= n - 1 { return table[n - 1] }
        let f = pos - Double(i)
        return table[i] + f * (table[i + 1] - table[i])
    }

    /// Flow area at depth y (m²).
    func area(_ y: Double) -> Double {
        if y <= 0 { return 0 }
        if y >= yFull { return aFull }
        switch form {
        case .dummy: return 0
        case .circular:
            let yn = y / yFull
            if yn < 0.04 { return aFull * SectionGeometry.circleNormArea(yn) }
            return aFull * SectionGeometry.tableLookup(yn, SectionGeometry.circleArea)
        case .filledCircular:
            return Double.pi * b * b / 4 * SectionGeometry.circleNormArea((y + yBot) / b) - aBot
        case .rectClosed, .rectOpen: return b * y
        case .trapezoidal: return y * (b + 0.5 * (sL + sR) * y)
        case .triangular: return sL * y * y
        case .parabolic: return 2.0 / 3.0 * width(y) * y
        }
    }

    /// Top width at depth y (m).
    func width(_ y: Double) -> Double {
        if y <= 0 { return 0 }
        switch form {
        case .dummy: return 0
        case .circular:
            if y >= yFull { return 0 }
            let yn = y / yFull
            if yn < 0.04 { return wMax * 2 * (yn * (1 - yn)).squareRoot() }
            return wMax * SectionGeometry.tableLookup(yn, SectionGeometry.circleWidth)
        case .filledCircular:
            if y >= yFull { return 0 }
            let yy = y + yBot
            return 2 * (yy * (b - yy)).squareRoot()
        case .rectClosed, .rectOpen: return b
        case .trapezoidal: return b + (sL + sR) * min(y, yFull)
        case .triangular: return 2 * sL * min(y, yFull)
        case .parabolic: return b * (min(y, yFull) / yFull).squareRoot()
        }
    }

    /// Hydraulic radius at depth y (m).
    func hydraulicRadius(_ y: Double) -> Double {
        if y <= 0 { return 0 }
        if y >= yFull { return rFull }
        switch form {
        case .dummy: return 0
        case .circular:
            let yn = y / yFull
            if yn < 0.04 { return rFull * SectionGeometry.circleNormRadius(yn) }
            return rFull * SectionGeometry.tableLookup(yn, SectionGeometry.circleRadius)
        case .filledCircular:
            let yy = y + yBot
            let p = b / 2 * SectionGeometry.circleTheta(yy / b) - pBot + wBot
            return p > 0 ? area(y) / p : 0
        case .rectClosed, .rectOpen: return b * y / (b + 2 * y)
        case .trapezoidal:
            return area(y) / (b + y * ((1 + sL * sL).squareRoot() + (1 + sR * sR).squareRoot()))
        case .triangular: return area(y) / (2 * y * (1 + sL * sL).squareRoot())
        case .parabolic:
            let p = SectionGeometry.parabolaPerimeter(width: width(y), depth: y)
            return p > 0 ? area(y) / p : 0
        }
    }

    /// Section factor A·R^(2/3) at depth y.
    func sectionFactor(_ y: Double) -> Double {
        let a = area(y)
        return a <= 0 ? 0 : a * pow(hydraulicRadius(y), 2.0 / 3.0)
    }

    /// The depth whose flow area is `a` (bisection on a monotone function).
    func depth(ofArea a: Double) -> Double {
        if a <= 0 { return 0 }
        if a >= aFull { return yFull }
        if form == .rectClosed || form == .rectOpen { return a / b }
        var lo = 0.0, hi = yFull
        for _ in 0..<50 {
            let mid = 0.5 * (lo + hi)
            if area(mid) < a { lo = mid } else { hi = mid }
        }
        return 0.5 * (lo + hi)
    }

    /// The flow area whose section factor is `s` (SWMM xsect_getAofS): circles invert the S table
    /// linearly, as SWMM does; other shapes solve for depth.
    func area(ofSectionFactor s: Double) -> Double {
        if s <= 0 { return 0 }
        if form == .circular {
            let psi = s / sFull
            if psi >= 1 { return aFull }
            let t = SectionGeometry.circleSectionFactor
            var i = 0
            while i < t.count - 2 && t[i + 1] <= psi { i += 1 }
            if t[i + 1] < t[i] { return aFull * Double(i) / 50 }
            let f = t[i + 1] > t[i] ? (psi - t[i]) / (t[i + 1] - t[i]) : 0
            return aFull * (Double(i) + min(max(f, 0), 1)) / 50
        }
        return area(depth(ofSectionFactor: s))
    }

    /// The smallest depth whose section factor reaches `s` (normal depth for s = Q/β).
    func depth(ofSectionFactor s: Double) -> Double {
        if s <= 0 { return 0 }
        if s >= sMax {
            return isOpen ? yFull : depthOfMaxSectionFactor
        }
        var lo = 0.0, hi = isOpen ? yFull : depthOfMaxSectionFactor
        for _ in 0..<50 {
            let mid = 0.5 * (lo + hi)
            if sectionFactor(mid) < s { lo = mid } else { hi = mid }
        }
        return 0.5 * (lo + hi)
    }

    /// Depth at which a closed section's section factor peaks.
    var depthOfMaxSectionFactor: Double {
        if form == .circular { return 0.938 * yFull }
        var bestY = yFull, best = sFull
        for i in 1...200 {
            let y = yFull * Double(i) / 200
            let s = sectionFactor(y)
            if s > best { best = s; bestY = y }
        }
        return bestY
    }

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
            var lo = 0.0, hi = yFull
            let top = isOpen ? yFull : 0.999 * yFull
            if area(top) * area(top) * area(top) / max(width(top), 1e-12) <= q2g { return yFull }
            hi = top
            for _ in 0..<50 {
                let mid = 0.5 * (lo + hi)
                let a = area(mid), w = max(width(mid), 1e-12)
                if a * a * a / w < q2g { lo = mid } else { hi = mid }
            }
            return 0.5 * (lo + hi)
        }
    }
}
