import Foundation

/// Rainfall-runoff over a set of subcatchments, SWMM 5.2's runoff half (`runoff.c`, `subcatch.c`):
/// each subcatchment is three nonlinear reservoirs (impervious without and with depression storage,
/// pervious) with infiltration on the pervious part, and LID units (`RunoffSubcatchment.lids`,
/// `LIDGroupState`) on an area taken out of the subareas. Steps are `wetStep` while it rains,
/// water is ponded or a LID unit is wet, else `dryStep`, and never cross a change of rainfall.
public struct RunoffSimulation: Sendable {
    public var subcatchments: [RunoffSubcatchment]
    /// Rainfall per gauge.
    public var gauges: [Hyetograph]
    /// Potential evaporation rate over the run, m/s (SWMM `[EVAPORATION] CONSTANT`), by month 1…12
    /// when `monthlyEvaporation` has 12 values.
    public var evaporation: Double
    public var monthlyEvaporation: [Double]
    /// Month (1…12) of time 0, for monthly evaporation.
    public var startMonth: Int
    /// Evaporate only when it does not rain.
    public var evaporateOnlyWhenDry: Bool
    public var wetStep: Double
    public var dryStep: Double
    public var duration: Double
    /// Dry time before the run (SWMM's `DRY_DAYS`), s: how long rain barrels have been draining.
    public var initialDryTime: Double
    /// Groundwater under each subcatchment (by index; nil or missing for none): SWMM's two-zone
    /// aquifer, fed by the pervious area's infiltration, draining laterally to a node.
    public var groundwater: [SubcatchmentGroundwater?] = []
    /// Pollutants, land uses and their buildup and washoff (SWMM's water quality), or nil.
    public var quality: SurfaceQualitySetup? = nil
    /// Potential evaporation that changes at given times, m/s (SWMM `[EVAPORATION] TIMESERIES`):
    /// when set it replaces `evaporation` and `monthlyEvaporation`, and no runoff step crosses
    /// one of its changes (SWMM's `NextEvapDate`).
    public var evaporationSchedule: StepSchedule? = nil
    /// The calendar date and time of time 0, for `recoveryFactors`.
    public var clock: SimulationClock? = nil
    /// 12 monthly multipliers of the infiltration capacity's dry-weather recovery (SWMM
    /// `[EVAPORATION] RECOVERY` pattern), taken at each step's start; empty for none.
    public var recoveryFactors: [Double] = []
    /// SWMM 5.2's `[ADJUSTMENTS]` (monthly rainfall, evaporation and conductivity, and the
    /// subcatchments' N-PERV, DSTORE and INFIL patterns), by the month of each step's start.
    public var adjustments: MonthlyAdjustments? = nil

    public init(subcatchments: [RunoffSubcatchment], gauges: [Hyetograph], evaporation: Double = 0, monthlyEvaporation: [Double] = [],
                startMonth: Int = 1, evaporateOnlyWhenDry: Bool = false, wetStep: Double = 300, dryStep: Double = 3600, duration: Double,
                initialDryTime: Double = 0) {
        self.initialDryTime = initialDryTime
        self.subcatchments = subcatchments; self.gauges = gauges; self.evaporation = evaporation
        self.monthlyEvaporation = monthlyEvaporation; self.startMonth = startMonth; self.evaporateOnlyWhenDry = evaporateOnlyWhenDry
        self.wetStep = wetStep; self.dryStep = dryStep; self.duration = duration
    }

    /// What a run keeps: every step's runoff (`series`, for routing) or only the running totals
    /// (`totals`: memory independent of the duration, for a record of decades).
    public enum Output: Sendable {
        case series, totals
    }

    /// What a runoff run returns.
    public struct Result: Sendable {
        /// End times of the runoff steps, seconds (with 0 first); empty for a `.totals` run.
        public var times: [Double]
        /// Runoff leaving each subcatchment at each time, m³/s (`[subcatchment][time]`); empty for
        /// a `.totals` run.
        public var outflow: [[Double]]
        public var continuity: RunoffContinuity
        /// Per subcatchment: total rainfall, run-on (from upstream subcatchments), evaporation,
        /// infiltration and runoff depths, m (runoff with any LID underdrain flow, as SWMM's
        /// Subcatchment Runoff Summary).
        public var rainfallDepth: [Double]
        public var runonDepth: [Double]
        public var evaporationDepth: [Double]
        public var infiltrationDepth: [Double]
        public var runoffDepth: [Double]
        /// Runoff steps taken.
        public var steps: Int
        /// Peak runoff per subcatchment, m³/s.
        public var peakRunoff: [Double]
        /// Each LID usage's water balance (SWMM's LID Performance Summary), subcatchments in order.
        public var lidPerformance: [LIDPerformance] = []
        /// LID underdrain flow into each node at each time, m³/s (a `.series` run).
        public var lidDrains: [String: [Double]] = [:]
        /// What the groundwater did, when any subcatchment has some.
        public var groundwater: GroundwaterResult? = nil
        /// What the pollutants did on the surface, when the run has water quality.
        public var quality: SurfaceQualityResult? = nil
    }

