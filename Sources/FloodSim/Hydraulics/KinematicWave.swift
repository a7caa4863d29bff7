import Foundation

// Kinematic-wave and steady-flow routing (SWMM 5.2 kinwave.c, flowrout.c): links are visited from upstream to
// downstream; each conduit solves the finite-difference continuity equation for its outflow area
// with weights WX = WT = 0.6, normalised by full area and full flow; inflow above full flow is not
// taken and floods the upstream node. Node depths then follow SWMM's non-dynamic-wave reporting:
// a junction holds no water, so its depth is the highest water level of its connecting conduit
// ends (a flooded junction stands at its full depth) and an outfall takes its inflow conduit's exit depth.

extension HydraulicState {
    private static let wx = 0.6
    private static let wt = 0.6
    /// kinwave.c's EPSIL: the exit area's Newton search stops at a step below 0.001 of the full area.
    static let kinematicTolerance = 0.001
    /// SWMM's TINY: below it (in full flows) neither end of a conduit carries flow.
    private static let tiny = 1e-6

    /// Routes one kinematic-wave (or steady-flow) step of dt seconds.
    mutating func kinematicWaveStep(dt: Double) {
        for i in 0..<nodeCount {
            overflow[i] = 0
            if nodeKind[i] != .storage && newVolume[i] > fullVolume[i] {
                overflow[i] = (newVolume[i] - fullVolume[i]) / dt
            }
        }
        for j in sortedLinks {
            let n1 = node1[j]
            if nodeKind[n1] == .storage { updateStorageOutflows(n1, dt) }
            var qin = kinematicLinkInflow(j, dt)
            var qout = qin
            if linkKind[j] == .conduit {
                if method == .steady { routeSteady(j, &qin, &qout, dt) } else if !isDummy[j] { routeConduit(j, &qin, &qout, dt) }
            }
            newFlow[j] = qout
            outflow[n1] += qin
            inflow[node2[j]] += qout
        }
        for i in 0..<nodeCount { setKinematicNodeState(i, dt) }
        for j in 0..<linkCount { setKinematicLinkState(j) }
    }

    /// SWMM's setNewLinkState: a conduit's depth is the mean of its entry and exit depths, and each
    /// end raises its node's depth to that end's water level above the node invert (offset included);
    /// outfalls get their depth this way too. A conduit is capacity limited when its entry is full.
    private mutating func setKinematicLinkState(_ j: Int) {
        linkNewDepth[j] = 0
        linkNewVolume[j] = 0
        guard linkKind[j] == .conduit else { return }
        let x = xsect[j]
        var y1 = 0.0, y2 = 0.0
        if !isDummy[j] {
            linkNewVolume[j] = 0.5 * (ends[j].a1 + ends[j].a2) * length[j] * barrels[j]
            y1 = x.depth(ofArea: ends[j].a1)
            y2 = x.depth(ofArea: ends[j].a2, angle: &ends[j].exitAngle)
        }
        linkNewDepth[j] = 0.5 * (y1 + y2)
        raiseNodeDepth(node1[j], to: y1 + offset1[j])
        raiseNodeDepth(node2[j], to: y2 + offset2[j])
        capacityLimited[j] = !isDummy[j] && x.aFull > 0 && ends[j].a1 >= x.aFull
    }

    /// SWMM's updateNodeDepth: a flooded non-outfall node with an outflow link stands at its full
    /// depth; otherwise the node takes the higher of its depth and `y`, capped at its full depth
    /// when it has one. Storage units keep the depth from their own volume balance.
    private mutating func raiseNodeDepth(_ i: Int, to level: Double) {
        if nodeKind[i] == .storage { return }
        var y = level
        if nodeKind[i] != .outfall && degree[i] > 0 && overflow[i] > 0 { y = fullDepth[i] }
        if newDepth[i] < y {
            newDepth[i] = fullDepth[i] > 0 ? min(y, fullDepth[i]) : y
        }
    }

    private mutating func kinematicLinkInflow(_ j: Int, _ dt: Double) -> Double {
        let n1 = node1[j]
        if nodeKind[n1] == .storage {
            return newFlow[j]
        }
        var q = linkInflow(j)
        if linkKind[j] == .pump, nodeKind[n1] == .storage || fullVolume[n1] > 0 { q = maxNodeOutflow(n1, q, dt) }
        return max(q, 0)
    }

    /// Storage units: compute each outflow link's flow from the current depth, limited by volume.
    private mutating func updateStorageOutflows(_ n: Int, _ dt: Double) {
        var total = 0.0
        for k in 0..<linkCount where node1[k] == n {
            var q: Double
            if linkKind[k] == .conduit && !isDummy[k] {
                let y = max(0, newDepth[n] - offset1[k])
                q = y > 0 ? beta[k] * xsect[k].sectionFactor(min(y, xsect[k].yFull)) * barrels[k] : 0
            } else {
                q = linkInflow(k)
            }
            newFlow[k] = max(q, 0)
            total += newFlow[k]
        }
        let available = inflow[n] + oldVolume[n] / dt
        if total > available && total > 0 {
            let f = available / total
            for k in 0..<linkCount where node1[k] == n { newFlow[k] *= f }
        }
    }

