import Foundation

/// An EPA SWMM 5 model (`.inp`) as plain values, in the file's own units (see `units` for the
/// factors to SI). Read with `SWMMModel(parsing:baseDirectory:)` or `SWMMModel(contentsOf:)`, written
/// back with `inpText()`; reading what was written gives an equal model.
///
/// Sections modelled here: TITLE, OPTIONS, EVAPORATION, RAINGAGES, SUBCATCHMENTS, SUBAREAS,
/// INFILTRATION, JUNCTIONS, OUTFALLS, STORAGE, DIVIDERS, CONDUITS, PUMPS, ORIFICES, WEIRS, OUTLETS,
/// XSECTIONS, LOSSES, INFLOWS, DWF, PATTERNS, CURVES, TIMESERIES, REPORT, COORDINATES, VERTICES,
/// POLYGONS. The other SWMM 5.2 sections are recognised and kept as raw token lines (`rawSections`).
public struct SWMMModel: Sendable, Equatable {
    public var title: [String] = []
    public var options: [SWMMOption] = []
    public var evaporation: SWMMEvaporation?
    public var rainGages: [SWMMRainGage] = []
    public var subcatchments: [SWMMSubcatchment] = []
    public var subareas: [SWMMSubarea] = []
    public var infiltration: [SWMMInfiltration] = []
    public var junctions: [SWMMJunction] = []
    public var outfalls: [SWMMOutfall] = []
    public var storage: [SWMMStorage] = []
    public var dividers: [SWMMDivider] = []
    public var conduits: [SWMMConduit] = []
    public var pumps: [SWMMPump] = []
    public var orifices: [SWMMOrifice] = []
    public var weirs: [SWMMWeir] = []
    public var outlets: [SWMMOutlet] = []
    public var crossSections: [SWMMCrossSection] = []
    public var losses: [SWMMLoss] = []
    public var inflows: [SWMMInflow] = []
    public var dryWeatherFlows: [SWMMDryWeatherFlow] = []
    public var patterns: [SWMMPattern] = []
    public var curves: [SWMMCurve] = []
    public var timeseries: [SWMMTimeseries] = []
    /// `[REPORT]` lines as tokens.
    public var report: [[String]] = []
    public var coordinates: [SWMMMapPoint] = []
    public var vertices: [SWMMMapPoint] = []
    public var polygons: [SWMMMapPoint] = []
    /// Recognised sections kept as written (in file order).
    public var rawSections: [SWMMRawSection] = []

    public init() {}

    // MARK: Options

    /// The `[OPTIONS]` value of `key` (case-insensitive), as written.
    public func option(_ key: String) -> String? {
        let key = key.uppercased()
        return options.last { SWMMModel.uppercases($0.key, to: key) }?.value
    }

    /// Whether `name.uppercased() == upper`, without building the uppercased string when `name`
    /// is ASCII (where uppercasing maps a–z to A–Z and nothing else): a run looks options up often.
    private static func uppercases(_ name: String, to upper: String) -> Bool {
        guard name.utf8.allSatisfy({ $0 < 0x80 }) else { return name.uppercased() == upper }
        guard name.utf8.count == upper.utf8.count else { return false }
        return zip(name.utf8, upper.utf8).allSatisfy { a, b in (a >= 0x61 && a <= 0x7A ? a - 0x20 : a) == b }
    }

    /// Flow units (CFS when not given, SWMM's default).
    public var flowUnits: SWMMFlowUnits { option("FLOW_UNITS").flatMap { SWMMFlowUnits(rawValue: $0.uppercased()) } ?? .cfs }
    /// Factors from the file's units to SI.
    public var units: SWMMUnits { flowUnits.units }

    /// The default infiltration method (HORTON when not given).
    public var infiltrationMethod: SWMMInfiltrationMethod {
        option("INFILTRATION").flatMap { SWMMInfiltrationMethod(rawValue: $0.uppercased()) } ?? .horton
    }

