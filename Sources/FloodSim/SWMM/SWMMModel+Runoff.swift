import Foundation
import SWMMFormat

extension SWMMModel {
    /// A gage's rainfall as a hyetograph in mm/h over seconds from the simulation start (each
    /// value holds for the gage's recording interval, zero in gaps, as SWMM reads it).
    /// With `IGNORE_RAINFALL YES` every gage is dry, as SWMM 5.2.4's gage.c sets its rainfall to 0
    /// (and reads no rain file); runoff still runs.
    public func hyetograph(gage g: SWMMRainGage, baseDirectory: URL? = nil) throws -> Hyetograph {
        if isSwitchedOff("IGNORE_RAINFALL") { return Hyetograph(starts: [], intensities: [], lastInterval: g.intervalHours * 3600) }
        if case let .file(path, station, depthUnits) = g.source {
            return try fileHyetograph(gage: g, path: path, station: station, depthUnits: depthUnits, baseDirectory: baseDirectory)
        }
        guard case .timeseries(let name) = g.source else { preconditionFailure("a gage reads a time series or a file") }
        let series = try seriesSeconds(name, baseDirectory: baseDirectory, section: "RAINGAGES")
        let interval = g.intervalHours * 3600
        let toMillimetres = units.rainDepth * 1000
        // Intensities in mm/h as gage.c's convertRainfall turns each entry into one (a cumulative
        // total restarting when it falls), then scaled by `[ADJUSTMENTS] RAINFALL` as SWMM reads them.
        var converted: [Double] = []
        var accumulated = 0.0
        for k in series.times.indices {
            var v = series.values[k]
            switch g.format {
            case .intensity: v *= toMillimetres
            case .volume: v = v * toMillimetres / interval * 3600
            case .cumulative:
                let c = v
                v = (c < accumulated ? c : c - accumulated) * toMillimetres / interval * 3600
                accumulated = c
            }
            converted.append(v)
        }
        let factors = try rainfallReadFactors(times: series.times, values: converted)
        var starts: [Double] = [], values: [Double] = []
        for k in series.times.indices {
            let t = series.times[k]
            let next = k + 1 < series.times.count ? series.times[k + 1] : t + interval
            if let last = starts.last, t < last { continue }
            starts.append(t); values.append(converted[k] * factors[k])
            if next > t + interval + 1e-6 { starts.append(t + interval); values.append(0) }
        }
        return Hyetograph(starts: starts, intensities: values, lastInterval: interval)
    }

    /// Each rain entry's `[ADJUSTMENTS] RAINFALL` factor as SWMM 5.2.4 applies it: gage.c scales
    /// a value when it reads it (`convertRainfall`), by the month of the runoff step at which the
    /// gage reaches the entry before it. The first entry, and the first non-zero one after it when
    /// the record starts by the simulation start, are read before the first step, at factor 1;
    /// zeros are skipped. All 1 without the adjustment.
    /// - Parameters:
    ///   - times: the entries' times, seconds from the simulation start.
    ///   - values: the entries' intensities (zeros are never read).
    func rainfallReadFactors(times: [Double], values: [Double]) throws -> [Double] {
        var factors = [Double](repeating: 1, count: times.count)
        guard let rain = try monthlyAdjustments()?.rainfall, rain.contains(where: { $0 != 1 }), !times.isEmpty else { return factors }
        let start = routingOptions().start
        // When the next non-zero value is read: nil before the first step.
        var readAt: Double? = times[0] > 0 ? times[0] : nil
        for k in times.indices.dropFirst() where values[k] != 0 {
            if let t = readAt { factors[k] = rain[start.advanced(by: max(0, t)).month - 1] }
            readAt = max(0, times[k])
        }
        return factors
    }

