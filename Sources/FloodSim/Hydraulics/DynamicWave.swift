import Foundation

// Dynamic-wave routing (SWMM 5.2 dynwave.c / dwflow.c): Picard iterations with under-relaxation
// over the explicit momentum equation per conduit and a continuity update per node, EXTRAN
// surcharge head updates from ΣdQ/dH (or, with SURCHARGE_METHOD SLOT, a Preissmann slot in closed
// conduits and the plain continuity update at every node), and flooding or ponding above the
// node's maximum depth.

extension HydraulicState {
    static let omegaDefault = 0.5

    /// Variable Courant time step for the next step, seconds (dynwave_getRoutingStep).
    mutating func dynamicRoutingStep(fixedStep: Double) -> Double {
        let factor = options.variableStepFactor
        if factor == 0 || fixedStep < 0.001 { return fixedStep }
        let minStep = max(0.001, min(options.minimumStep, fixedStep))
        if variableStep == 0 {
            variableStep = minStep
        } else {
            var tMin = fixedStep
            // Links: Courant condition.
            for j in 0..<linkCount where linkKind[j] == .conduit {
                let q = abs(newFlow[j]) / barrels[j]
                if q <= SWMMConstant.fudgeFlow || ends[j].a1 <= SWMMConstant.fudgeArea || froude[j] <= 0.01 { continue }
                var t = linkNewVolume[j] / barrels[j] / q
                t *= modLength[j] / length[j]
                t *= froude[j] / (1 + froude[j]) * factor
                if t < tMin { tMin = t }
            }
            // Nodes: limit the projected depth change to a quarter of the crown depth.
            for i in 0..<nodeCount where nodeKind[i] != .outfall {
                let yc = crownElev[i] - invert[i]
                if newDepth[i] <= SWMMConstant.fudge || newDepth[i] + SWMMConstant.fudge >= yc { continue }
                let maxDepth = yc * 0.25
                if maxDepth < SWMMConstant.fudge || dYdT[i] < SWMMConstant.fudge { continue }
                let t1 = maxDepth / dYdT[i]
                if t1 < tMin { tMin = t1 }
            }
            variableStep = max(tMin, minStep)
        }
        variableStep = (1000 * variableStep).rounded(.down) / 1000
        return variableStep
    }

    /// Routes one dynamic-wave step of dt seconds; returns the number of Picard trials used and
    /// whether the step converged.
    mutating func dynamicWaveStep(dt: Double, time: Double) -> (trials: Int, converged: Bool) {
        steps = 0
        omega = HydraulicState.omegaDefault
        var isConverged = false
        for i in 0..<nodeCount { converged[i] = false; dYdT[i] = 0 }
        for j in 0..<linkCount { bypassed[j] = false; surfArea1[j] = 0; surfArea2[j] = 0 }
        for j in 0..<linkCount where linkKind[j] == .conduit { ends[j].a2 = ends[j].a1 }

        let maxTrials = max(1, options.maxTrials)
        while steps < maxTrials {
            initNodeStates()
            findLinkFlows(dt)
            isConverged = findNodeDepths(dt, time: time + dt)
            steps += 1
            if steps > 1 {
                if isConverged { break }
                for j in 0..<linkCount {
                    bypassed[j] = converged[node1[j]] && converged[node2[j]]
                }
            }
        }
        findLimitedLinks()
        return (steps, isConverged)
    }

    private mutating func initNodeStates() {
        let ponding = allowPonding
        for i in 0..<nodeCount {
            // A ponded node's area above its full depth, else a storage unit's area curve. (The
            // storage unit's static form: an instance method here copied the whole state per trial.)
            let d = newDepth[i]
            if ponding && d > fullDepth[i] && pondedArea[i] != 0 {
                newSurfArea[i] = pondedArea[i]
            } else if nodeKind[i] == .storage, let unit = storage[i] {
                newSurfArea[i] = HydraulicState.storageArea(unit, d)
            } else {
                newSurfArea[i] = 0
            }
            inflow[i] = 0
            outflow[i] = losses[i]
            if newLatFlow[i] >= 0 { inflow[i] += newLatFlow[i] } else { outflow[i] -= newLatFlow[i] }
            sumdqdh[i] = 0
        }
    }

