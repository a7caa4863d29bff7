import Foundation
import SWMMFormat

extension SWMMModel {
    /// A gage's rainfall as a hyetograph in mm/h over seconds from the simulation start (each
    /// value holds for the gage's recording interval, zero in gaps, as SWMM reads it).
    public func hyetograph(gage g: SWMMRainGage, baseDirectory: URL? = nil) throws -> Hyetograph {
        guard case .timeseries(let name) = g.source else {
            throw SWMMInputError(line: nil, section: "RAINGAGES", field: "Source", reason: "rain gage \(g.name): FILE rainfall is not read yet")
        }
        let series = try seriesSeconds(name, baseDirectory: baseDirectory, section: "RAINGAGES")
        let interval = g.intervalHours * 3600
        let toMillimetres = units.rainDepth * 1000
        var starts: [Double] = [], values: [Double] = []
        var previousCumulative = 0.0
        for k in series.times.indices {
            let t = series.times[k]
            let next = k + 1 < series.times.count ? series.times[k + 1] : t + interval
            var v = series.values[k]
            switch g.format {
            case .intensity: v *= toMillimetres
            case .volume: v = v * toMillimetres / interval * 3600
            case .cumulative:
                let c = v
                v = max(0, c - previousCumulative) * toMillimetres / interval * 3600
                previousCumulative = c
            }
            if let last = starts.last, t < last { continue }
            starts.append(t); values.append(v)
            if next > t + interval + 1e-6 { starts.append(t + interval); values.append(0) }
        }
        return Hyetograph(starts: starts, intensities: values, lastInterval: interval)
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
        return sim
    }
}
