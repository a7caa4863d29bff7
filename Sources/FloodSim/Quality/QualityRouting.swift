import Foundation

/// SWMM's Quality Routing Continuity for one pollutant, kg (a count for #/L pollutants).
public struct QualityRoutingContinuity: Sendable, Hashable {
    public var dryWeatherInflow = 0.0, wetWeatherInflow = 0.0, groundwaterInflow = 0.0, externalInflow = 0.0, rdiiInflow = 0.0
    public var flooding = 0.0, externalOutflow = 0.0, seepageLoss = 0.0, reacted = 0.0
    public var initialStorage = 0.0, finalStorage = 0.0
    /// Below this difference of inflow and outflow the error is 0: SWMM's 0.001 in its own units
    /// (concentration × ft³: 1 mg/L × ft³ = 28.317 mg), in this table's units.
    var zeroBand = 0.001

    /// SWMM's massbal_getQualError.
    public var errorPercent: Double {
        let inflow = dryWeatherInflow + wetWeatherInflow + groundwaterInflow + externalInflow + rdiiInflow + initialStorage
        let outflow = flooding + externalOutflow + seepageLoss + reacted + finalStorage
        if abs(inflow - outflow) < zeroBand { return 0 }
        if inflow > 0 { return 100 * (1 - outflow / inflow) }
        if outflow > 0 { return 100 * (inflow / outflow - 1) }
        return 0
    }

    mutating func add(_ r: QualityRoutingContinuity, times f: Double) {
        dryWeatherInflow += r.dryWeatherInflow * f; wetWeatherInflow += r.wetWeatherInflow * f
        groundwaterInflow += r.groundwaterInflow * f; externalInflow += r.externalInflow * f
        rdiiInflow += r.rdiiInflow * f
        flooding += r.flooding * f; externalOutflow += r.externalOutflow * f; seepageLoss += r.seepageLoss * f
        reacted += r.reacted * f
        // SWMM adds the mass dropped with a dried-out reactor at both half-step updates.
        finalStorage += r.finalStorage
    }

    func scaled(_ f: Double) -> QualityRoutingContinuity {
        var c = QualityRoutingContinuity()
        c.add(self, times: f)
        c.initialStorage = initialStorage * f; c.finalStorage = finalStorage * f
        c.zeroBand = zeroBand * f
        return c
    }
}

/// A pollutant entering a node from outside the runoff (SWMM `[INFLOWS]` and `[DWF]` lines for
/// pollutants, groundwater at its concentration): mass per second at time t.
public struct QualityInflow: Sendable {
    public enum Kind: Sendable { case external, dryWeather, groundwater, wetWeather }
    public enum Value: Sendable {
        /// mass/s = series (mass unit per second).
        case mass(TimeSeries)
        /// A concentration (mass unit per litre): baseline + scale·series(t), multiplied by the
        /// node's external FLOW inflow.
        case concentration(baseline: Double, scale: Double, series: TimeSeries?)
        /// A dry-weather concentration (mass unit per litre, `average` and patterns) times the
        /// node's dry-weather flow.
        case dryWeather(DryWeatherFlow)
        /// A fixed concentration (mass unit per litre) times a flow series (m³/s).
        case flowConcentration(flow: TimeSeries, concentration: Double)
    }
    public var node: Int
    public var pollutant: Int
    public var kind: Kind
    public var value: Value

    public init(node: Int, pollutant: Int, kind: Kind, value: Value) {
        self.node = node; self.pollutant = pollutant; self.kind = kind; self.value = value
    }
}

/// What the conveyance system did with the pollutants.
public struct QualityRoutingResult: Sendable {
    public var pollutants: [Pollutant]
    /// Per pollutant, kg (counts for #/L).
    public var continuity: [QualityRoutingContinuity]
    /// Per pollutant and node: mass discharged through each outfall, kg (0 for other nodes).
    public var outfallLoad: [[Double]]
    /// Which nodes are outfalls.
    public var isOutfall: [Bool]
    /// Per pollutant and link: mass carried, kg (SWMM's Link Pollutant Load Summary).
    public var linkLoad: [[Double]]
}

