import Foundation
import SWMMFormat

extension SWMMModel {
    /// The model's `[LID_CONTROLS]` in SI, by name, read and checked as SWMM 5.2 reads them
    /// (`lid_readProcParams`, `validateLidProc`).
    /// - Throws: `SWMMInputError` naming the control and the field: an unknown kind or layer, a
    ///   missing or negative number, a layer the kind needs that is missing, parameters SWMM
    ///   rejects (ERROR 183–188: soil, pavement, storage, swale), an underdrain control
    ///   curve (not simulated).
    public func lidControls() throws -> [String: LIDControl] {
        let u = units
        var controls: [String: LIDControl] = [:], order: [String] = []
        for line in rawSections.filter({ $0.name == "LID_CONTROLS" }).flatMap(\.lines) {
            guard line.count >= 2 else { throw lidError("Name", "a line needs a name and a kind or layer: \(line.joined(separator: " "))") }
            let name = line[0], word = line[1].uppercased()
            func fail(_ field: String, _ why: String) -> SWMMInputError { lidError(field, "LID control \(name): \(why)") }
            if let kind = LIDControl.Kind(rawValue: word) {
                if controls[name] == nil { order.append(name) }
                controls[name] = LIDControl(name: name, kind: kind)
                continue
            }
            guard var c = controls[name] else { throw fail("Type", "layer \(word) before the line that gives its kind") }
            func numbers(_ count: Int, optional: Int = 0) throws -> [Double] {
                guard line.count >= 2 + count else { throw fail(word, "\(word) needs \(count) values, got \(line.count - 2)") }
                return try line.dropFirst(2).prefix(count + optional).enumerated().map { k, t in
                    guard let v = Double(t), v >= 0 else { throw fail(word, "value \(k + 1) of \(word) is not a number ≥ 0: \(t)") }
                    return v
                }
            }
            let depth = u.rainDepth, rate = u.rainRate
            switch word {
            case "SURFACE":
                let x = try numbers(5)
                guard x[1] < 1 else { throw fail(word, "the vegetation volume fraction must be below 1, got \(x[1])") }
                c.surface = .init(thickness: x[0] * depth, voidFraction: x[0] == 0 ? 1 : 1 - x[1], roughness: x[2], slope: x[3] / 100, sideSlope: x[4])
            case "PAVEMENT":
                let x = try numbers(5, optional: 2)
                if x.count > 6, x[6] > 1 { throw fail(word, "the regeneration degree must be 0…1, got \(x[6])") }
                c.pavement = .init(thickness: x[0] * depth, voidFraction: x[1] / (x[1] + 1), imperviousFraction: x[2], conductivity: x[3] * rate,
                                   clogDepth: x[4], regenerationDays: x.count > 5 ? x[5] : 0, regenerationDegree: x.count > 6 ? x[6] : 0)
            case "SOIL":
                let x = try numbers(7)
                c.soil = .init(thickness: x[0] * depth, porosity: x[1], fieldCapacity: x[2], wiltingPoint: x[3], conductivity: x[4] * rate,
                               suction: x[6] * depth, conductivitySlope: x[5])
            case "STORAGE":
                let x = try numbers(4)
                c.storage = .init(thickness: x[0] * depth, voidFraction: x[1] / (x[1] + 1), conductivity: x[2] * rate, clogDepth: x[3],
                                  covered: line.count > 6 && line[6].uppercased() == "YES")
            case "DRAIN":
                if line.count >= 9 { throw fail("Curve", "an underdrain flow curve (\(line[8])) is not simulated") }
                let x = try numbers(4, optional: 2)
                c.drain = .init(coefficient: x[0], exponent: x[1], offset: x[2] * depth, delay: x[3] * 3600,
                                openHead: x.count > 4 ? x[4] * depth : 0, closeHead: x.count > 5 ? x[5] * depth : 0,
                                depthUnit: depth, rateUnit: rate)
            case "DRAINMAT":
                let x = try numbers(3)
                if c.kind == .greenRoof { c.drainageMat = .init(thickness: x[0] * depth, voidFraction: x[1], roughness: x[2]) }
            case "REMOVALS":
                continue   // pollutant removals: water quality is not simulated (refused unless IGNORE_QUALITY)
            default:
                throw fail("Layer", "\(line[1]) is neither an LID kind (BC, RG, GR, IT, PP, RB, RD, VS) nor a layer")
            }
            controls[name] = c
        }
        for name in order { try checkLID(controls[name]!) }
        return controls
    }

    private func lidError(_ field: String, _ why: String, section: String = "LID_CONTROLS") -> SWMMInputError {
        SWMMInputError(line: nil, section: section, field: field, reason: why)
    }

