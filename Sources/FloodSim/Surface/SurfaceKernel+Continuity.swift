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
        let scale = dt / dx
        let scaleV = D4(repeating: scale)
        let zero = F4(repeating: 0), one = F4(repeating: 1), margin = SurfaceKernel.limiterMargin
        typealias K = SurfaceKernel
        for r in rows {
            let hr = h + r * w, lr = limit + r * w
            let qx = qxNew + r * (w + 1), qn = qyNew + r * w, qs = qyNew + (r + 1) * w
            var c = 0
            while K.vectorised, c &+ 4 <= w {
                let west = -K.load(qx, c), east = K.load(qx, c &+ 1), north = -K.load(qn, c), south = K.load(qs, c)
                let out = (D4(zero.replacing(with: west, where: west .> zero)) + D4(zero.replacing(with: east, where: east .> zero)))
                    + (D4(zero.replacing(with: north, where: north .> zero)) + D4(zero.replacing(with: south, where: south .> zero)))
                let ratio = F4(K.load(hr, c) / (out * scaleV)) * margin
                K.store(one.replacing(with: ratio, where: ratio .< one), lr, c)
                c &+= 4
            }
            while c < w {
                let west = -qx[c], east = qx[c &+ 1], north = -qn[c], south = qs[c]
                let out = (Double(west > 0 ? west : 0) + Double(east > 0 ? east : 0))
                    + (Double(north > 0 ? north : 0) + Double(south > 0 ? south : 0))
                let ratio = Float(hr[c] / (out * scale)) * margin
                lr[c] = ratio < 1 ? ratio : 1
                c &+= 1
            }
        }
    }

    // MARK: Continuity

    /// New depths of the cells of `rows` (flood.md §4.3), rain and loss, maximum-depth tracking;
    /// writes each face's limited ("effective") discharge into the old-q buffers, which become
    /// the next step's previous discharge. Partial sums go to the band's slots.
    func continuity(band: Int, rows: Range<Int>) {
        let w = width, hgt = height
        let scale = dt / dx
        let rain = rainDepth, t1 = Float(timeAfterStep), dt = self.dt
        var lossSum = 0.0, outflow = 0.0, deepest: Float = 0
        var lossV = D4(repeating: 0), deepestV = F4(repeating: 0)
        let zero = F4(repeating: 0), scaleV = D4(repeating: scale), rainV = D4(repeating: rain)
        let dtV = D4(repeating: dt), t1V = F4(repeating: t1)
        typealias K = SurfaceKernel
        for r in rows {
            let hr = h + r * w, lr = limit + r * w
            let qx = qxNew + r * (w + 1), qn = qyNew + r * w, qs = qyNew + (r + 1) * w
            let ex = qxOld + r * (w + 1), es = qyOld + (r + 1) * w
            let rw = rainWeight + r * w, lo = loss + r * w
            let mx = maxDepth + r * w, tm = timeOfMax + r * w
            var c = 0
            while K.vectorised, c &+ 4 <= w {
                let qw = K.load(qx, c), qe = K.load(qx, c &+ 1), qnn = K.load(qn, c), qss = K.load(qs, c)
                let here = K.load(lr, c)
                let fw = here.replacing(with: K.load(lr, c &- 1), where: qw .> zero)
                let fe = K.load(lr, c &+ 1).replacing(with: here, where: qe .> zero)
                let fn = here.replacing(with: K.load(lr, c &- w), where: qnn .> zero)
                let fs = K.load(lr, c &+ w).replacing(with: here, where: qss .> zero)
                let effW = qw * fw, effE = qe * fe, effN = qnn * fn, effS = qss * fs
                let net = (D4(effW) - D4(effE)) + (D4(effN) - D4(effS))
                var d = K.load(hr, c) + net * scaleV + rainV * D4(K.load(rw, c))
                let available = K.positivePart(d)
                let want = D4(K.load(lo, c)) * dtV
                let lost = (want + available - K.magnitude(want - available)) * 0.5   // min(want, available)
                d = K.positivePart(d - lost)
                K.store(d, hr, c)
                lossV += lost
                let df = F4(d)
                let previous = K.load(mx, c)
                let deeper = df .> previous
                K.store(previous.replacing(with: df, where: deeper), mx, c)
                K.store(K.load(tm, c).replacing(with: t1V, where: deeper), tm, c)
                deepestV = deepestV.replacing(with: df, where: df .> deepestV)
                K.store(effE, ex, c &+ 1)
                K.store(effS, es, c)
                c &+= 4
            }
            while c < w {
                let qw = qx[c], qe = qx[c &+ 1], qnn = qn[c], qss = qs[c]
                let fw = qw > 0 ? lr[c &- 1] : lr[c]
                let fe = qe > 0 ? lr[c] : lr[c &+ 1]
                let fn = qnn > 0 ? lr[c &- w] : lr[c]
                let fs = qss > 0 ? lr[c] : lr[c &+ w]
                let effW = qw * fw, effE = qe * fe, effN = qnn * fn, effS = qss * fs
                let net = (Double(effW) - Double(effE)) + (Double(effN) - Double(effS))
                var d = hr[c] + net * scale + rain * Double(rw[c])
                let available = K.positivePart(d)
                let want = Double(lo[c]) * dt
                let lost = (want + available - (want - available).magnitude) * 0.5
                d = K.positivePart(d - lost)
                hr[c] = d
                lossSum += lost
                let df = Float(d)
                if df > mx[c] { mx[c] = df; tm[c] = t1 }
                deepest = df > deepest ? df : deepest
                ex[c &+ 1] = effE
                es[c] = effS
                c &+= 1
            }
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
        lossSum += (lossV[0] + lossV[1]) + (lossV[2] + lossV[3])
        bandLoss[band] = lossSum * dx * dx
        bandOutflow[band] = outflow
        bandMaxDepth[band] = Double(Swift.max(deepest, deepestV.max()))
    }
}
