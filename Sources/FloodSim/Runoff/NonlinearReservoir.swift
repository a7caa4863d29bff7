import Foundation

/// One subarea of a subcatchment as SWMM 5's nonlinear reservoir (`src/solver/subcatch.c`):
/// dd/dt = i* − α(d − d_s)^{5/3}, with α = W·√S/(n·A) in SI (m^{1/3}/s) and runoff per unit area
/// α(d − d_s)^{5/3} (m/s). Depths in metres, times in seconds.
public struct NonlinearReservoir: Sendable, Hashable {
    /// α, m^{-2/3}·s^{-1}·m = SI Manning coefficient over area (0 = no routing).
    public var alpha: Double
    /// Depression storage d_s, m.
    public var depressionStorage: Double
    /// Manning's n (0 means runoff leaves in one step, as SWMM does).
    public var roughness: Double
    /// Ponded depth, m.
    public var depth = 0.0

    public init(alpha: Double, depressionStorage: Double, roughness: Double) {
        self.alpha = alpha
        self.depressionStorage = depressionStorage
        self.roughness = roughness
    }

    /// Steady-state depth for a constant net inflow i* (m/s): d = d_s + (i*/α)^{3/5}.
    public func steadyDepth(netInflow i: Double) -> Double { depressionStorage + pow(max(i, 0) / alpha, 0.6) }

    /// Runoff per unit area at the current depth, m/s.
    public var runoffRate: Double { max(0, depth - depressionStorage) > 1e-12 && roughness > 0 ? alpha * pow(depth - depressionStorage, 5.0 / 3.0) : 0 }

    /// Advances the reservoir over `dt` seconds with net inflow `ix` (m/s, after losses); returns
    /// the runoff rate (m/s) at the end of the step, as SWMM reports it.
    public mutating func advance(netInflow ix: Double, dt: Double) -> Double {
        var tx = dt
        let ds = depressionStorage
        if depth + ix * tx <= ds {
            depth += ix * tx
        } else {
            let dx = ds - depth
            if dx > 0 && ix > 0 {
                tx -= dx / ix
                depth = ds
            }
            if alpha > 0 && tx > 0 {
                let a = alpha
                depth = CashKarp.integrate(depth, over: tx, tolerance: 1e-4) { d in ix - (d > ds ? a * pow(d - ds, 5.0 / 3.0) : 0) }
            } else {
                depth += ix * max(tx, 0)
            }
        }
        depth = max(depth, 0)
        let excess = depth - ds
        guard excess > 1e-12 else { return 0 }
        if roughness > 0 { return alpha * pow(excess, 5.0 / 3.0) }
        depth = ds
        return excess / max(tx, 1e-9)
    }
}

/// Adaptive fifth-order Runge–Kutta (Cash–Karp) for one autonomous ODE, the scheme SWMM's
/// `odesolve.c` uses: relative error per step ≤ `tolerance`.
enum CashKarp {
    static func integrate(_ y0: Double, over span: Double, tolerance eps: Double, _ f: (Double) -> Double) -> Double {
        var y = y0, t = 0.0, h = span
        for _ in 0..<10_000 {
            if t >= span { break }
            if t + h > span { h = span - t }
            let dydx = f(y)
            let scale = abs(y) + abs(dydx * h) + 1e-30
            while true {
                let (yNew, err) = step(y, dydx, h, f)
                let ratio = abs(err / scale) / eps
                if ratio <= 1 {
                    y = yNew
                    t += h
                    h = ratio > 1.89e-4 ? 0.9 * h * pow(ratio, -0.2) : 5 * h
                    break
                }
                h = max(0.9 * h * pow(ratio, -0.25), 0.1 * h)
                if h < 1e-6 { y = yNew; t += h; break }
            }
        }
        return y
    }

    static func step(_ y: Double, _ k1: Double, _ h: Double, _ f: (Double) -> Double) -> (Double, Double) {
        stage(y, k1, h, f)
    }

    /// One Cash–Karp stage for any state with vector arithmetic (one depth, two aquifer zones):
    /// the fifth-order estimate and its difference from the embedded fourth-order one.
    static func stage<V: CashKarpVector>(_ y: V, _ k1: V, _ h: Double, _ f: (V) -> V) -> (V, V) {
        // Written term by term (each a Double times a state) so the generic operators type-check
        // quickly; the arithmetic is the same as the one-depth original's.
        let k2: V = f(y + h * 0.2 * k1)
        let s3: V = 3.0 / 40 * k1 + 9.0 / 40 * k2
        let k3: V = f(y + h * s3)
        let s4: V = 0.3 * k1 - 0.9 * k2 + 1.2 * k3
        let k4: V = f(y + h * s4)
        var s5: V = -11.0 / 54 * k1 + 2.5 * k2
        s5 = s5 - 70.0 / 27 * k3 + 35.0 / 27 * k4
        let k5: V = f(y + h * s5)
        var s6: V = 1631.0 / 55296 * k1 + 175.0 / 512 * k2
        s6 = s6 + 575.0 / 13824 * k3 + 44275.0 / 110592 * k4
        s6 = s6 + 253.0 / 4096 * k5
        let k6: V = f(y + h * s6)
        var fifth: V = 37.0 / 378 * k1 + 250.0 / 621 * k3
        fifth = fifth + 125.0 / 594 * k4 + 512.0 / 1771 * k6
        var fourth: V = 2825.0 / 27648 * k1 + 18575.0 / 48384 * k3
        fourth = fourth + 13525.0 / 55296 * k4 + 277.0 / 14336 * k5
        fourth = fourth + 0.25 * k6
        let y5: V = y + h * fifth, y4: V = y + h * fourth
        return (y5, y5 - y4)
    }
}

/// A state Cash–Karp integrates: sums and differences, and scaling by a number.
protocol CashKarpVector {
    static func + (lhs: Self, rhs: Self) -> Self
    static func - (lhs: Self, rhs: Self) -> Self
    static func * (lhs: Double, rhs: Self) -> Self
}

extension Double: CashKarpVector {}
extension SIMD2: CashKarpVector where Scalar == Double {}
