import Foundation

/// A shape's geometry relative to its full values: what `SectionGeometry` asks of the shapes it
/// does not evaluate itself, SWMM's tabulated shapes (`SectionTable`) and the composite shapes in
/// closed form (`ComposedSection`).
protocol RelativeSection: Sendable {
    /// Open at the top (no crown).
    var isOpen: Bool { get }
    /// sMax / sFull where SWMM publishes it (nil: found from the geometry).
    var sMaxRatio: Double? { get }
    /// A/Afull at y/yFull.
    func area(_ yn: Double) -> Double
    /// y/yFull at A/Afull.
    func depth(_ an: Double) -> Double
    /// W/Wmax at y/yFull.
    func width(_ yn: Double) -> Double
    /// Hydraulic radius (m) at y/yFull.
    func radius(_ yn: Double, aFull: Double, rFull: Double, sFull: Double) -> Double
    /// S/Sfull at A/Afull, where the shape tabulates it.
    func sectionFactor(_ an: Double) -> Double?
    /// A/Afull at S/Sfull, where the shape tabulates it.
    func area(ofSectionFactor psi: Double) -> Double?
}

/// SWMM 5.2's composite shapes in closed form (geometry in metres):
/// - RECT_TRIANGULAR: a rectangle on a triangular bottom (height, top width, triangle height);
/// - RECT_ROUND: a rectangle on a circular-arc bottom (height, top width, arc radius ≥ width/2);
/// - MODBASKETHANDLE: a rectangle under a circular-arc crown (height, width, arc radius ≥ width/2);
/// - POWER: an open channel whose width grows as depth^(1/exponent) (height, top width, exponent).
/// Wetted perimeters exclude the crown below the full depth; POWER's is summed over 50 chords of
/// the bank, as SWMM does.
struct ComposedSection: RelativeSection, Hashable {
    enum Kind: Sendable { case rectTriangular, rectRound, modifiedBaskethandle, power }
    let kind: Kind
    let yFull: Double, wMax: Double
    /// Per kind: the bottom (or crown) part's height, area, radius or side length, slope or angle.
    let yBot: Double, aBot: Double, rBot: Double, sBot: Double, theta: Double
    let aFull: Double
    private(set) var rFull: Double
    var isOpen: Bool { kind == .power }
    var sMaxRatio: Double? { nil }

    init?(_ section: CrossSection) throws {
        let g1 = section.geometry1, g2 = section.geometry2, g3 = section.geometry3
        yFull = g1; wMax = g2
        var yb = 0.0, ab = 0.0, rb = 0.0, sb = 0.0, th = 0.0
        switch section.shape {
        case .rectangularTriangular:
            guard g1 > 0, g2 > 0, g3 > 0, g3 <= g1 else {
                throw HydraulicsError(.invalidValue, "RECT_TRIANGULAR needs height, width and a bottom height ≤ the height, all > 0")
            }
            kind = .rectTriangular
            yb = g3; ab = g3 * g2 / 2; sb = g2 / g3 / 2; rb = (1 + sb * sb).squareRoot()
        case .rectangularRound, .modifiedBaskethandle:
            guard g1 > 0, g2 > 0 else { throw HydraulicsError(.invalidValue, "\(section.shape.rawValue) needs height and width > 0") }
            kind = section.shape == .rectangularRound ? .rectRound : .modifiedBaskethandle
            rb = max(g3, g2 / 2)          // SWMM raises a radius below half the width to it
            th = 2 * asin(min(1, g2 / 2 / rb))
            ab = rb * rb / 2 * (th - sin(th))
            yb = rb * (1 - cos(th / 2))
            guard yb < g1 else { throw HydraulicsError(.invalidValue, "\(section.shape.rawValue): the arc is taller than the section") }
        case .powerFunction:
            guard g1 > 0, g2 > 0, g3 > 0 else { throw HydraulicsError(.invalidValue, "POWER needs height, width and exponent > 0") }
            kind = .power
            sb = 1 / g3
            rb = g2 / (sb + 1) / pow(g1, sb)
        default:
            return nil
        }
        yBot = yb; aBot = ab; rBot = rb; sBot = sb; theta = th
        switch kind {
        case .rectTriangular:
            aFull = g2 * (g1 - yb / 2)
            rFull = aFull / (2 * yb * rb + 2 * (g1 - yb) + g2)
        case .rectRound, .modifiedBaskethandle:
            aFull = g2 * (g1 - yb) + ab
            rFull = aFull / (rb * th + 2 * (g1 - yb) + g2)
        case .power:
            aFull = g1 * g2 / (sb + 1)
            rFull = 0
        }
        if kind == .power { rFull = areaAt(g1) / perimeterAt(g1) }
    }