    /// Flow routing method keyword normalised: `KINWAVE`, `DYNWAVE` or `STEADY` (DW/KW/SF accepted).
    public var flowRouting: String {
        switch (option("FLOW_ROUTING") ?? "KINWAVE").uppercased() {
        case "DYNWAVE", "DW": return "DYNWAVE"
        case "STEADY", "SF": return "STEADY"
        default: return "KINWAVE"
        }
    }

    /// True when flooded nodes with a ponded area store their overflow (`ALLOW_PONDING YES`).
    public var allowPonding: Bool { option("ALLOW_PONDING")?.uppercased() == "YES" }

    /// `LINK_OFFSETS ELEVATION` makes link offsets elevations rather than depths above the invert.
    public var offsetsAreElevations: Bool { option("LINK_OFFSETS")?.uppercased() == "ELEVATION" }

    /// A step option (`WET_STEP`, `DRY_STEP`, `ROUTING_STEP`, `REPORT_STEP`) in seconds: `h:mm:ss` or
    /// seconds (ROUTING_STEP) as SWMM reads them.
    public func stepSeconds(_ key: String, default value: Double) -> Double {
        guard let text = option(key) else { return value }
        if text.contains(":") { return (SWMMLine.hours(clock: text) ?? value / 3600) * 3600 }
        if let s = Double(text), s > 0 { return s }
        return value
    }

    /// Seconds from START_DATE/START_TIME to END_DATE/END_TIME.
    public var durationSeconds: Double {
        guard let start = Self.epochSeconds(date: option("START_DATE"), time: option("START_TIME")),
              let end = Self.epochSeconds(date: option("END_DATE") ?? option("START_DATE"), time: option("END_TIME"))
        else { return 0 }
        return max(0, end - start)
    }

    /// The simulation start as seconds since 1970 (UTC-agnostic; used only for differences).
    public var startEpochSeconds: Double? { Self.epochSeconds(date: option("START_DATE"), time: option("START_TIME")) }

    /// Seconds since 1970 of a SWMM `MM/DD/YYYY` date and `hh:mm:ss` time.
    public static func epochSeconds(date: String?, time: String?) -> Double? {
        guard let date else { return nil }
        let p = date.split(separator: "/").compactMap { Int($0) }
        guard p.count == 3, (1...12).contains(p[0]), (1...31).contains(p[1]) else { return nil }
        var comps = DateComponents()
        comps.year = p[2]; comps.month = p[0]; comps.day = p[1]
        var cal = Calendar(identifier: .gregorian)
        cal.timeZone = TimeZone(identifier: "UTC") ?? .current
        guard let d = cal.date(from: comps) else { return nil }
        let h = time.flatMap { SWMMLine.hours(clock: $0) } ?? 0
        return d.timeIntervalSince1970 + h * 3600
    }

    // MARK: Lookup

    /// Names of every node (junctions, outfalls, storage units, dividers).
    public var nodeNames: [String] {
        junctions.map(\.name) + outfalls.map(\.name) + storage.map(\.name) + dividers.map(\.name)
    }

    /// Every link as (name, from, to, section): conduits, pumps, orifices, weirs, outlets.
    public var linkEnds: [(name: String, from: String, to: String, section: String)] {
        conduits.map { ($0.name, $0.fromNode, $0.toNode, "CONDUITS") } + pumps.map { ($0.name, $0.fromNode, $0.toNode, "PUMPS") }
            + orifices.map { ($0.name, $0.fromNode, $0.toNode, "ORIFICES") } + weirs.map { ($0.name, $0.fromNode, $0.toNode, "WEIRS") }
            + outlets.map { ($0.name, $0.fromNode, $0.toNode, "OUTLETS") }
    }

    public func timeseries(named name: String) -> SWMMTimeseries? { timeseries.first { $0.name == name } }
    public func curve(named name: String) -> SWMMCurve? { curves.first { $0.name == name } }
    public func pattern(named name: String) -> SWMMPattern? { patterns.first { $0.name == name } }
}
