import Foundation

// Flow through links that are not dynamic-wave conduits (SWMM link.c): dummy conduits, pumps,
// orifices, weirs and outlets. Each returns the link's flow for the current node heads and sets
// the link's dQ/dH for the surcharge algorithm.

extension HydraulicState {
    /// Flow entering link j from its upstream node, m³/s (link_getInflow).
    mutating func linkInflow(_ j: Int) -> Double {
        if setting[j] == 0 { return 0 }
        switch linkKind[j] {
        case .conduit:
            var q = nodeOutflowAvailable(node1[j], j)
            if qLimit[j] > 0 { q = min(q, qLimit[j]) }
            return q
        case .pump: return pumpInflow(j)
        case .orifice: return orificeInflow(j)
        case .weir: return weirInflow(j)
        case .outlet: return outletInflow(j)
        }
    }

    /// Outflow a node can pass to a link (node_getOutflow): inflow plus overflow, or a divider's
    /// share under kinematic wave.
    mutating func nodeOutflowAvailable(_ n: Int, _ j: Int) -> Double {
        if nodeKind[n] == .divider, let d = divider[n] {
            return dividerOutflow(n, j, d)
        }
        if nodeKind[n] == .storage { return newFlow[j] }
        return inflow[n] + overflow[n]
    }

    private mutating func dividerOutflow(_ n: Int, _ j: Int, _ d: FlowDivider) -> Double {
        let qIn = inflow[n] + overflow[n]
        var qOut = 0.0
        switch d.rule {
        case .cutoff(let cutoff):
            qOut = max(0, qIn - cutoff)
        case .overflow:
            // Divert what exceeds the full capacity of the other outflow conduit.
            var other = -1
            for k in 0..<linkCount where node1[k] == n && k != d.divertedLink { other = k; break }
            let cap = other >= 0 ? qFull[other] : 0
            qOut = max(0, qIn - cap)
        case .tabular(let curve):
            qOut = HydraulicState.lookup(curve, qIn)
        case .weir(let qMin, let dhMax, let cw):
            if qIn > qMin {
                let qMax = cw * pow(dhMax, 1.5)
                let f = (qIn - qMin) / max(qMax - qMin, 1e-12)
                qOut = f <= 1 ? cw * pow(f * dhMax, 1.5) : qIn - qMin
            }
        }
        qOut = min(max(qOut, 0), qIn)
        return j == d.divertedLink ? qOut : qIn - qOut
    }

    // MARK: Pumps

    private mutating func pumpInflow(_ j: Int) -> Double {
        guard let p = pump[j] else { return 0 }
        let n1 = node1[j], n2 = node2[j]
        pumpOffCurve[j] = false
        setting[j] = targetSetting[j]
        if setting[j] == 0 { return 0 }
        var q: Double
        let c = p.curve
        switch p.curveKind {
        case .ideal:
            q = inflow[n1] + overflow[n1]
        case .type1:
            q = HydraulicState.intervalLookup(c, newVolume[n1])
        case .type2:
            q = HydraulicState.intervalLookup(c, newDepth[n1])
        case .type3, .type5:
            let head = max(0, (newDepth[n2] + invert[n2]) - (newDepth[n1] + invert[n1]))
            q = HydraulicState.lookup(c, head)
            dqdh[j] = -HydraulicState.slopeAt(c, head)
        case .type4:
            let d = newDepth[n1]
            q = HydraulicState.lookup(c, d)
            let dh = 0.001 * 0.3048
            dqdh[j] = (HydraulicState.lookup(c, d + dh) - q) / dh
        }
        if q < 0 { q = 0 }
        return q * setting[j]
    }

