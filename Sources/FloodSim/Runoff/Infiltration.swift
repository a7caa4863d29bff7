import Foundation

/// Infiltration into a subcatchment's pervious area, SWMM 5.2's methods (`src/solver/infil.c`),
/// in SI: rates in m/s, depths in m, times in s.
public enum Infiltration: Sendable, Hashable {
    /// Horton: f_p = f_min + (f₀ − f_min)e^{−k_d t}, stepped in its cumulative form;
    /// `regeneration` is −ln(0.02)/DryTime (1/s); `maxVolume` caps the total (0 = none).
    case horton(maxRate: Double, minRate: Double, decay: Double, regeneration: Double, maxVolume: Double)
    /// Modified Horton: capacity falls with cumulative infiltration beyond f_min, not with time.
    case modifiedHorton(maxRate: Double, minRate: Double, decay: Double, regeneration: Double, maxVolume: Double)
    /// Green-Ampt: suction head (m), saturated conductivity (m/s), initial moisture deficit.
    case greenAmpt(suction: Double, conductivity: Double, initialDeficit: Double, modified: Bool)
    /// SCS curve number with regeneration over `dryTime` seconds.
    case curveNumber(curveNumber: Double, dryTime: Double)
    /// Nothing infiltrates.
    case none
}

/// The running state of one subcatchment's infiltration.
public struct InfiltrationState: Sendable {
    public let model: Infiltration
    /// Horton: equivalent time on the decay curve (s).
    var tp = 0.0
    /// Cumulative infiltrated volume counted against a cap or curve, m.
    var fe = 0.0
    /// Green-Ampt state (SWMM's grnampt object).
    var ga: LIDGreenAmpt?
    /// Curve-number state (SWMM's TCurveNum): retention capacity S (m), the event's cumulative
    /// rainfall P and infiltration F (m), time since rain T (s), the event's starting retention
    /// Se (m) and the last step's rate f (m/s).
    var cnS = 0.0, cnP = 0.0, cnF = 0.0, cnT = 0.0, cnSe = 0.0, cnRate = 0.0
    /// Multiplier of the capacity's recovery in dry weather for the current step (SWMM's
    /// `[EVAPORATION] RECOVERY` monthly pattern, `Evap.recoveryFactor`); 1 without one.
    public var recoveryFactor = 1.0
    /// Multiplier of the capacity for the current step (SWMM's `InfilFactor`: `[ADJUSTMENTS]`
    /// CONDUCTIVITY or the subcatchment's INFIL pattern): Horton's f₀ and f_min, Green-Ampt's
    /// conductivity (and so its upper-zone depth); 1 without one.
    public var conductivityFactor = 1.0

    public init(_ model: Infiltration) {
        self.model = model
        if case let .greenAmpt(psi, ks, imd, modified) = model {
            ga = LIDGreenAmpt(suction: psi, conductivity: ks, maxDeficit: imd, modified: modified)
        }
        if case .curveNumber = model { cnS = curveNumberMaxRetention; cnSe = cnS }
    }

    /// The curve number's largest retention, m (SWMM clamps the number to 10–99).
    var curveNumberMaxRetention: Double {
        guard case .curveNumber(let cn, _) = model else { return 0 }
        return max(0, (1000 / min(99, max(10, cn)) - 10) * 0.0254)
    }

    /// Infiltration rate over a step, m/s.
    /// - Parameters:
    ///   - step: seconds.
    ///   - supply: rainfall + run-on reaching the surface, m/s.
    ///   - depth: ponded depth at the start of the step, m.
    public mutating func rate(step: Double, supply: Double, depth: Double) -> Double {
        rate(step: step, rainfall: supply, runon: 0, depth: depth)
    }

    /// Infiltration rate over a step, m/s, SWMM's `infil_getInfil`: the curve number counts
    /// run-on as ponded water, not as rain; the other methods take their sum.
    /// - Parameters:
    ///   - step: seconds.
    ///   - rainfall: rainfall reaching the surface, m/s.
    ///   - runon: inflow from other subareas or subcatchments, m/s.
    ///   - depth: ponded depth at the start of the step, m.
    public mutating func rate(step: Double, rainfall: Double, runon: Double, depth: Double) -> Double {
        let supply = rainfall + runon
        switch model {
        case .none: return 0
        case let .horton(f0, fmin, kd, kr, fmax):
            return horton(f0 * conductivityFactor, fmin * conductivityFactor, kd, kr * recoveryFactor, fmax, step, supply, depth)
        case let .modifiedHorton(f0, fmin, kd, kr, fmax):
            return modifiedHorton(f0 * conductivityFactor, fmin * conductivityFactor, kd, kr * recoveryFactor, fmax, step, supply, depth)
        case .greenAmpt:
            return ga?.rate(dt: step, supply: supply, depth: depth, conductivityFactor: conductivityFactor,
                            recoveryFactor: recoveryFactor) ?? 0
        case let .curveNumber(_, dry): return curveNumber(dry, step, rainfall, depth + runon * step)
        }
    }

