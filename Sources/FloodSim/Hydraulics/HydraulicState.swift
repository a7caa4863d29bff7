import Foundation

/// SWMM's small-number constants, converted from US units to SI.
enum SWMMConstant {
    /// SWMM's GRAVITY (32.2 ft/s²) in m/s².
    static let gravity = 32.2 * 0.3048
    /// FUDGE (0.0001 ft) as a length, m.
    static let fudge = 0.0001 * 0.3048
    /// FUDGE as an area (0.0001 ft²), m².
    static let fudgeArea = 0.0001 * 0.3048 * 0.3048
    /// FUDGE as a volume (0.0001 ft³), m³.
    static let fudgeVolume = 0.0001 * 0.028316846592
    /// FUDGE as a flow (0.0001 cfs), m³/s.
    static let fudgeFlow = 0.0001 * 0.028316846592
    /// FLOW_TOL (0.00001 cfs), m³/s.
    static let flowTolerance = 0.00001 * 0.028316846592
    /// MAXVELOCITY (50 ft/s), m/s.
    static let maxVelocity = 50 * 0.3048
    /// MIN_DELTA_Z (0.001 ft), m.
    static let minDeltaZ = 0.001 * 0.3048
    /// EXTRAN crown cutoff for top width of closed conduits.
    static let crownCutoff = 0.96
    /// Crown cutoff with the Preissmann slot (SWMM's SLOT_CROWN_CUTOFF): the slot starts here.
    static let slotCrownCutoff = 0.985257
    /// Kinematic viscosity of water used for Darcy–Weisbach force mains, m²/s.
    static let viscosity = 1.1e-5 * 0.3048 * 0.3048
}

/// Flow classes of a conduit (SWMM `flowClass`).
enum FlowClass: UInt8 { case dry, upDry, dnDry, subcritical, supercritical, upCritical, dnCritical }

/// Node and link kinds as small codes for the flat arrays.
enum NodeKindCode: UInt8 { case junction, outfall, storage, divider }
enum LinkKindCode: UInt8 { case conduit, pump, orifice, weir, outlet }

/// The whole mutable state of a routing run as flat arrays indexed by node or link.
///
/// Kept as one struct so the step loops run as `mutating` methods with static exclusivity and no
/// allocation. A non-mutating method called from a mutating one gets a copy of the whole state
/// (about 900 bytes, and sometimes a retain of every array): the small ones the step loops call
/// per node or link are therefore `@inline(__always)`.
struct HydraulicState {
    // MARK: Options
    let method: RoutingOptions.Method
    let options: RoutingOptions
    let gravity = SWMMConstant.gravity
    let minSurfArea: Double
    // Options read in the inner loops, held as plain fields: reading them through `options`
    // made the optimiser copy the whole options struct at each use.
    let allowPonding: Bool
    let headTolerance: Double
    let inertialDamping: RoutingOptions.InertialDamping
    let normalFlowLimit: RoutingOptions.NormalFlowLimit
    /// SURCHARGE_METHOD SLOT: closed conduits carry a Preissmann slot, nodes are never
    /// head-iterated the EXTRAN way.
    let usesSlot: Bool
    /// Fraction of full depth above which a closed conduit's top width is cut off (EXTRAN 0.96)
    /// or replaced by the slot's width (SLOT 0.985257).
    let crownCutoff: Double

    // MARK: Nodes
    let nodeCount: Int
    let nodeKind: [NodeKindCode]
    let invert: [Double]
    var fullDepth: [Double]
    let surDepth: [Double]
    let pondedArea: [Double]
    var crownElev: [Double]
    var degree: [Int]
    var fullVolume: [Double]
    let outfall: [OutfallBoundary?]
    let storage: [StorageUnit?]
    /// Each storage unit's seepage state (nil: no seepage), and whether any unit evaporates or seeps.
    var exfiltration: [StorageExfiltration?]
    let hasStorageLosses: Bool
    /// Each storage unit's evaporation and seepage over the current step, m³.
    var evaporationLoss: [Double], seepageLoss: [Double]
    let divider: [FlowDivider?]

