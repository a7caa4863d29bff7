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
    /// Horton: equivalent time on the decay curve (s). Curve number: time since rain (s).
    var tp = 0.0
    /// Cumulative infiltrated volume counted against a cap or curve, m.
    var fe = 0.0
    // Green-Ampt state.
    var gaF = 0.0, gaFu = 0.0, gaIMD = 0.0, gaSat = false, gaT = 0.0
    // Curve-number state: cumulative precipitation P (m), retention S (m).
    var cnP = 0.0, cnS = 0.0
    /// Multiplier of the capacity's recovery in dry weather for the current step (SWMM's
    /// `[EVAPORATION] RECOVERY` monthly pattern, `Evap.recoveryFactor`); 1 without one.
    public var recoveryFactor = 1.0
    /// Multiplier of the capacity for the current step (SWMM's `InfilFactor`: `[ADJUSTMENTS]`
    /// CONDUCTIVITY or the subcatchment's INFIL pattern): Horton's f₀ and f_min, Green-Ampt's
    /// conductivity (and so its upper-zone depth); 1 without one.
    public var conductivityFactor = 1.0

    public init(_ model: Infiltration) {
        self.model = model
        if case .greenAmpt(_, _, let imd, _) = model { gaIMD = imd }
        if case .curveNumber(let cn, _) = model { cnS = (1000 / cn - 10) * 0.0254 }
    }

    /// Infiltration rate over a step, m/s.
    /// - Parameters:
    ///   - step: seconds.
    ///   - supply: rainfall + run-on reaching the surface, m/s.
    ///   - depth: ponded depth at the start of the step, m.
    public mutating func rate(step: Double, supply: Double, depth: Double) -> Double {
        switch model {
        case .none: return 0
        case let .horton(f0, fmin, kd, kr, fmax):
            return horton(f0 * conductivityFactor, fmin * conductivityFactor, kd, kr * recoveryFactor, fmax, step, supply, depth)
        case let .modifiedHorton(f0, fmin, kd, kr, fmax):
            return modifiedHorton(f0 * conductivityFactor, fmin * conductivityFactor, kd, kr * recoveryFactor, fmax, step, supply, depth)
        case let .greenAmpt(s, ks, imd, modified): return greenAmpt(s, ks * conductivityFactor, imd, modified, step, supply, depth)
        case let .curveNumber(_, dry): return curveNumber(dry, step, supply, depth)
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

    mutating func greenAmpt(_ psi: Double, _ ks: Double, _ imdMax: Double, _ modified: Bool,
                            _ dt: Double, _ irate: Double, _ depth: Double) -> Double {
        let ksInPerHour = ks / 0.0254 * 3600
        let lu = 4 * sqrt(max(ksInPerHour, 0)) * 0.0254           // upper-zone depth, m
        let fuMax = imdMax * lu
        // Recovery constant (1/s) and minimum recovery time (s), both scaled by the recovery
        // factor as SWMM's grnampt_getInfil.
        let kr = sqrt(max(ksInPerHour, 0)) / 75 / 3600 * recoveryFactor
        let tr = 4.5 / max(sqrt(max(ksInPerHour, 0)), 1e-9) * 3600 / max(recoveryFactor, 1e-12)
        let ia = irate + (modified ? 0 : depth / dt)
        if ia <= 1e-12 {
            // Drying: the upper zone drains and the deficit recovers.
            gaT -= dt
            gaFu = max(0, gaFu - kr * fuMax * dt)
            if gaT <= 0 {
                gaIMD = min(imdMax, gaIMD + kr * imdMax * dt)
                gaSat = false
                gaF = 0
                gaFu = max(0, gaFu)
            }
            return 0
        }
        gaT = tr
        let c1 = (psi + depth) * gaIMD
        func saturated(_ t: Double) -> Double {
            // F₂ − F₁ − c₁ ln[(F₂ + c₁)/(F₁ + c₁)] = Ks·t, by Newton from F₁ + Ks·t.
            let f1 = gaF
            var f2 = f1 + ks * t
            if c1 <= 0 { return f2 }
            for _ in 0..<30 {
                let g = f2 - f1 - c1 * log((f2 + c1) / (f1 + c1)) - ks * t
                let dg = 1 - c1 / (f2 + c1)
                let step = g / max(dg, 1e-12)
                f2 = max(f1, f2 - step)
                if abs(step) < 1e-12 { break }
            }
            return f2
        }
        var infiltrated: Double
        if gaSat {
            infiltrated = min(saturated(dt) - gaF, ia * dt)
            if infiltrated >= ia * dt { gaSat = false }
        } else if ia <= ks {
            infiltrated = ia * dt
        } else {
            let fs = ks * (psi + depth) * gaIMD / (ia - ks)
            if gaF >= fs {
                gaSat = true
                infiltrated = min(saturated(dt) - gaF, ia * dt)
            } else if gaF + ia * dt < fs {
                infiltrated = ia * dt
            } else {
                let ts = dt - (fs - gaF) / ia
                let f0 = gaF
                gaF = fs
                gaSat = true
                infiltrated = (fs - f0) + max(0, min(saturated(ts) - fs, ia * ts))
                gaF = f0
            }
        }
        infiltrated = max(0, infiltrated)
        gaF += infiltrated
        gaFu = min(fuMax, gaFu + infiltrated)
        return infiltrated / dt
    }

    mutating func curveNumber(_ dry: Double, _ dt: Double, _ irate: Double, _ depth: Double) -> Double {
        let sMax: Double
        if case .curveNumber(let cn, _) = model { sMax = (1000 / cn - 10) * 0.0254 } else { return 0 }
        if irate > 1e-12 {
            tp = 0
            let p0 = cnP
            cnP += irate * dt
            let fOld = p0 > 0 ? p0 * cnS / (p0 + cnS) : 0
            let fNew = cnP * cnS / (cnP + cnS)
            return max(0, min((fNew - fOld) / dt, irate + depth / dt))
        }
        tp += dt
        if dry > 0 {
            cnS = min(sMax, cnS + sMax * dt / dry * recoveryFactor)
            if tp >= dry { cnP = 0 }
        }
        return min(depth / dt, 0)
    }
}