    /// SWMM's `validateLidProc` checks, said with the control's name.
    private func checkLID(_ c: LIDControl) throws {
        func fail(_ field: String, _ why: String) -> SWMMInputError { lidError(field, "LID control \(c.name): \(why)") }
        let needs: [(Bool, String)]
        switch c.kind {
        case .bioRetention, .rainGarden: needs = [(c.soil.thickness > 0, "SOIL")]
        case .greenRoof: needs = [(c.soil.thickness > 0, "SOIL"), (c.drainageMat.thickness > 0, "DRAINMAT")]
        case .permeablePavement: needs = [(c.pavement.thickness > 0, "PAVEMENT")]
        case .infiltrationTrench: needs = [(c.storage.thickness > 0, "STORAGE")]
        default: needs = []
        }
        if let missing = needs.first(where: { !$0.0 }) {
            throw fail(missing.1, "a \(c.kind.rawValue) control needs a \(missing.1) layer of some thickness (SWMM's ERROR 184)")
        }
        if c.kind == .permeablePavement, c.pavement.conductivity <= 0 || c.pavement.voidFraction <= 0 || c.pavement.imperviousFraction > 1 {
            throw fail("PAVEMENT", "the pavement needs a permeability and void ratio above 0 and an impervious fraction ≤ 1 (SWMM's ERROR 185)")
        }
        let s = c.soil
        if s.thickness > 0, s.porosity <= 0 || s.fieldCapacity >= s.porosity || s.wiltingPoint >= s.fieldCapacity || s.conductivity <= 0 {
            throw fail("SOIL", "soil needs wilting point < field capacity < porosity and a conductivity above 0 (SWMM's ERROR 185)")
        }
        if c.storage.thickness > 0, c.storage.voidFraction <= 0 || c.storage.voidFraction > 1 {
            throw fail("STORAGE", "the storage layer needs a void ratio above 0 (SWMM's ERROR 185)")
        }
        if c.drain.openHead > 0, c.drain.openHead <= c.drain.closeHead {
            throw fail("DRAIN", "the drain's open head must exceed its close head (SWMM's ERROR 185)")
        }
        if c.kind == .vegetativeSwale, c.surface.roughness * c.surface.slope <= 0 || c.surface.thickness == 0 {
            throw fail("SURFACE", "a swale needs a berm height, roughness and slope above 0 (SWMM's ERROR 185)")
        }
    }

    /// Each subcatchment's `[LID_USAGE]` in SI (SWMM's `lid_readGroupParams`, `validateLidGroup`).
    /// - Throws: `SWMMInputError` naming the subcatchment and the field: an unknown subcatchment,
    ///   control or drain outlet, a number SWMM rejects, units that cover more than the
    ///   subcatchment or treat more than all of its runoff, a swale without width.
    public func lidUsages() throws -> [String: [LIDUsage]] {
        let lines = rawSections.filter { $0.name == "LID_USAGE" }.flatMap(\.lines)
        guard !lines.isEmpty else { return [:] }
        let controls = try lidControls()
        let u = units
        let subIndex = Dictionary(subcatchments.enumerated().map { ($1.name, $0) }, uniquingKeysWith: { a, _ in a })
        let nodes = Set(nodeNames)
        var usages: [String: [LIDUsage]] = [:]
        for line in lines {
            let item = line.first ?? "?"
            func fail(_ field: String, _ why: String) -> SWMMInputError { lidError(field, "subcatchment \(item): \(why)", section: "LID_USAGE") }
            guard line.count >= 8 else { throw fail("ToPerv", "a usage line has at least 8 fields, got \(line.count)") }
            guard let j = subIndex[item] else { throw fail("Subcatchment", "\(item) is not a subcatchment") }
            guard let control = controls[line[1]] else { throw fail("LID", "LID control \(line[1]) is not defined in [LID_CONTROLS]") }
            guard let n = Int(line[2]), n >= 0 else { throw fail("Number", "the number of units is a whole number ≥ 0, got \(line[2])") }
            if n == 0 { continue }
            let fields = ["Area", "Width", "InitSat", "FromImp", "ToPerv"]
            let x = try (3...7).map { k -> Double in
                guard let v = Double(line[k]), v >= 0 else { throw fail(fields[k - 3], "not a number ≥ 0: \(line[k])") }
                return v
            }
            if x[2] > 100 || x[3] > 100 { throw fail(x[2] > 100 ? "InitSat" : "FromImp", "a percent is 0…100") }
            var fromPerv = 0.0
            if line.count >= 11 {
                guard let v = Double(line[10]), (0...100).contains(v) else { throw fail("FromPerv", "a percent 0…100, got \(line[10])") }
                fromPerv = v
            }
            var drain: LIDUsage.DrainTarget?
            if line.count >= 10, line[9] != "*" {
                if let k = subIndex[line[9]] { drain = .subcatchment(k) } else if nodes.contains(line[9]) { drain = .node(line[9]) } else {
                    throw fail("DrainTo", "\(line[9]) is neither a subcatchment nor a node")
                }
                let outlet = subcatchments[j].outlet
                if drain == .node(outlet) || drain == .subcatchment(subIndex[outlet] ?? -1) { drain = nil }
            }
            if control.kind == .vegetativeSwale, x[1] <= 0 { throw fail("Width", "a swale (\(control.name)) needs a top width above 0 (SWMM's ERROR 185)") }
            usages[item, default: []].append(LIDUsage(control: control, number: n, unitArea: x[0] * u.length * u.length, width: x[1] * u.length,
                                                      initialSaturation: x[2] / 100, fromImpervious: x[3] / 100, fromPervious: fromPerv / 100,
                                                      toPervious: x[4] > 0, drainTo: drain))
        }
        for s in subcatchments {
            guard let list = usages[s.name] else { continue }
            let area = s.area * u.landArea
            if list.reduce(0, { $0 + $1.area }) > 1.001 * area {
                throw lidError("Area", "subcatchment \(s.name): its LID units cover more than its area (SWMM's ERROR 187)", section: "LID_USAGE")
            }
            if list.reduce(0, { $0 + $1.fromImpervious }) > 1.001 || list.reduce(0, { $0 + $1.fromPervious }) > 1.001 {
                throw lidError("FromImp", "subcatchment \(s.name): its LID units treat more than 100 % of its runoff (SWMM's ERROR 188)", section: "LID_USAGE")
            }
        }
        return usages
    }
}