    var oldDepth: [Double], newDepth: [Double]
    var oldVolume: [Double], newVolume: [Double]
    var inflow: [Double], outflow: [Double]
    var oldNetInflow: [Double], oldFlowInflow: [Double]
    var overflow: [Double], losses: [Double]
    var oldLatFlow: [Double], newLatFlow: [Double]
    /// Lateral inflow set by the caller, m³/s (negative = withdrawal).
    var callerLateral: [Double]
    var converged: [Bool]
    var newSurfArea: [Double], oldSurfArea: [Double]
    var sumdqdh: [Double], dYdT: [Double]

    // MARK: Links
    let linkCount: Int
    let linkKind: [LinkKindCode]
    var node1: [Int], node2: [Int]
    var offset1: [Double], offset2: [Double]
    var direction: [Double]
    let qLimit: [Double]
    let hasFlapGate: [Bool]
    var xsect: [SectionGeometry]
    let isDummy: [Bool]
    let isForceMain: [Bool]
    /// The inlet of each conduit with a culvert code (`CulvertInlet`), nil for the others.
    let culvert: [CulvertInlet?]
    let barrels: [Double]
    let length: [Double]
    var modLength: [Double]
    var slope: [Double]
    var roughFactor: [Double]
    var beta: [Double]
    var qFull: [Double], qMax: [Double]
    /// Flow area at which each conduit's section factor peaks (SWMM's xsect aMax), m²; aFull for open sections.
    var aMax: [Double]
    var cLossInlet: [Double], cLossOutlet: [Double], cLossAvg: [Double]
    let hasLosses: [Bool]
    /// Each conduit's seepage rate through its wetted width ([LOSSES] Seepage), m/s; 0 for other links.
    let seepRate: [Double]
    /// Whether any conduit loses water: seepage, or evaporation from an open conduit's surface while
    /// the model evaporates (SWMM's conduit_getLossRate).
    let hasConduitLosses: Bool
    /// The potential evaporation rate over the current step, m/s (SWMM's Evap.rate), set when conduits lose water.
    var evaporationNow = 0.0
    /// Each conduit's evaporation and seepage over the current step, m³/s per barrel (SWMM's evapLossRate, seepLossRate).
    var conduitEvapLoss: [Double], conduitSeepLoss: [Double]
    let forceMainRoughness: [Double]
    let pump: [Pump?]
    let orifice: [Orifice?]
    let weir: [Weir?]
    let outlet: [Outlet?]
    var orificeLength: [Double]
    var orificeSurfArea: [Double]
    var orificeHCrit: [Double], orificeCOrif: [Double], orificeCWeir: [Double]

    var oldFlow: [Double], newFlow: [Double]
    var q0: [Double]
    var linkOldDepth: [Double], linkNewDepth: [Double]
    var linkOldVolume: [Double], linkNewVolume: [Double]
    /// Each conduit's entry and exit flow and area (per barrel), one record a link: the kinematic wave
    /// writes all four at once (one uniqueness check, not four).
    var ends: [ConduitEnds]
    var froude: [Double]
    var flowClass: [FlowClass]
    var dqdh: [Double]
    var surfArea1: [Double], surfArea2: [Double]
    var bypassed: [Bool]
    var setting: [Double], targetSetting: [Double]
    var capacityLimited: [Bool]
    var pumpOffCurve: [Bool]

    // MARK: Inflows
    let inflows: [NodeInflow]
    /// The inflows' series (`inflows[k].series` at entry k), each read from where its last step's lookup was.
    var inflowSeries: SeriesTable
    let rdii: [RDIIInflow]
    /// Links sorted from upstream to downstream (kinematic wave).
    var sortedLinks: [Int] = []
    /// Links with an outfall at either end, whose outfall depth follows their flow.
    var outfallLinks: [Int] = []

    // MARK: Iteration bookkeeping
    var steps = 0
    var omega = 0.5
    var variableStep = 0.0