    /// Subcatchments, gauges and steps of the model for `RunoffSimulation`, in SI.
    /// - Throws: `SWMMInputError` when a subcatchment lacks `[SUBAREAS]` or a gage cannot be read.
    public func runoffSimulation(baseDirectory: URL? = nil) throws -> RunoffSimulation {
        let u = units
        let gageIndex = Dictionary(rainGages.enumerated().map { ($1.name, $0) }, uniquingKeysWith: { a, _ in a })
        let subIndex = Dictionary(subcatchments.enumerated().map { ($1.name, $0) }, uniquingKeysWith: { a, _ in a })
        let areas = Dictionary(subareas.map { ($0.subcatchment, $0) }, uniquingKeysWith: { a, _ in a })
        let infil = Dictionary(infiltration.map { ($0.subcatchment, $0) }, uniquingKeysWith: { a, _ in a })
        let nodes = Set(nodeNames)
        let lids = try lidUsages()
        var list: [RunoffSubcatchment] = []
        for s in subcatchments {
            guard let a = areas[s.name] else {
                throw SWMMInputError(line: nil, section: "SUBAREAS", field: "Subcatchment", reason: "subcatchment \(s.name) has no [SUBAREAS] entry")
            }
            var model = Infiltration.none
            if let i = infil[s.name] {
                let method = i.method ?? infiltrationMethod
                switch i.parameters {
                case let .horton(f0, fmin, decay, dry, fmax):
                    let regen = dry > 0 ? -log(0.02) / (dry * 86_400) : 0
                    model = method == .modifiedHorton
                        ? .modifiedHorton(maxRate: f0 * u.rainRate, minRate: fmin * u.rainRate, decay: decay / 3600, regeneration: regen, maxVolume: fmax * u.rainDepth)
                        : .horton(maxRate: f0 * u.rainRate, minRate: fmin * u.rainRate, decay: decay / 3600, regeneration: regen, maxVolume: fmax * u.rainDepth)
                case let .greenAmpt(psi, ks, imd):
                    model = .greenAmpt(suction: psi * u.rainDepth, conductivity: ks * u.rainRate, initialDeficit: imd, modified: method == .modifiedGreenAmpt)
                case let .curveNumber(cn, _, dry):
                    model = .curveNumber(curveNumber: cn, dryTime: dry * 86_400)
                }
            }
            let outlet: RunoffSubcatchment.Outlet = nodes.contains(s.outlet) ? .node(s.outlet) : .subcatchment(subIndex[s.outlet] ?? 0)
            let routing: RunoffSubcatchment.InternalRouting = a.routeTo == .impervious ? .impervious : a.routeTo == .pervious ? .pervious : .outlet
            list.append(RunoffSubcatchment(name: s.name, area: s.area * u.landArea, imperviousFraction: min(s.percentImpervious, 100) / 100,
                                           width: s.width * u.length, slope: s.percentSlope / 100, nImpervious: a.nImpervious, nPervious: a.nPervious,
                                           storageImpervious: a.storageImpervious * u.rainDepth, storagePervious: a.storagePervious * u.rainDepth,
                                           zeroStorageFraction: a.percentZero / 100, routing: routing, routedFraction: (a.percentRouted ?? 100) / 100,
                                           infiltration: model, outlet: outlet, gauge: gageIndex[s.rainGage], lids: lids[s.name] ?? []))
        }
        let gauges = try rainGages.map { try hyetograph(gage: $0, baseDirectory: baseDirectory) }
        var evap = 0.0, monthly: [Double] = []
        if let e = evaporation {
            switch e.source {
            case .constant(let r): evap = r * u.evaporationRate
            case .monthly(let m): monthly = m.map { $0 * u.evaporationRate }
            default: break
            }
        }
        let month = Int(option("START_DATE")?.split(separator: "/").first ?? "1") ?? 1
        var sim = RunoffSimulation(subcatchments: list, gauges: gauges, evaporation: evap, monthlyEvaporation: monthly, startMonth: month,
                                   evaporateOnlyWhenDry: evaporation?.dryOnly ?? false, wetStep: stepSeconds("WET_STEP", default: 300),
                                   dryStep: stepSeconds("DRY_STEP", default: 3600), duration: durationSeconds,
                                   initialDryTime: (Double(option("DRY_DAYS") ?? "") ?? 0) * 86_400)
        sim.groundwater = try groundwaterSetup()
        sim.clock = routingOptions().start
        sim.adjustments = try monthlyAdjustments()
        // The gauges carry the RAINFALL factors already, as SWMM reads each value (`hyetograph`).
        sim.adjustments?.rainfall = Array(repeating: 1, count: 12)
        if let e = evaporation {
            if case .timeseries(let name) = e.source {
                let series = try seriesSeconds(name, baseDirectory: baseDirectory, section: "EVAPORATION")
                sim.evaporationSchedule = Self.evaporationSchedule(series, toMetresPerSecond: u.evaporationRate, duration: durationSeconds)
            }
            if let name = e.recoveryPattern, !Self.isBlank(name) {
                guard let p = pattern(named: name) else {
                    throw SWMMInputError(line: nil, section: "EVAPORATION", field: "RECOVERY", reason: "no time pattern \(name) (SWMM's ERROR 209)")
                }
                // SWMM's setEvap uses only a MONTHLY pattern (others leave the factor 1); missing
                // factors are 1 as SWMM initialises them.
                if p.kind.uppercased() == "MONTHLY" {
                    sim.recoveryFactors = (0..<12).map { $0 < p.factors.count ? p.factors[$0] : 1 }
                }
            }
        }
        return sim
    }

