import Foundation
import SWMMFormat

/// What of a SWMM 5.2 model a drainage run simulates. The reader keeps every section (so a model
/// writes back whole), but a run must never drop input silently: whatever would change SWMM's
/// answer and this engine does not model is refused here, naming the section, the item and the
/// reason. Display-only sections (TAGS, MAP, SYMBOLS, LABELS, BACKDROP, PROFILES) and `[REPORT]`
/// change no result and are accepted.
///
/// RDII (`[HYDROGRAPHS]`, `[RDII]`) is simulated as SWMM's rdii.c computes it.
///
/// Processes SWMM lets a model switch off (`IGNORE_QUALITY`, `IGNORE_SNOWMELT`,
/// `IGNORE_GROUNDWATER`, `IGNORE_RDII` set to YES) are accepted with those switches, as in SWMM:
/// the run then routes flow without them, which is what SWMM computes with the same switches.
extension SWMMModel {
    /// Throws the first input item a drainage run would otherwise skip (see the type's note).
    /// `DrainageRun.run` calls it before anything else.
    /// - Parameter interfaceFiles: whether the caller may read and write the files `[FILES]`
    ///   names (the command line only); without, `[FILES]` is refused.
    /// - Throws: `SWMMInputError` with the section, the item's name in `reason`, and why.
    public func checkSimulated(interfaceFiles: Bool = false) throws {
        try checkSimulated(interfaceFiles: interfaceFiles, controls: true)
    }

    /// The same check; with `controls` false `[CONTROLS]` is left to `controlRules(network:)`,
    /// which reads and refuses the rules as this check does: `DrainageRun.run` builds them once,
    /// before the run, instead of reading them here and again there.
    func checkSimulated(interfaceFiles: Bool, controls: Bool) throws {
        try checkOptions()
        try checkRawSections(interfaceFiles: interfaceFiles, controls: controls)
        try checkHydrologyItems(interfaceFiles: interfaceFiles)
        try checkHydraulicItems()
    }

    /// `[OPTIONS]` SWMM 5.2 reads. Values are checked as SWMM checks them (an unknown keyword or a
    /// number that does not read is SWMM's ERROR 205/211, never a silent default).
    static let optionRules: [String: OptionRule] = {
        var r: [String: OptionRule] = [:]
        let yesNo: Set<String> = ["YES", "NO"]
        r["FLOW_UNITS"] = .keyword(Set(SWMMFlowUnits.allCases.map(\.rawValue)))
        r["INFILTRATION"] = .keyword(Set(SWMMInfiltrationMethod.allCases.map(\.rawValue)))
        r["FLOW_ROUTING"] = .keyword(["KINWAVE", "DYNWAVE", "STEADY", "KW", "DW", "SF"])
        r["LINK_OFFSETS"] = .keyword(["DEPTH", "ELEVATION"])
        r["FORCE_MAIN_EQUATION"] = .keyword(["H-W", "D-W"])
        r["INERTIAL_DAMPING"] = .keyword(["NONE", "PARTIAL", "FULL"])
        r["NORMAL_FLOW_LIMITED"] = .keyword(["SLOPE", "FROUDE", "BOTH"])
        r["SURCHARGE_METHOD"] = .keyword(["EXTRAN", "SLOT"])
        // SWMM 5.0 files say which release they were written for; SWMM 5.2 reads them as 5.
        r["COMPATIBILITY"] = .keyword(["5"])
        r["ALLOW_PONDING"] = .keyword(yesNo)
        r["SKIP_STEADY_STATE"] = .keyword(["NO"])
        r["IGNORE_ROUTING"] = .keyword(["NO"])
        // IGNORE_RAINFALL YES: every gage dry (SWMMModel.hyetograph), runoff and routing as SWMM's.
        for k in ["IGNORE_SNOWMELT", "IGNORE_GROUNDWATER", "IGNORE_RDII", "IGNORE_QUALITY", "IGNORE_RAINFALL"] { r[k] = .keyword(yesNo) }
        for k in ["START_DATE", "END_DATE", "REPORT_START_DATE"] { r[k] = .date }
        for k in ["START_TIME", "END_TIME", "REPORT_START_TIME", "REPORT_STEP", "WET_STEP", "DRY_STEP"] { r[k] = .clock }
        r["ROUTING_STEP"] = .clockOrSeconds
        r["RULE_STEP"] = .clockOrSeconds
        for k in ["VARIABLE_STEP", "LENGTHENING_STEP", "MINIMUM_STEP", "MIN_SURFAREA", "MIN_SLOPE", "HEAD_TOLERANCE",
                  "SYS_FLOW_TOL", "LAT_FLOW_TOL", "DRY_DAYS", "THREADS", "MAX_TRIALS"] { r[k] = .number }
        // Street sweeping dates (quality only) and the temporary-file folder change no flow.
        for k in ["SWEEP_START", "SWEEP_END", "TEMPDIR"] { r[k] = .any }
        return r
    }()

