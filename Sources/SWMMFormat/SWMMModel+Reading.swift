import Foundation

extension SWMMModel {
    /// Sections modelled as values.
    static let modelledSections: [String] = [
        "TITLE", "OPTIONS", "EVAPORATION", "RAINGAGES", "SUBCATCHMENTS", "SUBAREAS", "INFILTRATION", "JUNCTIONS", "OUTFALLS",
        "STORAGE", "DIVIDERS", "CONDUITS", "PUMPS", "ORIFICES", "WEIRS", "OUTLETS", "XSECTIONS", "LOSSES", "INFLOWS", "DWF",
        "PATTERNS", "CURVES", "TIMESERIES", "REPORT", "COORDINATES", "VERTICES", "POLYGONS",
    ]
    /// Other SWMM 5.2 sections: recognised, kept as raw lines.
    static let rawSectionNames: Set<String> = [
        "TEMPERATURE", "ADJUSTMENTS", "LID_CONTROLS", "LID_USAGE", "AQUIFERS", "GROUNDWATER", "GWF", "SNOWPACKS", "TRANSECTS",
        "STREETS", "INLETS", "INLET_USAGE", "CONTROLS", "POLLUTANTS", "LANDUSES", "COVERAGES", "LOADINGS", "BUILDUP", "WASHOFF",
        "TREATMENT", "RDII", "HYDROGRAPHS", "TAGS", "MAP", "SYMBOLS", "LABELS", "BACKDROP", "FILES", "EVENTS", "PROFILES",
    ]

    /// Reads a `.inp` file; FILE references (time series data) are resolved next to it.
    /// - Throws: `SWMMInputError` naming the line, section and field of the first problem.
    public init(contentsOf url: URL) throws {
        let data: Data
        do { data = try Data(contentsOf: url) } catch {
            throw SWMMInputError(line: nil, section: nil, field: nil, reason: "cannot read \(url.path): \(error.localizedDescription)")
        }
        let text = String(data: data, encoding: .utf8) ?? String(decoding: data, as: UTF8.self)
        try self.init(parsing: text, baseDirectory: url.deletingLastPathComponent())
    }

    /// Parses `.inp` text and checks the network: every link's nodes exist, conduits have a positive
    /// length and a cross section, subcatchments name existing gages and outlets, and every node is
    /// connected to an outfall.
    /// - Parameters:
    ///   - text: the file's contents.
    ///   - baseDirectory: where relative FILE references are looked for (kept for `timeseriesPoints`).
    /// - Throws: `SWMMInputError` naming the line, section and field of the first problem.
    public init(parsing text: String, baseDirectory: URL? = nil) throws {
        self = try Self.parsing(text, baseDirectory: baseDirectory).model
    }

    /// `init(parsing:baseDirectory:)` that also tells where each object was defined, for
    /// messages about the model found after reading (an importer's, a surveyor's report).
    public static func parsing(_ text: String, baseDirectory: URL? = nil) throws -> (model: SWMMModel, lines: SWMMSourceLines) {
        var model = SWMMModel()
        var reader = SWMMReader()
        try reader.read(text, into: &model)
        try reader.validate(model)
        return (model, SWMMSourceLines(definedAt: reader.definedAt))
    }
}

/// The line (counting physical lines from 1) on which each named object of a parsed `.inp`
/// file was defined.
public struct SWMMSourceLines: Sendable {
    let definedAt: [String: Int]

    /// A junction, outfall, divider or storage unit.
    public func node(_ name: String) -> Int? { definedAt["NODE/" + name] }
    /// A conduit, pump, orifice, weir or outlet.
    public func link(_ name: String) -> Int? { definedAt["LINK/" + name] }
    public func subcatchment(_ name: String) -> Int? { definedAt["SUBCATCH/" + name] }
    /// The `[XSECTIONS]` line of a link.
    public func crossSection(_ link: String) -> Int? { definedAt["XSECT/" + link] }
}

/// The line-by-line reader behind `SWMMModel(parsing:)`; it remembers where each object was
/// defined so validation errors can name a line.
struct SWMMReader {
    var definedAt: [String: Int] = [:]   // "SECTION/name" → line
    var current: String?
    var rawIndex: [String: Int] = [:]

