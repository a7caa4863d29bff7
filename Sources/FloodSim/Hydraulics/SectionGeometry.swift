import Foundation

/// Hydraulic properties of a conduit cross-section as functions of flow depth (SI units).
///
/// Follows SWMM 5.2's `xsect.c`: circular sections (and force mains) use 51-entry tables of
/// normalised area, hydraulic radius and top width over normalised depth, interpolated linearly;
/// the other supported shapes are evaluated in closed form.
struct SectionGeometry: Sendable {
    enum Form: Sendable { case dummy, circular, filledCircular, rectClosed, rectOpen, trapezoidal, triangular, parabolic, tabulated }

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
    /// Depth at which the section factor peaks (m): 0.938·D for circles, found once on a 200-step
    /// grid for other closed shapes, the full depth for open ones.
    private(set) var depthOfMaxSectionFactor: Double
    /// Depth of the widest top width (SWMM's ywMax), m: where a conduit's seepage width stops growing.
    private(set) var depthOfMaxWidth: Double
    /// Whether the section is open at the top (no crown).
    let isOpen: Bool
    // Shape parameters.
    let b: Double       // bottom width / width / diameter
    let sL: Double, sR: Double
    private let yBot: Double    // filled depth (filled circular)
    private let aBot: Double, pBot: Double, wBot: Double
    /// The relative geometry of a tabulated or composite shape (`SectionTable`, `ComposedSection`,
    /// `ProfileSection`), registered for the process's life: an unretained reference keeps the
    /// section trivially copyable.
    private var table: Unmanaged<RegisteredShape>?

    /// `body` applied to the relative shape of a tabulated or composite section (nil for the others).
    @inline(__always)
    private func relative<R>(_ body: (any RelativeSection) -> R) -> R? {
        table?._withUnsafeGuaranteedRef { body($0.shape) }
    }

    /// `body` applied to the registered shape of a tabulated or composite section (nil for the
    /// others), whose lookups skip the protocol's dynamic dispatch for SWMM's tables.
    @inline(__always)
    func registered<R>(_ body: (RegisteredShape) -> R) -> R? {
        table?._withUnsafeGuaranteedRef { body($0) }
    }