    /// Evaporation from a time series as SWMM 5.2.4's climate.c steps it: from the start, the
    /// rate of the first entry on or after the start (the first entry's when none is), then each
    /// later entry's from its time on, to the end of the run. Rates in the file's units.
    static func evaporationSchedule(_ series: TimeSeries, toMetresPerSecond f: Double, duration: Double) -> StepSchedule? {
        guard let first = series.values.first else { return nil }
        let later = series.times.indices.filter { series.times[$0] >= 0 }
        guard let k0 = later.first else { return StepSchedule(times: [0], values: [first * f]) }
        var times = [0.0], values = [series.values[k0] * f]
        for k in later.dropFirst() where series.times[k] <= duration && series.times[k] > 0 {
            times.append(series.times[k]); values.append(series.values[k] * f)
        }
        return StepSchedule(times: times, values: values)
    }
}

extension SWMMModel {
    /// `[ADJUSTMENTS]` read as SWMM 5.2.4's climate_readAdjustments reads it (keywords by their
    /// first letters, case aside: TEMP…, EVAP…, RAIN…, CONDUCT…, N-PERV, DSTORE, INFIL), in SI;
    /// nil without the section. TEMPERATURE changes nothing here (air temperature feeds only
    /// snowmelt and Hargreaves evaporation, which a run refuses or switches off).
    /// - Throws: `SWMMInputError` naming the line's keyword as SWMM's ERROR 201/205/209/211 would.
    public func monthlyAdjustments() throws -> MonthlyAdjustments? {
        guard let section = rawSections.first(where: { $0.name == "ADJUSTMENTS" }) else { return nil }
        var a = MonthlyAdjustments()
        let subIndex = Dictionary(subcatchments.enumerated().map { ($1.name, $0) }, uniquingKeysWith: { a, _ in a })
        for line in section.lines where line.count > 1 {
            let key = line[0].uppercased()
            func fail(_ why: String) -> SWMMInputError {
                SWMMInputError(line: nil, section: "ADJUSTMENTS", field: "Parameter", reason: "\(line[0]): \(why)")
            }
            func twelve() throws -> [Double] {
                guard line.count >= 13 else { throw fail("12 monthly values expected (SWMM's ERROR 201)") }
                return try (1...12).map { k in
                    guard let v = Double(line[k]) else { throw fail("\(line[k]) is not a number (SWMM's ERROR 211)") }
                    return v
                }
            }
            func monthlyPattern() throws -> (Int, [Double]?) {
                guard line.count >= 3 else { throw fail("a subcatchment and a pattern expected (SWMM's ERROR 201)") }
                guard let j = subIndex[line[1]] else { throw fail("no subcatchment \(line[1]) (SWMM's ERROR 209)") }
                guard let p = pattern(named: line[2]) else { throw fail("no time pattern \(line[2]) (SWMM's ERROR 209)") }
                // SWMM uses only a MONTHLY pattern; missing factors are 1 as it initialises them.
                guard p.kind.uppercased() == "MONTHLY" else { return (j, nil) }
                return (j, (0..<12).map { $0 < p.factors.count ? p.factors[$0] : 1 })
            }
            if key.hasPrefix("TEMP") {
                _ = try twelve()
            } else if key.hasPrefix("EVAP") {
                a.evaporation = try twelve().map { $0 * units.evaporationRate }
            } else if key.hasPrefix("RAIN") {
                a.rainfall = try twelve()
            } else if key.hasPrefix("CONDUCT") {
                a.conductivity = try twelve().map { $0 <= 0 ? 1 : $0 }
            } else if key.hasPrefix("N-PERV") {
                let (j, f) = try monthlyPattern()
                a.nPervious[j] = f
            } else if key.hasPrefix("DSTORE") {
                let (j, f) = try monthlyPattern()
                a.depressionStorage[j] = f
            } else if key.hasPrefix("INFIL") {
                let (j, f) = try monthlyPattern()
                a.infiltration[j] = f
            } else {
                throw fail("not an adjustment SWMM 5.2 reads (SWMM's ERROR 205)")
            }
        }
        return a
    }
}