    /// Reads the lines of `text` (LF or CRLF ends). As in SWMM, `[OPTIONS]` applies wherever it
    /// stands, so `[INFILTRATION]` lines are parsed after every other line (their parameters
    /// depend on the INFILTRATION option).
    mutating func read(_ text: String, into model: inout SWMMModel) throws {
        var number = 0
        var infiltration: [SWMMLine] = []
        // Split by scalar: as Characters, "\r\n" is one grapheme and never equals "\n".
        for rawScalars in text.unicodeScalars.split(separator: "\n", omittingEmptySubsequences: false) {
            number += 1
            let trimmed = Self.trimmed(Substring(rawScalars))
            guard let first = trimmed.unicodeScalars.first, first != ";" else { continue }
            if first == "[" {
                let body = trimmed.prefix { $0 != ";" }.trimmingCharacters(in: .whitespaces)
                guard body.hasSuffix("]") else {
                    throw SWMMInputError(line: number, section: nil, field: nil, reason: "a section header must end with ]")
                }
                let name = body.dropFirst().dropLast().trimmingCharacters(in: .whitespaces).uppercased()
                guard SWMMModel.modelledSections.contains(name) || SWMMModel.rawSectionNames.contains(name) else {
                    throw SWMMInputError(line: number, section: name, field: nil, reason: "unknown section [\(name)]")
                }
                current = name
                if SWMMModel.rawSectionNames.contains(name), rawIndex[name] == nil {
                    rawIndex[name] = model.rawSections.count
                    model.rawSections.append(SWMMRawSection(name: name, lines: []))
                }
                continue
            }
            guard let section = current else {
                throw SWMMInputError(line: number, section: nil, field: nil, reason: "data before the first [SECTION] header")
            }
            if section == "TITLE" {
                model.title.append(String(trimmed))
                continue
            }
            let tokens = SWMMLine.tokenize(trimmed)
            if tokens.isEmpty { continue }
            let line = SWMMLine(number: number, section: section, tokens: tokens)
            if let k = rawIndex[section], SWMMModel.rawSectionNames.contains(section) {
                model.rawSections[k].lines.append(tokens)
                continue
            }
            if section == "INFILTRATION" {
                infiltration.append(line)
                continue
            }
            try parse(line, into: &model)
        }
        for line in infiltration { try parseInfiltration(line, &model) }
    }

    /// The line without leading and trailing SWMM separators (space, tab, CR).
    static func trimmed(_ line: Substring) -> Substring {
        let scalars = line.unicodeScalars
        guard let first = scalars.firstIndex(where: { !SWMMLine.isSeparator($0) }),
              let last = scalars.lastIndex(where: { !SWMMLine.isSeparator($0) }) else { return "" }
        return Substring(scalars[first...last])
    }

    mutating func define(_ line: SWMMLine, _ name: String, kind: String) throws {
        let key = kind + "/" + name
        if let first = definedAt[key] {
            throw line.error("Name", "\(name) is defined twice (first on line \(first))")
        }
        definedAt[key] = line.number
    }