    static let circleTableSize = 51
    // SWMM 5.2's circle tables as published (xsect.dat: A_Circ, R_Circ, W_Circ over y/D = i/50;
    // Y_Circ, S_Circ over A/Afull = i/50), read as SWMM reads them (`SectionTable.lookup`): a circle's
    // area, width and radius are SWMM's at every depth, shallow ones included (the segment's
    // exact acos and sin there cost 7 % of extran6's instructions and differed from SWMM's table
    // by up to 1.2 % at y/D = 0.02).
    /// A/Afull of a circle at y/D = i/50.
    static let circleArea: [Double] = [
        0.0, 0.00471, 0.0134, 0.024446, 0.0374, 0.05208, 0.068, 0.08505, 0.1033, 0.12236, 0.1423, 0.1631, 0.1845,
        0.20665, 0.2292, 0.25236, 0.2759, 0.29985, 0.3242, 0.34874, 0.3736, 0.39878, 0.4237, 0.44907, 0.4745, 0.5,
        0.5255, 0.55093, 0.5763, 0.60135, 0.6264, 0.65126, 0.6758, 0.70015, 0.7241, 0.74764, 0.7708, 0.79335, 0.8154,
        0.8369, 0.8576, 0.87764, 0.8967, 0.91495, 0.932, 0.94792, 0.9626, 0.97555, 0.9866, 0.99516, 1.0
    ]
    /// R/Rfull of a circle at y/D = i/50 (SWMM's first entry is 0.01, not 0).
    static let circleRadius: [Double] = [
        0.01, 0.0528, 0.1048, 0.1556, 0.2052, 0.254, 0.3016, 0.3484, 0.3944, 0.4388, 0.4824, 0.5248, 0.5664, 0.6064,
        0.6456, 0.6836, 0.7204, 0.7564, 0.7912, 0.8244, 0.8568, 0.888, 0.9176, 0.9464, 0.9736, 1.0, 1.024, 1.048,
        1.07, 1.0912, 1.11, 1.1272, 1.144, 1.1596, 1.174, 1.1848, 1.194, 1.2024, 1.21, 1.2148, 1.217, 1.2172, 1.215,
        1.2104, 1.203, 1.192, 1.178, 1.1584, 1.132, 1.094, 1.0
    ]
    /// W/Wmax of a circle at y/D = i/50.
    static let circleWidth: [Double] = [
        0.0, 0.28, 0.3919, 0.475, 0.5426, 0.6, 0.6499, 0.694, 0.7332, 0.7684, 0.8, 0.8285, 0.8542, 0.8773, 0.898,
        0.9165, 0.933, 0.9474, 0.96, 0.9708, 0.9798, 0.9871, 0.9928, 0.9968, 0.9992, 1.0, 0.9992, 0.9968, 0.9928,
        0.9871, 0.9798, 0.9708, 0.96, 0.9474, 0.933, 0.9165, 0.898, 0.8773, 0.8542, 0.8285, 0.8, 0.7684, 0.7332,
        0.694, 0.6499, 0.6, 0.5426, 0.475, 0.3919, 0.28, 0.0
    ]
    /// S/Sfull of a circle at A/Afull = i/50: used to invert Q → A by table. It peaks above 1
    /// (1.08208 at 0.96) and ends at 1.
    static let circleSectionFactor: [Double] = [
        0.0, 0.00529, 0.01432, 0.02559, 0.03859, 0.05304, 0.06877, 0.08551, 0.10326, 0.12195, 0.14144, 0.16162,
        0.18251, 0.2041, 0.22636, 0.24918, 0.27246, 0.29614, 0.32027, 0.34485, 0.36989, 0.39531, 0.42105, 0.44704,
        0.47329, 0.4998, 0.52658, 0.55354, 0.58064, 0.60777, 0.63499, 0.66232, 0.68995, 0.7177, 0.74538, 0.77275,
        0.79979, 0.82658, 0.8532, 0.87954, 0.90546, 0.93095, 0.95577, 0.97976, 1.00291, 1.02443, 1.04465, 1.06135,
        1.08208, 1.07662, 1.0
    ]
    /// y/D of a circle at A/Afull = i/50: depth from area by table where SWMM looks it up
    /// (A/Afull ≥ 0.04; below, `swmmCircleDepth(ofNormArea:angle:)`).
    static let circleDepth: [Double] = [
        0.0, 0.05236, 0.08369, 0.11025, 0.13423, 0.15643, 0.17755, 0.19772, 0.21704, 0.23581, 0.25412, 0.27194,
        0.28948, 0.30653, 0.32349, 0.34017, 0.35666, 0.37298, 0.38915, 0.40521, 0.42117, 0.43704, 0.45284, 0.46858,
        0.4843, 0.5, 0.51572, 0.53146, 0.54723, 0.56305, 0.57892, 0.59487, 0.61093, 0.6271, 0.64342, 0.65991,
        0.67659, 0.6935, 0.71068, 0.72816, 0.74602, 0.76424, 0.78297, 0.80235, 0.8224, 0.84353, 0.86563, 0.8897,
        0.91444, 0.94749, 1.0
    ]

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
            // As SWMM 5.2.4's xsect_setParams: the bottom's area, wetted perimeter (from the circle's
            // R table) and width read SWMM's circle tables. SWMM takes the width of the fill's top
            // after yBot is set, so its xsect_getWofY reads the circle at 2·yBot/(D + yBot), not at
            // yBot/D; that width, wetted by every flow above the fill, is SWMM's and is kept here.
            form = .filledCircular
            bw = g1
            yBot = g2
            let full = Double.pi * g1 * g1 / 4
            aBot = full * SectionTable.lookup(g2 / g1, SectionGeometry.circleArea)
            wBot = g1 * SectionTable.lookup(2 * g2 / (g1 + g2), SectionGeometry.circleWidth)
            pBot = aBot / (g1 / 4 * SectionTable.lookup(g2 / g1, SectionGeometry.circleRadius))
            yFull = g1 - g2
            aFull = full - aBot
            rFull = aFull / (Double.pi * g1 - pBot + wBot)
            wMax = g1
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
            let t: (table: any RelativeSection & Hashable, aFull: Double, rFull: Double, wMax: Double)
            if let p = section.profile { t = (ProfileSection(p), p.aFull, p.rFull, p.wMax) } else if let tab = try SectionTable.of(section) {
                t = (tab.table, tab.aFull, tab.rFull, tab.wMax)
            } else if let c = try ComposedSection(section) {
                t = (c, c.aFull, c.rFull, c.wMax)
            } else { throw HydraulicsError(.unsupported, "cross-section shape \(section.shape.rawValue) is not routed by this engine") }
            guard g1 > 0, t.wMax > 0 else { throw HydraulicsError(.invalidValue, "\(section.shape.rawValue) section needs height and width > 0") }
            form = .tabulated
            table = RegisteredShape.of(t.table)
            yFull = g1; aFull = t.aFull; rFull = t.rFull; wMax = t.wMax; isOpen = t.table.isOpen
        }
        b = bw; sL = l; sR = r
        self.yBot = yBot; self.aBot = aBot; self.pBot = pBot; self.wBot = wBot
        sFull = aFull * pow(rFull, 2.0 / 3.0)
        sMax = sFull
        depthOfMaxSectionFactor = yFull
        depthOfMaxWidth = yFull
        if form == .circular {
            sMax = 1.08 * sFull
            depthOfMaxSectionFactor = 0.938 * yFull
        } else if form == .filledCircular {
            // SWMM's sMax and Amax for a filled circle.
            sMax = 1.08 * sFull
            depthOfMaxSectionFactor = depth(ofArea: SectionGeometry.circlePeakArea * aFull)
        } else if let ratio = relative({ $0.sMaxRatio }) ?? nil, let peak = relative({ $0.area(ofSectionFactor: ratio) }) ?? nil {
            // SWMM's published peak of the S table, reached at the depth of its area.
            sMax = ratio * sFull
            depthOfMaxSectionFactor = yFull * (relative { $0.depth(peak) } ?? 1)
        } else if form == .tabulated {
            // SWMM caps ellipses and arches at their full section factor (sMax = sFull).
        } else if !isOpen && form != .dummy {
            // The peak of A·R^(2/3) on a 200-step depth grid (closed sections peak below the crown).
            var best = sFull, bestY = yFull
            for i in 1...200 {
                let y = yFull * Double(i) / 200
                let s = sectionFactor(y)
                if s > best { best = s; bestY = y }
            }
            depthOfMaxSectionFactor = bestY
            sMax = best
        }
        // SWMM's ywMax: half the full depth for circles (a filled circle's reduced one too), the
        // first of the width table's 51 depths at its widest for tabulated closed shapes, the full
        // depth otherwise (open channels, boxes, transects).
        if form == .circular || form == .filledCircular {
            depthOfMaxWidth = 0.5 * yFull
        } else if form == .tabulated && !isOpen {
            var best = -1.0
            for i in 0...50 {
                let w = width(yFull * Double(i) / 50)
                if w > best { best = w; depthOfMaxWidth = yFull * Double(i) / 50 }
            }
        }
    }

    /// The width a conduit seeps through at depth y (SWMM's conduit_getLossRate): a closed
    /// rectangle's full width, otherwise the top width at y, y capped at the widest depth.
    func seepageWidth(_ y: Double) -> Double {
        form == .rectClosed ? wMax : width(min(y, depthOfMaxWidth))
    }

    /// A/Afull where SWMM takes a circle's or a filled circle's section factor to peak (xsect.c's Amax).
    static let circlePeakArea = 0.9756

    static func parabolaPerimeter(width w: Double, depth y: Double) -> Double {
        guard w > 0, y > 0 else { return 0 }
        let x = 4 * y / w
        let s = (1 + x * x).squareRoot()
        return w / 2 * (s + log(x + s) / x)
    }

    /// Flow area at depth y (m²).
    @inline(__always)
    func area(_ y: Double) -> Double {
        if y <= 0 { return 0 }
        if y >= yFull { return aFull }
        switch form {
        case .dummy: return 0
        case .circular:
            return aFull * SectionTable.lookup(y / yFull, SectionGeometry.circleArea)
        case .filledCircular:
            return Double.pi * b * b / 4 * SectionTable.lookup((y + yBot) / b, SectionGeometry.circleArea) - aBot
        case .rectClosed, .rectOpen: return b * y
        case .trapezoidal: return y * (b + 0.5 * (sL + sR) * y)
        case .triangular: return sL * y * y
        case .parabolic: return 2.0 / 3.0 * width(y) * y
        case .tabulated: return aFull * (registered { $0.area(y / yFull) } ?? 0)
        }
    }

    /// Top width at depth y (m).
    @inline(__always)
    func width(_ y: Double) -> Double {
        if y <= 0 { return 0 }
        switch form {
        case .dummy: return 0
        case .circular:
            if y >= yFull { return 0 }
            return wMax * SectionTable.lookup(y / yFull, SectionGeometry.circleWidth)
        case .filledCircular:
            if y >= yFull { return 0 }
            return wMax * SectionTable.lookup((y + yBot) / b, SectionGeometry.circleWidth)
        case .rectClosed, .rectOpen: return b
        case .trapezoidal: return b + (sL + sR) * min(y, yFull)
        case .triangular: return 2 * sL * min(y, yFull)
        case .parabolic: return b * (min(y, yFull) / yFull).squareRoot()
        case .tabulated: return y >= yFull && !isOpen ? 0 : wMax * (registered { $0.width(min(1, y / yFull)) } ?? 0)
        }
    }

    /// Hydraulic radius at depth y (m).
    @inline(__always)
    func hydraulicRadius(_ y: Double) -> Double {
        if y <= 0 { return 0 }
        if y >= yFull { return rFull }
        switch form {
        case .dummy: return 0
        case .circular:
            return rFull * SectionTable.lookup(y / yFull, SectionGeometry.circleRadius)
        case .filledCircular:
            // SWMM's filled_circ_getRofY: the whole circle's area and R from its tables, then the
            // fill's area and wetted perimeter taken out and the fill's top added.
            let yn = (y + yBot) / b
            let a = Double.pi * b * b / 4 * SectionTable.lookup(yn, SectionGeometry.circleArea)
            let p = a / (b / 4 * SectionTable.lookup(yn, SectionGeometry.circleRadius)) - pBot + wBot
            return p > 0 ? (a - aBot) / p : 0
        case .rectClosed, .rectOpen: return b * y / (b + 2 * y)
        case .trapezoidal:
            return area(y) / (b + y * ((1 + sL * sL).squareRoot() + (1 + sR * sR).squareRoot()))
        case .triangular: return area(y) / (2 * y * (1 + sL * sL).squareRoot())
        case .parabolic:
            let p = SectionGeometry.parabolaPerimeter(width: width(y), depth: y)
            return p > 0 ? area(y) / p : 0
        case .tabulated:
            // sFull is aFull·rFull^(2/3), the value the shape's S table is scaled by.
            return registered { $0.radius(y / yFull, aFull: aFull, rFull: rFull, sFull: sFull) } ?? 0
        }
    }

    /// Section factor A·R^(2/3) at depth y.
    func sectionFactor(_ y: Double) -> Double {
        let a = area(y)
        return a <= 0 ? 0 : a * pow(hydraulicRadius(y), 2.0 / 3.0)
    }

    /// The depth whose flow area is `a`: closed form where the area is a polynomial in depth, SWMM's
    /// circle functions (xsect.c circ_getYofA: the segment's angle below A/Afull = 0.04, the Y table
    /// above), a bracketed root otherwise.
    func depth(ofArea a: Double) -> Double {
        var angle = CircleAngleMemo()
        return depth(ofArea: a, angle: &angle)
    }

    /// `depth(ofArea:)`, a shallow circle's segment angle taken from (and kept in) `angle`.
    func depth(ofArea a: Double, angle: inout CircleAngleMemo) -> Double {
        if a <= 0 { return 0 }
        if a >= aFull { return yFull }
        switch form {
        case .rectClosed, .rectOpen:
            return a / b
        case .circular:
            let alpha = a / aFull
            if alpha < 0.04 { return yFull * SectionGeometry.swmmCircleDepth(ofNormArea: alpha, angle: &angle) }
            return yFull * SectionTable.lookup(alpha, SectionGeometry.circleDepth)
        case .trapezoidal:
            let m = 0.5 * (sL + sR)
            if m <= 0 { return b > 0 ? a / b : 0 }
            // y·(b + m·y) = a, in the cancellation-free form of the quadratic's positive root.
            return min(yFull, 2 * a / (b + (b * b + 4 * m * a).squareRoot()))
        case .triangular:
            return min(yFull, (a / sL).squareRoot())
        case .parabolic:
            // a = (2/3)·b·√(y/yFull)·y
            return min(yFull, pow(1.5 * a * yFull.squareRoot() / b, 2.0 / 3.0))
        case .tabulated:
            return yFull * (registered { $0.depth(a / aFull) } ?? 0)
        case .filledCircular:
            // SWMM's filled_circ_getYofA: the whole circle's depth at the area plus the fill's.
            let full = Double.pi * b * b / 4
            let alpha = (a + aBot) / full
            let yn = alpha < 0.04 ? SectionGeometry.swmmCircleDepth(ofNormArea: alpha, angle: &angle)
                                  : SectionTable.lookup(alpha, SectionGeometry.circleDepth)
            return b * yn - yBot
        case .dummy:
            return SectionGeometry.risingRoot(0, yFull, tolerance: 1e-13 * yFull) { self.area($0) - a }
        }
    }

    /// Section factor A·R^(2/3) of flow area `a` (m²): for circles SWMM's circ_getSofA (the segment's
    /// angle below A/Afull = 0.04, the S table above), for tabulated shapes their S table, otherwise
    /// `sectionFactor(depth(ofArea: a))`.
    func sectionFactor(ofArea a: Double) -> Double {
        var angle = CircleAngleMemo()
        return sectionFactor(ofArea: a, angle: &angle)
    }

    /// `sectionFactor(ofArea:)`, a shallow circle's segment angle taken from (and kept in) `angle`.
    func sectionFactor(ofArea a: Double, angle: inout CircleAngleMemo) -> Double {
        if a <= 0 { return 0 }
        if form == .circular {
            let alpha = a / aFull
            if alpha < 0.04 { return sFull * SectionGeometry.swmmCircleSectionFactor(ofNormArea: alpha, angle: &angle) }
            return sFull * SectionTable.lookup(alpha, SectionGeometry.circleSectionFactor)
        }
        if form == .tabulated, let psi = registered({ $0.sectionFactor(min(1, a / aFull)) }) ?? nil { return sFull * psi }
        if form == .filledCircular {
            // SWMM's xsect_getSofA for shapes without a table: A·R^(2/3) with R at the area's depth.
            let r = hydraulicRadius(depth(ofArea: a, angle: &angle))
            return r < 1e-6 * 0.3048 ? 0 : a * pow(r, 2.0 / 3.0)  // SWMM's TINY (ft)
        }
        return sectionFactor(depth(ofArea: a))
    }

    /// The root of `f` on [lo, hi] for an `f` that rises through zero (Brent's method, to
    /// `tolerance` in x). Without a sign change it returns the end a bisection would converge to:
    /// `hi` when f(hi) < 0, `lo` when f(lo) ≥ 0.
    @inline(__always)
    static func risingRoot(_ lo: Double, _ hi: Double, tolerance: Double, _ f: (Double) -> Double) -> Double {
        let fLo = f(lo)
        if fLo >= 0 { return lo }
        let fHi = f(hi)
        if fHi < 0 { return hi }
        return brentRoot(lo, hi, fLo, fHi, tolerance: tolerance, f)
    }

    /// Brent's root finder on a bracket [a, b] with f(a)·f(b) ≤ 0, to `tolerance` in x.
    @inline(__always)
    static func brentRoot(_ a0: Double, _ b0: Double, _ fa0: Double, _ fb0: Double, tolerance: Double,
                          _ f: (Double) -> Double) -> Double {
        var a = a0, b = b0, fa = fa0, fb = fb0
        var c = b, fc = fb
        var d = b - a, e = d
        for _ in 0..<200 {
            if (fb > 0 && fc > 0) || (fb < 0 && fc < 0) {
                c = a; fc = fa
                d = b - a; e = d
            }
            if abs(fc) < abs(fb) {
                a = b; b = c; c = a
                fa = fb; fb = fc; fc = fa
            }
            let tol1 = 2 * Double.ulpOfOne * abs(b) + 0.5 * tolerance
            let xm = 0.5 * (c - b)
            if abs(xm) <= tol1 || fb == 0 { return b }
            if abs(e) >= tol1 && abs(fa) > abs(fb) {
                let s = fb / fa
                var p: Double, q: Double
                if a == c {
                    p = 2 * xm * s
                    q = 1 - s
                } else {
                    let qa = fa / fc, r = fb / fc
                    p = s * (2 * xm * qa * (qa - r) - (b - a) * (r - 1))
                    q = (qa - 1) * (r - 1) * (s - 1)
                }
                if p > 0 { q = -q }
                p = abs(p)
                if 2 * p < min(3 * xm * q - abs(tol1 * q), abs(e * q)) {
                    e = d; d = p / q
                } else {
                    d = xm; e = d
                }
            } else {
                d = xm; e = d
            }
            a = b; fa = fb
            b += abs(d) > tol1 ? d : (xm >= 0 ? tol1 : -tol1)
            fb = f(b)
        }
        return b
    }

    /// The flow area whose section factor is `s` (SWMM xsect_getAofS): circles as SWMM's circ_getAofS
    /// (the segment's angle up to S/Sfull = 0.015, the S table inverted linearly above); other
    /// shapes solve for depth.
    func area(ofSectionFactor s: Double) -> Double {
        if s <= 0 { return 0 }
        if form == .circular {
            let psi = min(s, sMax) / sFull
            if psi >= 1 { return aFull }
            if psi <= 0.015 { return aFull * SectionGeometry.swmmCircleArea(ofNormSectionFactor: psi) }
            let t = SectionGeometry.circleSectionFactor
            // The first i with t[i + 1] > ψ (at most count − 2). The table rises to its peak and
            // stays above 1 > ψ after it, so a binary search finds the same i as a walk from 0.
            var i = 0
            if psi.isNaN {
                while i < t.count - 2 && t[i + 1] <= psi { i += 1 }
            } else {
                var hi = t.count - 2
                while i < hi {
                    let mid = (i + hi) / 2
                    if t[mid + 1] > psi { hi = mid } else { i = mid + 1 }
                }
            }
            if t[i + 1] < t[i] { return aFull * Double(i) / 50 }
            let f = t[i + 1] > t[i] ? (psi - t[i]) / (t[i + 1] - t[i]) : 0
            return aFull * (Double(i) + min(max(f, 0), 1)) / 50
        }
        if form == .tabulated, let an = registered({ $0.area(ofSectionFactor: min(s, sMax) / sFull) }) ?? nil { return aFull * an }
        if form == .filledCircular {
            // SWMM's generic_getAofS: between the full area and the peak's (0.9756·Afull) when S lies
            // between Sfull and Smax, else between 0 and the peak's; safeguarded Newton from the middle
            // to 1e-4 of the full area, dS/dA by the central difference.
            let target = min(s, sMax)
            let aPeak = SectionGeometry.circlePeakArea * aFull
            let aLo = target >= sFull ? aFull : 0
            return SectionGeometry.swmmNewton(aLo, aPeak, start: 0.5 * (aLo + aPeak), tolerance: 1e-4 * aFull) { a in
                (sectionFactor(ofArea: a) - target, sectionFactorSlope(ofArea: a))
            }
        }
        return area(depth(ofSectionFactor: s))
    }

    /// The smallest depth whose section factor reaches `s` (normal depth for s = Q/β).
    func depth(ofSectionFactor s: Double) -> Double {
        if s <= 0 { return 0 }
        let top = isOpen ? yFull : depthOfMaxSectionFactor
        if s >= sMax { return top }
        if form == .trapezoidal { return trapezoidDepth(ofSectionFactor: s, top: top) }
        return SectionGeometry.risingRoot(0, top, tolerance: 1e-13 * top) { self.sectionFactor($0) - s }
    }
}