    struct State {
        var imperv0: NonlinearReservoir
        var imperv1: NonlinearReservoir
        var perv: NonlinearReservoir
        var fArea: (Double, Double, Double)
        var infil: InfiltrationState
        var oldRunoff = 0.0, newRunoff = 0.0
        var runon = 0.0
        var inflow = (0.0, 0.0, 0.0)
        var r0 = 0.0, r1 = 0.0, rp = 0.0
        var lid: LIDGroupState?
        /// Area outside the LID units, m².
        var nonLidArea = 0.0
    }

    /// Runs the whole duration.
    /// - Parameters:
    ///   - output: `.series` keeps every step's runoff; `.totals` keeps only the totals (the same
    ///     figures, to the last digit).
    ///   - progress: called after each step with the simulated time (s).
    public func run(output: Output = .series, progress: ((Double) -> Void)? = nil) -> Result {
        let series = output == .series
        var states = subcatchments.map { s -> State in
            let fi = s.imperviousFraction
            let lid = s.lids.isEmpty ? nil : LIDGroupState(usages: s.lids, subcatchment: s, initialDryTime: initialDryTime)
            let la = lid?.lidArea ?? 0
            return State(imperv0: NonlinearReservoir(alpha: s.alpha(pervious: false, lidArea: la), depressionStorage: 0, roughness: s.nImpervious),
                         imperv1: NonlinearReservoir(alpha: s.alpha(pervious: false, lidArea: la), depressionStorage: s.storageImpervious, roughness: s.nImpervious),
                         perv: NonlinearReservoir(alpha: s.alpha(pervious: true, lidArea: la), depressionStorage: s.storagePervious, roughness: s.nPervious),
                         fArea: (fi * s.zeroStorageFraction, fi * (1 - s.zeroStorageFraction), 1 - fi),
                         infil: InfiltrationState(s.infiltration), lid: lid, nonLidArea: s.area - la)
        }
        let zeros = [Double](repeating: 0, count: subcatchments.count)
        var result = Result(times: series ? [0] : [], outflow: series ? Array(repeating: [0], count: subcatchments.count) : [],
                            continuity: RunoffContinuity(), rainfallDepth: zeros, runonDepth: zeros, evaporationDepth: zeros,
                            infiltrationDepth: zeros, runoffDepth: zeros, steps: 0, peakRunoff: zeros)
        var aquifers = initialGroundwater()
        result.groundwater = Self.groundwaterResult(aquifers, subcatchments: subcatchments, series: series)
        var t = 0.0
        var hasRunoff = false
        var hasWetLids = startLIDs(states, &result)
        var surfaceQuality = quality.map { SurfaceQualityState(setup: $0, subcatchments: subcatchments, series: series) }
        let calendarMonths = recoveryFactors.count == 12 || adjustments != nil
            ? (clock ?? SimulationClock()).monthSchedule(duration: duration) : nil
        // The pervious subareas' own α and depression storage, which N-PERV and DSTORE scale.
        let pervious = states.map { ($0.perv.alpha, $0.perv.depressionStorage) }
        while t < duration - 1e-6 {
            // The calendar month of the step's start (0…11), for recovery and adjustments.
            let m = calendarMonths.map { Int($0.value(at: t)) - 1 } ?? 0
            let rainFactor = adjustments?.rainfall[m] ?? 1
            let rain = gauges.map { $0.intensity(at: t) / 3600 / 1000 * rainFactor }   // m/s
            let raining = rain.contains { $0 > 0 }
            var maxStep = duration - t
            for g in gauges { let n = g.nextChange(after: t) - t; if n > 0 && n < maxStep { maxStep = n } }
            if let e = evaporationSchedule, let c = e.nextChange(after: t), c - t > 0, c - t < maxStep { maxStep = c - t }
            let dt = min(raining || hasRunoff || hasWetLids ? wetStep : dryStep, maxStep)
            hasRunoff = false
            hasWetLids = false
            // Run-on from upstream subcatchments and between subareas (previous step's runoff).
            for j in states.indices { states[j].runon = 0; states[j].inflow = (0, 0, 0); states[j].lid?.shiftDrainFlows() }
            surfaceQuality?.beginStep(oldRunoff: states.map(\.newRunoff), subcatchments: subcatchments)
            for (j, s) in subcatchments.enumerated() {
                if case .subcatchment(let k) = s.outlet, k != j, subcatchments[k].area > 0 {
                    Self.addRunon(&states[k], states[j].newRunoff, area: subcatchments[k].area)
                }
                addLIDDrainRunon(j, &states)
            }
            for (j, s) in subcatchments.enumerated() {
                let st = states[j]
                if s.routing == .pervious, s.imperviousFraction < 1, st.fArea.2 > 0 {
                    let q = st.r0 * st.fArea.0 + st.r1 * st.fArea.1
                    states[j].inflow.2 += q * s.routedFraction / st.fArea.2
                }
                if s.routing == .impervious, s.imperviousFraction > 0, st.fArea.1 > 0 {
                    states[j].inflow.1 += st.rp * s.routedFraction * st.fArea.2 / st.fArea.1
                }
                if let g = st.lid, s.imperviousFraction < 1, st.fArea.2 * st.nonLidArea > 0 {
                    states[j].inflow.2 += g.flowToPervious / (st.fArea.2 * st.nonLidArea)
                }
            }
            var month = startMonth
            if !monthlyEvaporation.isEmpty { month = (startMonth - 1 + Int(t / (30.4375 * 86_400))) % 12 + 1 }
            let scheduledEvap = evaporationSchedule?.value(at: t)
            var recovery = 1.0
            if recoveryFactors.count == 12 { recovery = recoveryFactors[m] }
            for (j, s) in subcatchments.enumerated() {
                let precip = s.gauge.map { rain[$0] } ?? 0
                let potentialEvap = (scheduledEvap ?? (monthlyEvaporation.count == 12 ? monthlyEvaporation[month - 1] : evaporation))
                    + (adjustments?.evaporation[m] ?? 0)
                var evap = potentialEvap
                if evaporateOnlyWhenDry && precip > 0 { evap = 0 }
                var st = states[j]
                var infilState = st.infil
                infilState.recoveryFactor = recovery
                if let a = adjustments { infilState.conductivityFactor = a.infiltration[j]?[m] ?? a.conductivity[m] }
                var vEvap = 0.0, vInfil = 0.0, vOut = 0.0
                let routedImperv = s.routing == .pervious ? 1 - s.routedFraction : 1
                let routedPerv = s.routing == .impervious && s.imperviousFraction > 0 ? 1 - s.routedFraction : 1
                let nonLid = st.nonLidArea
                // Infiltration cannot exceed the room left in an aquifer's upper zone.
                let infilCap = (aquifers[j]?.maxInfiltrationVolume).map { $0 / dt } ?? .infinity
                func subarea(_ r: inout NonlinearReservoir, _ inflow: Double, _ frac: Double, pervious: Bool, outletShare: Double) -> Double {
                    let a = frac * nonLid
                    guard a > 0 else { return 0 }
                    var moisture = r.depth / dt
                    let surfEvap = min(moisture, evap)
                    let infil = pervious ? min(infilState.rate(step: dt, rainfall: precip, runon: inflow, depth: r.depth), infilCap) : 0
                    let total = inflow + precip
                    moisture += total
                    vEvap += surfEvap * a * dt
                    vInfil += infil * a * dt
                    var runoff: Double
                    if surfEvap + infil >= moisture {
                        r.depth = 0
                        runoff = 0
                    } else {
                        runoff = r.advance(netInflow: total - surfEvap - infil, dt: dt)
                    }
                    if runoff < 0 { runoff = 0 }
                    vOut += outletShare * runoff * a * dt
                    return runoff
                }
                var r0 = st.imperv0, r1 = st.imperv1, rp = st.perv
                if let a = adjustments {
                    // SWMM's adjustSubareaParams: the month's factors scale the pervious
                    // subarea's depression storage and divide its α (a factor ≤ 0 stops its runoff).
                    if let f = a.depressionStorage[j]?[m], f >= 0 { rp.depressionStorage = pervious[j].1 * f }
                    if let f = a.nPervious[j]?[m] { rp.alpha = f <= 0 ? 0 : pervious[j].0 / f }
                }
                let pondedAtStart = (r0.depth * st.fArea.0 + r1.depth * st.fArea.1 + rp.depth * st.fArea.2) * nonLid
                st.r0 = subarea(&r0, st.inflow.0, st.fArea.0, pervious: false, outletShare: routedImperv)
                st.r1 = subarea(&r1, st.inflow.1, st.fArea.1, pervious: false, outletShare: routedImperv)
                st.rp = subarea(&rp, st.inflow.2, st.fArea.2, pervious: true, outletShare: routedPerv)
                st.imperv0 = r0; st.imperv1 = r1; st.perv = rp
                // What the surface water quality needs of this step (SWMM's Vinflow, Vinfil, Voutflow).
                let surfaceFlows = surfaceQuality == nil ? nil : SurfaceQualityState.Flows(
                    runoff: s.area > 0 ? (st.r0 * st.fArea.0 + st.r1 * st.fArea.1 + st.rp * st.fArea.2) * nonLid / s.area : 0,
                    inflow: st.runon * dt * nonLid + pondedAtStart + precip * dt * (max(st.fArea.0, 0) + max(st.fArea.1, 0) + max(st.fArea.2, 0)) * nonLid,
                    infiltration: vInfil, outflow: vOut, pondedDepth: r0.depth * st.fArea.0 + r1.depth * st.fArea.1 + rp.depth * st.fArea.2,
                    rainfall: precip, toNode: { if case .node = s.outlet { return true } else { return false } }())
                var vDrain = 0.0
                // What an aquifer below counts as surface evaporation (SWMM's Vpevap): the non-LID
                // subareas' and that of LID units whose bottom lets water through.
                var vPervEvap = vEvap
                if st.lid != nil {
                    // The units' seepage into native soil is capped by the aquifer's room as the
                    // subareas' infiltration is, and reaches the aquifer with it (SWMM's lid.c).
                    let lid = runLIDs(j, &st, &infilState, precip: precip, evaporation: evap, nonLIDInfiltration: vInfil,
                                      maxNativeInfiltration: infilCap.isFinite ? infilCap : 1e10, dt: dt, time: t, &result)
                    vOut += lid.surfaceOut - lid.treated
                    vEvap += lid.evaporation
                    vPervEvap += lid.perviousEvaporation
                    vInfil += lid.infiltration
                    vDrain = lid.drained
                    if lid.wet { hasWetLids = true }
                }
                // The aquifer is advanced in place: `if var g = aquifers[j]` … `aquifers[j] = g`
                // copied its 400 bytes out and back (six copies in the compiled loop) every step.
                if aquifers[j] != nil {
                    Self.advanceGroundwater(&aquifers[j]!, into: &result.groundwater!, subcatchment: j, s, infiltration: vInfil,
                                            surfaceEvaporation: vPervEvap, evaporationRate: potentialEvap,
                                            perviousFraction: perviousFraction(j), dt: dt)
                }
                st.infil = infilState
                st.oldRunoff = st.newRunoff
                st.newRunoff = vOut / dt
                if st.newRunoff > 0 { hasRunoff = true }
                states[j] = st
                if let surfaceFlows { surfaceQuality?.step(j, s, surfaceFlows, dt: dt, time: t) }
                let vRain = precip * dt * s.area
                result.continuity.rainfall += vRain
                result.continuity.evaporation += vEvap
                result.continuity.infiltration += vInfil
                if case .node = s.outlet { result.continuity.runoff += vOut }
                result.rainfallDepth[j] += precip * dt
                result.runonDepth[j] += st.runon * dt
                result.evaporationDepth[j] += s.area > 0 ? vEvap / s.area : 0
                result.infiltrationDepth[j] += s.area > 0 ? vInfil / s.area : 0
                result.runoffDepth[j] += s.area > 0 ? (vOut + vDrain) / s.area : 0
                result.peakRunoff[j] = max(result.peakRunoff[j], st.newRunoff + vDrain / dt)
            }
            t += dt
            result.steps += 1
            if series {
                result.times.append(t)
                for j in states.indices { result.outflow[j].append(states[j].newRunoff) }
                recordLIDDrains(states, &result)
                surfaceQuality?.record(runoff: states.map(\.newRunoff))
                for (j, g) in aquifers.enumerated() { if let g { result.groundwater!.flow[j].append(g.newFlow * subcatchments[j].area) } }
            }
            progress?(t)
        }
        // subcatch_setOldState shifts new → old at the start of each step; the final storage is
        // the ponded water left on every subarea and in the LID units.
        for st in states {
            result.continuity.finalStorage += (st.imperv0.depth * st.fArea.0 + st.imperv1.depth * st.fArea.1 + st.perv.depth * st.fArea.2) * st.nonLidArea
            if let g = st.lid {
                result.continuity.finalStorage += g.storedVolume
                result.lidPerformance += g.units.map(\.balance)
            }
        }
        result.quality = surfaceQuality?.result()
        if result.groundwater != nil {
            Self.finishGroundwater(aquifers, into: &result.groundwater!, subcatchments: subcatchments, duration: t)
        }
        return result
    }