    init(network: HydraulicNetwork) throws {
        let opts = network.options
        options = opts
        method = opts.method
        allowPonding = opts.allowPonding
        headTolerance = opts.headTolerance
        inertialDamping = opts.inertialDamping
        normalFlowLimit = opts.normalFlowLimit
        usesSlot = opts.surchargeMethod == .slot
        crownCutoff = usesSlot ? SWMMConstant.slotCrownCutoff : SWMMConstant.crownCutoff
        guard opts.duration >= 0, opts.duration.isFinite else {
            throw HydraulicsError(.invalidValue, "options.duration must be a finite number of seconds ≥ 0")
        }
        guard opts.routingStep > 0, opts.routingStep.isFinite else {
            throw HydraulicsError(.invalidValue, "options.routingStep must be > 0 seconds (got \(opts.routingStep))")
        }
        minSurfArea = opts.minSurfaceArea > 0 ? opts.minSurfaceArea : 12.566 * 0.3048 * 0.3048

        let nodes = network.nodes, links = network.links
        nodeCount = nodes.count
        linkCount = links.count
        for (i, n) in nodes.enumerated() {
            for (name, v) in [("invertElevation", n.invertElevation), ("maxDepth", n.maxDepth),
                              ("initialDepth", n.initialDepth), ("surchargeDepth", n.surchargeDepth),
                              ("pondedArea", n.pondedArea)] {
                guard v.isFinite, name == "invertElevation" || v >= 0 else {
                    throw HydraulicsError(.invalidValue, "node \(i) '\(n.id)': \(name) must be finite and ≥ 0 (got \(v))")
                }
            }
        }
        nodeKind = nodes.map {
            switch $0.kind {
            case .junction: return .junction
            case .outfall: return .outfall
            case .storage: return .storage
            case .divider: return .divider
            }
        }
        invert = nodes.map(\.invertElevation)
        fullDepth = nodes.map(\.maxDepth)
        surDepth = nodes.map(\.surchargeDepth)
        pondedArea = nodes.map(\.pondedArea)
        outfall = nodes.map { if case .outfall(let o) = $0.kind { return o } else { return nil } }
        storage = nodes.map { if case .storage(let s) = $0.kind { return s } else { return nil } }
        divider = nodes.map { if case .divider(let d) = $0.kind { return d } else { return nil } }
        for (i, unit) in storage.enumerated() {
            guard let soil = unit?.seepage else { continue }
            guard soil.suction.isFinite, soil.suction >= 0, soil.conductivity.isFinite, soil.conductivity > 0,
                  soil.initialDeficit >= 0, soil.initialDeficit <= 1 else {
                throw HydraulicsError(.invalidValue, "storage node \(i) '\(nodes[i].id)': seepage needs a suction ≥ 0, a conductivity > 0 "
                                      + "and an initial deficit from 0 to 1 (got \(soil.suction), \(soil.conductivity), \(soil.initialDeficit))")
            }
        }
        exfiltration = storage.map { unit in unit.flatMap { u in u.seepage.map { StorageExfiltration(shape: u.shape, soil: $0) } } }
        let evaporates = network.options.evaporates
        hasStorageLosses = storage.contains { $0?.seepage != nil || (evaporates && ($0?.evaporationFactor ?? 0) > 0) }
        for (i, d) in divider.enumerated() {
            if let d, d.divertedLink < 0 || d.divertedLink >= links.count {
                throw HydraulicsError(.badReference, "divider node \(i) '\(nodes[i].id)': diverted link \(d.divertedLink) is not a link of the network")
            }
        }
        crownElev = invert
        degree = Array(repeating: 0, count: nodeCount)
        fullVolume = Array(repeating: 0, count: nodeCount)
        let z = Array(repeating: 0.0, count: nodeCount)
        oldDepth = nodes.map(\.initialDepth); newDepth = oldDepth
        oldVolume = z; newVolume = z; inflow = z; outflow = z; oldNetInflow = z; oldFlowInflow = z
        evaporationLoss = z; seepageLoss = z
        overflow = z; losses = z; oldLatFlow = z; newLatFlow = z; callerLateral = z
        converged = Array(repeating: false, count: nodeCount)
        newSurfArea = z; oldSurfArea = z; sumdqdh = z; dYdT = z

        // Links.
        var kinds: [LinkKindCode] = [], sections: [SectionGeometry] = [], dummy: [Bool] = [], fm: [Bool] = []
        var nb: [Double] = [], len: [Double] = [], rough: [Double] = [], fmRough: [Double] = []
        var lossIn: [Double] = [], lossOut: [Double] = [], lossAvg: [Double] = []
        var pumps: [Pump?] = [], orifices: [Orifice?] = [], weirs: [Weir?] = [], outlets: [Outlet?] = []
        for (j, l) in links.enumerated() {
            guard l.fromNode >= 0, l.fromNode < nodeCount, l.toNode >= 0, l.toNode < nodeCount else {
                throw HydraulicsError(.badReference, "link \(j) '\(l.id)': node index \(l.fromNode) or \(l.toNode) is not a node of the network")
            }
            guard l.inletOffset.isFinite, l.outletOffset.isFinite, l.initialFlow.isFinite, l.maxFlow.isFinite, l.maxFlow >= 0 else {
                throw HydraulicsError(.invalidValue, "link \(j) '\(l.id)': offsets, initial flow and max flow must be finite (max flow ≥ 0)")
            }
            var p: Pump? = nil, o: Orifice? = nil, w: Weir? = nil, ou: Outlet? = nil
            var geometry = try SectionGeometry(CrossSection(shape: .dummy, geometry1: 0))
            var isFM = false, barrelCount = 1.0, cl = 0.0, n = 0.0
            var li = 0.0, lo = 0.0, la = 0.0, fr = 0.0
            switch l.kind {
            case .conduit(let c):
                kinds.append(.conduit)
                guard c.length > 0, c.length.isFinite else {
                    throw HydraulicsError(.invalidValue, "conduit \(j) '\(l.id)': length must be > 0 m (got \(c.length))")
                }
                guard c.roughness > 0, c.roughness.isFinite else {
                    throw HydraulicsError(.invalidValue, "conduit \(j) '\(l.id)': roughness must be > 0 (got \(c.roughness))")
                }
                guard c.barrels >= 1 else {
                    throw HydraulicsError(.invalidValue, "conduit \(j) '\(l.id)': barrels must be ≥ 1 (got \(c.barrels))")
                }
                do { geometry = try SectionGeometry(c.crossSection) } catch let e as HydraulicsError {
                    throw HydraulicsError(e.code, "conduit \(j) '\(l.id)': \(e.message)")
                }
                isFM = c.crossSection.shape == .forceMain
                barrelCount = Double(c.barrels)
                cl = c.length; n = c.roughness
                li = c.entryLoss; lo = c.exitLoss; la = c.averageLoss
                fr = isFM ? c.crossSection.geometry2 : 0
            case .pump(let pp):
                kinds.append(.pump); p = pp
                if pp.curveKind != .ideal, pp.curve.x.count < 1 {
                    throw HydraulicsError(.invalidValue, "pump \(j) '\(l.id)': a pump curve needs at least one point")
                }
            case .orifice(let oo):
                kinds.append(.orifice); o = oo
                guard oo.opening.shape == .circular || oo.opening.shape == .rectangularClosed else {
                    throw HydraulicsError(.unsupported, "orifice \(j) '\(l.id)': opening must be CIRCULAR or RECT_CLOSED")
                }
                do { geometry = try SectionGeometry(oo.opening) } catch let e as HydraulicsError {
                    throw HydraulicsError(e.code, "orifice \(j) '\(l.id)': \(e.message)")
                }
            case .weir(let ww):
                kinds.append(.weir); w = ww
                guard ww.height > 0, ww.length >= 0 else {
                    throw HydraulicsError(.invalidValue, "weir \(j) '\(l.id)': height must be > 0 and length ≥ 0")
                }
                geometry = try SectionGeometry(.rectangularClosed(height: ww.height, width: max(ww.length, 1e-6)))
            case .outlet(let oo):
                kinds.append(.outlet); ou = oo
            }
            sections.append(geometry)
            dummy.append(geometry.form == .dummy)
            fm.append(isFM)
            nb.append(barrelCount); len.append(cl); rough.append(n); fmRough.append(fr)
            lossIn.append(li); lossOut.append(lo); lossAvg.append(la)
            pumps.append(p); orifices.append(o); weirs.append(w); outlets.append(ou)
        }
        linkKind = kinds
        xsect = sections
        isDummy = dummy
        isForceMain = fm
        culvert = try links.map { l in if case .conduit(let c) = l.kind { try CulvertInlet(code: c.culvertCode) } else { nil } }
        barrels = nb
        modLength = len
        // A natural channel's water and slope lie along its flood plain (main channel / meander).
        length = zip(len, links).map { l, link in if case .conduit(let c) = link.kind, c.meander > 0 { l / c.meander } else { l } }
        forceMainRoughness = fmRough
        pump = pumps; orifice = orifices; weir = weirs; outlet = outlets
        node1 = links.map(\.fromNode); node2 = links.map(\.toNode)
        offset1 = links.map { max(0, $0.inletOffset) }
        offset2 = links.map { max(0, $0.outletOffset) }
        // Regulators have one offset: their crest height above the inlet invert.
        for j in 0..<linkCount where kinds[j] != .conduit { offset2[j] = offset1[j] }
        direction = Array(repeating: 1, count: linkCount)
        qLimit = links.map(\.maxFlow)
        hasFlapGate = links.map(\.flapGate)
        q0 = links.map(\.initialFlow)
        cLossInlet = lossIn; cLossOutlet = lossOut; cLossAvg = lossAvg
        hasLosses = (0..<linkCount).map { lossIn[$0] != 0 || lossOut[$0] != 0 || lossAvg[$0] != 0 }
        seepRate = try links.enumerated().map { j, l in
            guard case .conduit(let c) = l.kind else { return 0 }
            guard c.seepageRate.isFinite, c.seepageRate >= 0 else {
                throw HydraulicsError(.invalidValue, "conduit \(j) '\(l.id)': seepage rate must be finite and ≥ 0 (got \(c.seepageRate))")
            }
            return c.seepageRate
        }
        hasConduitLosses = seepRate.contains { $0 > 0 } || (evaporates && (0..<linkCount).contains { kinds[$0] == .conduit && sections[$0].isOpen })
        let zl = Array(repeating: 0.0, count: linkCount)
        conduitEvapLoss = zl; conduitSeepLoss = zl
        slope = zl; roughFactor = zl; beta = zl; qFull = zl; qMax = zl; aMax = zl
        orificeLength = zl; orificeSurfArea = zl; orificeHCrit = zl; orificeCOrif = zl; orificeCWeir = zl
        oldFlow = zl; newFlow = zl; linkOldDepth = zl; linkNewDepth = zl; linkOldVolume = zl; linkNewVolume = zl
        ends = Array(repeating: ConduitEnds(), count: linkCount); froude = zl; dqdh = zl; surfArea1 = zl; surfArea2 = zl
        flowClass = Array(repeating: .dry, count: linkCount)
        bypassed = Array(repeating: false, count: linkCount)
        setting = Array(repeating: 1, count: linkCount)
        targetSetting = setting
        capacityLimited = Array(repeating: false, count: linkCount)
        pumpOffCurve = Array(repeating: false, count: linkCount)

        for (k, inflow) in network.inflows.enumerated() {
            guard inflow.node >= 0, inflow.node < nodeCount else {
                throw HydraulicsError(.badReference, "inflow \(k): node index \(inflow.node) is not a node of the network")
            }
        }
        inflows = network.inflows
        inflowSeries = SeriesTable(network.inflows.map(\.series))
        for r in network.rdii where r.node < 0 || r.node >= nodeCount {
            throw HydraulicsError(.badReference, "RDII inflow: node index \(r.node) is not a node of the network")
        }
        rdii = network.rdii

        try validate(nodes: nodes, links: links, roughness: rough)
        initialiseState()
        outfallLinks = (0..<linkCount).filter { nodeKind[node1[$0]] == .outfall || nodeKind[node2[$0]] == .outfall }
    }
}

/// A conduit's flow and area at its entry (1) and exit (2), per barrel: SWMM's q1, a1, q2, a2; and the
/// segment angle of the last shallow-circle area the kinematic wave solved at its exit.
struct ConduitEnds: Sendable {
    var q1 = 0.0, a1 = 0.0, q2 = 0.0, a2 = 0.0
    var exitAngle = CircleAngleMemo()

    init(q1: Double = 0, a1: Double = 0, q2: Double = 0, a2: Double = 0, exitAngle: CircleAngleMemo = CircleAngleMemo()) {
        self.q1 = q1; self.a1 = a1; self.q2 = q2; self.a2 = a2; self.exitAngle = exitAngle
    }
}