    // swiftlint:disable:next cyclomatic_complexity function_body_length
    mutating func parse(_ l: SWMMLine, into m: inout SWMMModel) throws {
        switch l.section {
        case "OPTIONS":
            try l.require(2, ["Option", "Value"])
            // An option's value is its words (split at SWMM's separators) joined by single spaces:
            // quoted tabs and empty "" tokens in a value are normalised here, so the value writes
            // back as the same words.
            let words = l.tokens.dropFirst().flatMap { $0.unicodeScalars.split(whereSeparator: SWMMLine.isSeparator).map(String.init) }
            guard !words.isEmpty else { throw l.error("Value", "option \(l.tokens[0]) has no value") }
            m.options.append(SWMMOption(key: l.tokens[0].uppercased(), value: words.joined(separator: " ")))
        case "EVAPORATION":
            try parseEvaporation(l, &m)
        case "RAINGAGES":
            let f = ["Name", "Format", "Interval", "SCF", "Source"]
            try l.require(6, f + ["SeriesName"])
            try define(l, l.tokens[0], kind: "GAGE")
            let source: SWMMRainGage.Source
            switch l.tokens[4].uppercased() {
            case "TIMESERIES": source = .timeseries(l.tokens[5])
            case "FILE":
                try l.require(8, f + ["FileName", "Station", "Units"])
                source = .file(path: l.tokens[5], station: l.tokens[6], units: l.tokens[7])
            default: throw l.error("Source", "expected TIMESERIES or FILE, found \(l.tokens[4])")
            }
            m.rainGages.append(SWMMRainGage(name: l.tokens[0], format: try l.keyword(1, "Format", SWMMRainGage.Format.self),
                                            intervalHours: try l.clockHours(2, "Interval"), snowCatchFactor: try l.number(3, "SCF"), source: source))
        case "SUBCATCHMENTS":
            try l.require(8, ["Name", "RainGage", "Outlet", "Area", "PctImperv", "Width", "PctSlope", "CurbLen"])
            try define(l, l.tokens[0], kind: "SUBCATCH")
            let area = try l.nonNegative(3, "Area")
            let imperv = try l.nonNegative(4, "PctImperv")
            if imperv > 100 { throw l.error("PctImperv", "must be at most 100, found \(l.tokens[4])") }
            m.subcatchments.append(SWMMSubcatchment(name: l.tokens[0], rainGage: l.tokens[1], outlet: l.tokens[2], area: area,
                                                    percentImpervious: imperv, width: try l.nonNegative(5, "Width"),
                                                    percentSlope: try l.nonNegative(6, "PctSlope"), curbLength: try l.nonNegative(7, "CurbLen"),
                                                    snowPack: l.optionalString(8)))
        case "SUBAREAS":
            try l.require(7, ["Subcatchment", "N-Imperv", "N-Perv", "S-Imperv", "S-Perv", "PctZero", "RouteTo"])
            try define(l, l.tokens[0], kind: "SUBAREA")
            m.subareas.append(SWMMSubarea(subcatchment: l.tokens[0], nImpervious: try l.nonNegative(1, "N-Imperv"),
                                          nPervious: try l.nonNegative(2, "N-Perv"), storageImpervious: try l.nonNegative(3, "S-Imperv"),
                                          storagePervious: try l.nonNegative(4, "S-Perv"), percentZero: try l.nonNegative(5, "PctZero"),
                                          routeTo: try l.keyword(6, "RouteTo", SWMMSubarea.RouteTo.self),
                                          percentRouted: try l.optionalNumber(7, "PctRouted")))
        case "JUNCTIONS":
            try l.require(3, ["Name", "Elevation", "MaxDepth"])
            try define(l, l.tokens[0], kind: "NODE")
            let initial = try l.nonNegative(3, "InitDepth", default: 0)
            try Self.checkInitialDepth(l, maxDepth: try l.nonNegative(2, "MaxDepth"), initialDepth: initial, 3)
            m.junctions.append(SWMMJunction(name: l.tokens[0], elevation: try l.number(1, "Elevation"), maxDepth: try l.nonNegative(2, "MaxDepth"),
                                            initialDepth: initial,
                                            surchargeDepth: try l.nonNegative(4, "SurDepth", default: 0),
                                            pondedArea: try l.nonNegative(5, "Aponded", default: 0)))
        case "OUTFALLS":
            try parseOutfall(l, &m)
        case "STORAGE":
            try parseStorage(l, &m)
        case "DIVIDERS":
            try parseDivider(l, &m)
        case "CONDUITS":
            try l.require(5, ["Name", "FromNode", "ToNode", "Length", "Roughness"])
            try define(l, l.tokens[0], kind: "LINK")
            let length = try l.number(3, "Length")
            if length <= 0 { throw l.error("Length", "a conduit's length must be positive, found \(l.tokens[3])") }
            if try l.number(4, "Roughness") <= 0 {
                throw l.error("Roughness", "conduit \(l.tokens[0]): the roughness must be positive, found \(l.tokens[4]) (SWMM's ERROR 113)")
            }
            m.conduits.append(SWMMConduit(name: l.tokens[0], fromNode: l.tokens[1], toNode: l.tokens[2], length: length,
                                          roughness: try l.nonNegative(4, "Roughness"), inletOffset: try l.number(5, "InOffset", default: 0),
                                          outletOffset: try l.number(6, "OutOffset", default: 0), initialFlow: try l.number(7, "InitFlow", default: 0),
                                          maxFlow: try l.nonNegative(8, "MaxFlow", default: 0)))
        case "PUMPS":
            try l.require(4, ["Name", "FromNode", "ToNode", "PumpCurve"])
            try define(l, l.tokens[0], kind: "LINK")
            m.pumps.append(SWMMPump(name: l.tokens[0], fromNode: l.tokens[1], toNode: l.tokens[2], curve: l.tokens[3],
                                    initiallyOn: try l.flag(4, "Status", default: true), startupDepth: try l.number(5, "Startup", default: 0),
                                    shutoffDepth: try l.number(6, "Shutoff", default: 0)))
        case "ORIFICES":
            try l.require(6, ["Name", "FromNode", "ToNode", "Type", "Offset", "Qcoeff"])
            try define(l, l.tokens[0], kind: "LINK")
            m.orifices.append(SWMMOrifice(name: l.tokens[0], fromNode: l.tokens[1], toNode: l.tokens[2],
                                          kind: try l.keyword(3, "Type", SWMMOrifice.Kind.self), offset: try l.number(4, "Offset"),
                                          dischargeCoefficient: try l.nonNegative(5, "Qcoeff"), gated: try l.flag(6, "Gated"),
                                          closeTime: try l.nonNegative(7, "CloseTime", default: 0)))
        case "WEIRS":
            try l.require(6, ["Name", "FromNode", "ToNode", "Type", "CrestHt", "Qcoeff"])
            try define(l, l.tokens[0], kind: "LINK")
            m.weirs.append(SWMMWeir(name: l.tokens[0], fromNode: l.tokens[1], toNode: l.tokens[2], kind: try l.keyword(3, "Type", SWMMWeir.Kind.self),
                                    crestHeight: try l.number(4, "CrestHt"), dischargeCoefficient: try l.nonNegative(5, "Qcoeff"),
                                    options: Array(l.tokens.dropFirst(6))))
        case "OUTLETS":
            try parseOutlet(l, &m)
        case "XSECTIONS":
            try parseCrossSection(l, &m)
        case "LOSSES":
            try l.require(4, ["Link", "Kentry", "Kexit", "Kavg"])
            m.losses.append(SWMMLoss(link: l.tokens[0], inlet: try l.number(1, "Kentry"), outlet: try l.number(2, "Kexit"),
                                     average: try l.number(3, "Kavg"), flapGate: try l.flag(4, "FlapGate"), seepage: try l.optionalNumber(5, "Seepage")))
        case "INFLOWS":
            try l.require(3, ["Node", "Constituent", "TimeSeries"])
            let isFlow = l.tokens[1].uppercased() == "FLOW"
            let kind = l.optionalString(3) ?? (isFlow ? "FLOW" : "CONCEN")
            m.inflows.append(SWMMInflow(node: l.tokens[0], constituent: l.tokens[1], timeseries: l.tokens[2], kind: kind,
                                        unitsFactor: try l.number(4, "Mfactor", default: 1), scaleFactor: try l.number(5, "Sfactor", default: 1),
                                        baseline: try l.number(6, "Baseline", default: 0), baselinePattern: l.optionalString(7)))
            definedAt["INFLOW/" + l.tokens[0] + "/" + l.tokens[1]] = l.number
        case "DWF":
            try l.require(3, ["Node", "Constituent", "Average"])
            m.dryWeatherFlows.append(SWMMDryWeatherFlow(node: l.tokens[0], constituent: l.tokens[1], average: try l.number(2, "Average"),
                                                        patterns: Array(l.tokens.dropFirst(3))))
            definedAt["DWF/" + l.tokens[0] + "/" + l.tokens[1]] = l.number
        case "PATTERNS":
            try parsePattern(l, &m)
        case "CURVES":
            try parseCurve(l, &m)
        case "TIMESERIES":
            try parseTimeseries(l, &m)
        case "REPORT":
            m.report.append(l.tokens)
        case "COORDINATES", "VERTICES", "POLYGONS":
            try l.require(3, ["Name", "X-Coord", "Y-Coord"])
            let p = SWMMMapPoint(name: l.tokens[0], x: try l.number(1, "X-Coord"), y: try l.number(2, "Y-Coord"))
            if l.section == "COORDINATES" { m.coordinates.append(p) } else if l.section == "VERTICES" { m.vertices.append(p) } else { m.polygons.append(p) }
        default:
            break
        }
    }

