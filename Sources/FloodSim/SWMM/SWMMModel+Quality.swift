import Foundation
import SWMMFormat

/// SWMM 5.2's water quality input ([POLLUTANTS], [LANDUSES], [COVERAGES], [LOADINGS], [BUILDUP],
/// [WASHOFF], pollutant lines of [INFLOWS] and [DWF]) read for a run; what SWMM rejects and what
/// this engine does not simulate is refused naming the section, item and reason.
extension SWMMModel {
    /// Whether a run simulates water quality: pollutants given and `IGNORE_QUALITY` not set.
    var simulatesQuality: Bool {
        !isSwitchedOff("IGNORE_QUALITY") && !(rawSections.first { $0.name == "POLLUTANTS" }?.lines.isEmpty ?? true)
    }

    private func qualityLines(_ section: String) -> [[String]] {
        rawSections.first { $0.name == section }?.lines ?? []
    }

    private static func qualityError(_ section: String, _ field: String, _ why: String) -> SWMMInputError {
        SWMMInputError(line: nil, section: section, field: field, reason: why)
    }

    /// The pollutants in input order.
    /// - Throws: `SWMMInputError` for what SWMM's landuse_readPollutParams rejects and for snow-only buildup.
    public func pollutants() throws -> [Pollutant] {
        let lines = qualityLines("POLLUTANTS")
        let names = lines.compactMap(\.first)
        var list: [Pollutant] = []
        for l in lines {
            let name = l[0]
            func fail(_ field: String, _ why: String) -> SWMMInputError { Self.qualityError("POLLUTANTS", field, "pollutant \(name): \(why)") }
            guard l.count >= 6 else { throw fail("Kdecay", "needs at least name, units, Crain, Cgw, Crdii and Kdecay (SWMM's ERROR 203)") }
            guard let units = Pollutant.Units(rawValue: l[1].uppercased()) else { throw fail("Units", "units \(l[1]) are not MG/L, UG/L or #/L") }
            func number(_ k: Int, _ field: String, negative: Bool = false) throws -> Double {
                guard k < l.count else { return 0 }
                guard let x = Double(l[k]), x.isFinite, negative || x >= 0 else { throw fail(field, "\(l[k]) is not a number ≥ 0 (SWMM's ERROR 211)") }
                return x
            }
            var p = Pollutant(name: name, units: units, rainConcentration: try number(2, "Crain"), groundwaterConcentration: try number(3, "Cgw"),
                              decay: try number(5, "Kdecay", negative: true) / 86_400)
            p.rdiiConcentration = try number(4, "Crdii")
            if l.count >= 7 {
                switch l[6].uppercased() {
                case "NO": break
                case "YES": throw fail("SnowOnly", "snow-only buildup is not simulated (snow is not)")
                default: throw fail("SnowOnly", "\(l[6]) is not YES or NO (SWMM's ERROR 205)")
                }
            }
            if l.count >= 9, l[7] != "*" {
                guard let k = names.firstIndex(of: l[7]) else { throw fail("CoPollutant", "co-pollutant \(l[7]) is not a pollutant (SWMM's ERROR 209)") }
                p.coPollutant = k
                p.coFraction = try number(8, "CoFraction")
            }
            p.dryWeatherConcentration = try number(9, "Cdwf")
            p.initialConcentration = try number(10, "Cinit")
            list.append(p)
        }
        return list
    }

