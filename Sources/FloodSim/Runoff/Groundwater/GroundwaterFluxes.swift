import Foundation

/// The water fluxes of a two-zone aquifer at one state, per unit subcatchment area (m/s): SWMM
/// 5.2's `getFluxes` (evaporation from each zone, percolation from the upper to the lower zone,
/// loss to deep groundwater, lateral flow to the node).
struct GroundwaterFluxes: Sendable, Hashable {
    var upperEvaporation = 0.0
    var lowerEvaporation = 0.0
    var percolation = 0.0
    var deepLoss = 0.0
    var lateral = 0.0

    /// What stays fixed over one runoff step: the setup, the surface's infiltration and the
    /// evaporation it leaves, the heights of the node (above the aquifer bottom) and the limits.
    struct Law: Sendable {
        let setup: SubcatchmentGroundwater
        /// Infiltration from the surface over the whole area, m/s.
        let infiltration: Double
        let maxEvaporation: Double
        let availableEvaporation: Double
        let totalDepth: Double
        /// Height of the flow threshold (Hcb) and of the node's water surface (Hsw), m.
        let hstar: Double
        let hsw: Double
        let dt: Double
        var maxUpperPercolation = 0.0
        var maxFlowPositive = 0.0
        var maxFlowNegative = 0.0

        init(setup: SubcatchmentGroundwater, infiltration: Double, maxEvaporation: Double, availableEvaporation: Double,
             totalDepth: Double, hstar: Double, hsw: Double, dt: Double) {
            self.setup = setup; self.infiltration = infiltration; self.maxEvaporation = maxEvaporation
            self.availableEvaporation = availableEvaporation; self.totalDepth = totalDepth; self.hstar = hstar
            self.hsw = hsw; self.dt = dt
        }

        func fluxes(theta: Double, lowerDepth raw: Double) -> GroundwaterFluxes {
            let a = setup.aquifer
            let lowerDepth = min(max(raw, 0), totalDepth)
            let upperDepth = totalDepth - lowerDepth
            var f = GroundwaterFluxes()
            // Evaporation from the zones only when nothing infiltrates.
            if infiltration <= 0 {
                let upperFraction = a.upperEvaporationFraction
                if theta > a.wiltingPoint { f.upperEvaporation = min(upperFraction * maxEvaporation, availableEvaporation) }
                if a.lowerEvaporationDepth > 0 {
                    let reach = min(max((a.lowerEvaporationDepth - upperDepth) / a.lowerEvaporationDepth, 0), 1)
                    f.lowerEvaporation = min(reach * (1 - upperFraction) * maxEvaporation, availableEvaporation - f.upperEvaporation)
                }
            }
            // Percolation: unsaturated conductivity times the mean head gradient of the upper zone.
            if upperDepth > 0 && theta > a.fieldCapacity {
                let conductivity = a.conductivity * exp((theta - a.porosity) * a.conductivitySlope)
                let gradient = 1 + a.tensionSlope * 2 * (theta - a.fieldCapacity) / upperDepth
                f.percolation = min(conductivity * gradient, maxUpperPercolation)
            }
            f.deepLoss = min(a.lowerLossCoefficient * lowerDepth / totalDepth, lowerDepth / dt)
            let q = lateralFlow(lowerDepth)
            f.lateral = q >= 0 ? min(q, maxFlowPositive) : max(q, maxFlowNegative)
            return f
        }

        /// The flow law A1·(Hgw − Hcb)^B1 − A2·(Hsw − Hcb)^B2 + A3·Hgw·Hsw in the model's units,
        /// returned in m/s; nothing while the water table is at or below Hcb.
        func lateralFlow(_ hgw: Double) -> Double {
            guard hgw > hstar else { return 0 }
            let g = setup, unit = g.lawLength
            let t1 = g.b1 == 0 ? g.a1 : g.a1 * pow((hgw - hstar) / unit, g.b1)
            let t2 = g.b2 == 0 ? g.a2 : (hsw > hstar ? g.a2 * pow((hsw - hstar) / unit, g.b2) : 0)
            let t3 = g.a3 * (hgw / unit) * (hsw / unit)
            let q = (t1 - t2 + t3) * g.lawFlow
            return q < 0 && g.a3 != 0 ? 0 : q
        }

        /// dθ/dt and d(lower depth)/dt.
        func derivatives(_ x: SIMD2<Double>) -> SIMD2<Double> {
            let f = fluxes(theta: x[0], lowerDepth: x[1])
            let upperNet = infiltration - f.upperEvaporation - f.percolation
            let lowerNet = f.percolation - f.deepLoss - f.lowerEvaporation - f.lateral
            let upperDepth = totalDepth - x[1], deficit = setup.aquifer.porosity - x[0]
            return SIMD2(upperDepth > 0 ? upperNet / upperDepth : 0, deficit > 0 ? lowerNet / deficit : 0)
        }
    }
}

/// Adaptive fifth-order Runge–Kutta (Cash–Karp) for a system of two ODEs, with the step control of
/// SWMM's `odesolve.c` (error scaled by |y| + |h·dy/dx| per step, shrink to at least a tenth,
/// grow at most fivefold). Returns the start state unchanged when the step size collapses, as
/// SWMM does.
enum CashKarp2 {
    static func integrate(_ start: SIMD2<Double>, over span: Double, tolerance eps: Double,
                          _ f: (SIMD2<Double>) -> SIMD2<Double>) -> SIMD2<Double> {
        var y = start, x = 0.0, h = span
        for _ in 0..<10_000 {
            let dydx = f(y)
            let scale = SIMD2(abs(y[0]) + abs(dydx[0] * h), abs(y[1]) + abs(dydx[1] * h)) + SIMD2(repeating: 1e-30)
            if x + h > span { h = span - x }
            var next = 0.0
            while true {
                let (candidate, error) = step(y, dydx, h, f)
                let ratio = max(abs(error[0] / scale[0]), abs(error[1] / scale[1])) / eps
                if ratio > 1 {
                    h = max(0.9 * h * pow(ratio, -0.25), 0.1 * h)
                    if x + h == x { return start }
                    continue
                }
                next = ratio > 1.89e-4 ? 0.9 * h * pow(ratio, -0.2) : 5 * h
                x += h
                y = candidate
                break
            }
            if x >= span { return y }
            if next <= 0 { return start }
            h = next
        }
        return start
    }

    static func step(_ y: SIMD2<Double>, _ k1: SIMD2<Double>, _ h: Double,
                     _ f: (SIMD2<Double>) -> SIMD2<Double>) -> (SIMD2<Double>, SIMD2<Double>) {
        CashKarp.stage(y, k1, h, f)
    }
}