/// Routes pollutants through nodes and links as SWMM 5.2's qualrout.c: each link and each node with
/// volume a completely mixed reactor with first-order decay, other nodes the flow-weighted mix of
/// what enters them. `DrainageRouting` calls `route` after each step's flow and `finish` after
/// its outflows are known; the state here is the pollutants' own.
public final class QualityRouting {
    /// The pollutants' concentrations, loads and mass balance, and the step's work on them, lent
    /// to its mutating methods. (As this object's own properties, every element write of the
    /// mixing checked its array's uniqueness and stored its buffer back: quality was 9 % of
    /// Example1's run against SWMM's qualrout 2.8 %.) Only touched from this object's methods, one
    /// call at a time, so without run-time exclusivity checks.
    @exclusivity(unchecked) var state: QualityState

    public var pollutants: [Pollutant] { state.pollutants }
    /// Treatment expressions by node index, one entry per pollutant (nil where the pollutant is
    /// not treated there): SWMM's `[TREATMENT]`.
    public var treatments: [Int: [NodeTreatment?]] {
        get { state.treatments }
        set { state.treatments = newValue }
    }
    /// What one model flow unit and one model length are in m³/s and m (the units treatment
    /// expressions read FLOW, DEPTH and AREA in).
    public var treatmentUnits: (flow: Double, length: Double) {
        get { state.treatmentUnits }
        set { state.treatmentUnits = newValue }
    }

    public init(pollutants: [Pollutant], inflows: [QualityInflow], flowInflows: [NodeInflow], start: SimulationClock,
                nodeCount: Int, linkCount: Int) {
        state = QualityState(pollutants: pollutants, inflows: inflows, flowInflows: flowInflows, start: start,
                             nodeCount: nodeCount, linkCount: linkCount)
    }

    /// Initial concentrations where there is water (SWMM's qualrout_init) and the initial stored mass;
    /// `DrainageRouting` calls it when the router is set before the first step (else the first step does).
    func start(_ s: HydraulicState) { state.start(s) }

    /// The step's water quality, after its flow routing (SWMM: the inflows of routing_execute, then
    /// qualrout_execute). `t0` is the step's start, `dt` its length. The hydraulic state is lent,
    /// not changed (see `QualityState`).
    func route(_ s: inout HydraulicState, t0: Double, dt: Double) { state.route(&s, t0: t0, dt: dt) }

    /// After the step's outflows: the mass leaving through outfalls and flooding, outfall loads, and
    /// the second half of the step's continuity. The hydraulic state is lent, not changed.
    func finish(_ s: inout HydraulicState, systemOutflow: [Double], flooded: [Bool], dt: Double) {
        state.finish(&s, systemOutflow: systemOutflow, flooded: flooded, dt: dt)
    }

    /// The totals so far in kg (counts for #/L), final storage included.
    func result(_ s: HydraulicState) -> QualityRoutingResult { state.result(s) }
}

