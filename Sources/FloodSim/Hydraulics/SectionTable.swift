import Foundation

/// A closed shape whose geometry SWMM 5.2 reads from tables of relative values (egg, horseshoe,
/// gothic, catenary, semi-elliptical, baskethandle, semi-circular, the ellipses and the arch):
/// full area, hydraulic radius and width as multiples of the full depth (or of depth × width for
/// ellipses and arches given by their dimensions), and the tables of `SectionTable+Data.swift`.
///
/// The functions follow SWMM's definitions: area from the A table (or the inverse of the Y table),
/// hydraulic radius from the R table (or from the section factor, R = (S/A)^1.5), width from the W
/// table; tables interpolate linearly, quadratically over their first two intervals.
struct SectionTable: RelativeSection, Hashable {
    /// A/Afull, R/Rfull, W/Wmax over y/yFull; Y/yFull and S/Sfull over A/Afull (some may be absent).
    let a: [Double]?, r: [Double]?, y: [Double]?, s: [Double]?, w: [Double]
    /// sMax / sFull where the S table gives it (nil: found from the geometry).
    let sMaxRatio: Double?
    var isOpen: Bool { false }

    /// The table and full values of `shape` for a full depth `g1` and second dimension `g2` (m), or
    /// nil when the shape is not tabulated.
    /// - Throws: `HydraulicsError` for a standard size code (geometry3 > 0 or geometry2 = 0 for the
    ///   ellipses and arch), which needs the manufacturers' size tables this engine does not carry.
    static func of(_ section: CrossSection) throws -> (table: SectionTable, aFull: Double, rFull: Double, wMax: Double)? {
        let g1 = section.geometry1, g2 = section.geometry2
        func fixed(_ t: SectionTable, _ af: Double, _ rf: Double, _ wf: Double) -> (SectionTable, Double, Double, Double) {
            (t, af * g1 * g1, rf * g1, wf * g1)
        }
        switch section.shape {
        case .eggShaped: return fixed(egg, 0.5105, 0.1931, 2.0 / 3.0)
        case .horseshoe: return fixed(horseshoe, 0.8293, 0.2538, 1.0)
        case .gothic: return fixed(gothic, 0.6554, 0.2269, 0.84)
        case .catenary: return fixed(catenary, 0.70277, 0.23172, 0.9)
        case .semiElliptical: return fixed(semiElliptical, 0.785, 0.242, 1.0)
        case .baskethandle: return fixed(basketHandle, 0.7862, 0.2464, 0.944)
        case .semiCircular: return fixed(semiCircular, 1.2697, 0.2946, 1.64)
        case .horizontalEllipse, .verticalEllipse, .arch:
            guard g2 > 0, section.geometry3 <= 0 else {
                throw HydraulicsError(.unsupported, "\(section.shape.rawValue) by standard size code is not routed: give the height and width")
            }
            switch section.shape {
            // Full area and radius scale with the minor axis (the height of a horizontal ellipse, the width of a vertical one).
            case .horizontalEllipse: return (horizontalEllipse, 1.2692 * g1 * g1, 0.3061 * g1, g2)
            case .verticalEllipse: return (verticalEllipse, 1.2692 * g2 * g2, 0.3061 * g2, g2)
            default: return (arch, 0.7879 * g1 * g2, 0.2991 * g1, g2)
            }
        default: return nil
        }
    }

    static let egg = SectionTable(a: eggA, r: eggR, y: eggY, s: eggS, w: eggW, sMaxRatio: 1.065)
    static let horseshoe = SectionTable(a: horseshoeA, r: horseshoeR, y: horseshoeY, s: horseshoeS, w: horseshoeW, sMaxRatio: 1.077)
    static let gothic = SectionTable(a: nil, r: nil, y: gothicY, s: gothicS, w: gothicW, sMaxRatio: 1.065)
    static let catenary = SectionTable(a: nil, r: nil, y: catenaryY, s: catenaryS, w: catenaryW, sMaxRatio: 1.05)
    static let semiElliptical = SectionTable(a: nil, r: nil, y: semiEllipticalY, s: semiEllipticalS, w: semiEllipticalW, sMaxRatio: 1.045)
    static let basketHandle = SectionTable(a: basketHandleA, r: basketHandleR, y: basketHandleY, s: basketHandleS, w: basketHandleW,
                                           sMaxRatio: 1.06078)
    static let semiCircular = SectionTable(a: nil, r: nil, y: semiCircularY, s: semiCircularS, w: semiCircularW, sMaxRatio: 1.06637)
    static let horizontalEllipse = SectionTable(a: horizontalEllipseA, r: horizontalEllipseR, y: nil, s: nil, w: horizontalEllipseW, sMaxRatio: nil)
    static let verticalEllipse = SectionTable(a: verticalEllipseA, r: verticalEllipseR, y: nil, s: nil, w: verticalEllipseW, sMaxRatio: nil)
    static let arch = SectionTable(a: archA, r: archR, y: nil, s: nil, w: archW, sMaxRatio: nil)