    private mutating func routeConduit(_ j: Int, _ qinflow: inout Double, _ qoutflow: inout Double, _ dt: Double) {
        let x = xsect[j]
        let nb = barrels[j]
        let aFull = x.aFull
        let qf = qFull[j]
        guard qf > 0, aFull > 0 else { qoutflow = qinflow; return }
        let beta1 = beta[j] / qf
        let q1n = ends[j].q1 / qf, q2n = ends[j].q2 / qf
        let a1n = ends[j].a1 / aFull, a2n = ends[j].a2 / aFull
        var qin = qinflow / nb / qf
        // Evaporation and seepage along the conduit, in full flows (kinwave.c's q3).
        let q3 = hasConduitLosses ? conduitLossRate(j, limit: abs(qin * qf)) / qf : 0
        let ain: Double
        if qin >= 1 {
            ain = 1
        } else {
            ain = x.area(ofSectionFactor: qin / beta1) / aFull
        }
        var qout = 0.0, aout = 0.0
        var angle = ends[j].exitAngle
        if qin > HydraulicState.tiny || q2n > HydraulicState.tiny {
            let dxdt = length[j] / dt * aFull / qf
            let dq = q2n - q1n
            let c1 = dxdt * HydraulicState.wt / HydraulicState.wx
            var c2 = (1 - HydraulicState.wt) * (ain - a1n)
            c2 -= HydraulicState.wt * a2n
            c2 *= dxdt / HydraulicState.wx
            // As in SWMM, the whole inflow (even above full flow) drives the exit area.
            c2 += (1 - HydraulicState.wx) / HydraulicState.wx * dq - qin
            c2 += q3 / HydraulicState.wx
            // Solve beta1·S(a) + c1·a + c2 = 0 for a in [0, 1] as SWMM's solveContinuity does. S is
            // not monotone in closed sections, so look first on the branch above the section
            // factor's peak, [aMax, 1], then below it, [0, aMax]. With no sign change the exit runs
            // full (at the inlet area when the inflow exceeds full flow) if f stays negative, and
            // empty if f stays positive. In the bracket: SWMM's safeguarded Newton (findroot_Newton)
            // from the last step's exit area, to 0.001 of the full area (kinwave.c's EPSIL).
            var aHi = 1.0
            var fHi = 1.0 + c1 + c2
            var aLo = aMax[j] / aFull
            var fLo = aLo < aHi ? beta1 * x.sMax + c1 * aLo + c2 : fHi
            if fHi * fLo > 0 {
                aHi = aLo; fHi = fLo
                aLo = 0; fLo = c2
            }
            if fHi * fLo <= 0 {
                var start = a2n
                if start < aLo || start > aHi { start = 0.5 * (aLo + aHi) }
                let (aNeg, aPos) = fLo > fHi ? (aHi, aLo) : (aLo, aHi)
                aout = SectionGeometry.swmmNewton(aNeg, aPos, start: start, tolerance: HydraulicState.kinematicTolerance) { a in
                    let (s, ds) = x.sectionFactorAndSlope(ofArea: a * aFull, angle: &angle)
                    return (beta1 * s + c1 * a + c2, beta1 * aFull * ds + c1)
                }
            } else if fLo < 0 {
                aout = qin > 1 ? ain : 1
            } else {
                aout = 0
            }
            qout = beta1 * x.sectionFactor(ofArea: aout * aFull, angle: &angle)
            if qin > 1 { qin = 1 }
        }
        let e = ConduitEnds(q1: qin * qf, a1: ain * aFull, q2: qout * qf, a2: aout * aFull, exitAngle: angle)
        ends[j] = e
        qinflow = e.q1 * nb
        qoutflow = e.q2 * nb
    }

    /// SWMM's steady-flow routing (flowrout.c steadyflow_execute): a conduit passes its inflow, less
    /// its evaporation and seepage, at once; above full flow it passes full flow and the rest stays
    /// at (floods) its upstream node. Entry and exit take the area of that flow's normal depth.
    private mutating func routeSteady(_ j: Int, _ qinflow: inout Double, _ qoutflow: inout Double, _ dt: Double) {
        let nb = barrels[j]
        var q = qinflow / nb
        var a = 0.0
        if !isDummy[j] {
            if hasConduitLosses { q -= conduitLossRate(j, limit: abs(q)) }
            if q > qFull[j] {
                q = qFull[j]
                a = xsect[j].aFull
                qinflow = q * nb
            } else {
                a = xsect[j].area(ofSectionFactor: q / beta[j])
            }
        }
        var e = ends[j]
        e.q1 = q; e.q2 = q; e.a1 = a; e.a2 = a
        ends[j] = e
        qoutflow = q * nb
    }

    private mutating func setKinematicNodeState(_ i: Int, _ dt: Double) {
        if nodeKind[i] == .outfall { newVolume[i] = 0; newDepth[i] = 0; return }
        // A storage unit's evaporation and seepage are already part of its outflow (the step
        // starts it at `losses`), as in SWMM's updateStorageState.
        let net = inflow[i] - outflow[i]
        var v = oldVolume[i] + 0.5 * (oldNetInflow[i] + net) * dt
        if v < SWMMConstant.fudge * SWMMConstant.fudgeArea { v = 0 }
        overflow[i] = 0
        let canPond = allowPonding && pondedArea[i] > 0
        if v > fullVolume[i] && !canPond {
            overflow[i] = (v - max(oldVolume[i], fullVolume[i])) / dt
            v = fullVolume[i]
        }
        if overflow[i] < SWMMConstant.fudgeFlow { overflow[i] = 0 }
        newVolume[i] = v
        if nodeKind[i] == .storage {
            newDepth[i] = storageDepth(i, v)
        } else if canPond && v > fullVolume[i] {
            newDepth[i] = fullDepth[i] + (v - fullVolume[i]) / pondedArea[i]
        } else {
            newDepth[i] = 0
        }
    }
}