extension SWMMModel {
    /// A FILE gage's rainfall, from a rain file in SWMM 5.2's user-prepared format (lines
    /// `station year month day hour minute value`, other lines skipped as SWMM's rain.c skips
    /// what does not parse or names another station), as rain.c turns values into depths over the
    /// gage's interval (INTENSITY × interval, CUMULATIVE as increments restarting when the total
    /// falls, VOLUME as is) in the gage's IN or MM, each holding for one interval from its time.
    /// The file is resolved in `baseDirectory` (the `.inp` file's folder) unless absolute; only
    /// a run with the command line's leave gets here (`checkSimulated(interfaceFiles:)`).
    /// - Throws: `SWMMInputError` (section RAINGAGES) naming the gage when the file cannot be
    ///   read, holds no line of the format for its station (NWS and NCEI formats are not read), or
    ///   goes back in time (SWMM's ERROR 318).
    func fileHyetograph(gage g: SWMMRainGage, path: String, station: String, depthUnits: String,
                        baseDirectory: URL?) throws -> Hyetograph {
        func fail(_ why: String) -> SWMMInputError {
            SWMMInputError(line: nil, section: "RAINGAGES", field: "FileName", reason: "rain gage \(g.name), file \(path): \(why)")
        }
        guard let baseDirectory else { throw fail("a rain file is read only beside a .inp given to `citytwin simulate drainage`") }
        let url = path.hasPrefix("/") ? URL(fileURLWithPath: path) : baseDirectory.appendingPathComponent(path)
        guard let text = try? String(contentsOf: url, encoding: .utf8) else { throw fail("cannot read \(url.path) (SWMM's ERROR 313)") }
        let interval = g.intervalHours * 3600
        guard interval > 0 else { throw fail("the recording interval must be positive") }
        let toMillimetres = depthUnits.uppercased() == "IN" ? 25.4 : 1.0
        let start = startEpochSeconds ?? 0
        var starts: [Double] = [], values: [Double] = []
        var previous = -Double.infinity, accumulated = 0.0
        for raw in text.split(whereSeparator: \.isNewline) {
            let t = raw.split(whereSeparator: { $0 == " " || $0 == "\t" })
            guard t.count >= 7, t[0].caseInsensitiveCompare(station) == .orderedSame,
                  let year = Int(t[1]), let month = Int(t[2]), let day = Int(t[3]), let hour = Int(t[4]), let minute = Int(t[5]),
                  var x = Double(t[6]),
                  let midnight = Self.epochSeconds(date: String(format: "%02d/%02d/%04d", month, day, year), time: nil)
            else { continue }
            let time = midnight + Double(hour * 3600 + minute * 60) - start
            guard time > previous else { throw fail("\(raw.trimmingCharacters(in: .whitespaces)) is out of sequence (SWMM's ERROR 318)") }
            previous = time
            switch g.format {
            case .intensity: x *= interval / 3600
            case .cumulative:
                if x >= accumulated { let increment = x - accumulated; accumulated += increment; x = increment } else { accumulated = x }
            case .volume: break
            }
            // Depth over the interval, mm, as an intensity in mm/h holding one interval.
            let intensity = x * toMillimetres / interval * 3600
            // No rain from one interval after a record to the next record (SWMM's gage.c).
            if let last = starts.last, time > last + interval + 1e-6 { starts.append(last + interval); values.append(0) }
            starts.append(time); values.append(intensity)
        }
        guard !starts.isEmpty else {
            throw fail("no line `\(station) year month day hour minute value` (only SWMM's user-prepared format is read, not NWS or NCEI files)")
        }
        return Hyetograph(starts: starts, intensities: values, lastInterval: interval)
    }
}