    /// A/Afull at y/yFull.
    func area(_ yn: Double) -> Double {
        if let a { return Self.lookup(yn, a) }
        return Self.inverse(yn, y ?? [0, 1])
    }

    /// y/yFull at A/Afull.
    func depth(_ an: Double) -> Double {
        if let y { return Self.lookup(an, y) }
        return Self.inverse(an, a ?? [0, 1])
    }

    /// W/Wmax at y/yFull.
    func width(_ yn: Double) -> Double { Self.lookup(yn, w) }

    /// R at y/yFull given the full values (R table, or (S/A)^1.5 from the S table).
    func radius(_ yn: Double, aFull: Double, rFull: Double, sFull: Double) -> Double {
        if let r { return rFull * Self.lookup(yn, r) }
        let an = area(yn)
        guard let s, an > 0 else { return 0 }
        let sf = sFull * Self.lookup(an, s)
        return sf > 0 ? pow(sf / (an * aFull), 1.5) : 0
    }

    /// S/Sfull at A/Afull, where an S table exists.
    func sectionFactor(_ an: Double) -> Double? { s.map { Self.lookup(an, $0) } }

    /// A/Afull at S/Sfull, where an S table exists (the rising branch below the table's peak).
    func area(ofSectionFactor psi: Double) -> Double? { s.map { Self.inverse(psi, $0) } }

    /// The value at x ∈ [0, 1] of a table over equal intervals: linear, with SWMM's quadratic
    /// correction over the first two intervals (kept only where it stays positive). Inlined: a
    /// circle's area, width and radius read it at every conduit on every iteration (23 % of
    /// Example3's time as a call).
    @inline(__always)
    static func lookup(_ x: Double, _ t: [Double]) -> Double {
        let n = t.count
        let dx = 1 / Double(n - 1)
        guard x > 0 else { return max(0, t[0]) }
        let i = Int(x / dx)
        if i >= n - 1 { return t[n - 1] }
        let x0 = Double(i) * dx, x1 = Double(i + 1) * dx
        var v = t[i] + (x - x0) * (t[i + 1] - t[i]) / dx
        if i < 2 {
            let q = v + (x - x0) * (x - x1) / (dx * dx) * (t[i] / 2 - t[i + 1] + t[i + 2] / 2)
            if q > 0 { v = q }
        }
        return max(0, v)
    }

    /// The x ∈ [0, 1] at which a table takes the value v. Tables that rise to a peak two entries
    /// before their end (section factors) are searched on their rising part, and a value above
    /// the last entry resolves to the falling part, as SWMM does.
    static func inverse(_ v: Double, _ t: [Double]) -> Double {
        let count = t.count
        let dx = 1 / Double(count - 1)
        var n = count
        if t[count - 3] > t[count - 1] { n -= 2 }
        var i: Int
        if n < count && v > t[count - 1] {
            if v >= t[count - 3] { return Double(n - 1) * dx }
            i = v <= t[count - 2] ? count - 2 : count - 3
        } else {
            // The last index in 0..<n whose entry is ≤ v.
            i = 0
            var lo = 0, hi = n - 1
            if v >= t[hi] { i = hi } else {
                while hi - lo > 1 {
                    let mid = (lo + hi) / 2
                    if t[mid] <= v { lo = mid } else { hi = mid }
                }
                i = lo
            }
        }
        if i >= n - 1 { return Double(n - 1) * dx }
        let dy = t[i + 1] - t[i]
        let x = dy == 0 ? Double(i) * dx : Double(i) * dx + (v - t[i]) * dx / dy
        return min(1, max(0, x))
    }
}