// MARK: - Preissmann slot (SURCHARGE_METHOD SLOT)

extension SectionGeometry {
    /// Width of the Preissmann slot at depth y for the given crown cutoff (SWMM 5.2 dwflow.c
    /// getSlotWidth): 0 for open sections and below the cutoff; Sjöberg's width
    /// 0.5423·wMax·exp(−(y/yFull)^2.4) up to 1.78 full depths; 1 % of wMax above.
    func slotWidth(_ y: Double, cutoff: Double) -> Double {
        if isOpen || yFull <= 0 { return 0 }
        let yn = y / yFull
        if yn < cutoff { return 0 }
        if yn > 1.78 { return 0.01 * wMax }
        return wMax * 0.5423 * exp(-pow(yn, 2.4))
    }

    /// Flow area at depth y with the slot: the full area plus the slot's width times the depth
    /// above the crown (SWMM's getArea); below full depth the section's own area.
    func slotArea(_ y: Double, slotWidth w: Double) -> Double {
        y >= yFull ? aFull + (y - yFull) * w : area(y)
    }

    /// Top width above full depth as SWMM's xsect_getWofY extends it: trapezoidal, triangular
    /// and parabolic open channels keep widening (only reached with the slot method, where
    /// depths are no longer capped at full depth).
    func widthAboveFull(_ y: Double) -> Double {
        guard isOpen, y > yFull else { return width(y) }
        switch form {
        case .trapezoidal: return b + (sL + sR) * y
        case .triangular: return 2 * sL * y
        case .parabolic: return b * (y / yFull).squareRoot()
        default: return width(y)
        }
    }

    /// Flow area above full depth as SWMM's xsect_getAofY extends it for prismatic open
    /// channels (used for the Froude number's hydraulic depth with the slot method).
    func areaAboveFull(_ y: Double) -> Double {
        guard isOpen, y > yFull else { return area(y) }
        switch form {
        case .rectOpen: return b * y
        case .trapezoidal: return y * (b + 0.5 * (sL + sR) * y)
        case .triangular: return sL * y * y
        case .parabolic: return 2.0 / 3.0 * widthAboveFull(y) * y
        default: return area(y)
        }
    }
}
