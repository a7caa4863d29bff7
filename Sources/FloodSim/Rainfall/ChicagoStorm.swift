import Foundation
import SWMMFormat

/// The Chicago (Keifer–Chu 1957) design hyetograph of a storm-intensity formula
/// (`shared/reference/flood.md` §2.3): any window of length D around the peak holds exactly the
/// formula's depth H(D) = a·D/(D + b)ⁿ, split r before the peak and 1 − r after it.
public struct ChicagoStorm: Sendable, Hashable {
    public var formula: StormIntensityFormula
    /// Return period P in years.
    public var returnPeriod: Double
    /// Storm duration T in minutes.
    public var duration: Double
    /// Peak position r (0…1), usually 0.35–0.45.
    public var peakRatio: Double

    public init(formula: StormIntensityFormula, returnPeriod: Double, duration: Double, peakRatio: Double) {
        self.formula = formula
        self.returnPeriod = returnPeriod
        self.duration = duration
        self.peakRatio = peakRatio
    }

    /// a = A₁(1 + C lg P), mm/min.
    var a: Double { formula.a1 * (1 + formula.c * log10(returnPeriod)) }

    /// Depth of the formula's t-minute rain, mm: H(t) = a·t/(t + b)ⁿ.
    public func windowDepth(minutes t: Double) -> Double { t <= 0 ? 0 : a * t / pow(t + formula.b, formula.n) }

    /// Cumulative depth from the storm start to `t` minutes, mm.
    public func cumulativeDepth(minutes t: Double) -> Double {
        let r = min(max(peakRatio, 0), 1)
        let tp = r * duration
        let t = min(max(t, 0), duration)
        let before = r * windowDepth(minutes: duration)
        if t <= tp {
            return r > 0 ? before - r * windowDepth(minutes: (tp - t) / r) : 0
        }
        return before + (1 - r) * windowDepth(minutes: (t - tp) / (1 - r))
    }

    /// Instantaneous intensity at `t` minutes after the start, mm/min (the Keifer–Chu curves).
    public func intensity(minutes t: Double) -> Double {
        let r = peakRatio, n = formula.n, b = formula.b
        let tp = r * duration
        let s = t <= tp ? (tp - t) / r : (t - tp) / (1 - r)
        return a * ((1 - n) * s + b) / pow(s + b, 1 + n)
    }

    /// The storm in intervals of `step` minutes starting at time 0: depths conserve H(T) exactly.
    /// - Parameter step: interval length in minutes (> 0).
    public func hyetograph(step: Double) -> Hyetograph {
        guard step > 0, duration > 0 else { return Hyetograph(starts: [], intensities: [], lastInterval: 0) }
        let count = Int((duration / step).rounded(.up))
        let depths = (0..<count).map { k in
            cumulativeDepth(minutes: min(Double(k + 1) * step, duration)) - cumulativeDepth(minutes: Double(k) * step)
        }
        return Hyetograph(depthsMillimetres: depths, interval: step * 60)
    }
}
