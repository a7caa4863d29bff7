import Foundation
import SWMMFormat

/// `[AQUIFERS]` and `[GROUNDWATER]` read as SWMM 5.2 reads them (`gwater.c`), checked as it checks
/// them (ERROR 109, 110, 203, 209, 211), converted to SI for `RunoffSimulation.groundwater`.
extension SWMMModel {
    /// The groundwater under each subcatchment, in `subcatchments` order (nil where it has none);
    /// empty when the model has none or sets `IGNORE_GROUNDWATER YES`.
    /// - Throws: `SWMMInputError` naming the section, the item and the reason for input SWMM
    ///   rejects, and for what this engine does not simulate yet (custom `[GWF]` expressions,
    ///   monthly upper-evaporation patterns, flow laws that need the node's water level or inflow
    ///   while runoff is computed).
    public func groundwaterSetup() throws -> [SubcatchmentGroundwater?] {
        guard !isSwitchedOff("IGNORE_GROUNDWATER") else { return [] }
        let lines = rawSections.filter { $0.name == "GROUNDWATER" }.flatMap(\.lines)
        if let gwf = rawSections.first(where: { $0.name == "GWF" })?.lines.first, let item = gwf.first {
            let kind = gwf.count > 1 ? gwf[1].uppercased() : "?"
            throw SWMMInputError(line: nil, section: "GWF", field: "Subcatchment",
                                 reason: "subcatchment \(item) has a custom \(kind) groundwater flow expression: [GWF] expressions are not simulated yet")
        }
        guard !lines.isEmpty else { return [] }
        let aquifers = try readAquifers()
        let u = units
        let subIndex = Dictionary(subcatchments.enumerated().map { ($1.name, $0) }, uniquingKeysWith: { a, _ in a })
        var inverts: [String: Double] = [:]
        for j in junctions { inverts[j.name] = j.elevation }
        for o in outfalls { inverts[o.name] = o.elevation }
        for s in storage { inverts[s.name] = s.elevation }
        for d in dividers { inverts[d.name] = d.elevation }
        var result = [SubcatchmentGroundwater?](repeating: nil, count: subcatchments.count)
        for t in lines {
            let item = t.first ?? "?"
            func fail(_ field: String, _ why: String) -> SWMMInputError {
                SWMMInputError(line: nil, section: "GROUNDWATER", field: field, reason: "subcatchment \(item): \(why)")
            }
            guard let j = subIndex[item] else { throw fail("Subcatchment", "not a subcatchment of the model (SWMM's ERROR 209)") }
            guard t.count >= 11 else { throw fail("Subcatchment", "expected at least 11 items (Egwt may be *), got \(t.count) (SWMM's ERROR 203)") }
            guard let aquifer = aquifers[t[1]] else { throw fail("Aquifer", "aquifer \(t[1]) is not in [AQUIFERS] (SWMM's ERROR 209)") }
            guard let invert = inverts[t[2]] else { throw fail("Node", "node \(t[2]) is not in the model (SWMM's ERROR 209)") }
            let names = ["Esurf", "A1", "B1", "A2", "B2", "A3", "Dsw", "Egwt", "Ebot", "Egw", "Umc"]
            var x: [Double?] = []
            for (k, name) in names.enumerated() {
                let m = k + 3
                guard m < t.count, k < 7 || t[m] != "*" else { x.append(nil); continue }
                guard let v = Double(t[m]) else { throw fail(name, "\(name) \(t[m]) is not a number (SWMM's ERROR 211)") }
                x.append(v)
            }
            let (a1, b1, a2, b2, a3, fixed) = (x[1]!, x[2]!, x[3]!, x[4]!, x[5]!, x[6]! * u.length)
            if a1 < 0 { throw fail("A1", "a negative groundwater flow coefficient (\(a1)) would draw water from node \(t[2]), which is not simulated") }
            if a2 != 0 {
                throw fail("A2", "the surface-water term (A2 \(a2)) needs node \(t[2])'s level and inflow while runoff is computed, which runs ahead of routing here: not simulated")
            }
            if a3 != 0 && fixed <= 0 {
                throw fail("A3", "the interaction term (A3 \(a3)) needs node \(t[2])'s water level while runoff is computed: not simulated unless a fixed surface-water depth Dsw is given")
            }
            let g = SubcatchmentGroundwater(aquifer: aquifer, node: t[2], surfaceElevation: x[0]! * u.length, a1: a1, b1: b1, a2: a2, b2: b2,
                                            a3: a3, fixedDepth: fixed, nodeInvert: invert * u.length,
                                            thresholdElevation: x[7].map { $0 * u.length }, bottomElevation: x[8].map { $0 * u.length },
                                            waterTableElevation: x[9].map { $0 * u.length }, upperMoisture: x[10],
                                            lawLength: u.length, lawFlow: u.flow.isUS ? 0.3048 / 43_560 : 1.0 / 10_000)
            if g.surfaceElevation < g.waterTableElevation {
                throw fail("Esurf", "ground elevation \(x[0]!) is below the water table (SWMM's ERROR 110)")
            }
            result[j] = g
        }
        return result
    }