    /// Runoff into each node as a time series of m³/s (linear between runoff steps, as SWMM
    /// interpolates runoff for routing), from a `.series` run.
    public static func nodeInflows(_ result: Result, subcatchments: [RunoffSubcatchment]) -> [String: TimeSeries] {
        precondition(!result.times.isEmpty, "nodeInflows needs a run with output .series: a .totals run keeps no step")
        var sums: [String: [Double]] = [:]
        for (j, s) in subcatchments.enumerated() {
            guard case .node(let name) = s.outlet else { continue }
            var v = sums[name] ?? Array(repeating: 0, count: result.times.count)
            for k in v.indices { v[k] += result.outflow[j][k] }
            sums[name] = v
        }
        for (name, drains) in result.lidDrains {
            var v = sums[name] ?? Array(repeating: 0, count: result.times.count)
            for k in v.indices { v[k] += drains[k] }
            sums[name] = v
        }
        return sums.mapValues { TimeSeries(times: result.times, values: $0) }
    }
}

/// A value that holds from each of its times to the next (the first from time 0), with the time
/// of each change, e.g. SWMM's evaporation from a time series.
public struct StepSchedule: Sendable, Hashable {
    /// Times the value changes, s, ascending; `values[k]` holds from `times[k]` on.
    public var times: [Double]
    public var values: [Double]

