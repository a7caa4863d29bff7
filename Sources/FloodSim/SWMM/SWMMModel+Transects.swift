import Foundation
import SWMMFormat

extension SWMMModel {
    /// The geometry tables of an IRREGULAR section (from its `[TRANSECTS]` entry) or a CUSTOM one
    /// (from its SHAPE curve in `[CURVES]`), in metres; nil for every other shape.
    /// - Throws: `SWMMInputError` naming the link and the transect or curve when it is missing, of
    ///   the wrong kind, or not a shape SWMM can build.
    func sectionProfile(_ x: SWMMCrossSection, units u: SWMMUnits, transects: [String: SWMMTransect]) throws -> SectionProfile? {
        switch x.shape.uppercased() {
        case "IRREGULAR":
            let name = x.curve ?? ""
            guard let t = transects[name] else {
                throw SWMMInputError(line: nil, section: "XSECTIONS", field: "Transect",
                                     reason: "link \(x.link): transect \(name) is not defined in [TRANSECTS]")
            }
            // Built in feet from the values SWMM computes (its bank comparisons are exact), then in metres.
            let ft = 0.3048
            let p = t.points(unit: ft / u.length)
            do {
                return try SectionProfile.transect(stations: p.stations, elevations: p.elevations, leftN: t.leftN, rightN: t.rightN,
                                                   channelN: t.channelN * t.meander.squareRoot(), leftBank: p.leftBank,
                                                   rightBank: p.rightBank).scaled(by: ft)
            } catch let e as HydraulicsError {
                throw SWMMInputError(line: nil, section: "TRANSECTS", field: "GR", reason: "transect \(name) (link \(x.link)): \(e.message)")
            }
        case "STREET":
            return try streetProfile(x, units: u).profile
        case "CUSTOM":
            let name = x.curve ?? ""
            guard let c = curve(named: name) else {
                throw SWMMInputError(line: nil, section: "XSECTIONS", field: "Curve",
                                     reason: "link \(x.link): shape curve \(name) is not defined in [CURVES]")
            }
            guard c.kind.uppercased() == "SHAPE" else {
                throw SWMMInputError(line: nil, section: "XSECTIONS", field: "Curve",
                                     reason: "link \(x.link): curve \(name) is a \(c.kind) curve, not a SHAPE curve")
            }
            do {
                return try .shape(depths: c.points.map(\.x), widths: c.points.map(\.y), fullDepth: x.depth * u.length)
            } catch let e as HydraulicsError {
                throw SWMMInputError(line: nil, section: "CURVES", field: "Curve", reason: "shape curve \(name) (link \(x.link)): \(e.message)")
            }
        default:
            return nil
        }
    }

    /// A natural channel's meander modifier and Manning's n (the transect's channel n, scaled by the
    /// square root of the modifier), as SWMM 5.2's conduit_validate sets them; 1 and the conduit's
    /// own n otherwise.
    func channelMeanderAndRoughness(_ c: SWMMConduit, _ x: SWMMCrossSection,
                                    transects: [String: SWMMTransect]) -> (meander: Double, roughness: Double) {
        if x.shape.uppercased() == "STREET", let line = streetLine(x.curve ?? ""), line.count > 4, let n = Double(line[4]) { return (1, n) }
        guard x.shape.uppercased() == "IRREGULAR", let t = transects[x.curve ?? ""] else { return (1, c.roughness) }
        return (t.meander, t.channelN * t.meander.squareRoot())
    }