    private mutating func findLinkFlows(_ dt: Double) {
        for j in 0..<linkCount where linkKind[j] == .conduit && !isDummy[j] && !bypassed[j] {
            findConduitFlow(j, dt)
        }
        for j in 0..<linkCount where linkKind[j] == .conduit && !isDummy[j] {
            updateNodeFlows(j)
        }
        for j in 0..<linkCount where !(linkKind[j] == .conduit && !isDummy[j]) {
            if !bypassed[j] { findNonConduitFlow(j, dt) }
            updateNodeFlows(j)
        }
    }

    private mutating func updateNodeFlows(_ j: Int) {
        let n1 = node1[j], n2 = node2[j]
        let q = newFlow[j]
        if q >= 0 {
            outflow[n1] += q; inflow[n2] += q
        } else {
            inflow[n1] -= q; outflow[n2] -= q
        }
        let nb = linkKind[j] == .conduit ? barrels[j] : 1
        // A conduit's evaporation and seepage leave through its end nodes, shared when neither is an outfall.
        if hasConduitLosses && linkKind[j] == .conduit {
            var loss = (conduitEvapLoss[j] + conduitSeepLoss[j]) * nb
            if loss > 0 {
                let out1 = nodeKind[n1] == .outfall, out2 = nodeKind[n2] == .outfall
                if !out1 && !out2 { loss /= 2 }
                if !out1 { outflow[n1] += loss }
                if !out2 { outflow[n2] += loss }
            }
        }
        newSurfArea[n1] += surfArea1[j] * nb
        newSurfArea[n2] += surfArea2[j] * nb
        sumdqdh[n1] += dqdh[j]
        if linkKind[j] == .pump {
            if pump[j]?.curveKind != .type4 { sumdqdh[n2] += dqdh[j] }
        } else {
            sumdqdh[n2] += dqdh[j]
        }
    }

    private mutating func findNonConduitFlow(_ j: Int, _ dt: Double) {
        let qLast = newFlow[j]
        dqdh[j] = 0
        var qNew = linkInflow(j)
        if linkKind[j] == .pump { qNew = modifiedPumpFlow(j, qNew, dt) }
        // Surface area contributed to end nodes.
        surfArea1[j] = linkKind[j] == .orifice ? orificeSurfArea[j] / 2 : 0
        surfArea2[j] = surfArea1[j]
        if flowClass[j] == .upCritical || nodeKind[node1[j]] == .storage { surfArea1[j] = 0 }
        if flowClass[j] == .dnCritical || nodeKind[node2[j]] == .storage { surfArea2[j] = 0 }
        if steps > 0 && linkKind[j] != .pump {
            qNew = (1 - omega) * qLast + omega * qNew
            if qNew * qLast < 0 { qNew = 0.001 * 0.028316846592 * (qNew > 0 ? 1 : -1) }
        }
        newFlow[j] = qNew
    }

    @inline(__always)
    private func modifiedPumpFlow(_ j: Int, _ q: Double, _ dt: Double) -> Double {
        if q == 0 { return q }
        let n = node1[j]
        if nodeKind[n] == .storage { return maxNodeOutflow(n, q, dt) }
        guard let p = pump[j] else { return q }
        switch p.curveKind {
        case .type1:
            return maxNodeOutflow(n, q, dt)
        case .type2, .type3, .type4, .type5:
            let newNet = inflow[n] - outflow[n] - q
            let netVolume = 0.5 * (oldNetInflow[n] + newNet) * dt
            let area = max(newSurfArea[n], minSurfArea)
            let y = oldDepth[n] + netVolume / area
            if y <= 0 { return inflow[n] }
            return q
        case .ideal:
            return q
        }
    }

    @inline(__always)
    func maxNodeOutflow(_ n: Int, _ q: Double, _ dt: Double) -> Double {
        var q = q
        if fullVolume[n] > 0 {
            let qMax = inflow[n] + oldVolume[n] / dt
            if q > qMax { q = qMax }
        }
        return max(0, q)
    }

    // MARK: Conduit momentum (dwflow_findConduitFlow)