/// What `QualityRouting` routes with: the pollutants, their inflows, and their state in nodes and
/// links. The step's methods read the hydraulic state lent `inout` and never change it: handed
/// as a value from the routing object's property (or from a method lent it) the whole state,
/// about 1 kB, was copied at each call.
struct QualityState {
    let pollutants: [Pollutant]
    let inflows: [QualityInflow]
    /// Node external FLOW inflows (for CONCEN inflows) and dry-weather flows, as the network has them.
    let flowInflows: [NodeInflow]
    let start: SimulationClock
    /// Concentrations per pollutant and node or link, mass unit per m³.
    var nodeOld: PollutantValues, nodeNew: PollutantValues, linkOld: PollutantValues, linkNew: PollutantValues
    var qualInflow: [Double]
    var rates: [QualityRoutingContinuity]
    var totals: [QualityRoutingContinuity]
    var outfallLoad: PollutantValues, linkLoad: PollutantValues
    /// Each node's external FLOW inflow and dry-weather flow at the step, m³/s (what CONCEN and
    /// dry-weather pollutant inflows multiply), set each step at `flowInflowNodes`.
    private var externalFlow: [Double], dryWeatherFlow: [Double]
    /// The nodes that `flowInflows` name, ascending, each once.
    private let flowInflowNodes: [Int]
    var started = false
    /// Each inflow's mass series (none for the other kinds), read from the interval the previous
    /// step used: the switch over the inflow copied a series, retaining and releasing its arrays.
    private var massSeries: SeriesTable
    /// Treatment expressions by node index, one entry per pollutant (`QualityRouting.treatments`).
    var treatments: [Int: [NodeTreatment?]] = [:] {
        didSet { hasTreatments = !treatments.isEmpty }
    }
    /// Whether any node treats a pollutant (without, a step looks no node up in `treatments`).
    private var hasTreatments = false
    /// What one model flow unit and one model length are in m³/s and m (`QualityRouting.treatmentUnits`).
    var treatmentUnits = (flow: 1.0, length: 1.0)
    /// Hydraulic residence time of each storage node's water, seconds (SWMM's updateHRT).
    var hrt: [Double]
    static let zeroVolume = 0.0353147 * 0.028316846592   // 1 litre, m³
    static let zeroDepth = 0.003281 * 0.3048
    static let zero = 1e-10

    init(pollutants: [Pollutant], inflows: [QualityInflow], flowInflows: [NodeInflow], start: SimulationClock,
         nodeCount: Int, linkCount: Int) {
        self.pollutants = pollutants; self.inflows = inflows; self.flowInflows = flowInflows; self.start = start
        let np = pollutants.count
        nodeOld = PollutantValues(pollutants: np, count: nodeCount)
        nodeNew = nodeOld; outfallLoad = nodeOld
        linkOld = PollutantValues(pollutants: np, count: linkCount)
        linkNew = linkOld; linkLoad = linkOld
        qualInflow = Array(repeating: 0, count: nodeCount)
        externalFlow = qualInflow; dryWeatherFlow = qualInflow
        flowInflowNodes = Set(flowInflows.map(\.node)).sorted()
        hrt = Array(repeating: 0, count: nodeCount)
        rates = Array(repeating: QualityRoutingContinuity(), count: np)
        totals = rates
        massSeries = SeriesTable(inflows.map { if case .mass(let series) = $0.value { series } else { nil } })
    }

    mutating func start(_ s: HydraulicState) {
        started = true
        for p in pollutants.indices {
            let c = pollutants[p].initialConcentration * 1000
            for i in 0..<s.nodeCount { nodeNew[p, i] = s.newDepth[i] > Self.zeroDepth ? c : 0 }
            for j in 0..<s.linkCount { linkNew[p, j] = s.linkNewDepth[j] > Self.zeroDepth ? c : 0 }
            totals[p].initialStorage = storedMass(p, s)
        }
        nodeOld = nodeNew; linkOld = linkNew
    }

    func storedMass(_ p: Int, _ s: HydraulicState) -> Double {
        var m = 0.0
        for i in 0..<s.nodeCount { m += s.newVolume[i] * nodeNew[p, i] }
        for j in 0..<s.linkCount { m += s.linkNewVolume[j] * linkNew[p, j] }
        return m
    }

