import Foundation

/// The runoff step's hooks for LID units (`LIDGroupState`), SWMM 5.2's `subcatch.c` calls into
/// `lid.c`: run-on spread over the non-LID area, underdrain flow sent on, and the units' step after
/// the subareas'.
extension RunoffSimulation {
    /// What a subcatchment's LID units did over a step, m³.
    struct LIDStep {
        var treated = 0.0, surfaceOut = 0.0, evaporation = 0.0, infiltration = 0.0
        /// Evaporation from units that let water through their bottom (an aquifer below counts it).
        var perviousEvaporation = 0.0
        /// Underdrain flow over the step, wherever it goes.
        var drained = 0.0
        var wet = false
    }

    /// Adds the units' initial water to the initial storage; whether any starts wet.
    func startLIDs(_ states: [State], _ result: inout Result) -> Bool {
        var wet = false
        for st in states {
            guard let g = st.lid else { continue }
            result.continuity.initialStorage += g.storedVolume
            if g.units.contains(where: { $0.usage.initialSaturation > 0 }) { wet = true }
        }
        return wet
    }

    /// Run-on `q` (m³/s) spread over the receiving subcatchment's non-LID area (all of it when the
    /// units cover it).
    static func addRunon(_ st: inout State, _ q: Double, area: Double) {
        let rate = q / (st.nonLidArea > 0 ? st.nonLidArea : area)
        st.runon += rate
        st.inflow.0 += rate; st.inflow.1 += rate; st.inflow.2 += rate
    }

    /// Where a unit's underdrain flow goes: its own target, else the subcatchment's outlet.
    func drainTarget(_ u: LIDUnitState, of j: Int) -> LIDUsage.DrainTarget {
        if let t = u.usage.drainTo { return t }
        switch subcatchments[j].outlet {
        case .node(let n): return .node(n)
        case .subcatchment(let k): return .subcatchment(k)
        }
    }

    /// The previous step's underdrain flow of subcatchment `j`'s units that drain onto another one.
    func addLIDDrainRunon(_ j: Int, _ states: inout [State]) {
        guard let g = states[j].lid else { return }
        for u in g.units {
            if case .subcatchment(let k) = drainTarget(u, of: j), k != j, subcatchments[k].area > 0 {
                Self.addRunon(&states[k], u.oldDrainFlow, area: subcatchments[k].area)
            }
        }
    }

    /// The units of subcatchment `j` over one step, after its subareas (SWMM's `lid_getRunoff`).
    /// - Parameters:
    ///   - nonLIDInfiltration: what the non-LID area infiltrated this step, m³.
    ///   - maxNativeInfiltration: the room left in an aquifer's upper zone over the step, m/s
    ///     (SWMM's MaxNativeInfil, which caps the units' seepage into native soil), else 1e10.
    func runLIDs(_ j: Int, _ st: inout State, _ infil: inout InfiltrationState, precip: Double, evaporation: Double,
                 nonLIDInfiltration: Double, maxNativeInfiltration: Double = 1e10, dt: Double, time: Double,
                 _ result: inout Result) -> LIDStep {
        guard var g = st.lid else { return LIDStep() }
        let s = subcatchments[j]
        let nonLid = st.nonLidArea
        // Infiltration into the native soil: the non-LID area's mean rate, else the subcatchment's
        // own method for the rain and run-on onto the units.
        let native = nonLid > 0 && s.imperviousFraction < 1
            ? nonLIDInfiltration / nonLid / dt
            : infil.rate(step: dt, rainfall: precip, runon: st.runon, depth: g.surfaceDepth)
        var qImperv = 0.0, qPerv = 0.0
        if nonLid > 0 {
            let imperviousOut = s.routing == .pervious && s.imperviousFraction < 1 ? 1 - s.routedFraction : 1
            let perviousOut = s.routing == .impervious && s.imperviousFraction > 0 ? 1 - s.routedFraction : 1
            qImperv = (st.r0 * st.fArea.0 + st.r1 * st.fArea.1) * imperviousOut * nonLid
            qPerv = st.rp * st.fArea.2 * perviousOut * nonLid
        }
        let r = g.step(imperviousRunoff: qImperv, perviousRunoff: qPerv, rain: precip, runon: st.runon, evaporation: evaporation,
                       nativeInfiltration: native, maxNativeInfiltration: maxNativeInfiltration, fullCover: nonLid <= 0, dt: dt,
                       day: time / 86_400)
        var out = LIDStep(treated: r.treated, surfaceOut: r.surfaceOut, evaporation: r.evaporation, infiltration: r.infiltration,
                          perviousEvaporation: r.perviousEvaporation, wet: r.wet)
        for u in g.units {
            out.drained += u.newDrainFlow * dt
            if case .node = drainTarget(u, of: j) { result.continuity.drains += u.newDrainFlow * dt }
        }
        st.lid = g
        return out
    }

    /// Appends this step's underdrain flow into each node to `result.lidDrains`.
    func recordLIDDrains(_ states: [State], _ result: inout Result) {
        var step: [String: Double] = [:]
        for (j, st) in states.enumerated() {
            guard let g = st.lid else { continue }
            for u in g.units {
                if case .node(let n) = drainTarget(u, of: j) { step[n, default: 0] += u.newDrainFlow }
            }
        }
        let count = result.times.count
        for (n, q) in step where result.lidDrains[n] == nil { result.lidDrains[n] = Array(repeating: 0, count: count - 1) + [q] }
        for n in result.lidDrains.keys where result.lidDrains[n]!.count < count { result.lidDrains[n]!.append(step[n] ?? 0) }
    }
}