    private mutating func findConduitFlow(_ j: Int, _ dt: Double) {
        let x = xsect[j]
        let nb = barrels[j]
        let isClosed = setting[j] == 0
        let qOld = oldFlow[j] / nb
        let qLast = ends[j].q1
        if hasConduitLosses { conduitEvapLoss[j] = 0; conduitSeepLoss[j] = 0 }
        let n1 = node1[j], n2 = node2[j]
        let z1 = invert[n1] + offset1[j]
        let z2 = invert[n2] + offset2[j]
        var h1 = max(newDepth[n1] + invert[n1], z1)
        var h2 = max(newDepth[n2] + invert[n2], z2)
        var y1 = max(h1 - z1, SWMMConstant.fudge)
        var y2 = max(h2 - z2, SWMMConstant.fudge)
        // With the slot, depths run above the crown (the slot carries the surcharge head).
        if !usesSlot {
            y1 = min(y1, x.yFull)
            y2 = min(y2, x.yFull)
        }
        let aOld = max(ends[j].a2, SWMMConstant.fudgeArea)
        let len = modLength[j]

        findSurfaceArea(j, x, qLast, len, &h1, &h2, &y1, &y2)

        let area1 = Self.conduitArea(x, y1, usesSlot: usesSlot, crownCutoff: crownCutoff)
        let r1 = x.hydraulicRadius(y1)
        let area2 = Self.conduitArea(x, y2, usesSlot: usesSlot, crownCutoff: crownCutoff)
        let yMid = 0.5 * (y1 + y2)
        var aMid = Self.conduitArea(x, yMid, usesSlot: usesSlot, crownCutoff: crownCutoff)
        let rMid = x.hydraulicRadius(yMid)
        let isFull = y1 >= x.yFull && y2 >= x.yFull

        let fc = flowClass[j]
        if fc == .dry || fc == .upDry || fc == .dnDry || isClosed || aMid <= SWMMConstant.fudgeArea {
            ends[j].a1 = 0.5 * (area1 + area2)
            ends[j].q1 = 0; ends[j].q2 = 0
            dqdh[j] = gravity * dt * aMid / len * nb
            froude[j] = 0
            linkNewDepth[j] = min(yMid, x.yFull)
            linkNewVolume[j] = ends[j].a1 * length[j] * nb
            newFlow[j] = 0
            return
        }

        var v = qLast / aMid
        if abs(v) > SWMMConstant.maxVelocity { v = SWMMConstant.maxVelocity * (qLast >= 0 ? 1 : -1) }
        froude[j] = HydraulicState.froudeNumber(x, v, yMid, area: aMid, gravity: gravity, usesSlot: usesSlot)
        if flowClass[j] == .subcritical && froude[j] > 1 { flowClass[j] = .supercritical }

        var sigma: Double
        if froude[j] <= 0.5 { sigma = 1 } else if froude[j] >= 1 { sigma = 0 } else { sigma = 2 * (1 - froude[j]) }

        var rho = 1.0
        if !isFull && qLast > 0 && h1 >= h2 { rho = sigma }
        let aWtd = area1 + (aMid - area1) * rho
        let rWtd = r1 + (rMid - r1) * rho

        switch inertialDamping {
        case .none: sigma = 1
        case .full: sigma = 0
        case .partial: break
        }
        if isFull && !x.isOpen { sigma = 0 }

        let dq1: Double
        if isForceMain[j] && isFull {
            let sf = forceMainFrictionSlope(j, velocity: abs(v), radius: rMid, roughness: forceMainRoughness[j])
            dq1 = abs(v) > 0 ? dt * gravity * sf / abs(v) : 0
        } else {
            dq1 = dt * roughFactor[j] / pow(rWtd, 1.33333) * abs(v)
        }
        let dq2 = dt * gravity * aWtd * (h2 - h1) / len
        var dq3 = 0.0, dq4 = 0.0
        if sigma > 0 {
            dq3 = 2 * v * (aMid - aOld) * sigma
            dq4 = dt * v * v * (area2 - area1) / len * sigma
        }
        var dq5 = 0.0
        if hasLosses[j] {
            var lossTerm = 0.0
            let aq = abs(qLast)
            if area1 > SWMMConstant.fudgeArea { lossTerm += cLossInlet[j] * aq / area1 }
            if area2 > SWMMConstant.fudgeArea { lossTerm += cLossOutlet[j] * aq / area2 }
            if aMid > SWMMConstant.fudgeArea { lossTerm += cLossAvg[j] * aq / aMid }
            dq5 = lossTerm / 2 / len * dt
        }
        // Evaporation and seepage per unit length (dwflow.c's dq6), limited to the link's volume over the step.
        let dq6 = hasConduitLosses ? conduitLossRate(j, limit: linkNewVolume[j] / dt) * 2.5 * dt * v / length[j] : 0
        let denom = 1 + dq1 + dq5
        var q = (qOld - dq2 + dq3 + dq4 + dq6) / denom
        dqdh[j] = 1 / denom * gravity * dt * aWtd / len * nb

        if q > 0, !isFull, let inlet = culvert[j] {
            if let c = inlet.control(q0: q, head: h1 - z1, slope: slope[j], section: x) { q = c.flow; dqdh[j] = c.dqdh }
        } else if q > 0 && y1 < x.yFull && (flowClass[j] == .subcritical || flowClass[j] == .supercritical) {
            q = checkNormalFlow(j, q, y1, y2, area1, r1)
        }

        if steps > 0 {
            q = (1 - omega) * qLast + omega * q
            if q * qLast < 0 { q = 0.001 * 0.028316846592 * (q > 0 ? 1 : -1) }
        }
        if qLimit[j] > 0 && abs(q) > qLimit[j] { q = qLimit[j] * (q >= 0 ? 1 : -1) }
        if flapGateCloses(j, q) { q = 0 }
        if q > SWMMConstant.fudgeFlow && newDepth[n1] <= SWMMConstant.fudge { q = SWMMConstant.fudgeFlow }
        if q < -SWMMConstant.fudgeFlow && newDepth[n2] <= SWMMConstant.fudge { q = -SWMMConstant.fudgeFlow }

        ends[j].a1 = aMid
        ends[j].q1 = q; ends[j].q2 = q
        linkNewDepth[j] = min(yMid, x.yFull)
        aMid = 0.5 * (area1 + area2)
        linkNewVolume[j] = aMid * length[j] * nb
        newFlow[j] = q * nb
    }

