import Foundation

/// The geometry tables of a cross-section built from user data, as SWMM 5.2 builds them: a natural
/// channel from its transect (IRREGULAR; transect.c) or a closed shape from its shape curve (CUSTOM;
/// shape.c). Area, hydraulic radius and top width at 51 equally spaced depths from the bottom to the
/// full depth, each divided by its full (or largest) value; lengths in metres.
public struct SectionProfile: Sendable, Hashable {
    /// Number of table entries (SWMM's N_TRANSECT_TBL and N_SHAPE_TBL).
    public static let tableSize = 51
    /// A/Afull, R/Rfull and W/Wmax at y/yFull = i/50.
    public let area: [Double], radius: [Double], width: [Double]
    public let yFull: Double, aFull: Double, rFull: Double, wMax: Double
    /// The largest section factor A·R^(2/3) over the table's depths and the area where it occurs.
    public let sMax: Double, aMax: Double
    /// Transects are open channels; custom shapes are closed conduits.
    public let isOpen: Bool

    /// A natural channel from its stations and elevations (metres), SWMM's transect processing:
    /// vertical walls raise both ends to the highest point; the hydraulic radius at each depth is
    /// the one that passes the transect's total Manning flow (overbanks at their own n) with the main
    /// channel's n over the whole area. `channelN` is already the meander-adjusted n. A street's
    /// section (`walled: true`) brings its own end points at full height and its bottom at 0.
    /// - Throws: `HydraulicsError` for fewer than 2 stations, decreasing stations or no depth.
    public static func transect(stations: [Double], elevations: [Double], leftN: Double, rightN: Double, channelN: Double,
                                leftBank: Double, rightBank: Double, walled: Bool = false) throws -> SectionProfile {
        guard stations.count >= 2, stations.count == elevations.count, channelN > 0 else {
            throw HydraulicsError(.invalidValue, "a transect needs at least 2 stations and a channel Manning's n > 0")
        }
        guard zip(stations, stations.dropFirst()).allSatisfy({ $0 <= $1 }) else {
            throw HydraulicsError(.invalidValue, "transect stations must not decrease")
        }
        guard var yMin = elevations.min(), let yMax = elevations.max(), yMin < yMax else {
            throw HydraulicsError(.invalidValue, "a transect needs some depth (stations at more than one elevation)")
        }
        // Stations 0…n+1: the user's points between two vertical walls up to the highest point.
        let x = walled ? stations : [stations[0]] + stations + [stations[stations.count - 1]]
        let z = walled ? elevations : [yMax] + elevations + [yMax]
        if walled { yMin = 0 }
        let last = x.count - 1
        // SWMM's Manning constant over the one its hydraulic radius formula uses.
        let phi = 1.486 / 1.49
        func flow(_ k: Int, _ a: Double, _ p: Double, _ force: Bool) -> Double {
            var due = force
            if !due {
                if k == last - 1 { due = true }
                else if x[k] == leftBank { due = leftN != channelN && x[k] != x[k - 1] }
                else if x[k] == rightBank { due = rightN != channelN && (k == last || x[k] != x[k + 1]) }
            }
            guard due, p > 0 else { return 0 }
            var n = channelN
            if x[k - 1] < leftBank { n = leftN }
            if x[k] > rightBank { n = rightN }
            return phi / n * a * pow(a / p, 2.0 / 3.0)
        }
        let count = tableSize
        var area = [Double](repeating: 0, count: count), radius = area, width = area
        let dy = (yMax - yMin) / Double(count - 1)
        var level = yMin
        for i in 1..<count {
            level += dy
            var aPart = 0.0, pPart = 0.0, qSum = 0.0
            for k in 1...last {
                let lo = min(z[k - 1], z[k]), hi = max(z[k - 1], z[k])
                if lo >= level { continue }
                let run = abs(x[k] - x[k - 1])
                var w = run, p = (run * run + (hi - lo) * (hi - lo)).squareRoot(), a = 0.0
                if level > hi {
                    a = run * ((level - hi) + (level - lo)) / 2
                } else if hi > lo {
                    let f = (level - lo) / (hi - lo)
                    a = run * (hi - lo) / 2 * f * f
                    w *= f; p *= f
                }
                pPart += p; aPart += a
                area[i] += a; width[i] += w
                let q = flow(k, aPart, pPart, z[k] >= level)
                if q > 0 { qSum += q; aPart = 0; pPart = 0 }
            }
            radius[i] = area[i] == 0 ? radius[i - 1] : pow(qSum * channelN / area[i], 1.5)
        }
        let (sMax, aMax) = peakSectionFactor(area, radius)
        let aFull = area[count - 1], rFull = radius[count - 1], wMax = width[count - 1]
        guard aFull > 0, rFull > 0, wMax > 0 else { throw HydraulicsError(.invalidValue, "the transect holds no water") }
        var wn = width.map { $0 / wMax }
        wn[0] = wn[1]
        return SectionProfile(area: area.map { $0 / aFull }, radius: radius.map { $0 / rFull }, width: wn,
                              yFull: yMax - yMin, aFull: aFull, rFull: rFull, wMax: wMax, sMax: sMax, aMax: aMax, isOpen: true)
    }

