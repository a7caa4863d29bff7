import Foundation

/// Green–Ampt infiltration, SWMM 5.2's `grnampt` object (`infil.c`), SI: m, m/s, s. A
/// subcatchment's pervious area uses it as `[OPTIONS] INFILTRATION` says (GREEN_AMPT or
/// MODIFIED_GREEN_AMPT); a LID's surface as the modified method (the LID soil layer's own
/// parameters, or a swale's subcatchment's). SWMM sizes the upper zone and its recovery in feet
/// (Mein's equation), so those constants are kept in feet here.
struct LIDGreenAmpt: Sendable, Hashable {
    /// Suction head (m), saturated conductivity (m/s), maximum initial moisture deficit.
    let suction: Double, conductivity: Double, maxDeficit: Double
    /// Upper-zone depth in feet (SWMM: 4·√(Ks in/h)/12).
    let upperZoneFeet: Double
    /// The modified method (SWMM's MOD_GREEN_AMPT): rain below Ks does not start a new event.
    let modified: Bool
    private(set) var deficit: Double
    private var infiltrated = 0.0, upperZone = 0.0
    private var saturated = false
    private var recoveryTime = 0.0

    init(suction: Double, conductivity: Double, maxDeficit: Double, modified: Bool = true) {
        self.suction = suction; self.conductivity = conductivity; self.maxDeficit = maxDeficit
        self.modified = modified
        upperZoneFeet = 4 * (conductivity / 0.0254 * 3600).squareRoot() / 12
        deficit = maxDeficit
    }

    /// The step's soil: conductivity scaled by `[ADJUSTMENTS]` (SWMM's InfilFactor), the upper
    /// zone by its square root (Mein's equation on the scaled conductivity), recovery by the
    /// month's RECOVERY factor (Evap.recoveryFactor).
    private struct Step {
        let ks: Double, luFeet: Double, fuMax: Double, recovery: Double
        var lu: Double { luFeet * 0.3048 }
    }

    /// The infiltration rate over `dt` for a supply `rate` (m/s, without ponded water) onto water
    /// ponded `depth` deep.
    /// - Parameters:
    ///   - conductivityFactor: multiplier of Ks for this step (SWMM's InfilFactor), 1 without one.
    ///   - recoveryFactor: multiplier of the dry-weather recovery (the `[EVAPORATION] RECOVERY`
    ///     pattern's month), 1 without one.
    mutating func rate(dt: Double, supply rate: Double, depth: Double,
                       conductivityFactor: Double = 1, recoveryFactor: Double = 1) -> Double {
        let root = conductivityFactor.squareRoot()
        let luFeet = upperZoneFeet * root
        let step = Step(ks: conductivity * conductivityFactor, luFeet: luFeet,
                        fuMax: maxDeficit * luFeet * 0.3048, recovery: recoveryFactor)
        recoveryTime -= dt
        return saturated ? saturatedRate(dt, rate, depth, step) : unsaturatedRate(dt, rate, depth, step)
    }

    private mutating func unsaturatedRate(_ dt: Double, _ rate: Double, _ depth: Double, _ k: Step) -> Double {
        let fuMax = k.fuMax, lu = k.lu
        var ia = rate + depth / dt
        if ia < 3.048e-11 { ia = 0 }
        if ia == 0 {
            // Dry: the upper zone drains and, once the event is over, the deficit recovers.
            guard upperZone > 0 else { return 0 }
            let drained = k.luFeet / 90_000 * k.recovery * fuMax * dt
            infiltrated -= drained
            upperZone -= drained
            if upperZone <= 0 {
                upperZone = 0; infiltrated = 0; deficit = maxDeficit
                return 0
            }
            if recoveryTime <= 0 { deficit = (fuMax - upperZone) / lu; infiltrated = 0 }
            return 0
        }
        if ia <= k.ks {
            infiltrated += ia * dt
            upperZone = min(upperZone + ia * dt, fuMax)
            if !modified, recoveryTime <= 0 { deficit = (fuMax - upperZone) / lu; infiltrated = 0 }
            return ia
        }
        recoveryTime = 5400 / k.luFeet / k.recovery
        let fs = k.ks * (suction + depth) * deficit / (ia - k.ks)
        if infiltrated > fs {
            saturated = true
            return saturatedRate(dt, rate, depth, k)
        }
        if infiltrated + ia * dt < fs {
            infiltrated += ia * dt
            upperZone = min(upperZone + ia * dt, fuMax)
            return ia
        }
        let ts = max(0, dt - (fs - infiltrated) / ia)
        var f2 = Self.cumulative(from: fs, c1: (suction + depth) * deficit, ks: k.ks, dt: ts)
        f2 = min(f2, fs + ia * ts)
        let df = f2 - infiltrated
        infiltrated = f2
        upperZone = min(upperZone + df, fuMax)
        saturated = true
        return df / dt
    }

    private mutating func saturatedRate(_ dt: Double, _ rate: Double, _ depth: Double, _ k: Step) -> Double {
        let ia = rate + depth / dt
        if ia < 3.048e-11 { return 0 }
        recoveryTime = 5400 / k.luFeet / k.recovery
        let f2 = Self.cumulative(from: infiltrated, c1: (suction + depth) * deficit, ks: k.ks, dt: dt)
        var df = f2 - infiltrated
        if df > ia * dt { df = ia * dt; saturated = false }
        infiltrated += df
        upperZone = min(upperZone + df, k.fuMax)
        return df / dt
    }

    /// Cumulative infiltration after `dt` of saturated Green–Ampt flow from `f1` (m), SWMM's
    /// explicit form for short steps, else Newton on the integrated equation.
    static func cumulative(from f1: Double, c1: Double, ks: Double, dt: Double) -> Double {
        let least = f1 + ks * dt
        if c1 == 0 { return least }
        if dt < 10, f1 > 0.01 * c1 { return max(f1 + ks * (1 + c1 / f1) * dt, least) }
        let c2 = c1 * log(f1 + c1) - ks * dt
        var f2 = f1
        for _ in 0..<20 {
            let step = (f2 - f1 - c1 * log(f2 + c1) + c2) / (1 - c1 / (f2 + c1))
            // SWMM's tolerance is 1e-5 ft.
            if abs(step) < 0.00001 * 0.3048 { return max(f2, least) }
            f2 -= step
        }
        return least
    }
}