    /// Land uses, coverages and loadings of the model's subcatchments for the runoff (SI; buildup in
    /// the model's report mass, lb or kg), or nil when quality is not simulated.
    /// - Throws: `SWMMInputError` naming the land use, subcatchment or pollutant.
    public func surfaceQualitySetup() throws -> SurfaceQualitySetup? {
        guard simulatesQuality else { return nil }
        let pollutants = try pollutants()
        let pIndex = Dictionary(pollutants.enumerated().map { ($1.name, $0) }, uniquingKeysWith: { a, _ in a })
        let u = units
        let np = pollutants.count
        var landUses: [LandUse] = []
        for l in qualityLines("LANDUSES") {
            var lu = LandUse(name: l[0], buildup: Array(repeating: Buildup(), count: np), washoff: Array(repeating: Washoff(), count: np))
            if l.count > 1 {
                let x = l.dropFirst().prefix(3).map { Double($0) }
                guard x.count == 3, x.allSatisfy({ $0 != nil }), let avail = x[1], (0...1).contains(avail) else {
                    throw Self.qualityError("LANDUSES", "Sweeping", "land use \(l[0]): sweep interval, availability (0–1) and days since swept must be numbers (SWMM's ERROR 211)")
                }
                lu.sweepInterval = x[0]!; lu.sweepAvailability = avail; lu.daysSinceSwept = x[2]!
            }
            landUses.append(lu)
        }
        let luIndex = Dictionary(landUses.enumerated().map { ($1.name, $0) }, uniquingKeysWith: { a, _ in a })
        func pollutant(_ name: String, _ section: String, _ item: String) throws -> Int {
            guard let p = pIndex[name] else { throw Self.qualityError(section, "Pollutant", "\(item): \(name) is not a pollutant (SWMM's ERROR 209)") }
            return p
        }
        func landUse(_ name: String, _ section: String) throws -> Int {
            guard let i = luIndex[name] else { throw Self.qualityError(section, "LandUse", "\(name) is not a land use (SWMM's ERROR 209)") }
            return i
        }
        let massPerKg = u.flow.isUS ? 1 / 0.45359237 : 1
        for l in qualityLines("BUILDUP") where l.count >= 3 {
            let i = try landUse(l[0], "BUILDUP"), p = try pollutant(l[1], "BUILDUP", "land use \(l[0])")
            landUses[i].buildup[p] = try buildup(l, landUse: l[0])
        }
        for l in qualityLines("WASHOFF") where l.count >= 3 {
            let i = try landUse(l[0], "WASHOFF"), p = try pollutant(l[1], "WASHOFF", "land use \(l[0])")
            landUses[i].washoff[p] = try washoff(l)
        }
        let subIndex = Dictionary(subcatchments.enumerated().map { ($1.name, $0) }, uniquingKeysWith: { a, _ in a })
        var coverage = Array(repeating: Array(repeating: 0.0, count: landUses.count), count: subcatchments.count)
        for l in qualityLines("COVERAGES") {
            guard let j = subIndex[l[0]] else { throw Self.qualityError("COVERAGES", "Subcatchment", "\(l[0]) is not a subcatchment (SWMM's ERROR 209)") }
            var k = 1
            while k < l.count {
                let i = try landUse(l[k], "COVERAGES")
                guard k + 1 < l.count, let pct = Double(l[k + 1]), pct >= 0 else {
                    throw Self.qualityError("COVERAGES", "Percent", "subcatchment \(l[0]): land use \(l[k]) needs a percent ≥ 0 (SWMM's ERROR 211)")
                }
                coverage[j][i] = pct / 100
                k += 2
            }
        }
        for (j, row) in coverage.enumerated() where row.reduce(0, +) > 1.0001 {
            throw Self.qualityError("COVERAGES", "Percent", "subcatchment \(subcatchments[j].name): land uses cover \(row.reduce(0, +) * 100) % of it, more than 100 %")
        }
        var loading = Array(repeating: Array(repeating: 0.0, count: np), count: subcatchments.count)
        for l in qualityLines("LOADINGS") {
            guard let j = subIndex[l[0]] else { throw Self.qualityError("LOADINGS", "Subcatchment", "\(l[0]) is not a subcatchment (SWMM's ERROR 209)") }
            var k = 1
            while k < l.count {
                let p = try pollutant(l[k], "LOADINGS", "subcatchment \(l[0])")
                guard k + 1 < l.count, let x = Double(l[k + 1]), x >= 0 else {
                    throw Self.qualityError("LOADINGS", "Buildup", "subcatchment \(l[0]): pollutant \(l[k]) needs an initial buildup ≥ 0 (SWMM's ERROR 211)")
                }
                loading[j][p] = x
                k += 2
            }
        }
        func dayOfYear(_ key: String, _ fallback: Int) throws -> Int {
            guard let v = option(key) else { return fallback }
            let parts = v.split(separator: "/").compactMap { Int($0) }
            guard parts.count == 2, (1...12).contains(parts[0]), (1...31).contains(parts[1]) else {
                throw Self.qualityError("OPTIONS", key, "option \(key) \(v): not a month/day (SWMM's ERROR 213)")
            }
            return SurfaceQualitySetup.dayOfYear(month: parts[0], day: parts[1])
        }
        return SurfaceQualitySetup(pollutants: pollutants, landUses: landUses, coverage: coverage, curbLength: subcatchments.map(\.curbLength),
                                   initialLoading: loading, landAreaUnit: u.landArea, rainDepthUnit: u.rainDepth, flowUnit: u.flowRate,
                                   reportMassPerKilogram: massPerKg, initialDryTime: (Double(option("DRY_DAYS") ?? "") ?? 0) * 86_400,
                                   start: routingOptions().start, sweepStart: try dayOfYear("SWEEP_START", 1), sweepEnd: try dayOfYear("SWEEP_END", 365))
    }