    private mutating func checkNormalFlow(_ j: Int, _ q: Double, _ y1: Double, _ y2: Double, _ area1: Double, _ r1: Double) -> Double {
        let limit = normalFlowLimit
        let hasOutfall = nodeKind[node1[j]] == .outfall || nodeKind[node2[j]] == .outfall
        var check = false
        if limit == .slope || limit == .both || hasOutfall {
            if y1 < y2 { check = true }
        }
        if !check && (limit == .froude || limit == .both) && !hasOutfall {
            if y1 > SWMMConstant.fudge && y2 > SWMMConstant.fudge {
                let v = q / area1
                if HydraulicState.froudeNumber(xsect[j], v, y1, area: area1, gravity: gravity, usesSlot: usesSlot) >= 1 { check = true }
            }
        }
        if check {
            let qNorm = beta[j] * area1 * pow(r1, 2.0 / 3.0)
            if qNorm < q { return qNorm }
        }
        return q
    }

    /// Conduit j's flow class and the surface area it gives its end nodes (dwflow.c findSurfaceArea);
    /// `x` is its section, which the caller has read (not copied out of `xsect` again here).
    private mutating func findSurfaceArea(_ j: Int, _ x: SectionGeometry, _ q: Double, _ len: Double,
                                          _ h1: inout Double, _ h2: inout Double,
                                          _ y1: inout Double, _ y2: inout Double) {
        let n1 = node1[j], n2 = node2[j]
        var d1 = y1, d2 = y2
        var yNorm = 0.5 * (d1 + d2)
        var yCrit = yNorm
        var fasnh = 1.0
        var sa1 = 0.0, sa2 = 0.0

        if d1 >= x.yFull && d2 >= x.yFull {
            flowClass[j] = .subcritical
        } else {
            flowClass[j] = classifyFlow(j, q, h1, h2, y1, y2, &yCrit, &yNorm, &fasnh)
        }
        let fudge = SWMMConstant.fudge
        let usesSlot = usesSlot, crownCutoff = crownCutoff
        func topWidth(_ x: SectionGeometry, _ y: Double) -> Double {
            HydraulicState.topWidth(x, y, usesSlot: usesSlot, crownCutoff: crownCutoff)
        }
        switch flowClass[j] {
        case .subcritical, .supercritical:
            let mid = max(0.5 * (d1 + d2), fudge)
            let w1 = topWidth(x, d1), w2 = topWidth(x, d2), wm = topWidth(x, mid)
            sa1 = (w1 + wm) * len / 4
            sa2 = (wm + w2) * len / 4 * fasnh
        case .upCritical:
            d1 = max(min(yCrit, yNorm), fudge)
            h1 = invert[n1] + offset1[j] + d1
            let mid = max(0.5 * (d1 + d2), fudge)
            let w2 = topWidth(x, d2), wm = topWidth(x, mid)
            sa2 = (wm + w2) * len * 0.5
        case .dnCritical:
            d2 = max(min(yCrit, yNorm), fudge)
            h2 = invert[n2] + offset2[j] + d2
            let w1 = topWidth(x, d1)
            let mid = max(0.5 * (d1 + d2), fudge)
            let wm = topWidth(x, mid)
            sa1 = (w1 + wm) * len * 0.5
        case .upDry:
            d1 = fudge
            let mid = max(0.5 * (d1 + d2), fudge)
            let w1 = topWidth(x, d1), w2 = topWidth(x, d2), wm = topWidth(x, mid)
            sa2 = (wm + w2) * len / 4
            if offset1[j] <= 0 { sa1 = (w1 + wm) * len / 4 }
        case .dnDry:
            d2 = fudge
            let mid = max(0.5 * (d1 + d2), fudge)
            let w1 = topWidth(x, d1), w2 = topWidth(x, d2), wm = topWidth(x, mid)
            sa1 = (wm + w1) * len / 4
            if offset2[j] <= 0 { sa2 = (w2 + wm) * len / 4 }
        case .dry:
            sa1 = fudge * len / 2
            sa2 = sa1
        }
        surfArea1[j] = sa1
        surfArea2[j] = sa2
        y1 = d1
        y2 = d2
    }

