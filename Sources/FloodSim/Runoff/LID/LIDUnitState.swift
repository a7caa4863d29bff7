import Foundation

/// The running state of one LID usage (all its replicate units alike) and its step: SWMM 5.2's
/// `lidproc_getOutflow`. The layers' water levels (surface and pavement depth, soil moisture,
/// storage depth) move by their net fluxes over the runoff step (`LIDFluxes`): explicit Euler for
/// every kind but the vegetative swale, which iterates the modified Puls scheme as SWMM does.
/// Rates are per unit of LID area (m/s), levels m (soil: a moisture fraction).
struct LIDUnitState: Sendable {
    let usage: LIDUsage
    /// The control completed for the run (`LIDControl.completed()`).
    let control: LIDControl
    var surfaceDepth = 0.0, paveDepth = 0.0, soilMoisture = 0.0, storageDepth = 0.0
    /// Net flux of each layer over the previous step (surface, soil, storage, pavement).
    var oldFluxes = LIDLevels()
    /// Seconds since rain last fell (rain barrels wait `drain.delay` before draining).
    var dryTime: Double
    /// Underdrain flow of the previous and current step, m³/s (after any return to the pervious area).
    var oldDrainFlow = 0.0, newDrainFlow = 0.0
    /// Depth treated so far (pavement clogging), m; the day of the next pavement regeneration.
    var treated = 0.0, nextRegenerationDay: Double
    var balance: LIDPerformance
    /// Green–Ampt infiltration into the surface (soil layer, or a swale on Green–Ampt soil).
    var greenAmpt: LIDGreenAmpt?

    /// - Parameters:
    ///   - swaleSoil: the subcatchment's Green–Ampt parameters (suction m, Ks m/s, IMDmax) a swale
    ///     infiltrates by, nil when the subcatchment uses another method.
    ///   - initialDryTime: SWMM's `DRY_DAYS` in seconds.
    init(usage: LIDUsage, subcatchment: String, swaleSoil: (Double, Double, Double)?, initialDryTime: Double) {
        self.usage = usage
        let c = usage.control.completed()
        control = c
        dryTime = initialDryTime
        nextRegenerationDay = c.pavement.regenerationDays
        balance = LIDPerformance(subcatchment: subcatchment, control: c.name)
        var stored = 0.0
        if c.soil.thickness > 0 {
            soilMoisture = c.soil.wiltingPoint + usage.initialSaturation * (c.soil.porosity - c.soil.wiltingPoint)
            stored += soilMoisture * c.soil.thickness
            greenAmpt = LIDGreenAmpt(suction: c.soil.suction, conductivity: c.soil.conductivity,
                                     maxDeficit: (c.soil.porosity - c.soil.wiltingPoint) * (1 - usage.initialSaturation))
        }
        if c.storage.thickness > 0 {
            storageDepth = usage.initialSaturation * c.storage.thickness
            stored += storageDepth * c.storage.voidFraction
        }
        if c.kind == .vegetativeSwale, let (s, k, imd) = swaleSoil, k > 0 {
            greenAmpt = LIDGreenAmpt(suction: s, conductivity: k, maxDeficit: imd)
        }
        balance.initialStorage = stored
        balance.finalStorage = stored
    }

    /// What one step of a unit gives, per unit of LID area (m/s).
    struct Outflow {
        var surface = 0.0, evaporation = 0.0, infiltration = 0.0, drain = 0.0
        /// Whether anything moved this step (SWMM's wet LID, which keeps the wet runoff step).
        var wet = false
    }

