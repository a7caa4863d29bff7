import Foundation

/// SWMM's Runoff Quality Continuity for one pollutant, in report mass (kg; a count for #/L).
public struct RunoffQualityContinuity: Sendable, Hashable {
    public var initialBuildup = 0.0, surfaceBuildup = 0.0, wetDeposition = 0.0, sweepingRemoval = 0.0
    public var infiltrationLoss = 0.0, bmpRemoval = 0.0, surfaceRunoff = 0.0, remainingBuildup = 0.0

    /// Percent of what came in (initial buildup, buildup, deposition) that went nowhere (SWMM's
    /// massbal_getLoadingError).
    public var errorPercent: Double {
        let inflow = initialBuildup + surfaceBuildup + wetDeposition
        let outflow = sweepingRemoval + infiltrationLoss + bmpRemoval + surfaceRunoff + remainingBuildup
        if abs(inflow - outflow) < 0.001 { return 0 }
        if inflow > 0 { return 100 * (1 - outflow / inflow) }
        if outflow > 0 { return 100 * (inflow / outflow - 1) }
        return 0
    }

    func scaled(_ f: Double) -> RunoffQualityContinuity {
        RunoffQualityContinuity(initialBuildup: initialBuildup * f, surfaceBuildup: surfaceBuildup * f, wetDeposition: wetDeposition * f,
                                sweepingRemoval: sweepingRemoval * f, infiltrationLoss: infiltrationLoss * f, bmpRemoval: bmpRemoval * f,
                                surfaceRunoff: surfaceRunoff * f, remainingBuildup: remainingBuildup * f)
    }
}

/// What the runoff's water quality did.
public struct SurfaceQualityResult: Sendable {
    public var pollutants: [Pollutant]
    /// Per pollutant, kg (counts for #/L pollutants).
    public var continuity: [RunoffQualityContinuity]
    /// Per subcatchment and pollutant: the mass washed off, kg (counts for #/L): SWMM's Subcatchment
    /// Washoff Summary.
    public var washoff: [[Double]]
    /// Per subcatchment and pollutant, at each runoff time: the load leaving it, in the pollutant's
    /// mass unit (mg, µg, count) per second (a `.series` run).
    public var loads: [[[Double]]]
}

/// The surface water quality of every subcatchment over a runoff run, SWMM 5.2's surfqual.c and
/// landuse.c: buildup over dry steps, street sweeping, washoff by each land use's function, wet
/// deposition and run-on mixed with the ponded water, BMP removal, co-pollutants.
struct SurfaceQualityState {
    let setup: SurfaceQualitySetup
    /// Runoff below which a subcatchment builds up pollutants (SWMM's MIN_RUNOFF, 0.001 in/h), m/s.
    static let minRunoff = 2.31481e-8 * 0.3048
    /// Buildup per subcatchment, land use and pollutant, report mass (lb or kg).
    var buildup: [[[Double]]]
    /// Pollutant mass in the ponded water per subcatchment and pollutant, in mass units (mg, µg).
    var ponded: [[Double]]
    /// Runoff concentration at the previous and this step's end (mass unit per litre); during a
    /// step `newQual` first holds the run-on mass rate (mass unit per second).
    var oldQual: [[Double]], newQual: [[Double]]
    /// When each land use of each subcatchment was last swept, s from the start.
    var lastSwept: [[Double]]
    /// Per pollutant, report mass.
    var totals: [RunoffQualityContinuity]
    var washoff: [[Double]]
    var loads: [[[Double]]]
    let mcf: [Double]

    init(setup: SurfaceQualitySetup, subcatchments: [RunoffSubcatchment], series: Bool) {
        self.setup = setup
        let np = setup.pollutants.count, nl = setup.landUses.count, ns = subcatchments.count
        mcf = setup.pollutants.map { $0.massFactor(reportMassPerKilogram: setup.reportMassPerKilogram) }
        buildup = Array(repeating: Array(repeating: Array(repeating: 0, count: np), count: nl), count: ns)
        ponded = Array(repeating: Array(repeating: 0, count: np), count: ns)
        oldQual = ponded; newQual = ponded; washoff = ponded
        lastSwept = Array(repeating: setup.landUses.map { -$0.daysSinceSwept * 86_400 }, count: ns)
        totals = Array(repeating: RunoffQualityContinuity(), count: np)
        loads = series ? Array(repeating: Array(repeating: [0], count: np), count: ns) : []
        for (j, s) in subcatchments.enumerated() {
            for i in 0..<nl {
                let f = setup.coverage[j][i]
                let area = f * s.area / setup.landAreaUnit, curb = f * setup.curbLength[j]
                for p in 0..<np {
                    let initial = setup.initialLoading[j][p]
                    let b = setup.landUses[i].buildup[p]
                    buildup[j][i][p] = initial > 0 ? initial * area
                        : b.advance(0, perUnit: b.normalizer == .area ? area : curb, dt: setup.initialDryTime, time: 0)
                    totals[p].initialBuildup += buildup[j][i][p]
                }
            }
        }
    }