    func parseEvaporation(_ l: SWMMLine, _ m: inout SWMMModel) throws {
        var e = m.evaporation ?? SWMMEvaporation(source: .constant(0))
        let values = { (from: Int) throws -> [Double] in try (from..<l.count).map { try l.number($0, "Value") } }
        switch l.tokens[0].uppercased() {
        case "CONSTANT": e.source = .constant(try l.number(1, "Rate"))
        case "MONTHLY":
            let v = try values(1)
            if v.count != 12 { throw l.error("Rate", "MONTHLY needs 12 values, found \(v.count)") }
            e.source = .monthly(v)
        case "TIMESERIES": e.source = .timeseries(try l.string(1, "SeriesName"))
        case "TEMPERATURE": e.source = .temperature
        case "FILE": e.source = .file(try values(1))
        case "DRY_ONLY": e.dryOnly = try l.flag(1, "DryOnly")
        case "RECOVERY": e.recoveryPattern = try l.string(1, "Pattern")
        default: throw l.error("DataSource", "unknown evaporation keyword \(l.tokens[0])")
        }
        m.evaporation = e
    }

    func parseInfiltration(_ l: SWMMLine, _ m: inout SWMMModel) throws {
        try l.require(4, ["Subcatchment", "Param1", "Param2", "Param3"])
        // SWMM 5.2 allows a method keyword as the last token of a line.
        var count = l.count
        var method: SWMMInfiltrationMethod?
        if let last = l.tokens.last, let mm = SWMMInfiltrationMethod(rawValue: last.uppercased()) { method = mm; count -= 1 }
        let use = method ?? m.infiltrationMethod
        let p: SWMMInfiltration.Parameters
        switch use {
        case .horton, .modifiedHorton:
            guard count >= 5 else { throw l.error("MinRate", "Horton infiltration needs MaxRate, MinRate, Decay, DryTime") }
            let maxV = count > 5 ? try Self.infiltrationParameter(l, 5, "MaxInfil", atLeast: 0) : 0
            let f0 = try Self.infiltrationParameter(l, 1, "MaxRate", atLeast: 0), fmin = try Self.infiltrationParameter(l, 2, "MinRate", atLeast: 0)
            if f0 < fmin { throw l.error("MaxRate", "the maximum rate \(l.tokens[1]) is below the minimum rate \(l.tokens[2]) (SWMM's ERROR 235)") }
            p = .horton(maxRate: f0, minRate: fmin, decay: try Self.infiltrationParameter(l, 3, "Decay", atLeast: 0),
                        dryTimeDays: try Self.infiltrationParameter(l, 4, "DryTime", atLeast: 0), maxVolume: maxV)
        case .greenAmpt, .modifiedGreenAmpt:
            let ks = try Self.infiltrationParameter(l, 2, "Ksat", atLeast: 0)
            if ks <= 0 { throw l.error("Ksat", "the saturated conductivity must be positive, found \(l.tokens[2]) (SWMM's ERROR 235)") }
            let imd = try Self.infiltrationParameter(l, 3, "IMD", atLeast: 0)
            // The initial moisture deficit is a fraction of the soil's volume: SWMM refuses more than 1.
            if imd > 1 { throw l.error("IMD", "the initial moisture deficit is a volume fraction (0…1), found \(l.tokens[3]) (SWMM's ERROR 235)") }
            p = .greenAmpt(suction: try Self.infiltrationParameter(l, 1, "Suction", atLeast: 0), conductivity: ks, initialDeficit: imd)
        case .curveNumber:
            let cn = try l.number(1, "CurveNum")
            if cn < 10 || cn > 100 { throw l.error("CurveNum", "a curve number must be in 10…100, found \(l.tokens[1])") }
            let dry = count > 3 ? try l.number(3, "DryTime") : 0
            if dry <= 0 { throw l.error("DryTime", "the drying time must be positive, found \(count > 3 ? l.tokens[3] : "none") (SWMM's ERROR 235)") }
            p = .curveNumber(curveNumber: cn, conductivity: try l.nonNegative(2, "Ksat"), dryTimeDays: dry)
        }
        m.infiltration.append(SWMMInfiltration(subcatchment: l.tokens[0], parameters: p, method: method))
    }