    mutating func route(_ s: inout HydraulicState, t0: Double, dt: Double) {
        if !started { start(s) }
        for p in pollutants.indices {
            totals[p].add(rates[p], times: dt / 2)
            rates[p] = QualityRoutingContinuity()
        }
        // Old ← new, and new starts from zero, in the same two buffers (an assignment would
        // share one buffer and copy it at the first write).
        swap(&nodeOld, &nodeNew); swap(&linkOld, &linkNew)
        nodeNew.setZero(); linkNew.setZero()
        addInflows(&s, at: t0)
        for j in 0..<s.linkCount {   // each link's mass flow into its downstream node
            let q = s.newFlow[j]
            let down = q < 0 ? s.node1[j] : s.node2[j]
            for p in pollutants.indices {
                let w = abs(q) * linkOld[p, j]
                nodeNew[p, down] += w
                linkLoad[p, j] += w * dt
            }
        }
        for i in 0..<s.nodeCount {
            qualInflow[i] = s.inflow[i]
            // Treatment reads the inflow's concentrations before mixing.
            let treatment = hasTreatments ? treatments[i] : nil
            var q = 0.0, cin: [Double] = []
            if treatment != nil {
                q = qualInflow[i] < Self.zero ? 0 : qualInflow[i]
                cin = pollutants.indices.map { q > 0 ? nodeNew[$0, i] / q : 0 }
            }
            if s.nodeKind[i] == .storage || s.oldVolume[i] > Self.zeroVolume { storageQuality(i, &s, dt) } else { nodeQuality(i, &s) }
            if let treatment { treat(i, treatment, cin: cin, q: q, &s, dt) }  // lent, not copied (1 kB a node and step)
        }
        for j in 0..<s.linkCount { linkQuality(j, &s, dt) }
    }

    mutating func finish(_ s: inout HydraulicState, systemOutflow: [Double], flooded: [Bool], dt: Double) {
        for i in 0..<s.nodeCount {
            let q = systemOutflow[i]
            for p in pollutants.indices {
                if q > 0 {
                    let w = q * nodeNew[p, i]
                    if flooded[i] { rates[p].flooding += w } else { rates[p].externalOutflow += w }
                }
                if s.newLatFlow[i] < 0 { rates[p].externalOutflow -= s.newLatFlow[i] * nodeNew[p, i] }
                if s.nodeKind[i] == .outfall { outfallLoad[p, i] += s.inflow[i] * nodeNew[p, i] * dt }
            }
        }
        for p in pollutants.indices { totals[p].add(rates[p], times: dt / 2) }
    }

    func result(_ s: HydraulicState) -> QualityRoutingResult {
        var c = totals
        for p in c.indices {
            c[p].finalStorage += started ? storedMass(p, s) : 0
            c[p].zeroBand = 0.001 * 28.317   // the totals here are in mass units (1 mg/L × ft³ = 28.317 mg)
        }
        let kg = pollutants.map(\.kilogramsPerMassUnit)
        return QualityRoutingResult(pollutants: pollutants, continuity: c.enumerated().map { $1.scaled(kg[$0]) },
                                    outfallLoad: kg.indices.map { p in outfallLoad.row(p).map { $0 * kg[p] } },
                                    isOutfall: (0..<s.nodeCount).map { s.nodeKind[$0] == .outfall },
                                    linkLoad: kg.indices.map { p in linkLoad.row(p).map { $0 * kg[p] } })
    }

    // MARK: - Inflows