    /// Start of a runoff step: the last runoff concentrations become the old ones, and each
    /// subcatchment draining onto another passes it its last runoff's load as run-on.
    mutating func beginStep(oldRunoff: [Double], subcatchments: [RunoffSubcatchment]) {
        oldQual = newQual
        for j in newQual.indices { for p in newQual[j].indices { newQual[j][p] = 0 } }
        for (j, s) in subcatchments.enumerated() where s.area > 0 {
            guard case .subcatchment(let k) = s.outlet, k != j else { continue }
            for p in newQual[k].indices { newQual[k][p] += oldRunoff[j] * oldQual[j][p] * 1000 }
        }
    }

    /// One subcatchment's water balance over a step (SWMM's shared Vinflow, Vinfil, Voutflow).
    struct Flows {
        var runoff: Double        // total runoff rate over the area, m/s
        var inflow: Double        // ponded water at the start + run-on + rainfall, m³
        var infiltration: Double  // m³
        var outflow: Double       // runoff volume to the outlet, m³
        var pondedDepth: Double   // average ponded depth at the end, m
        var rainfall: Double      // m/s
        var toNode: Bool
    }

    /// Buildup, sweeping and washoff of subcatchment `j` over the step from `time` to `time + dt`.
    mutating func step(_ j: Int, _ s: RunoffSubcatchment, _ w: Flows, dt: Double, time: Double) {
        guard s.area > 0 else { return }
        if w.runoff < Self.minRunoff { addBuildup(j, s, dt: dt, time: time + dt) }
        if w.rainfall <= Self.minRunoff, canSweep(at: time) { sweep(j, at: time) }
        let np = setup.pollutants.count
        var load = [Double](repeating: 0, count: np)
        findWashoffLoads(j, s, w, &load)
        findPondedLoads(j, s, w, dt: dt, &load)
        let vOut = w.outflow
        let hasOutflow = vOut > Self.minRunoff * s.area * dt
        for p in 0..<np {
            let c = vOut > 0 && hasOutflow ? load[p] / vOut : 0   // mass unit per m³
            let mass = c * vOut * mcf[p]
            washoff[j][p] += mass
            if w.toNode { totals[p].surfaceRunoff += mass }
            newQual[j][p] = c / 1000
        }
    }

    /// Appends each subcatchment's load (runoff × concentration) for the step just taken.
    mutating func record(runoff: [Double]) {
        for j in loads.indices { for p in loads[j].indices { loads[j][p].append(runoff[j] * newQual[j][p] * 1000) } }
    }

    /// The totals and series, with what is left on the surface counted as remaining buildup, in kg.
    func result() -> SurfaceQualityResult {
        var totals = self.totals
        for p in totals.indices {
            for j in buildup.indices {
                for i in buildup[j].indices { totals[p].remainingBuildup += buildup[j][i][p] }
                totals[p].remainingBuildup += ponded[j][p] * mcf[p]
            }
        }
        let toKg = setup.pollutants.map { $0.units == .countPerLitre ? 1 : 1 / setup.reportMassPerKilogram }
        return SurfaceQualityResult(pollutants: setup.pollutants, continuity: totals.enumerated().map { $1.scaled(toKg[$0]) },
                                    washoff: washoff.map { row in row.enumerated().map { $1 * toKg[$0] } }, loads: loads)
    }

    // MARK: - Buildup and sweeping

    private mutating func addBuildup(_ j: Int, _ s: RunoffSubcatchment, dt: Double, time: Double) {
        for (i, lu) in setup.landUses.enumerated() {
            let f = setup.coverage[j][i]
            if f == 0 { continue }
            let area = f * s.area / setup.landAreaUnit, curb = f * setup.curbLength[j]
            for p in setup.pollutants.indices {
                let b = lu.buildup[p]
                let old = buildup[j][i][p]
                let new = max(b.advance(old, perUnit: b.normalizer == .area ? area : curb, dt: dt, time: time), old)
                buildup[j][i][p] = new
                totals[p].surfaceBuildup += new - old
            }
        }
    }