    private func buildup(_ l: [String], landUse: String) throws -> Buildup {
        func fail(_ field: String, _ why: String) -> SWMMInputError {
            Self.qualityError("BUILDUP", field, "land use \(landUse), pollutant \(l[1]): \(why)")
        }
        let kind = l[2].uppercased()
        if kind == "NONE" { return Buildup() }
        guard l.count >= 7 else { throw fail("Function", "\(kind) needs three coefficients and AREA or CURB (SWMM's ERROR 203)") }
        let normalizer: Buildup.Normalizer
        switch l[6].uppercased() {
        case "AREA": normalizer = .area
        case "CURB": normalizer = .curb
        default: throw fail("PerUnit", "\(l[6]) is not AREA or CURB (SWMM's ERROR 205)")
        }
        func c(_ k: Int) throws -> Double {
            guard let x = Double(l[k]), x >= 0 else { throw fail("Coeff\(k - 2)", "\(l[k]) is not a number ≥ 0 (SWMM's ERROR 211)") }
            return x
        }
        switch kind {
        case "POW":
            let c2 = try c(5)
            if c2 > 0 && (c2 < 0.01 || c2 > 10) { throw fail("Coeff3", "the exponent \(l[5]) is outside 0.01–10 (SWMM's ERROR 205)") }
            return Buildup(function: .power(max: try c(3), rate: try c(4), exponent: c2), normalizer: normalizer)
        case "EXP": return Buildup(function: .exponential(max: try c(3), rate: try c(4)), normalizer: normalizer)
        case "SAT": return Buildup(function: .saturation(max: try c(3), halfSaturation: try c(5)), normalizer: normalizer)
        case "EXT":
            guard timeseries.contains(where: { $0.name == l[5] }) else { throw fail("Coeff3", "time series \(l[5]) is not defined (SWMM's ERROR 209)") }
            let series = try seriesSeconds(l[5], baseDirectory: nil, section: "BUILDUP")
            return Buildup(function: .external(max: try c(3), scale: try c(4), series: series), normalizer: normalizer)
        default: throw fail("Function", "\(l[2]) is not NONE, POW, EXP, SAT or EXT (SWMM's ERROR 205)")
        }
    }

    private func washoff(_ l: [String]) throws -> Washoff {
        func fail(_ field: String, _ why: String) -> SWMMInputError {
            Self.qualityError("WASHOFF", field, "land use \(l[0]), pollutant \(l[1]): \(why)")
        }
        let kind = l[2].uppercased()
        if kind == "NONE" { return Washoff() }
        guard ["EXP", "RC", "EMC"].contains(kind) else { throw fail("Function", "\(l[2]) is not NONE, EXP, RC or EMC (SWMM's ERROR 205)") }
        guard l.count >= 5 else { throw fail("Function", "\(kind) needs a coefficient and an exponent (SWMM's ERROR 203)") }
        var x = [0.0, 0, 0, 0]
        for k in 0..<min(4, l.count - 3) {
            guard let v = Double(l[k + 3]) else { throw fail(["Coeff1", "Coeff2", "SweepRmvl", "BmpRmvl"][k], "\(l[k + 3]) is not a number (SWMM's ERROR 211)") }
            x[k] = v
        }
        if x[0] < 0 { throw fail("Coeff1", "the coefficient \(x[0]) is negative (SWMM's ERROR 211)") }
        if x[1] < -10 || x[1] > 10 { throw fail("Coeff2", "the exponent \(x[1]) is outside −10–10 (SWMM's ERROR 211)") }
        if x[2] < 0 || x[2] > 100 { throw fail("SweepRmvl", "\(x[2]) is not a percent 0–100 (SWMM's ERROR 211)") }
        if x[3] < 0 || x[3] > 100 { throw fail("BmpRmvl", "\(x[3]) is not a percent 0–100 (SWMM's ERROR 211)") }
        let f: Washoff.Function = kind == "EXP" ? .exponential(coefficient: x[0], exponent: x[1])
            : kind == "RC" ? .ratingCurve(coefficient: x[0], exponent: x[1]) : .eventMean(concentration: x[0])
        return Washoff(function: f, sweepingEfficiency: x[2] / 100, bmpEfficiency: x[3] / 100)
    }