    /// Applies pump startup/shutoff depths (link_setTargetSetting) at the start of a step.
    mutating func updatePumpTargets() {
        for j in 0..<linkCount where linkKind[j] == .pump {
            guard let p = pump[j] else { continue }
            let d = newDepth[node1[j]]
            targetSetting[j] = setting[j]
            if p.shutoffDepth > 0 && setting[j] > 0 && d < p.shutoffDepth { targetSetting[j] = 0 }
            if p.startupDepth > 0 && setting[j] == 0 && d > p.startupDepth { targetSetting[j] = 1 }
        }
    }

    /// Makes each link's setting its target (SWMM's link_setSetting after the pump depths and
    /// the control rules have set the targets). An orifice with an open/close time moves toward
    /// its target by `dt` over that time per step, and its coefficients follow its opening.
    mutating func applyTargetSettings(dt: Double) {
        for j in 0..<linkCount where setting[j] != targetSetting[j] {
            guard linkKind[j] == .orifice, let o = orifice[j] else { setting[j] = targetSetting[j]; continue }
            let delta = targetSetting[j] - setting[j]
            let step = o.openCloseTime > 0 && dt > 0 ? dt / o.openCloseTime : .infinity
            if step + 0.001 >= abs(delta) { setting[j] = targetSetting[j] } else { setting[j] += delta > 0 ? step : -step }
            setOrificeCoefficients(j, opening: setting[j] * xsect[j].yFull)
        }
    }

    /// An orifice's discharge coefficients for an opening `h` metres high: full orifice flow, and
    /// weir flow below the critical height (the opening for a side orifice, (Cd/0.414)·A/L for a
    /// bottom one), as SWMM's orifice_setSetting.
    mutating func setOrificeCoefficients(_ j: Int, opening h: Double) {
        guard let o = orifice[j] else { return }
        let f = xsect[j].area(h) * (2 * gravity).squareRoot()
        orificeCOrif[j] = o.dischargeCoefficient * f
        var hw = h
        if o.orientation == .bottom {
            let aOverL: Double
            if xsect[j].form == .circular { aOverL = h / 4 } else {
                let w = xsect[j].wMax
                aOverL = h * w / (2 * (h + w))
            }
            orificeHCrit[j] = o.dischargeCoefficient / 0.414 * aOverL
            hw = orificeHCrit[j]
        } else {
            orificeHCrit[j] = h
            hw = h / 2
        }
        orificeCWeir[j] = o.dischargeCoefficient * hw.squareRoot() * f
    }

    /// The heads (m) at the regulator's higher and lower ends and the flow direction (+1 from
    /// node 1 to node 2, −1 back). Outside dynamic wave the downstream head is node 1's invert.
    @inline(__always)
    private func heads(_ j: Int) -> (upstream: Double, downstream: Double, direction: Double) {
        let n1 = node1[j], n2 = node2[j]
        let h1 = newDepth[n1] + invert[n1]
        let h2 = method == .dynamicWave ? newDepth[n2] + invert[n2] : invert[n1]
        return h1 >= h2 ? (h1, h2, 1) : (h2, h1, -1)
    }

    // MARK: Orifices