    private func canSweep(at time: Double) -> Bool {
        let c = setup.start.advanced(by: time)
        let day = SurfaceQualitySetup.dayOfYear(month: c.month, day: c.day)
        if setup.sweepStart <= setup.sweepEnd { return day >= setup.sweepStart && day <= setup.sweepEnd }
        return day <= setup.sweepEnd || day >= setup.sweepStart
    }

    private mutating func sweep(_ j: Int, at time: Double) {
        for (i, lu) in setup.landUses.enumerated() where setup.coverage[j][i] > 0 && lu.sweepInterval > 0 {
            guard time - lastSwept[j][i] >= lu.sweepInterval * 86_400 else { continue }
            lastSwept[j][i] = time
            for p in setup.pollutants.indices {
                let old = buildup[j][i][p]
                let new = max(0, min(old, old * (1 - lu.sweepAvailability * lu.washoff[p].sweepingEfficiency)))
                buildup[j][i][p] = new
                totals[p].sweepingRemoval += old - new
            }
        }
    }

    // MARK: - Washoff

    /// Washoff of each land use's buildup, then what co-pollutants add (mass units).
    private mutating func findWashoffLoads(_ j: Int, _ s: RunoffSubcatchment, _ w: Flows, _ load: inout [Double]) {
        guard w.runoff >= Self.minRunoff else { return }
        for (i, lu) in setup.landUses.enumerated() where setup.coverage[j][i] > 0 {
            for p in setup.pollutants.indices { load[p] += washoffLoad(j, i, p, lu, s, w) }
        }
        for (p, pol) in setup.pollutants.enumerated() {
            guard let k = pol.coPollutant else { continue }
            let extra = pol.coFraction * load[k]
            totals[p].surfaceBuildup += extra * mcf[p]
            load[p] += extra
        }
    }

    /// One land use's washoff of pollutant `p` over the step (mass units), taken from its buildup.
    private mutating func washoffLoad(_ j: Int, _ i: Int, _ p: Int, _ lu: LandUse, _ s: RunoffSubcatchment, _ w: Flows) -> Double {
        let b = buildup[j][i][p]
        let luArea = setup.coverage[j][i] * s.area
        let buildupFunction = lu.buildup[p]
        var c = 0.0   // mass unit per m³
        if w.runoff != 0, buildupFunction.isNone || b != 0 {
            switch lu.washoff[p].function {
            case .none: c = 0
            case let .exponential(k, e):
                let q = w.runoff * 3600 / setup.rainDepthUnit
                c = k / 3600 * pow(q, e) * b / mcf[p] / (w.runoff * luArea)
            case let .ratingCurve(k, e):
                let flow = w.runoff * luArea
                c = k * pow(flow / setup.flowUnit, e) / flow
            case let .eventMean(conc):
                c = conc * 1000
            }
        }
        var mass = c * w.outflow * luArea / s.area * mcf[p]   // report mass
        if !buildupFunction.isNone || b > mass {
            mass = min(mass, b)
            buildup[j][i][p] = b - mass
        } else {
            totals[p].surfaceBuildup += mass
            buildup[j][i][p] = 0
        }
        let removed = lu.washoff[p].bmpEfficiency * mass
        if removed > 0 {
            totals[p].bmpRemoval += removed
            mass -= removed
        }
        return mass / mcf[p]
    }

    /// Wet deposition and run-on mixed with the ponded water: what infiltrates, what runs off
    /// (less the land uses' average BMP removal), what stays ponded.
    private mutating func findPondedLoads(_ j: Int, _ s: RunoffSubcatchment, _ w: Flows, dt: Double, _ load: inout [Double]) {
        let vRain = w.rainfall * s.area * dt
        for (p, pol) in setup.pollutants.enumerated() {
            let wRain = pol.rainConcentration * 1000 * vRain
            totals[p].wetDeposition += wRain * mcf[p]
            if w.inflow == 0 {
                totals[p].remainingBuildup += ponded[j][p] * mcf[p]
                ponded[j][p] = 0
                continue
            }
            var wPonded = ponded[j][p] + wRain + newQual[j][p] * dt
            let cPonded = wPonded / w.inflow
            let wInfil = min(cPonded * w.infiltration, wPonded)
            totals[p].infiltrationLoss += wInfil * mcf[p]
            wPonded -= wInfil
            var wOut = min(cPonded * w.outflow, wPonded)
            var bmp = 0.0
            for (i, lu) in setup.landUses.enumerated() { bmp += setup.coverage[j][i] * lu.washoff[p].bmpEfficiency }
            totals[p].bmpRemoval += bmp * wOut * mcf[p]
            wOut -= bmp * wOut
            ponded[j][p] = cPonded * w.pondedDepth * s.area
            load[p] += wOut
        }
    }
}