    /// Flow area in a conduit: the section's area, plus the slot's above the crown (SLOT).
    /// (Static, as `topWidth`: as a method the compiler stopped inlining, every call copied the
    /// whole state, 8 % of Example3's time in memmove.)
    @inline(__always)
    private static func conduitArea(_ x: SectionGeometry, _ y: Double, usesSlot: Bool, crownCutoff: Double) -> Double {
        guard usesSlot else { return x.area(y) }
        return x.slotArea(y, slotWidth: x.slotWidth(y, cutoff: crownCutoff))
    }

    /// Top width used for node surface area (dwflow.c getWidth): with the slot, a closed
    /// conduit above the cutoff contributes the slot's width; otherwise closed conduits near
    /// full use the width at the crown cutoff.
    /// (Static: a non-mutating method the compiler does not inline gets a copy of the whole
    /// state per call.)
    @inline(__always)
    private static func topWidth(_ x: SectionGeometry, _ y: Double, usesSlot: Bool, crownCutoff: Double) -> Double {
        var y = y
        if usesSlot {
            let w = x.slotWidth(y, cutoff: crownCutoff)
            if w > 0 { return w }
            return x.widthAboveFull(y)
        }
        if !x.isOpen && y / x.yFull >= crownCutoff { y = crownCutoff * x.yFull }
        return x.width(y)
    }

    @inline(__always)
    private func classifyFlow(_ j: Int, _ q: Double, _ h1: Double, _ h2: Double, _ y1: Double, _ y2: Double,
                              _ yC: inout Double, _ yN: inout Double, _ fasnh: inout Double) -> FlowClass {
        let n1 = node1[j], n2 = node2[j]
        var z1 = offset1[j], z2 = offset2[j]
        if nodeKind[n1] == .outfall { z1 = max(0, z1 - newDepth[n1]) }
        if nodeKind[n2] == .outfall { z2 = max(0, z2 - newDepth[n2]) }
        var fc = FlowClass.subcritical
        fasnh = 1
        let fudge = SWMMConstant.fudge
        if y1 > fudge && y2 > fudge {
            if q < 0 {
                if z1 > 0 {
                    yN = normalDepth(j, abs(q))
                    yC = criticalDepth(j, abs(q))
                    if y1 < min(yN, yC) { fc = .upCritical }
                }
            } else if z2 > 0 {
                yN = normalDepth(j, abs(q))
                yC = criticalDepth(j, abs(q))
                let ycMin = min(yN, yC), ycMax = max(yN, yC)
                if y2 < ycMin { fc = .dnCritical } else if y2 < ycMax {
                    fasnh = ycMax - ycMin < fudge ? 0 : (ycMax - y2) / (ycMax - ycMin)
                }
            }
        } else if y1 <= fudge && y2 <= fudge {
            fc = .dry
        } else if y2 > fudge {
            if h2 < invert[n1] + offset1[j] { fc = .upDry } else if z1 > 0 {
                yN = normalDepth(j, abs(q))
                yC = criticalDepth(j, abs(q))
                fc = .upCritical
            }
        } else {
            if h1 < invert[n2] + offset2[j] { fc = .dnDry } else if z2 > 0 {
                yN = normalDepth(j, abs(q))
                yC = criticalDepth(j, abs(q))
                fc = .dnCritical
            }
        }
        return fc
    }