    private mutating func orificeInflow(_ j: Int) -> Double {
        guard let o = orifice[j] else { return 0 }
        let n1 = node1[j], n2 = node2[j]
        let (h1, h2, dir) = heads(j)
        let y1 = dir < 0 ? newDepth[n2] : newDepth[n1]
        let x = xsect[j]
        let hcrest = invert[n1] + offset1[j]
        var head: Double, f: Double
        if o.orientation == .bottom {
            if h1 < hcrest { head = 0 } else if h2 > hcrest { head = h1 - h2 } else { head = h1 - hcrest }
            f = min(head / max(orificeHCrit[j], 1e-12), 1)
        } else {
            let hcrown = hcrest + x.yFull * setting[j]
            let hmid = 0.5 * (hcrest + hcrown)
            f = (h1 < hcrown && hcrown > hcrest) ? (h1 - hcrest) / (hcrown - hcrest) : 1
            if f < 1 { head = h1 - hcrest } else if h2 < hmid { head = h1 - hmid } else { head = h1 - h2 }
        }
        if head <= SWMMConstant.fudge || y1 <= SWMMConstant.fudge || flapGateCloses(j, dir) {
            linkNewDepth[j] = 0
            flowClass[j] = .dry
            orificeSurfArea[j] = SWMMConstant.fudge * orificeLength[j]
            dqdh[j] = 0
            return 0
        }
        flowClass[j] = .subcritical
        if hcrest > h2 { flowClass[j] = dir == 1 ? .dnCritical : .upCritical }
        let yOpen = x.yFull * setting[j]
        if o.orientation == .side {
            linkNewDepth[j] = yOpen * f
            orificeSurfArea[j] = x.width(linkNewDepth[j]) * orificeLength[j]
        } else {
            linkNewDepth[j] = yOpen
            orificeSurfArea[j] = x.area(yOpen)
        }
        var q: Double
        if f <= 0 {
            q = 0; dqdh[j] = 0
        } else if f < 1 {
            q = orificeCWeir[j] * pow(f, 1.5)
            dqdh[j] = 1.5 * q / (f * orificeHCrit[j])
        } else {
            q = orificeCOrif[j] * head.squareRoot()
            dqdh[j] = q / (2 * head)
        }
        q *= dir
        if f < 1 && h2 > hcrest {
            let ratio = (h2 - hcrest) / (h1 - hcrest)
            q *= pow(1 - pow(ratio, 1.5), 0.385)
        }
        return q
    }

    // MARK: Weirs

    private mutating func weirInflow(_ j: Int) -> Double {
        guard let w = weir[j] else { return 0 }
        let n1 = node1[j]
        let (h1, h2, dir) = heads(j)
        // A partly open weir (a control rule's setting) raises its crest: the opening is the
        // setting's share of the weir's height below the crown (SWMM's weir_getInflow).
        let crest = invert[n1] + offset1[j]
        let hcrown = crest + w.height
        let opening = setting[j] * w.height
        let hcrest = setting[j] == 1 ? crest : hcrown - opening
        if w.form == .roadway { return roadwayInflow(j, w, road: crest, h1: h1, h2: h2, dir: dir) }
        dqdh[j] = 0
        linkNewDepth[j] = 0
        flowClass[j] = .dry
        if dir < 0 && hasFlapGate[j] { return 0 }
        if flapGateCloses(j, dir) { return 0 }
        if h1 <= hcrest || opening <= 0 { return 0 }
        var head = h1 - hcrest
        // Above the crown a surcharged weir acts as an orifice with a matching coefficient; one
        // that may not surcharge sees no more head than its opening (SWMM's weir_getInflow).
        let surcharged = w.canSurcharge && h1 > hcrown
        if h1 >= hcrown { head = opening }
        // The coefficient, from the weir's curve at this head when it has one (weir_getFlow).
        let cd = w.coefficientCurve.map { HydraulicState.lookup($0, head) } ?? w.dischargeCoefficient
        if w.form == .trapezoidal || (w.form == .vNotch && setting[j] < 1) {
            return shapedWeirInflow(j, w, cd: cd, head: head, surcharged: surcharged, h1: h1, h2: h2, hcrest: hcrest, opening: opening, dir: dir)
        }
        var q = 0.0, expo = 1.5
        let length = max(0, w.length - 0.1 * Double(w.endContractions) * head)
        switch w.form {
        case .transverse, .roadway:
            q = cd * length * pow(head, 1.5)
        case .sideFlow:
            expo = 5.0 / 3.0
            q = cd * length * pow(head, expo)
        case .vNotch, .trapezoidal:
            expo = 2.5
            q = cd * w.sideSlope * pow(head, 2.5)
        }
        if surcharged {
            q = surchargedWeirFlow(j, full: q, h1: h1, h2: h2, hcrest: hcrest, opening: opening)
        } else {
            if h2 > hcrest {
                let ratio = (h2 - hcrest) / (h1 - hcrest)
                q *= pow(max(0, 1 - pow(ratio, expo)), 0.385)
            }
            dqdh[j] = head > 0 ? expo * q / head : 0
        }
        linkNewDepth[j] = min(h1 - hcrest, opening)
        flowClass[j] = .subcritical
        return dir * q
    }