    /// An infiltration parameter SWMM refuses below `atLeast` with its ERROR 235.
    static func infiltrationParameter(_ l: SWMMLine, _ i: Int, _ field: String, atLeast low: Double) throws -> Double {
        let x = try l.number(i, field)
        if x < low { throw l.error(field, "must not be negative, found \(l.tokens[i]) (SWMM's ERROR 235: invalid infiltration parameters)") }
        return x
    }

    /// SWMM's ERROR 138: a node's initial depth above its maximum depth (a maximum of 0 is set
    /// from the connected links later, so it is not checked).
    static func checkInitialDepth(_ l: SWMMLine, maxDepth: Double, initialDepth: Double, _ index: Int) throws {
        if maxDepth > 0, initialDepth > maxDepth {
            throw l.error("InitDepth", "node \(l.tokens[0]): the initial depth \(l.tokens[index]) is greater than the maximum depth (SWMM's ERROR 138)")
        }
    }

    mutating func parseOutfall(_ l: SWMMLine, _ m: inout SWMMModel) throws {
        try l.require(3, ["Name", "Elevation", "Type"])
        try define(l, l.tokens[0], kind: "NODE")
        let b: SWMMOutfall.Boundary
        var next = 3
        switch l.tokens[2].uppercased() {
        case "FREE": b = .free
        case "NORMAL": b = .normal
        case "FIXED": b = .fixed(try l.number(3, "Stage")); next = 4
        case "TIDAL": b = .tidal(try l.string(3, "Curve")); next = 4
        case "TIMESERIES": b = .timeseries(try l.string(3, "Series")); next = 4
        default: throw l.error("Type", "expected FREE, NORMAL, FIXED, TIDAL or TIMESERIES, found \(l.tokens[2])")
        }
        m.outfalls.append(SWMMOutfall(name: l.tokens[0], elevation: try l.number(1, "Elevation"), boundary: b,
                                      gated: try l.flag(next, "Gated"), routeTo: l.optionalString(next + 1)))
    }

