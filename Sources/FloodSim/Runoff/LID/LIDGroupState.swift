import Foundation

/// The LID units of one subcatchment during a run, SWMM 5.2's LID group (`lid_getRunoff`): the
/// units take the share of the non-LID runoff they treat plus the rain on them, and give back
/// surface outflow (to the outlet, or onto the pervious area), underdrain flow (to the outlet, a
/// node or another subcatchment), evaporation and infiltration into native soil.
struct LIDGroupState: Sendable {
    var units: [LIDUnitState]
    /// Area the units take out of the subcatchment, m² (the whole of it when within 0.1 %).
    let lidArea: Double
    /// Outflow sent onto the pervious area in the last step, m³/s (run-on of the next step).
    var flowToPervious = 0.0
    /// Whether outflow can return onto a pervious area (SWMM: none when 99.9 % impervious).
    let hasPerviousArea: Bool

    init(usages: [LIDUsage], subcatchment s: RunoffSubcatchment, initialDryTime: Double) {
        var swaleSoil: (Double, Double, Double)?
        if case let .greenAmpt(suction, k, imd, _) = s.infiltration { swaleSoil = (suction, k, imd) }
        units = usages.filter { $0.number > 0 }.map {
            LIDUnitState(usage: $0, subcatchment: s.name, swaleSoil: swaleSoil, initialDryTime: initialDryTime)
        }
        let total = usages.reduce(0) { $0 + $1.area }
        lidArea = total > 0.999 * s.area ? s.area : total
        hasPerviousArea = s.imperviousFraction < 0.999
    }

    /// Water stored in the units, m³.
    var storedVolume: Double { units.reduce(0) { $0 + $1.balance.finalStorage * $1.usage.area } }

    /// Ponded surface water over the LID area, m (the native soil's infiltration when the units
    /// cover the whole subcatchment).
    var surfaceDepth: Double {
        guard lidArea > 0 else { return 0 }
        return units.reduce(0) { $0 + $1.surfaceDepth * $1.control.surface.voidFraction * $1.usage.area } / lidArea
    }

    /// SWMM's `lid_setOldGroupState`.
    mutating func shiftDrainFlows() {
        for k in units.indices { units[k].oldDrainFlow = units[k].newDrainFlow; units[k].newDrainFlow = 0 }
    }

    /// What the group gave over a step, m³ (volumes) over `dt`.
    struct Step {
        /// Runoff of the non-LID area the units took in; their surface outflow to the outlet.
        var treated = 0.0, surfaceOut = 0.0
        var evaporation = 0.0, infiltration = 0.0
        /// Evaporation from units whose bottom lets water through (SWMM's isLidPervious: no storage
        /// layer, or one with a seepage rate), which an aquifer below counts as surface evaporation.
        var perviousEvaporation = 0.0
        /// Whether any unit is wet (keeps the wet step).
        var wet = false
    }

    /// One runoff step.
    /// - Parameters:
    ///   - imperviousRunoff, perviousRunoff: what leaves the non-LID subareas for the outlet, m³/s.
    ///   - rain, runon: onto the subcatchment, m/s (run-on reaches the units only when they cover it).
    ///   - fullCover: the units cover the whole subcatchment.
    ///   - sameOutlet: whether a unit's drain goes where the subcatchment drains.
    mutating func step(imperviousRunoff: Double, perviousRunoff: Double, rain: Double, runon: Double, evaporation: Double,
                       nativeInfiltration: Double, maxNativeInfiltration: Double = 1e10, fullCover: Bool, dt: Double,
                       day: Double) -> Step {
        var out = Step()
        var returned = 0.0
        for k in units.indices {
            let u = units[k].usage
            let area = u.area
            guard area > 0 else { continue }
            var inflow = (imperviousRunoff * u.fromImpervious + perviousRunoff * u.fromPervious) / area
            out.treated += inflow * area * dt
            if !(u.control.kind == .rainBarrel && u.control.storage.covered) { inflow += rain }
            if fullCover { inflow += runon }
            let r = units[k].step(inflow: inflow, evaporation: evaporation, nativeInfiltration: nativeInfiltration,
                                  maxNativeInfiltration: maxNativeInfiltration, dt: dt, day: day)
            var surface = r.surface * area, drain = r.drain * area
            if u.toPervious && hasPerviousArea && !fullCover {
                returned += surface
                surface = 0
                if u.drainTo == nil { returned += drain; drain = 0 }
            }
            units[k].newDrainFlow = drain
            out.evaporation += r.evaporation * dt * area
            if units[k].control.isPervious { out.perviousEvaporation += r.evaporation * dt * area }
            out.infiltration += r.infiltration * dt * area
            // SWMM's MIN_RUNOFF, 0.001 in/h.
            units[k].dryTime = rain > 2.31e-8 * 0.3048 ? 0 : units[k].dryTime + dt
            out.surfaceOut += surface * dt
            if r.wet { out.wet = true }
        }
        flowToPervious = returned
        return out
    }
}
