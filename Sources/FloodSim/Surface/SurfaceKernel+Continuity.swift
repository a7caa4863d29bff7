import CSurfaceSweeps
import Foundation

// The limiter and continuity sweeps of the local inertial scheme (flood.md §4.3).
extension SurfaceKernel {
    // MARK: Limiter

    /// Limiters are scaled by 1 − 2⁻²⁰ so that Float rounding of the limiter and of q·limiter can
    /// never draw a cell below zero (which the clamp would turn into created water).
    static let limiterMargin: Float = 1 - 1.0 / 1_048_576

    /// For each cell of `rows`, the fraction of its computed outflow that its water can supply
    /// in this step (1 when it holds enough). Written `ratio < 1 ? ratio : 1`, so a cell with
    /// no outflow (ratio ∞ or 0/0 = NaN) gets 1.
    func limiter(rows: Range<Int>) {
        let w = width
        for r in rows {
            ct_surface_limiter_row(isa, w, h + r * w, qxNew + r * (w + 1), qyNew + r * w, qyNew + (r + 1) * w,
                                   limit + r * w, dt / dx, SurfaceKernel.limiterMargin)
        }
    }

    // MARK: Continuity

    /// New depths of the cells of `rows` (flood.md §4.3), rain and loss, maximum-depth tracking;
    /// writes each face's limited ("effective") discharge into the old-q buffers, which become
    /// the next step's previous discharge. Partial sums go to the band's slots.
    func continuity(band: Int, rows: Range<Int>) {
        let w = width, hgt = height
        let dt = self.dt
        let k = CTContinuityStep(scale: dt / dx, rain: rainDepth, dt: dt, timeAfterStep: Float(timeAfterStep))
        var lossSum = 0.0, outflow = 0.0, deepest: Float = 0
        for r in rows {
            let lr = limit + r * w
            let qx = qxNew + r * (w + 1), qn = qyNew + r * w
            let ex = qxOld + r * (w + 1), es = qyOld + (r + 1) * w
            lossSum += ct_surface_continuity_row(isa, w, h + r * w, lr, qx, qn, qyNew + (r + 1) * w, ex, es,
                                                 rainWeight + r * w, loss + r * w, maxDepth + r * w, timeOfMax + r * w,
                                                 k, &deepest)
            // Edge faces: the effective discharge and what left through open edges.
            let effWestEdge = qx[0] * lr[0]
            ex[0] = effWestEdge
            outflow += (Double(ex[w]) - Double(effWestEdge)) * dt * dx
            if r == 0 {
                for c in 0..<w {
                    let eff = qn[c] * lr[c]
                    qyOld[c] = eff
                    outflow -= Double(eff) * dt * dx
                }
            }
            if r == hgt - 1 {
                for c in 0..<w { outflow += Double(es[c]) * dt * dx }
            }
        }
        bandLoss[band] = lossSum * dx * dx
        bandOutflow[band] = outflow
        bandMaxDepth[band] = Double(deepest)
    }
}