    /// `[AQUIFERS]` by name, in SI, checked as SWMM's `gwater_validateAquifer` (ERROR 109).
    func readAquifers() throws -> [String: Aquifer] {
        let u = units
        var out: [String: Aquifer] = [:]
        for t in rawSections.filter({ $0.name == "AQUIFERS" }).flatMap(\.lines) {
            let name = t.first ?? "?"
            func fail(_ field: String, _ why: String) -> SWMMInputError {
                SWMMInputError(line: nil, section: "AQUIFERS", field: field, reason: "aquifer \(name): \(why)")
            }
            guard t.count >= 13 else { throw fail("Name", "expected 13 items, got \(t.count) (SWMM's ERROR 203)") }
            let fields = ["Por", "WP", "FC", "Ksat", "Kslope", "Tslope", "ETu", "ETs", "Seep", "Ebot", "Egw", "Umc"]
            var x: [Double] = []
            for (k, field) in fields.enumerated() {
                guard let v = Double(t[k + 1]) else { throw fail(field, "\(field) \(t[k + 1]) is not a number (SWMM's ERROR 211)") }
                x.append(v)
            }
            if t.count > 13, !Self.isBlank(t[13]) {
                throw fail("ETupat", "a monthly pattern for upper-zone evaporation (\(t[13])) is not simulated yet")
            }
            let a = Aquifer(name: name, porosity: x[0], wiltingPoint: x[1], fieldCapacity: x[2], conductivity: x[3] * u.rainRate,
                            conductivitySlope: x[4], tensionSlope: x[5] * u.length, upperEvaporationFraction: x[6],
                            lowerEvaporationDepth: x[7] * u.length, lowerLossCoefficient: x[8] * u.rainRate,
                            bottomElevation: x[9] * u.length, waterTableElevation: x[10] * u.length, upperMoisture: x[11])
            let invalid = a.porosity <= 0 || a.fieldCapacity >= a.porosity || a.wiltingPoint >= a.fieldCapacity || a.conductivity <= 0
                || a.conductivitySlope < 0 || a.tensionSlope < 0 || a.upperEvaporationFraction < 0 || a.lowerEvaporationDepth < 0
                || a.waterTableElevation < a.bottomElevation || a.upperMoisture > a.porosity || a.upperMoisture < a.wiltingPoint
            if invalid {
                throw fail("Por", "invalid parameter values (SWMM's ERROR 109: needs 0 < wilting point < field capacity < porosity, "
                           + "wilting point ≤ upper moisture ≤ porosity, conductivity > 0, slopes and depths ≥ 0, water table ≥ bottom)")
            }
            out[name] = a
        }
        return out
    }
}