    /// A closed conduit from a SHAPE curve of relative depth (0…1) against relative width, scaled to
    /// `fullDepth` metres, as SWMM's shape.c integrates it (trapezoids between the curve's points,
    /// the top width closing the perimeter at full depth).
    /// - Throws: `HydraulicsError` for a curve SWMM rejects (first depth outside [0, 1), negative
    ///   widths, depths out of order) or one that encloses no area.
    public static func shape(depths: [Double], widths: [Double], fullDepth: Double) throws -> SectionProfile {
        guard fullDepth > 0 else { throw HydraulicsError(.invalidValue, "a custom shape needs a full depth > 0") }
        guard depths.count == widths.count, let y0 = depths.first, y0 >= 0, y0 < 1, widths[0] >= 0 else {
            throw HydraulicsError(.invalidValue, "a shape curve starts at a relative depth in [0, 1) with a width ≥ 0")
        }
        var next = 0
        func entry() -> (Double, Double)? {
            guard next < depths.count else { return nil }
            defer { next += 1 }
            return (depths[next], widths[next])
        }
        var (y1, w1) = entry()!
        var wMax = w1, y2: Double, w2: Double
        if y1 != 0 {
            y2 = y1; w2 = w1; y1 = 0; w1 = 0
        } else {
            guard let e = entry() else { throw HydraulicsError(.invalidValue, "a shape curve needs a second point") }
            (y2, w2) = e
            guard y2 >= y1, w2 >= 0 else { throw HydraulicsError(.invalidValue, "shape curve depths must rise and widths be ≥ 0") }
            y2 = min(y2, 1); wMax = max(wMax, w2)
        }
        func trapezoid(_ y: Double, _ w: Double, _ ya: Double, _ wa: Double) -> (a: Double, p: Double) {
            let dw = abs(w - wa) / 2, h = y - ya
            return ((min(w, wa) + abs(w - wa) / 2) * h, 2 * (h * h + dw * dw).squareRoot())
        }
        let n = tableSize - 1, dy = 1 / Double(n)
        var area = [Double](repeating: 0, count: tableSize), radius = area, width = area
        width[0] = w1
        var aTotal = 0.0, pTotal = w1, y = 0.0, w = w1
        for i in 1...n {
            var yLast = y, wLast = w
            y += dy
            if abs(y - 1) < 1e-6 { y = 1 }
            if y > y2 {
                while y > y2 {
                    if y2 > yLast {
                        let t = trapezoid(y2, w2, yLast, wLast)
                        aTotal += t.a; pTotal += t.p
                        yLast = y2; wLast = w2
                    }
                    y1 = y2; w1 = w2
                    guard let e = entry() else { y2 = 1; break }
                    (y2, w2) = e
                    wMax = max(wMax, w2)
                    guard y2 >= y1, w2 >= 0 else { throw HydraulicsError(.invalidValue, "shape curve depths must rise and widths be ≥ 0") }
                    y2 = min(y2, 1)
                }
                yLast = y1; wLast = w1
            }
            w = y2 == y1 ? w2 : w1 + (y - y1) / (y2 - y1) * (w2 - w1)
            let t = trapezoid(y, w, yLast, wLast)
            aTotal += t.a; pTotal += t.p
            if y == 1 { pTotal += w2 }
            width[i] = w; area[i] = aTotal
            radius[i] = pTotal > 0 ? aTotal / pTotal : 0
        }
        let (s, aPeak) = peakSectionFactor(area, radius)
        let aFull = area[n], rFull = radius[n]
        guard aFull > 0, rFull > 0, wMax > 0 else { throw HydraulicsError(.invalidValue, "the shape curve encloses no area") }
        let d = fullDepth
        return SectionProfile(area: area.map { $0 / aFull }, radius: radius.map { $0 / rFull }, width: width.map { $0 / wMax },
                              yFull: d, aFull: aFull * d * d, rFull: rFull * d, wMax: wMax * d,
                              sMax: s * d * d * pow(d, 2.0 / 3.0), aMax: aPeak * d * d, isOpen: false)
    }