    enum OptionRule { case keyword(Set<String>), date, clock, clockOrSeconds, number, any }

    func isSwitchedOff(_ option: String) -> Bool { self.option(option)?.uppercased() == "YES" }

    func checkOptions() throws {
        for o in options {
            func refuse(_ why: String) -> SWMMInputError {
                SWMMInputError(line: nil, section: "OPTIONS", field: o.key, reason: "option \(o.key) \(o.value): \(why)")
            }
            guard let rule = Self.optionRules[o.key.uppercased()] else { throw refuse("not a SWMM 5.2 option (SWMM's ERROR 205)") }
            let v = o.value.uppercased()
            switch rule {
            case .keyword(let allowed) where !allowed.contains(v):
                let known: [String: String] = [
                    "SKIP_STEADY_STATE": "skipping steady-state periods is not simulated",
                    "IGNORE_ROUTING": "runs without flow routing are not simulated",
                ]
                throw refuse(known[o.key.uppercased()] ?? "expected one of \(allowed.sorted().joined(separator: ", ")) (SWMM's ERROR 205)")
            case .date where SWMMModel.epochSeconds(date: o.value, time: nil) == nil:
                throw refuse("not a date MM/DD/YYYY (SWMM's ERROR 213)")
            case .clock where SWMMLine.hours(clock: o.value) == nil:
                throw refuse("not a time hh:mm:ss (SWMM's ERROR 213)")
            case .clockOrSeconds where SWMMLine.hours(clock: o.value) == nil && Double(o.value) == nil:
                throw refuse("not a time hh:mm:ss or seconds (SWMM's ERROR 213)")
            case .number where Double(o.value) == nil:
                throw refuse("not a number (SWMM's ERROR 211)")
            default: break
            }
        }
        if let start = startEpochSeconds,
           let report = Self.epochSeconds(date: option("REPORT_START_DATE") ?? option("START_DATE"),
                                          time: option("REPORT_START_TIME") ?? option("START_TIME")), report > start {
            throw SWMMInputError(line: nil, section: "OPTIONS", field: "REPORT_START_DATE",
                                 reason: "a reporting period starting after the simulation start is not simulated: statistics here cover the whole run")
        }
    }

    /// The raw sections' items that would change a run, each refused with the first line's item
    /// (`[CONTROLS]` only when `controls`).
    func checkRawSections(interfaceFiles: Bool, controls: Bool) throws {
        for s in rawSections {
            guard let first = s.lines.first, let item = first.first else { continue }
            func refuse(_ field: String, _ why: String) -> SWMMInputError {
                SWMMInputError(line: nil, section: s.name, field: field, reason: why)
            }
            switch s.name {
            case "TEMPERATURE" where !isSwitchedOff("IGNORE_SNOWMELT") || evaporation?.source == .temperature:
                throw refuse("DataSource", "air temperature \(item) (snowfall, snowmelt, temperature-based evaporation) is not simulated; set IGNORE_SNOWMELT YES to treat all precipitation as rain")
            case "ADJUSTMENTS":
                // Simulated (RunoffSimulation.adjustments); what SWMM refuses is refused there.
                _ = try monthlyAdjustments()
            case "LID_USAGE", "LID_CONTROLS":
                // Simulated (`LIDGroupState`); read here so bad or unsupported input is refused
                // before the run, naming the control or subcatchment.
                _ = try lidUsages()
                _ = try lidControls()
                // Over an aquifer the units' seepage is capped by its upper zone's room and feeds
                // it (RunoffSimulation, as SWMM's lid.c).
            case "GROUNDWATER", "GWF":
                // Simulated (SWMMModel+Groundwater); what SWMM rejects or this engine does not
                // simulate yet is refused there, naming the item.
                _ = try groundwaterSetup()
            case "RDII", "HYDROGRAPHS":
                // Simulated (RDIIGeneration, SWMM's rdii.c); read and checked as SWMM does, naming
                // the node or unit hydrograph.
                try checkRDII()
            case "INLET_USAGE":
                throw refuse("Conduit", "street \(item) has an inlet: street inlets are not simulated")
            case "CONTROLS":
                if controls { try checkControls() }
            case "POLLUTANTS" where !isSwitchedOff("IGNORE_QUALITY"):
                try checkQuality()
            case "TREATMENT" where !isSwitchedOff("IGNORE_QUALITY"):
                // Simulated (NodeTreatment, SWMM's treatmnt.c); read here so bad input is refused
                // before the run, naming the node and pollutant.
                if !simulatesQuality {
                    throw refuse("Pollutant", "node \(item) treats \(first.count > 1 ? first[1] : "?"), which is not a pollutant ([POLLUTANTS] is empty; SWMM's ERROR 209)")
                }
                _ = try treatments(network: HydraulicNetwork(nodes: [], links: []))
            case "FILES" where interfaceFiles:
                _ = try hotStartFiles()
            case "FILES":
                let verb = item.uppercased(), kind = first.count > 1 ? first[1].uppercased() : "?"
                throw refuse("Action", "\(verb) \(kind): files a model names are read and written only for a .inp given to "
                             + "`citytwin simulate drainage`, never for a model that reaches the engine another way (over HTTP, from layers)")
            case "EVENTS":
                throw refuse("Start", "event period starting \(item): restricting routing to event periods is not simulated")
            default:
                continue
            }
        }
    }

