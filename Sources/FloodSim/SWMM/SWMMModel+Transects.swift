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
        guard x.shape.uppercased() == "IRREGULAR", let t = transects[x.curve ?? ""] else { return (1, c.roughness) }
        return (t.meander, t.channelN * t.meander.squareRoot())
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
}