    /// Orifice flow through a surcharged weir's whole opening, q = cOrif·√(h1 − max(h2, mid-height)),
    /// cOrif matching the weir's flow `full` at a head equal to the opening (SWMM's cSurcharge).
    private mutating func surchargedWeirFlow(_ j: Int, full: Double, h1: Double, h2: Double, hcrest: Double, opening: Double) -> Double {
        let hmid = hcrest + opening / 2
        let cOrif = full / (opening / 2).squareRoot()
        let dh = h1 - max(h2, hmid)
        let q = cOrif * max(dh, 0).squareRoot()
        dqdh[j] = dh > 0 ? q / (2 * dh) : 0
        return q
    }

    /// A trapezoidal weir, or a V-notch weir a control setting leaves partly open, as SWMM's
    /// weir_getFlow: a rectangular part as wide as the section at the raised crest (the notch's
    /// 2·slope·y, the trapezoid's bottom width plus 2·slope·y) with the weir's coefficient, the
    /// triangular ends with the end coefficient, no end contractions; Villemonte's correction
    /// with the weir type's exponent on the rectangular part (2.5 for a V-notch) and 2.5 on the
    /// ends; dQ/dH from the uncorrected parts (a partly open V-notch without end coefficient
    /// keeps the notch's 2.5·q/h).
    private mutating func shapedWeirInflow(_ j: Int, _ w: Weir, cd: Double, head: Double, surcharged: Bool, h1: Double, h2: Double,
                                           hcrest: Double, opening: Double, dir: Double) -> Double {
        let raised = (1 - setting[j]) * w.height
        let width = (w.form == .vNotch ? 0 : w.length) + 2 * w.sideSlope * raised
        var q1 = cd * width * pow(head, 1.5)
        var q2 = w.endCoefficient * w.sideSlope * pow(head, 2.5)
        let q: Double
        if surcharged {
            q = surchargedWeirFlow(j, full: q1 + q2, h1: h1, h2: h2, hcrest: hcrest, opening: opening)
        } else {
            dqdh[j] = w.form == .vNotch && q2 == 0 ? 2.5 * q1 / head : 1.5 * q1 / head + 2.5 * q2 / head
            if h2 > hcrest {
                let ratio = (h2 - hcrest) / (h1 - hcrest)
                q1 *= pow(max(0, 1 - pow(ratio, w.form == .vNotch ? 2.5 : 1.5)), 0.385)
                if q2 > 0 { q2 *= pow(max(0, 1 - pow(ratio, 2.5)), 0.385) }
            }
            q = q1 + q2
        }
        linkNewDepth[j] = min(h1 - hcrest, opening)
        flowClass[j] = .subcritical
        return dir * q
    }

    // MARK: Outlets

    private mutating func outletInflow(_ j: Int) -> Double {
        guard let o = outlet[j] else { return 0 }
        let n1 = node1[j]
        let (h1, h2, dir) = heads(j)
        let hcrest = invert[n1] + offset1[j]
        dqdh[j] = 0
        if flapGateCloses(j, dir) || h1 <= hcrest { linkNewDepth[j] = 0; return 0 }
        let head = o.usesHeadDifference ? h1 - max(h2, hcrest) : h1 - hcrest
        if head <= 0 { return 0 }
        var q: Double
        switch o.rating {
        case .functional(let a, let b):
            q = a * pow(head, b)
            dqdh[j] = b * q / head
        case .tabular(let curve):
            q = HydraulicState.lookup(curve, head)
            dqdh[j] = HydraulicState.slopeAt(curve, head)
        }
        linkNewDepth[j] = h1 - hcrest
        return dir * setting[j] * max(q, 0)
    }
}