    mutating func parseStorage(_ l: SWMMLine, _ m: inout SWMMModel) throws {
        try l.require(6, ["Name", "Elevation", "MaxDepth", "InitDepth", "Shape", "Curve"])
        try define(l, l.tokens[0], kind: "NODE")
        let shape: SWMMStorage.Shape
        var next: Int
        switch l.tokens[4].uppercased() {
        case "FUNCTIONAL":
            try l.require(8, ["Name", "Elevation", "MaxDepth", "InitDepth", "Shape", "Coeff", "Exponent", "Constant"])
            shape = .functional(a: try l.number(5, "Coeff"), b: try l.number(6, "Exponent"), c: try l.number(7, "Constant")); next = 8
        case "TABULAR": shape = .tabular(curve: l.tokens[5]); next = 6
        case "CYLINDRICAL", "CONICAL", "PARABOLIC", "PYRAMIDAL":
            try l.require(8, ["Name", "Elevation", "MaxDepth", "InitDepth", "Shape", "L", "W", "Z"])
            shape = .shaped(l.tokens[4].uppercased(), try l.number(5, "L"), try l.number(6, "W"), try l.number(7, "Z")); next = 8
        default: throw l.error("Shape", "expected FUNCTIONAL, TABULAR, CYLINDRICAL, CONICAL, PARABOLIC or PYRAMIDAL, found \(l.tokens[4])")
        }
        try Self.checkInitialDepth(l, maxDepth: try l.nonNegative(2, "MaxDepth"), initialDepth: try l.nonNegative(3, "InitDepth"), 3)
        let sur = try l.optionalNumber(next, "SurDepth")
        let fevap = try l.optionalNumber(next + 1, "Fevap")
        let seepage = try (min(next + 2, l.count)..<l.count).map { try l.number($0, "Seepage") }
        m.storage.append(SWMMStorage(name: l.tokens[0], elevation: try l.number(1, "Elevation"), maxDepth: try l.nonNegative(2, "MaxDepth"),
                                     initialDepth: try l.nonNegative(3, "InitDepth"), shape: shape, surchargeDepth: sur,
                                     evaporationFactor: fevap, seepage: seepage))
    }