    func checkHydrologyItems(interfaceFiles: Bool = false) throws {
        let adjustments = try monthlyAdjustments()
        if let a = adjustments, a.rainfall.contains(where: { $0 != 1 }), !isSwitchedOff("IGNORE_RAINFALL") {
            // SWMM scales each rain value as it reads it (`rainfallReadFactors`): ported for time
            // series gages; a rain file's records and RDII's own pass over the rain are not.
            if let g = rainGages.first(where: { if case .file = $0.source { return true } else { return false } }) {
                throw SWMMInputError(line: nil, section: "ADJUSTMENTS", field: "RAINFALL",
                                     reason: "rain gage \(g.name) reads a file: monthly rainfall adjustments of rain files are not simulated (only of TIMESERIES gages)")
            }
            if !isSwitchedOff("IGNORE_RDII"), let r = rawSections.first(where: { $0.name == "RDII" })?.lines.first, let node = r.first {
                throw SWMMInputError(line: nil, section: "ADJUSTMENTS", field: "RAINFALL",
                                     reason: "node \(node) receives RDII: monthly rainfall adjustments of the rain driving RDII are not simulated; set IGNORE_RDII YES to route without it")
            }
        }
        // A FILE gage reads a rain file beside the .inp (SWMMModel.fileHyetograph), only with the
        // command line's leave; SWMM reads no rain file with IGNORE_RAINFALL YES.
        if !interfaceFiles, !isSwitchedOff("IGNORE_RAINFALL"),
           let g = rainGages.first(where: { if case .file = $0.source { return true } else { return false } }),
           case let .file(path, _, _) = g.source {
            throw SWMMInputError(line: nil, section: "RAINGAGES", field: "Source",
                                 reason: "rain gage \(g.name) reads file \(path): files a model names are read only for a .inp given to "
                                 + "`citytwin simulate drainage`, never for a model that reaches the engine another way (over HTTP, from layers)")
        }
        // SWMM's Green–Ampt infiltration into a LID unit's soil (units with a soil layer, and
        // vegetative swales on a Green–Ampt subcatchment) takes the subcatchment's conductivity
        // factor and the RECOVERY factor (lidproc.c); the units' soil here does not.
        if rawSections.contains(where: { $0.name == "LID_USAGE" && !$0.lines.isEmpty }) {
            let recovery = recoveryFactorsAreNotOne
            let usages = try lidUsages()
            for (j, sub) in subcatchments.enumerated()
            where (usages[sub.name] ?? []).contains(where: { $0.control.soil.thickness > 0 || $0.control.kind == .vegetativeSwale }) {
                let conductivity = adjustments.map { $0.conductivity.contains { $0 != 1 } || ($0.infiltration[j]?.contains { $0 != 1 } ?? false) } ?? false
                if conductivity || recovery {
                    throw SWMMInputError(line: nil, section: "LID_USAGE", field: "Subcatchment",
                                         reason: "subcatchment \(sub.name) has LID units with a soil layer or swales: their Green–Ampt infiltration under "
                                         + (conductivity ? "[ADJUSTMENTS] CONDUCTIVITY or INFIL" : "an [EVAPORATION] RECOVERY pattern") + " is not simulated")
                }
            }
        }
        if let e = evaporation {
            let source: String?
            switch e.source {
            case .constant, .monthly, .timeseries: source = nil
            case .temperature: source = "TEMPERATURE"
            case .file: source = "FILE"
            }
            if let source {
                throw SWMMInputError(line: nil, section: "EVAPORATION", field: "DataSource",
                                     reason: "evaporation from \(source) is not simulated (only CONSTANT, MONTHLY and TIMESERIES)")
            }
            if case .timeseries(let name) = e.source, timeseries(named: name) == nil {
                throw SWMMInputError(line: nil, section: "EVAPORATION", field: "TIMESERIES",
                                     reason: "no time series \(name) (SWMM's ERROR 209)")
            }
            // SWMM 5.2.4's setEvap sets a TIMESERIES rate only when the series reaches its next entry
            // but adds the month's adjustment at every climate update, so the adjustment piles up with
            // the number of runoff (or routing) steps between entries: an answer not reproduced here.
            if case .timeseries = e.source, try monthlyAdjustments()?.evaporation.contains(where: { $0 != 0 }) == true {
                throw SWMMInputError(line: nil, section: "ADJUSTMENTS", field: "EVAPORATION",
                                     reason: "monthly evaporation adjustments with TIMESERIES evaporation are not simulated: SWMM 5.2.4 adds the "
                                     + "month's adjustment again at every climate update until the series' next entry (climate.c setEvap)")
            }
            // A RECOVERY pattern scales infiltration recovery (RunoffSimulation.recoveryFactors).
            if let p = e.recoveryPattern, !Self.isBlank(p), pattern(named: p) == nil {
                throw SWMMInputError(line: nil, section: "EVAPORATION", field: "RECOVERY",
                                     reason: "no time pattern \(p) (SWMM's ERROR 209)")
            }
            // Under the curve number the pattern acts as SWMM's, but the case's evaporation misses
            // SWMM's by 2.3 % (SWMMHydrologyParityTests.recoveryUnderCurveNumberRefused): refused.
            if recoveryFactorsAreNotOne, let i = infiltration.first(where: { if case .curveNumber = $0.parameters { return true } else { return false } }) {
                throw SWMMInputError(line: nil, section: "EVAPORATION", field: "RECOVERY",
                                     reason: "subcatchment \(i.subcatchment) infiltrates by CURVE_NUMBER: a RECOVERY pattern under the curve-number method "
                                     + "is not simulated to SWMM's bounds yet (Horton, modified Horton and Green–Ampt are)")
            }
        }
        if !isSwitchedOff("IGNORE_SNOWMELT"), let s = subcatchments.first(where: { ($0.snowPack ?? "").isEmpty == false }) {
            throw SWMMInputError(line: nil, section: "SUBCATCHMENTS", field: "SnowPack",
                                 reason: "subcatchment \(s.name) has snow pack \(s.snowPack ?? ""): snowmelt is not simulated; set IGNORE_SNOWMELT YES to treat it as rain")
        }
        if !isSwitchedOff("IGNORE_QUALITY"), !simulatesQuality {
            if let i = inflows.first(where: { $0.constituent.uppercased() != "FLOW" }) {
                throw SWMMInputError(line: nil, section: "INFLOWS", field: "Constituent",
                                     reason: "node \(i.node) has an inflow of \(i.constituent), which is not a pollutant ([POLLUTANTS] is empty; SWMM's ERROR 209)")
            }
            if let d = dryWeatherFlows.first(where: { $0.constituent.uppercased() != "FLOW" }) {
                throw SWMMInputError(line: nil, section: "DWF", field: "Constituent",
                                     reason: "node \(d.node) has a dry-weather inflow of \(d.constituent), which is not a pollutant ([POLLUTANTS] is empty; SWMM's ERROR 209)")
            }
        }
        // A FLOW baseline with a time pattern is simulated (`NodeInflow.patternedBaseline`); a
        // pattern that does not exist is SWMM's ERROR 209.
        if let i = inflows.first(where: { $0.constituent.uppercased() == "FLOW" && !Self.isBlank($0.baselinePattern)
                                          && pattern(named: $0.baselinePattern ?? "") == nil }) {
            throw SWMMInputError(line: nil, section: "INFLOWS", field: "Pattern",
                                 reason: "node \(i.node): no time pattern \(i.baselinePattern ?? "") (SWMM's ERROR 209)")
        }
    }