    /// Horton's cumulative infiltration at time t on the decay curve, m.
    public static func hortonCumulative(maxRate f0: Double, minRate fmin: Double, decay kd: Double, time t: Double) -> Double {
        fmin * t + (f0 - fmin) / kd * (1 - exp(-kd * t))
    }

    mutating func horton(_ f0: Double, _ fmin: Double, _ kd: Double, _ kr: Double, _ fmax: Double,
                         _ dt: Double, _ irate: Double, _ depth: Double) -> Double {
        let df = f0 - fmin
        if df < 0 || kd < 0 || kr < 0 { return 0 }
        let fa = irate + depth / dt
        if df == 0 || kd == 0 { return max(0, min(f0, fa)) }
        var fp = 0.0
        if fa > 1e-10 {
            let t1 = tp + dt
            let tlim = 16 / kd
            let Fp: Double, F1: Double
            if tp >= tlim {
                Fp = fmin * tp + df / kd
                F1 = Fp + fmin * dt
            } else {
                Fp = Self.hortonCumulative(maxRate: f0, minRate: fmin, decay: kd, time: tp)
                F1 = Self.hortonCumulative(maxRate: f0, minRate: fmin, decay: kd, time: t1)
            }
            fp = max((F1 - Fp) / dt, fmin)
            if fmax > 0 { fp = max(0, min(fp, (fmax - fe) / dt)) }
            if t1 > tlim {
                tp = t1
                fp = min(fp, fa)
            } else if fp < fa {
                tp = t1
            } else {
                // Capacity exceeds supply: infiltrate what is there, move along the curve to where
                // the cumulative volume matches (Newton on F(t) = Fp + fa·dt).
                fp = fa
                let target = Fp + fp * dt
                var t = tp + dt / 2
                for _ in 0..<20 {
                    let ex = exp(-min(60, kd * t))
                    let f = fmin * t + df / kd * (1 - ex) - target
                    let d = fmin + df * ex
                    let r = f / d
                    t -= r
                    if abs(r) <= 0.001 * dt { break }
                }
                tp = max(0, t)
            }
            if fmax > 0 { fe += fp * dt }
        } else if kr > 0 {
            // Recovery: the capacity regenerates, 1 − e^{−k_d t_p} decaying by e^{−k_r dt} (SWMM's
            // horton_getInfil), so the decay-curve position moves back toward 0.
            let r = exp(-kr * dt)
            tp = -log(1 - r * (1 - exp(-kd * tp))) / kd
            if fmax > 0 { fe = Self.hortonCumulative(maxRate: f0, minRate: fmin, decay: kd, time: tp) }
        }
        return fp
    }

    mutating func modifiedHorton(_ f0: Double, _ fmin: Double, _ kd: Double, _ kr: Double, _ fmax: Double,
                                 _ dt: Double, _ irate: Double, _ depth: Double) -> Double {
        let df = f0 - fmin
        if df < 0 || kd < 0 || kr < 0 { return 0 }
        let fa = irate + depth / dt
        if df == 0 || kd == 0 { return max(0, min(f0, fa)) }
        var fp = 0.0
        if fa > 1e-10 {
            fp = max(f0 - kd * fe, fmin)
            fp = min(fp, fa)
            if fmax > 0 { fp = max(0, min(fp, (fmax - tp) / dt)) }
            fe += max(0, fp - fmin) * dt
            tp += fp * dt
        } else if kr > 0 {
            fe *= exp(-kr * dt)
            tp *= exp(-kr * dt)
        }
        return fp
    }

    /// SWMM's `curvenum_getInfil`: `irate` is the rainfall, `depth` the ponded water and the
    /// step's run-on, m. The retention S falls with what infiltrates and regenerates over the
    /// drying time (scaled by the RECOVERY factor) while nothing does; an event starts afresh
    /// (P, F reset, Se = S) after 0.06 of the drying time without rain.
    mutating func curveNumber(_ dry: Double, _ dt: Double, _ irate: Double, _ depth: Double) -> Double {
        guard dry > 0 else { return 0 }   // SWMM refuses a drying time ≤ 0
        let regen = 1 / dry
        let sMax = curveNumberMaxRetention
        let fa = irate + depth / dt
        var f1 = 0.0
        if irate > 3.048e-11 {
            if cnT >= 0.06 / regen {
                cnP = 0; cnF = 0; cnRate = 0; cnSe = cnS
            }
            cnT = 0
            cnP += irate * dt
            let F1 = cnP * (1 - cnP / (cnP + cnSe))
            f1 = (F1 - cnF) / dt
            if f1 < 0 || cnS <= 0 { f1 = 0 }
        } else if depth > 0.004167 * 0.3048, cnS > 0 {
            // Ponded water without rain keeps infiltrating at the last rate.
            f1 = cnRate
            if f1 * dt > cnS { f1 = cnS / dt }
        } else {
            cnT += dt
        }
        if f1 > 0 {
            f1 = max(0, min(f1, fa))
            cnF += f1 * dt
            cnS = max(0, cnS - f1 * dt)
        } else {
            cnS = min(sMax, cnS + regen * sMax * dt * recoveryFactor)
        }
        cnRate = f1
        return f1
    }
}