    /// The pollutant lines of [INFLOWS] and [DWF] as quality inflows at the network's nodes.
    /// - Throws: `SWMMInputError` naming the node: an unknown pollutant, a baseline pattern.
    public func qualityInflows(network: HydraulicNetwork, baseDirectory: URL? = nil) throws -> [QualityInflow] {
        guard simulatesQuality else { return [] }
        let pollutants = try pollutants()
        let pIndex = Dictionary(pollutants.enumerated().map { ($1.name, $0) }, uniquingKeysWith: { a, _ in a })
        var list: [QualityInflow] = []
        for i in effectiveInflows where i.constituent.uppercased() != "FLOW" {
            guard let k = network.nodeIndex(i.node) else { continue }
            guard let p = pIndex[i.constituent] else {
                throw Self.qualityError("INFLOWS", "Constituent", "node \(i.node): \(i.constituent) is neither FLOW nor a pollutant (SWMM's ERROR 209)")
            }
            if !Self.isBlank(i.baselinePattern) {
                throw Self.qualityError("INFLOWS", "Pattern", "node \(i.node), \(i.constituent): a baseline time pattern (\(i.baselinePattern ?? "")) is not simulated")
            }
            let series = Self.isBlank(i.timeseries) ? nil : try seriesSeconds(i.timeseries, baseDirectory: baseDirectory, section: "INFLOWS")
            switch i.kind.uppercased() {
            case "MASS":
                // Mass units per second: Mfactor converts the series' mass rate. SWMM 5.2.4 divides
                // a MASS inflow by 28.317 (litres per cubic foot) once more than it multiplies it
                // back (inflow.c and massbal.c), so the mass that enters is the given rate / 28.317
                // (checked: 10.8 kg given, 0.381 kg in its Quality Routing Continuity); so here.
                let times = series?.times ?? [0], values = series?.values ?? [0]
                let mass = TimeSeries(times: times, values: values.map { ($0 * i.scaleFactor + i.baseline) * i.unitsFactor / 28.317 })
                list.append(QualityInflow(node: k, pollutant: p, kind: .external, value: .mass(mass)))
            case "CONCEN", "CONCENTRATION", "":
                list.append(QualityInflow(node: k, pollutant: p, kind: .external,
                                          value: .concentration(baseline: i.baseline, scale: i.scaleFactor, series: series)))
            default:
                throw Self.qualityError("INFLOWS", "Type", "node \(i.node), \(i.constituent): \(i.kind) is not CONCEN or MASS (SWMM's ERROR 205)")
            }
        }
        for d in effectiveDryWeatherFlows where d.constituent.uppercased() != "FLOW" {
            guard let k = network.nodeIndex(d.node) else { continue }
            guard let p = pIndex[d.constituent] else {
                throw Self.qualityError("DWF", "Constituent", "node \(d.node): \(d.constituent) is neither FLOW nor a pollutant (SWMM's ERROR 209)")
            }
            var c = DryWeatherFlow(average: d.average)
            for name in d.patterns where !Self.isBlank(name) {
                guard let pat = pattern(named: name) else { throw Self.qualityError("DWF", "Patterns", "node \(d.node): no pattern \(name)") }
                switch pat.kind {
                case "MONTHLY": c.monthly = pat.factors
                case "DAILY": c.daily = pat.factors
                case "HOURLY": c.hourly = pat.factors
                default: c.weekendHourly = pat.factors
                }
            }
            list.append(QualityInflow(node: k, pollutant: p, kind: .dryWeather, value: .dryWeather(c)))
        }
        return list
    }
}

extension SWMMModel {
    /// Reads the quality input so bad or unsimulated items are refused before a run, and refuses
    /// quality together with what it is not simulated with yet.
    func checkQuality() throws {
        _ = try surfaceQualitySetup()
        if let usage = rawSections.first(where: { $0.name == "LID_USAGE" })?.lines.first, let sub = usage.first {
            throw Self.qualityError("LID_USAGE", "Subcatchment", "subcatchment \(sub) has LID controls: pollutants through LID units (their runoff treatment and removals) are not simulated yet; set IGNORE_QUALITY YES to route flow only")
        }
        if rawSections.contains(where: { $0.name == "FILES" && !$0.lines.isEmpty }) {
            throw Self.qualityError("FILES", "Action", "hot-start files with pollutants: the pollutant state is not read or written yet; set IGNORE_QUALITY YES to route flow only")
        }
    }
}