    // MARK: Node continuity (findNodeDepths, setNodeDepth, getFloodedDepth)

    private mutating func findNodeDepths(_ dt: Double, time: Double) -> Bool {
        for j in outfallLinks { setOutfallDepth(j, time: time) }
        let tolerance = headTolerance
        var all = true
        for i in 0..<nodeCount where nodeKind[i] != .outfall {
            let yOld = newDepth[i]
            setNodeDepth(i, dt)
            converged[i] = abs(yOld - newDepth[i]) <= tolerance
            if !converged[i] { all = false }
        }
        return all
    }

    private mutating func setNodeDepth(_ i: Int, _ dt: Double) {
        let canPond = allowPonding && pondedArea[i] > 0
        let isPonded = canPond && newDepth[i] > fullDepth[i]
        let yCrown = crownElev[i] - invert[i]
        let yOld = oldDepth[i]
        let yLast = newDepth[i]
        overflow[i] = 0
        let surfArea = max(newSurfArea[i], minSurfArea)
        let dQ = inflow[i] - outflow[i]
        let dV = 0.5 * (oldNetInflow[i] + dQ) * dt
        var yNew: Double
        var isSurcharged = false
        if usesSlot {
            // SLOT: no node is surcharged; the slot's small width makes the head rise fast.
            isSurcharged = false
        } else if isPonded {
            isSurcharged = false
        } else if nodeKind[i] == .storage {
            isSurcharged = surDepth[i] > 0 && yLast > fullDepth[i]
        } else {
            isSurcharged = yCrown > 0 && yLast > yCrown
        }

        if !isSurcharged {
            yNew = yOld + dV / surfArea
            if !isPonded { oldSurfArea[i] = surfArea }
            if steps > 0 { yNew = (1 - omega) * yLast + omega * yNew }
            if isPonded && yNew < fullDepth[i] { yNew = fullDepth[i] - SWMMConstant.fudge }
        } else {
            let corr = degree[i] < 0 ? 0.6 : 1.0
            var denom = sumdqdh[i]
            if yLast < 1.25 * yCrown {
                let f = (yLast - yCrown) / yCrown
                denom += (oldSurfArea[i] / dt - sumdqdh[i]) * exp(-15 * f)
            }
            let dy = denom == 0 ? 0 : corr * dQ / denom
            yNew = yLast + dy
            if yNew < yCrown { yNew = yCrown - SWMMConstant.fudge }
            if canPond && yNew > fullDepth[i] { yNew = fullDepth[i] + SWMMConstant.fudge }
        }
        if yNew < 0 { yNew = 0 }
        var yMax = fullDepth[i]
        if !canPond { yMax += surDepth[i] }
        if yNew > yMax {
            if !canPond {
                overflow[i] = dV / dt
                newVolume[i] = fullVolume[i]
                yNew = yMax
            } else {
                newVolume[i] = max(oldVolume[i] + dV, fullVolume[i])
                overflow[i] = (newVolume[i] - max(oldVolume[i], fullVolume[i])) / dt
            }
            if overflow[i] < SWMMConstant.fudgeFlow { overflow[i] = 0 }
        } else {
            newVolume[i] = nodeVolume(i, yNew)
        }
        dYdT[i] = abs(yNew - yOld) / dt
        newDepth[i] = yNew
    }

    private mutating func findLimitedLinks() {
        for j in 0..<linkCount where linkKind[j] == .conduit && !isDummy[j] {
            capacityLimited[j] = false
            if ends[j].a1 >= xsect[j].aFull {
                let h1 = newDepth[node1[j]] + invert[node1[j]]
                let h2 = newDepth[node2[j]] + invert[node2[j]]
                if h1 - h2 > abs(slope[j]) * length[j] { capacityLimited[j] = true }
            }
        }
    }
}