    func areaAt(_ y: Double) -> Double {
        if y <= 0 { return 0 }
        switch kind {
        case .rectTriangular: return y <= yBot ? y * y * sBot : aBot + (y - yBot) * wMax
        case .rectRound:
            if y > yBot { return aBot + (y - yBot) * wMax }
            let t = 2 * acos(max(-1, 1 - y / rBot))
            return 0.5 * rBot * rBot * (t - sin(t))
        case .modifiedBaskethandle:
            if y <= yFull - yBot { return y * wMax }
            let t = 2 * acos(max(-1, 1 - min(yFull - y, yBot) / rBot))
            return aFull - 0.5 * rBot * rBot * (t - sin(t))
        case .power: return rBot * pow(y, sBot + 1)
        }
    }

    func widthAt(_ y: Double) -> Double {
        if y <= 0 { return 0 }
        switch kind {
        case .rectTriangular: return y <= yBot ? 2 * sBot * y : wMax
        case .rectRound: return y > yBot ? wMax : 2 * (y * (2 * rBot - y)).squareRoot()
        case .modifiedBaskethandle:
            if y <= yFull - yBot { return wMax }
            let y1 = max(0, yFull - y)
            return 2 * (y1 * (2 * rBot - y1)).squareRoot()
        case .power: return (sBot + 1) * rBot * pow(y, sBot)
        }
    }

    /// Wetted perimeter below the crown.
    func perimeterAt(_ y: Double) -> Double {
        if y <= 0 { return 0 }
        switch kind {
        case .rectTriangular: return y <= yBot ? 2 * y * rBot : 2 * yBot * rBot + 2 * (y - yBot)
        case .rectRound: return y > yBot ? rBot * theta + 2 * (y - yBot) : rBot * 2 * acos(max(-1, 1 - y / rBot))
        case .modifiedBaskethandle:
            if y <= yFull - yBot { return wMax + 2 * y }
            let t = 2 * acos(max(-1, 1 - min(yFull - y, yBot) / rBot))
            return (theta - t) * rBot + 2 * (yFull - yBot) + wMax
        case .power:
            let step = 0.02 * yFull, h = (sBot + 1) * rBot / 2
            var p = 0.0, y1 = 0.0, x1 = 0.0
            while y1 < y {
                let y2 = min(y1 + step, y), x2 = h * pow(y2, sBot)
                p += ((x2 - x1) * (x2 - x1) + (y2 - y1) * (y2 - y1)).squareRoot()
                x1 = x2; y1 = y2
            }
            return 2 * p
        }
    }

    func area(_ yn: Double) -> Double { areaAt(yn * yFull) / aFull }
    func width(_ yn: Double) -> Double { widthAt(yn * yFull) / wMax }

    func radius(_ yn: Double, aFull: Double, rFull: Double, sFull: Double) -> Double {
        if yn >= 1 { return rFull }
        let y = yn * yFull, p = perimeterAt(y)
        return p > 0 ? areaAt(y) / p : 0
    }

    func depth(_ an: Double) -> Double {
        if an <= 0 { return 0 }
        if an >= 1 { return 1 }
        if kind == .power { return pow(an * aFull / rBot, 1 / (sBot + 1)) / yFull }
        // The area rises with depth: bisection to 1e-12 of the full depth.
        var lo = 0.0, hi = 1.0
        for _ in 0..<42 {
            let mid = 0.5 * (lo + hi)
            if area(mid) < an { lo = mid } else { hi = mid }
        }
        return 0.5 * (lo + hi)
    }

    func sectionFactor(_ an: Double) -> Double? { nil }
    func area(ofSectionFactor psi: Double) -> Double? { nil }
}