    mutating func parseDivider(_ l: SWMMLine, _ m: inout SWMMModel) throws {
        try l.require(4, ["Name", "Elevation", "DivertedLink", "Type"])
        try define(l, l.tokens[0], kind: "NODE")
        let kind: SWMMDivider.Kind
        var next: Int
        switch l.tokens[3].uppercased() {
        case "CUTOFF": kind = .cutoff(try l.number(4, "Qmin")); next = 5
        case "OVERFLOW": kind = .overflow; next = 4
        case "TABULAR": kind = .tabular(curve: try l.string(4, "Curve")); next = 5
        case "WEIR": kind = .weir(minFlow: try l.number(4, "Qmin"), maxDepth: try l.number(5, "Ht"), coefficient: try l.number(6, "Cd")); next = 7
        default: throw l.error("Type", "expected CUTOFF, OVERFLOW, TABULAR or WEIR, found \(l.tokens[3])")
        }
        m.dividers.append(SWMMDivider(name: l.tokens[0], elevation: try l.number(1, "Elevation"), divertedLink: l.tokens[2], kind: kind,
                                      maxDepth: try l.nonNegative(next, "MaxDepth", default: 0), initialDepth: try l.nonNegative(next + 1, "InitDepth", default: 0),
                                      surchargeDepth: try l.nonNegative(next + 2, "SurDepth", default: 0), pondedArea: try l.nonNegative(next + 3, "Aponded", default: 0)))
    }

    mutating func parseOutlet(_ l: SWMMLine, _ m: inout SWMMModel) throws {
        try l.require(6, ["Name", "FromNode", "ToNode", "Offset", "Type", "Qcoeff/Curve"])
        try define(l, l.tokens[0], kind: "LINK")
        let type = l.tokens[4].uppercased()
        let rating: SWMMOutlet.Rating
        var next: Int
        switch type {
        case "FUNCTIONAL/DEPTH", "FUNCTIONAL/HEAD":
            rating = .functional(coefficient: try l.number(5, "Qcoeff"), exponent: try l.number(6, "Qexpon"), head: type.hasSuffix("HEAD")); next = 7
        case "TABULAR/DEPTH", "TABULAR/HEAD":
            rating = .tabular(curve: l.tokens[5], head: type.hasSuffix("HEAD")); next = 6
        default: throw l.error("Type", "expected FUNCTIONAL/DEPTH, FUNCTIONAL/HEAD, TABULAR/DEPTH or TABULAR/HEAD, found \(l.tokens[4])")
        }
        m.outlets.append(SWMMOutlet(name: l.tokens[0], fromNode: l.tokens[1], toNode: l.tokens[2], offset: try l.number(3, "Offset"),
                                    rating: rating, gated: try l.flag(next, "Gated")))
    }

    /// Barrels are the 7th field for every shape (SWMM's GUI pads IRREGULAR and CUSTOM lines with 0s).
    mutating func parseCrossSection(_ l: SWMMLine, _ m: inout SWMMModel) throws {
        try l.require(3, ["Link", "Shape", "Geom1"])
        try define(l, l.tokens[0], kind: "XSECT")
        let shape = l.tokens[1].uppercased()
        switch shape {
        case "IRREGULAR", "STREET":
            m.crossSections.append(SWMMCrossSection(link: l.tokens[0], shape: shape, geometry: [], curve: l.tokens[2],
                                                    barrels: try l.barrels(6)))
        case "CUSTOM":
            try l.require(4, ["Link", "Shape", "Geom1", "Curve"])
            let depth = try l.number(2, "Geom1")
            if depth <= 0 { throw l.error("Geom1", "the full depth must be positive, found \(l.tokens[2])") }
            m.crossSections.append(SWMMCrossSection(link: l.tokens[0], shape: shape, geometry: [depth], curve: l.tokens[3],
                                                    barrels: try l.barrels(6)))
        default:
            let g = try (2..<min(6, l.count)).map { try l.number($0, "Geom\($0 - 1)") }
            if g[0] <= 0 && shape != "DUMMY" { throw l.error("Geom1", "the full depth must be positive, found \(l.tokens[2])") }
            m.crossSections.append(SWMMCrossSection(link: l.tokens[0], shape: shape, geometry: g + Array(repeating: 0, count: 4 - g.count),
                                                    barrels: try l.barrels(6), culvertCode: l.optionalString(7)))
        }
    }