    /// A STREET section from its `[STREETS]` line, as SWMM 5.2's street.c reads it and
    /// transect_createStreetTransect shapes it (curb, depressed gutter, road sloping to the crown,
    /// one side or mirrored, an optional backing behind the curb with its own n), and the road's n.
    /// - Throws: `SWMMInputError` naming the street for a missing street or a value SWMM rejects.
    func streetProfile(_ x: SWMMCrossSection, units u: SWMMUnits) throws -> (profile: SectionProfile, roughness: Double) {
        let name = x.curve ?? ""
        func fail(_ reason: String) -> SWMMInputError { SWMMInputError(line: nil, section: "STREETS", field: "Street", reason: "street \(name) (link \(x.link)): \(reason)") }
        guard let tok = streetLine(name) else {
            throw SWMMInputError(line: nil, section: "XSECTIONS", field: "Street", reason: "link \(x.link): street \(name) is not defined in [STREETS]")
        }
        guard tok.count >= 5 else { throw fail("needs the crown width, curb height, cross slope and road n") }
        var v = [Double](repeating: 0, count: 11)
        for k in 1..<min(tok.count, 11) where k != 7 {
            guard let d = Double(tok[k]), k <= 4 ? d > 0 : d >= 0 else { throw fail("\(tok[k]) is not a valid number") }
            v[k] = d
        }
        var sides = 2
        if tok.count > 7 { guard let s = Int(tok[7]), (1...2).contains(s) else { throw fail("sides \(tok[7]) is not 1 or 2") }; sides = s }
        if v[8] > 0 && (tok.count < 11 || v[9] <= 0 || v[10] <= 0) { throw fail("a backing needs its slope and n > 0") }
        let ucf = 0.3048 / u.length
        let width = v[1] / ucf, curb = v[2] / ucf, slope = v[3] / 100, depression = v[5] / ucf, gutter = v[6] / ucf
        let back = v[8] / ucf, backSlope = v[9] / 100
        let w4 = width - gutter
        let y3 = depression + slope * gutter, y1 = curb + depression
        let y4 = y3 + slope * w4
        let yMax = max(backSlope * back + y1, y4)
        var xs = [0, back, back, back + gutter, back + width], zs = [yMax, y1, 0, y3, y4]
        if sides == 1 {
            xs.append(xs[4]); zs.append(yMax)
        } else {
            xs += [xs[4] + w4, xs[4] + w4 + gutter, xs[4] + w4 + gutter, xs[4] + w4 + gutter + back]
            zs += [y3, 0, y1, yMax]
        }
        let n = xs.count - 1
        let backN = back == 0 ? v[4] : v[10]
        let left = back == 0 ? xs[0] : xs[1], right = back == 0 || sides == 1 ? xs[n] : xs[n - 1]
        do {
            let p = try SectionProfile.transect(stations: xs, elevations: zs, leftN: backN, rightN: backN, channelN: v[4],
                                                leftBank: left, rightBank: right, walled: true)
            return (p.scaled(by: 0.3048), v[4])
        } catch let e as HydraulicsError { throw fail(e.message) }
    }

    /// A roadway weir's road width (m) and surface (PAVED or GRAVEL; anything else leaves SWMM's
    /// constant coefficient in use), as SWMM 5.2 reads them.
    /// - Throws: `SWMMInputError` for a road width that is not a number ≥ 0.
    func roadway(_ w: SWMMWeir, units u: SWMMUnits) throws -> (width: Double, surface: RoadwayWeir.Surface?) {
        var width = 0.0
        if w.options.count > 4, !Self.isBlank(w.options[4]) {
            guard let v = Double(w.options[4]), v >= 0 else {
                throw SWMMInputError(line: nil, section: "WEIRS", field: "RoadWidth", reason: "weir \(w.name): road width \(w.options[4]) is not a number ≥ 0")
            }
            width = v * u.length
        }
        let surface: RoadwayWeir.Surface? = switch w.options.count > 5 ? w.options[5].uppercased() : "" {
        case "PAVED": .paved
        case "GRAVEL": .gravel
        default: nil
        }
        return (width, surface)
    }

    /// The `[STREETS]` line of street `name`, as tokens.
    func streetLine(_ name: String) -> [String]? {
        rawSections.first { $0.name == "STREETS" }?.lines.first { $0.first == name }
    }
}