    private mutating func addInflows(_ s: inout HydraulicState, at t: Double) {
        // Each node's flows in arrays kept for the run (dictionaries built per step cost more than
        // the mixing), the dry-weather loads in ascending node order.
        for i in flowInflowNodes { externalFlow[i] = 0; dryWeatherFlow[i] = 0 }
        for f in flowInflows {
            if f.series != nil || f.baseline != 0 {
                var q = f.baseline
                if let series = f.series { q += f.scale * series.value(at: t) }
                externalFlow[f.node] += q
            }
            if let d = f.dryWeather { dryWeatherFlow[f.node] += d.flow(at: t, start: start) }
        }
        for i in flowInflowNodes {
            let q = dryWeatherFlow[i]
            guard abs(q) >= SWMMConstant.flowTolerance && q > 0 else { continue }
            for (p, pol) in pollutants.enumerated() where pol.dryWeatherConcentration > 0 {
                let w = q * pol.dryWeatherConcentration * 1000
                nodeNew[p, i] += w
                rates[p].dryWeatherInflow += w
            }
        }
        // The inflows are read in place (a copy of each, its series included, per step cost more
        // than its mass).
        for k in inflows.indices {
            let p = inflows[k].pollutant, i = inflows[k].node
            var w = 0.0
            if let mass = massSeries.value(k, at: t) {
                w = mass
            } else {
                switch inflows[k].value {
                case .mass: break
                case let .concentration(baseline, scale, series):
                    var q = externalFlow[i]
                    if abs(q) < SWMMConstant.flowTolerance { q = 0 }
                    if q < 0 { continue }
                    if s.nodeKind[i] == .outfall && s.oldNetInflow[i] < 0 { q -= s.oldNetInflow[i] }
                    w = (baseline + scale * (series?.value(at: t) ?? 0)) * 1000 * q
                case .dryWeather(let c):
                    let q = dryWeatherFlow[i]
                    if abs(q) < SWMMConstant.flowTolerance || q <= 0 { continue }
                    w = q * (c.flow(at: t, start: start) - pollutants[p].dryWeatherConcentration) * 1000
                case let .flowConcentration(flow, c):
                    let q = flow.value(at: t)
                    if abs(q) < SWMMConstant.flowTolerance || q <= 0 { continue }
                    w = q * c * 1000
                }
            }
            nodeNew[p, i] += w
            switch inflows[k].kind {
            case .external: rates[p].externalInflow += w
            case .dryWeather: rates[p].dryWeatherInflow += w
            case .groundwater: rates[p].groundwaterInflow += w
            case .wetWeather: rates[p].wetWeatherInflow += w
            }
        }
        // RDII at the pollutants' Crdii (SWMM's addRdiiInflows).
        for r in s.rdii {
            let q = r.flow(at: t)
            if abs(q) < SWMMConstant.flowTolerance || q <= 0 { continue }
            for (p, pol) in pollutants.enumerated() where pol.rdiiConcentration > 0 {
                let w = q * pol.rdiiConcentration * 1000
                nodeNew[p, r.node] += w
                rates[p].rdiiInflow += w
            }
        }
    }

    // MARK: - Reactors

    private mutating func reacted(_ p: Int, _ c: Double, _ v1: Double, _ dt: Double) -> Double {
        let k = pollutants[p].decay
        if k == 0 { return c }
        let c2 = max(0, c * (1 - k * dt))
        rates[p].reacted += (c - c2) * v1 / dt
        return c2
    }

    private static func mixed(_ c: Double, _ v1: Double, _ wIn: Double, _ qIn: Double, _ dt: Double) -> Double {
        if qIn <= zero { return c }
        let vIn = qIn * dt
        let cIn = wIn * dt / vIn
        let mix = (c * v1 + wIn * dt) / (v1 + vIn)
        return max(min(mix, max(c, cIn)), 0)
    }

    private mutating func nodeQuality(_ i: Int, _ s: inout HydraulicState) {
        let q = qualInflow[i]
        for p in pollutants.indices {
            if q > Self.zero { nodeNew[p, i] /= q } else { nodeNew[p, i] = s.newDepth[i] > Self.zeroDepth ? nodeOld[p, i] : 0 }
        }
    }

    private mutating func storageQuality(_ i: Int, _ s: inout HydraulicState, _ dt: Double) {
        let qIn = qualInflow[i], v1 = s.oldVolume[i]
        if s.nodeKind[i] == .storage {
            hrt[i] = v1 < Self.zero ? 0 : max((hrt[i] + dt) * v1 / (v1 + qIn * dt), 0)
        }
        let treated = hasTreatments ? treatments[i] : nil
        for p in pollutants.indices {
            // A treated pollutant's own expression replaces its decay here.
            let c1 = (treated?[p] ?? nil) != nil ? nodeOld[p, i] : reacted(p, nodeOld[p, i], v1, dt)
            var c2 = Self.mixed(c1, v1, nodeNew[p, i], qIn, dt)
            if (s.newVolume[i] <= Self.zeroVolume || s.newDepth[i] <= Self.zeroDepth) && qIn <= Self.zero {
                rates[p].finalStorage += c2 * s.newVolume[i]
                c2 = 0
            }
            nodeNew[p, i] = c2
        }
    }