    /// Advances the unit by `dt` seconds.
    /// - Parameters:
    ///   - inflow: runoff treated plus rain (and run-on) onto the unit, m/s.
    ///   - evaporation: potential evaporation, m/s.
    ///   - nativeInfiltration: the subcatchment's infiltration rate into native soil, m/s.
    ///   - maxNativeInfiltration: the most the native soil takes, m/s (an aquifer's upper-zone room
    ///     over the step; SWMM's BIG, 1e10, without one).
    ///   - day: days since the start at the step's start (pavement regeneration).
    mutating func step(inflow: Double, evaporation: Double, nativeInfiltration: Double, maxNativeInfiltration: Double = 1e10,
                       dt: Double, day: Double) -> Outflow {
        var f = LIDFluxes(control: control, width: usage.width, area: usage.unitArea, dt: dt, evaporation: evaporation,
                          maxNativeInfiltration: maxNativeInfiltration, dryTime: dryTime, oldDrainFlow: oldDrainFlow, treatedInflow: balance.inflow)
        f.surfaceInflow = inflow
        if control.pavement.clogDepth > 0 { f.paveConductivity = pavementConductivity(day: day) }
        if control.kind == .permeablePavement {
            f.surfaceInfil = 0
        } else if greenAmpt != nil {
            f.surfaceInfil = greenAmpt!.rate(dt: dt, supply: inflow, depth: surfaceDepth)
        } else {
            f.surfaceInfil = nativeInfiltration
        }
        var x = LIDLevels(surface: surfaceDepth, soil: soilMoisture, storage: storageDepth, pavement: paveDepth)
        var lower = LIDLevels(), upper = LIDLevels(surface: 1e10, soil: 1e10, storage: 1e10, pavement: 1e10)
        if control.soil.thickness > 0 { lower.soil = control.soil.wiltingPoint; upper.soil = control.soil.porosity }
        if control.pavement.thickness > 0 { upper.pavement = control.pavement.thickness }
        if control.storage.thickness > 0 { upper.storage = control.storage.thickness }
        if control.kind == .greenRoof { upper.storage = control.drainageMat.thickness }
        let rates = solve(&x, &f, lower: lower, upper: upper, dt: dt, omega: control.kind == .vegetativeSwale ? 0.5 : 0)
        if control.canOverflow || usage.width == 0 {
            let excess = x.surface - control.surface.thickness
            if excess > 0 {
                x.surface = control.surface.thickness
                f.surfaceOutflow += excess * control.surface.voidFraction / dt
            }
        }
        surfaceDepth = x.surface; paveDepth = x.pavement; soilMoisture = x.soil; storageDepth = x.storage
        oldFluxes = rates
        let evap = f.surfaceEvap + f.paveEvap + f.soilEvap + f.storageEvap
        let stored = f.surfaceVolume + f.paveVolume + f.soilVolume + f.storageVolume
        treated += f.surfaceInflow * dt
        balance.inflow += f.surfaceInflow * dt
        balance.evaporation += evap * dt
        balance.infiltration += f.storageExfil * dt
        balance.surfaceOutflow += f.surfaceOutflow * dt
        balance.drainOutflow += f.storageDrain * dt
        balance.finalStorage = stored
        // SWMM's MINFLOW, 0.001 in/h.
        let least = 2.3e-8 * 0.3048
        let wet = !(f.surfaceInflow < least && f.surfaceOutflow < least && f.storageDrain < least && f.storageExfil < least && evap < least)
        return Outflow(surface: f.surfaceOutflow, evaporation: evap, infiltration: f.storageExfil, drain: f.storageDrain, wet: wet)
    }

    /// Pavement permeability reduced by clogging, with regeneration every `regenerationDays`.
    private mutating func pavementConductivity(day: Double) -> Double {
        let p = control.pavement
        if p.regenerationDays > 0, day >= nextRegenerationDay {
            treated *= 1 - p.regenerationDegree
            nextRegenerationDay += p.regenerationDays
        }
        return p.conductivity * (1 - min(treated / p.clogDepth, 1))
    }

    /// SWMM's `modpuls_solve`: x = x₀ + (ω·q₀ + (1 − ω)·q(x))·dt within the layer limits; with
    /// ω = 0 one explicit step, else iterations until every level moves less than 1 mm (20 at most).
    private func solve(_ x: inout LIDLevels, _ f: inout LIDFluxes, lower: LIDLevels, upper: LIDLevels, dt: Double, omega: Double) -> LIDLevels {
        let start = x
        var previous = x
        var q = LIDLevels()
        for _ in 1..<20 {
            q = f.rates(x)
            var done = true
            x = LIDLevels(surface: start.surface + (omega * oldFluxes.surface + (1 - omega) * q.surface) * dt,
                          soil: start.soil + (omega * oldFluxes.soil + (1 - omega) * q.soil) * dt,
                          storage: start.storage + (omega * oldFluxes.storage + (1 - omega) * q.storage) * dt,
                          pavement: start.pavement + (omega * oldFluxes.pavement + (1 - omega) * q.pavement) * dt)
            x.clamp(lower, upper)
            if omega > 0 {
                // SWMM's STOPTOL, 0.00328 in the level's own unit (ft, or a moisture fraction).
                if abs(x.surface - previous.surface) > 0.001 || abs(x.soil - previous.soil) > 0.00328
                    || abs(x.storage - previous.storage) > 0.001 || abs(x.pavement - previous.pavement) > 0.001 { done = false }
            }
            previous = x
            if done { break }
        }
        return q
    }
}

/// The four water levels of a LID unit, or their rates of change.
struct LIDLevels: Sendable {
    var surface = 0.0, soil = 0.0, storage = 0.0, pavement = 0.0

    mutating func clamp(_ lower: LIDLevels, _ upper: LIDLevels) {
        surface = max(min(surface, upper.surface), lower.surface)
        soil = max(min(soil, upper.soil), lower.soil)
        storage = max(min(storage, upper.storage), lower.storage)
        pavement = max(min(pavement, upper.pavement), lower.pavement)
    }
}