    /// The same section with every length multiplied by `f` (the relative tables unchanged).
    public func scaled(by f: Double) -> SectionProfile {
        SectionProfile(area: area, radius: radius, width: width, yFull: yFull * f, aFull: aFull * f * f, rFull: rFull * f,
                       wMax: wMax * f, sMax: sMax * f * f * pow(f, 2.0 / 3.0), aMax: aMax * f * f, isOpen: isOpen)
    }

    /// The largest A·R^(2/3) over the (not yet normalised) table entries and the area where it occurs.
    private static func peakSectionFactor(_ area: [Double], _ radius: [Double]) -> (Double, Double) {
        var sMax = 0.0, aMax = 0.0
        for i in 1..<area.count {
            let s = area[i] * pow(radius[i], 2.0 / 3.0)
            if s > sMax { sMax = s; aMax = area[i] }
        }
        return (sMax, aMax)
    }
}

/// A `SectionProfile` as `SectionGeometry` reads relative shapes: SWMM's table lookups (linear,
/// quadratic over the first two intervals) and their inverse; the section factor from the area's
/// depth and its hydraulic radius, as SWMM's xsect_getSofA does for these shapes.
struct ProfileSection: RelativeSection, Hashable {
    let profile: SectionProfile
    /// S/Sfull at the table's peak, and A/Afull there.
    let peakRatio: Double, peakArea: Double

    init(_ profile: SectionProfile) {
        self.profile = profile
        let sFull = profile.aFull * pow(profile.rFull, 2.0 / 3.0)
        peakRatio = max(1, profile.sMax / sFull)
        peakArea = peakRatio > 1 ? min(1, profile.aMax / profile.aFull) : 1
    }

    var isOpen: Bool { profile.isOpen }
    var sMaxRatio: Double? { peakRatio > 1 ? peakRatio : nil }
    func area(_ yn: Double) -> Double { SectionTable.lookup(yn, profile.area) }
    func depth(_ an: Double) -> Double { SectionTable.inverse(an, profile.area) }
    func width(_ yn: Double) -> Double { SectionTable.lookup(yn, profile.width) }
    func radius(_ yn: Double, aFull: Double, rFull: Double, sFull: Double) -> Double {
        rFull * SectionTable.lookup(yn, profile.radius)
    }
    func sectionFactor(_ an: Double) -> Double? {
        guard an > 0 else { return 0 }
        return an * pow(SectionTable.lookup(depth(an), profile.radius), 2.0 / 3.0)
    }
    /// The area whose S/Sfull is `psi` as SWMM's generic_getAofS finds it for transects and shape
    /// curves: ψ capped at the table's peak; between 1 and the peak (when the peak is above the full
    /// section factor) on the falling branch [peak area, 1], otherwise on [0, peak area]; by SWMM's
    /// safeguarded Newton (findroot_Newton) from the bracket's middle to 1e-4 of the full area, with
    /// dS/dA as SWMM's central difference over ±0.001 of the full area.
    func area(ofSectionFactor psi: Double) -> Double? {
        guard psi > 0 else { return 0 }
        if psi >= peakRatio { return peakArea }
        let aNeg = psi >= 1 && peakRatio > 1 ? 1.0 : 0.0
        return SectionGeometry.swmmNewton(aNeg, peakArea, start: 0.5 * (aNeg + peakArea), tolerance: 1e-4) { a in
            let lo = max(0, a - 0.001), hi = a + 0.001
            let slope = ((sectionFactor(hi) ?? 0) - (sectionFactor(lo) ?? 0)) / (hi - lo)
            return ((sectionFactor(a) ?? 0) - psi, slope)
        }
    }
}