    /// Whether an `[EVAPORATION] RECOVERY` pattern is MONTHLY with a factor other than 1 (SWMM
    /// ignores other pattern types).
    var recoveryFactorsAreNotOne: Bool {
        guard let name = evaporation?.recoveryPattern, let p = pattern(named: name), p.kind.uppercased() == "MONTHLY" else { return false }
        return p.factors.contains { $0 != 1 }
    }

    func checkHydraulicItems() throws {
        if let o = outfalls.first(where: { !Self.isBlank($0.routeTo) }) {
            throw SWMMInputError(line: nil, section: "OUTFALLS", field: "RouteTo",
                                 reason: "outfall \(o.name) discharges onto subcatchment \(o.routeTo ?? ""): outfall runon is not simulated")
        }
        let evaporates: Bool = {
            switch evaporation?.source {
            case .constant(let r)?: if r > 0 { return true }
            case .monthly(let m)?: if m.contains(where: { $0 > 0 }) { return true }
            case .timeseries?: return true
            default: break
            }
            return (try? monthlyAdjustments())?.evaporation.contains { $0 > 0 } ?? false
        }()
        // Storage shapes, surcharge, evaporation and seepage are simulated; their values are
        // checked where the network is built (`analyticalShape`, `storageSeepage`).
        for s in storage {
            if let sur = s.surchargeDepth, sur < 0 {
                throw SWMMInputError(line: nil, section: "STORAGE", field: "SurDepth",
                                     reason: "storage \(s.name): surcharge depth \(sur) must be ≥ 0")
            }
            let seeps = try storageSeepage(s, units: units) != nil
            if simulatesQuality, seeps || ((s.evaporationFactor ?? 0) > 0 && evaporates) {
                throw SWMMInputError(line: nil, section: "STORAGE", field: seeps ? "Ksat" : "Fevap",
                                     reason: "storage \(s.name) \(seeps ? "seeps" : "evaporates"): pollutants in a storage unit that loses water this way "
                                     + "are not routed (their mass lost or concentrated); set IGNORE_QUALITY YES to route flow only")
            }
            // SWMM scales storage seepage by [ADJUSTMENTS] CONDUCTIVITY (exfil.c) and Green–Ampt
            // seepage's recovery by the RECOVERY pattern; the storage losses here do not.
            if try storageSeepage(s, units: units) != nil {
                if try monthlyAdjustments()?.conductivity.contains(where: { $0 != 1 }) == true {
                    throw SWMMInputError(line: nil, section: "STORAGE", field: "Ksat",
                                         reason: "storage \(s.name) seeps: seepage under monthly [ADJUSTMENTS] CONDUCTIVITY is not simulated")
                }
                if s.seepage.count >= 3, recoveryFactorsAreNotOne {
                    throw SWMMInputError(line: nil, section: "STORAGE", field: "IMD",
                                         reason: "storage \(s.name) seeps by Green–Ampt: its recovery under an [EVAPORATION] RECOVERY pattern is not simulated")
                }
            }
        }
        // Conduits seep through their wetted width at the [LOSSES] rate (SWMM's conduit_getLossRate);
        // SWMM scales that rate by the month's [ADJUSTMENTS] CONDUCTIVITY, which is not simulated here.
        if let l = losses.first(where: { ($0.seepage ?? 0) < 0 || !($0.seepage ?? 0).isFinite }) {
            throw SWMMInputError(line: nil, section: "LOSSES", field: "Seepage",
                                 reason: "conduit \(l.link): seepage rate \(l.seepage ?? 0) must be a number ≥ 0")
        }
        if let l = losses.first(where: { ($0.seepage ?? 0) > 0 }),
           try monthlyAdjustments()?.conductivity.contains(where: { $0 != 1 }) == true {
            throw SWMMInputError(line: nil, section: "LOSSES", field: "Seepage",
                                 reason: "conduit \(l.link) seeps: conduit seepage under monthly [ADJUSTMENTS] CONDUCTIVITY is not simulated")
        }
        for x in crossSections { _ = try culvertCode(x) }
        for w in weirs where w.options.count > 6 && !Self.isBlank(w.options[6]) && curve(named: w.options[6]) == nil {
            throw SWMMInputError(line: nil, section: "WEIRS", field: "CoeffCurve",
                                 reason: "weir \(w.name): coefficient curve \(w.options[6]) is not defined (SWMM's ERROR 209)")
        }
    }

    /// The culvert code of a cross-section (0 for none).
    /// - Throws: `SWMMInputError` for a code that is not a whole number from 0 to 57.
    func culvertCode(_ x: SWMMCrossSection) throws -> Int {
        guard let code = x.culvertCode, !Self.isBlank(code) else { return 0 }
        guard let n = Int(code), (0...CulvertInlet.parameters.count).contains(n) else {
            throw SWMMInputError(line: nil, section: "XSECTIONS", field: "Culvert",
                                 reason: "link \(x.link): culvert code \(code) is not one of the FHWA codes 1–57 (0 for none)")
        }
        return n
    }

    static func isBlank(_ s: String?) -> Bool {
        guard let s else { return true }
        return s.isEmpty || s == "*" || s == "\"\""
    }
}