    private mutating func linkQuality(_ j: Int, _ s: inout HydraulicState, _ dt: Double) {
        let up = s.newFlow[j] < 0 ? s.node2[j] : s.node1[j]
        if s.linkKind[j] != .conduit || s.isDummy[j] {
            for p in pollutants.indices { linkNew[p, j] = nodeNew[p, up] }
            return
        }
        let nb = s.barrels[j]
        var qIn = abs(s.ends[j].q1) * nb
        let v1 = s.linkOldVolume[j], v2 = s.linkNewVolume[j]
        // Seepage takes its water's mass out; evaporation leaves it behind, concentrating the rest.
        let qSeep = s.conduitSeepLoss[j] * nb, vEvap = s.conduitEvapLoss[j] * nb * dt
        let fEvap = vEvap > 0 && v1 > Self.zeroVolume ? 1 + vEvap / v1 : 1
        if s.method == .steady {
            steadyLinkQuality(j, &s, qSeep: qSeep, fEvap: fEvap, dt)
            return
        }
        if s.method == .dynamicWave { qIn = max(qIn + (v2 + qSeep * dt + vEvap - v1) / dt, 0) }
        for p in pollutants.indices {
            rates[p].seepageLoss += qSeep * linkOld[p, j]
            let c1 = reacted(p, linkOld[p, j] * fEvap, v1, dt)
            var c2 = Self.mixed(c1, v1, nodeNew[p, up] * qIn, qIn, dt)
            if v2 < Self.zeroVolume || s.linkNewDepth[j] <= Self.zeroDepth {
                rates[p].finalStorage += c2 * v2
                c2 = 0
            }
            linkNew[p, j] = c2
        }
    }

    /// A conduit's quality under steady flow (SWMM's findSFLinkQual): its upstream node's, less what
    /// seeps, concentrated by evaporation, decayed over the step.
    private mutating func steadyLinkQuality(_ j: Int, _ s: inout HydraulicState, qSeep: Double, fEvap: Double, _ dt: Double) {
        let up = s.node1[j]
        for p in pollutants.indices {
            var c1 = nodeNew[p, up]
            rates[p].seepageLoss += qSeep * c1
            c1 *= fEvap
            var c2 = c1
            let k = pollutants[p].decay
            if k > 0 {
                c2 = max(0, c1 * exp(-k * dt))
                rates[p].reacted += (c1 - c2) * s.newFlow[j]
            }
            linkNew[p, j] = c2
        }
    }
}

/// A value per pollutant and node (or link) in one buffer, pollutant by pollutant: writing an element
/// checks one array's uniqueness where an array of arrays checks two (the mixing's element writes
/// were 4 % of Example1's time).
struct PollutantValues {
    private var values: [Double]
    /// Nodes (or links) per pollutant.
    let count: Int

    init(pollutants: Int, count: Int) {
        values = Array(repeating: 0, count: pollutants * count)
        self.count = count
    }

    /// Pollutant p's value at node (or link) i.
    @inline(__always)
    subscript(p: Int, i: Int) -> Double {
        get { values[p * count + i] }
        set { values[p * count + i] = newValue }
    }

    /// Pollutant p's values by node (or link).
    func row(_ p: Int) -> [Double] { Array(values[p * count..<(p + 1) * count]) }

    /// Every value back to 0.
    mutating func setZero() {
        for k in values.indices { values[k] = 0 }
    }
}