    func parsePattern(_ l: SWMMLine, _ m: inout SWMMModel) throws {
        try l.require(2, ["Name", "Type"])
        let kinds: Set<String> = ["MONTHLY", "DAILY", "HOURLY", "WEEKEND"]
        if let last = m.patterns.last, last.name == l.tokens[0], !kinds.contains(l.tokens[1].uppercased()) {
            m.patterns[m.patterns.count - 1].factors += try (1..<l.count).map { try l.number($0, "Factor") }
            return
        }
        guard kinds.contains(l.tokens[1].uppercased()) else {
            throw l.error("Type", "expected MONTHLY, DAILY, HOURLY or WEEKEND, found \(l.tokens[1])")
        }
        if m.patterns.contains(where: { $0.name == l.tokens[0] }) { throw l.error("Name", "pattern \(l.tokens[0]) is defined twice") }
        m.patterns.append(SWMMPattern(name: l.tokens[0], kind: l.tokens[1].uppercased(), factors: try (2..<l.count).map { try l.number($0, "Factor") }))
    }

    func parseCurve(_ l: SWMMLine, _ m: inout SWMMModel) throws {
        try l.require(3, ["Name", "X-Value", "Y-Value"])
        var start = 1
        var kind: String?
        // The type is written upper-cased, so it must not read as a number either way ("ınf" → "INF").
        let type = l.tokens[1].uppercased()
        if Double(l.tokens[1]) == nil, Double(type) == nil { kind = type; start = 2 }
        let values = try (start..<l.count).map { try l.number($0, ($0 - start) % 2 == 0 ? "X-Value" : "Y-Value") }
        if values.count % 2 != 0 { throw l.error("Y-Value", "curve points come in (x, y) pairs") }
        let points = stride(from: 0, to: values.count, by: 2).map { SWMMPair(values[$0], values[$0 + 1]) }
        if let last = m.curves.last, last.name == l.tokens[0] {
            m.curves[m.curves.count - 1].points += points
            return
        }
        guard let kind else { throw l.error("Type", "the first line of curve \(l.tokens[0]) must name its type") }
        if m.curves.contains(where: { $0.name == l.tokens[0] }) { throw l.error("Name", "curve \(l.tokens[0]) is defined twice") }
        m.curves.append(SWMMCurve(name: l.tokens[0], kind: kind, points: points))
    }

    func parseTimeseries(_ l: SWMMLine, _ m: inout SWMMModel) throws {
        try l.require(3, ["Name", "Time", "Value"])
        let name = l.tokens[0]
        if l.tokens[1].uppercased() == "FILE" {
            m.timeseries.append(SWMMTimeseries(name: name, file: l.tokens[2]))
            return
        }
        var points: [SWMMTimeseries.Point] = []
        var i = 1
        while i < l.count {
            var date: String?
            // A date has a / or is a long token with a -, but never reads as a time: the writer
            // spells times as decimal hours, which may be long and negative ("-1000000", "1e-10").
            let token = l.tokens[i]
            if token.contains("/") || token.contains("-") && token.count >= 8 && SWMMLine.hours(clock: token) == nil {
                date = l.tokens[i]; i += 1
            }
            guard i + 1 < l.count else { throw l.error("Value", "a time needs a value") }
            points.append(.init(date: date, hours: try l.clockHours(i, "Time"), value: try l.number(i + 1, "Value")))
            i += 2
        }
        if let k = m.timeseries.lastIndex(where: { $0.name == name }) {
            if m.timeseries[k].file != nil { throw l.error("Name", "time series \(name) already reads a FILE") }
            m.timeseries[k].points += points
        } else {
            m.timeseries.append(SWMMTimeseries(name: name, points: points))
        }
    }
}