    /// - Precondition: as many times as values, at least one.
    public init(times: [Double], values: [Double]) {
        precondition(times.count == values.count && !values.isEmpty, "a StepSchedule needs one value per time, at least one")
        self.times = times; self.values = values
    }

    /// The value at time `t` (the first value before the first time).
    public func value(at t: Double) -> Double {
        var lo = 0, hi = times.count
        while lo < hi { let m = (lo + hi) / 2; if times[m] <= t + 1e-6 { lo = m + 1 } else { hi = m } }
        return values[max(lo - 1, 0)]
    }

    /// The first change after time `t`, or nil.
    public func nextChange(after t: Double) -> Double? {
        var lo = 0, hi = times.count
        while lo < hi { let m = (lo + hi) / 2; if times[m] <= t + 1e-6 { lo = m + 1 } else { hi = m } }
        return lo < times.count ? times[lo] : nil
    }
}

extension SimulationClock {
    /// The month (1…12) from this clock on, changing at each month's start, over `duration` s.
    public func monthSchedule(duration: Double) -> StepSchedule {
        var times = [0.0], values = [Double(month)]
        var y = year, m = month
        // Seconds from this clock to the start of the next month.
        var next = Double(SimulationClock.daysIn(month: m, year: y) - day + 1) * 86_400 - secondOfDay
        while next <= duration {
            m += 1
            if m > 12 { m = 1; y += 1 }
            times.append(next); values.append(Double(m))
            next += Double(SimulationClock.daysIn(month: m, year: y)) * 86_400
        }
        return StepSchedule(times: times, values: values)
    }
}

/// SWMM 5.2's `[ADJUSTMENTS]` for a runoff run: 12 monthly values each (January first), and
/// per-subcatchment monthly patterns by subcatchment index.
public struct MonthlyAdjustments: Sendable, Hashable {
    /// Added to the potential evaporation rate, m/s.
    public var evaporation: [Double] = Array(repeating: 0, count: 12)
    /// Multipliers of every gage's rainfall.
    public var rainfall: [Double] = Array(repeating: 1, count: 12)
    /// Multipliers of the infiltration capacity (`InfiltrationState.conductivityFactor`).
    public var conductivity: [Double] = Array(repeating: 1, count: 12)
    /// A subcatchment's own conductivity factors (SWMM's INFIL pattern), replacing `conductivity`.
    public var infiltration: [Int: [Double]] = [:]
    /// Factors of a subcatchment's pervious Manning's n (its α is divided by them; N-PERV).
    public var nPervious: [Int: [Double]] = [:]
    /// Factors of a subcatchment's pervious depression storage (DSTORE; negative ones are ignored).
    public var depressionStorage: [Int: [Double]] = [:]

    public init() {}
}
