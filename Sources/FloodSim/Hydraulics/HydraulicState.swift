import Foundation

/// SWMM's small-number constants, converted from US units to SI.
enum SWMMConstant {
    /// SWMM's GRAVITY (32.2 ft/s²) in m/s².
    static let gravity = 32.2 * 0.3048
    /// FUDGE (0.0001 ft) as a length, m.
    static let fudge = 0.0001 * 0.3048
    /// FUDGE as an area (0.0001 ft²), m².
    static let fudgeArea = 0.0001 * 0.3048 * 0.3048
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
/// allocation.
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
    var q1: [Double], q2: [Double], a1: [Double], a2: [Double]
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
        barrels = nb
        length = len
        modLength = len
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
        let zl = Array(repeating: 0.0, count: linkCount)
        slope = zl; roughFactor = zl; beta = zl; qFull = zl; qMax = zl; aMax = zl
        orificeLength = zl; orificeSurfArea = zl; orificeHCrit = zl; orificeCOrif = zl; orificeCWeir = zl
        oldFlow = zl; newFlow = zl; linkOldDepth = zl; linkNewDepth = zl; linkOldVolume = zl; linkNewVolume = zl
        q1 = zl; q2 = zl; a1 = zl; a2 = zl; froude = zl; dqdh = zl; surfArea1 = zl; surfArea2 = zl
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

        try validate(nodes: nodes, links: links, roughness: rough)
        initialiseState()
        outfallLinks = (0..<linkCount).filter { nodeKind[node1[$0]] == .outfall || nodeKind[node2[$0]] == .outfall }
    }

    // MARK: - Validation (SWMM link_validate, conduit_validate, node_initState)

    private mutating func validate(nodes: [HydraulicNode], links: [HydraulicLink], roughness: [Double]) throws {
        let dw = method == .dynamicWave
        for j in 0..<linkCount {
            switch linkKind[j] {
            case .conduit:
                if dw && isDummy[j] && nodeKind[node1[j]] == .storage {
                    throw HydraulicsError(.invalidValue, "conduit \(j) '\(links[j].id)': a storage unit cannot drain through a DUMMY link")
                }
                if xsect[j].form == .filledCircular {
                    // SWMM raises the offsets by the filled depth.
                    let filled = {
                        if case .conduit(let c) = links[j].kind { return c.crossSection.geometry2 } else { return 0.0 }
                    }()
                    offset1[j] += filled; offset2[j] += filled
                }
                var s = conduitSlope(j)
                slope[j] = s
                if dw && s < 0 && !isDummy[j] {
                    swap(&node1[j], &node2[j])
                    swap(&offset1[j], &offset2[j])
                    swap(&cLossInlet[j], &cLossOutlet[j])
                    slope[j] = -s
                    s = -s
                    direction[j] = -1
                    q0[j] = -q0[j]
                }
                var n = roughness[j]
                if dw && isForceMain[j] { n = forceMainEquivalentN(j, roughness: n) }
                var lengthFactor = 1.0
                if dw && options.lengtheningStep > 0 && !isDummy[j] {
                    lengthFactor = lengthFactorFor(j, roughness: n)
                }
                if lengthFactor != 1 {
                    modLength[j] = lengthFactor * length[j]
                    s /= lengthFactor
                    n /= lengthFactor.squareRoot()
                }
                roughFactor[j] = gravity * n * n
                beta[j] = isDummy[j] ? 0 : abs(s).squareRoot() / n
                qFull[j] = xsect[j].sFull * beta[j]
                qMax[j] = xsect[j].sMax * beta[j]
                let x = xsect[j]
                if x.form == .circular {
                    aMax[j] = 0.9756 * x.aFull
                } else {
                    aMax[j] = x.isOpen || isDummy[j] ? x.aFull : x.area(x.depthOfMaxSectionFactor)
                }
            case .pump:
                if let p = pump[j] {
                    if p.curveKind == .ideal { qFull[j] = 0 } else { qFull[j] = p.curve.y.max() ?? 0 }
                    setting[j] = p.initiallyOn ? 1 : 0
                    targetSetting[j] = setting[j]
                    if p.startupDepth > 0 && p.startupDepth <= p.shutoffDepth {
                        throw HydraulicsError(.invalidValue, "pump \(j) '\(links[j].id)': startup depth must exceed shutoff depth")
                    }
                }
            case .orifice:
                if let o = orifice[j] {
                    orificeLength[j] = max(200 * 0.3048, 2 * options.routingStep * (gravity * xsect[j].yFull).squareRoot())
                    let h = xsect[j].yFull
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
            case .weir, .outlet:
                break
            }
            // Regulator crests below the downstream invert are raised under dynamic wave.
            if linkKind[j] == .orifice || linkKind[j] == .weir || linkKind[j] == .outlet {
                if invert[node1[j]] + offset1[j] < invert[node2[j]] && dw {
                    offset1[j] = invert[node2[j]] - invert[node1[j]]
                    offset2[j] = offset1[j]
                }
            }
            // Node full depths reach at least the link crown (not for pumps and bottom orifices).
            if linkKind[j] == .pump { continue }
            if linkKind[j] == .orifice, orifice[j]?.orientation == .bottom { continue }
            let n1 = node1[j]
            if nodeKind[n1] != .storage || surDepth[n1] > 0 {
                fullDepth[n1] = max(fullDepth[n1], offset1[j] + xsect[j].yFull)
            }
            let n2 = node2[j]
            if (nodeKind[n2] != .storage || surDepth[n2] > 0) && linkKind[j] == .conduit {
                fullDepth[n2] = max(fullDepth[n2], offset2[j] + xsect[j].yFull)
            }
        }
        for i in 0..<nodeCount where newDepth[i] > fullDepth[i] + surDepth[i] && nodeKind[i] != .outfall {
            throw HydraulicsError(.invalidValue, "node \(i) '\(nodes[i].id)': initial depth exceeds max depth + surcharge depth")
        }
        // Degree: number of links leaving each node; negative for nodes with no inflow link.
        var inCount = Array(repeating: 0, count: nodeCount)
        for j in 0..<linkCount {
            degree[node1[j]] += 1
            inCount[node2[j]] += 1
        }
        if dw {
            for i in 0..<nodeCount where inCount[i] == 0 { degree[i] = -degree[i] }
        } else {
            sortedLinks = topologicalOrder(inCount: inCount)
        }
    }

    private func conduitSlope(_ j: Int) -> Double {
        let e1 = offset1[j] + invert[node1[j]]
        let e2 = offset2[j] + invert[node2[j]]
        var delta = abs(e1 - e2)
        if delta < SWMMConstant.minDeltaZ { delta = SWMMConstant.minDeltaZ }
        var s = delta >= length[j] ? delta / length[j] : delta / (length[j] * length[j] - delta * delta).squareRoot()
        if options.minSlope > 0 && s < options.minSlope {
            s = options.minSlope
            if method != .dynamicWave { return s }
        }
        return e1 < e2 ? -s : s
    }

    private func lengthFactorFor(_ j: Int, roughness n: Double) -> Double {
        let x = xsect[j]
        var y = x.yFull
        if x.isOpen { y = x.aFull / max(x.width(x.yFull), 1e-12) }
        let vFull = x.sFull * abs(slope[j]).squareRoot() / n / x.aFull
        let tStep = min(options.routingStep, options.lengtheningStep)
        let ratio = ((gravity * y).squareRoot() + vFull) * tStep / length[j]
        return max(1, ratio)
    }

    /// Manning's n equivalent to a force main's full-flow friction (used when partly full).
    private func forceMainEquivalentN(_ j: Int, roughness c: Double) -> Double {
        let d = xsect[j].yFull
        let r = d / 4
        let v = 1.0 // m/s reference velocity
        let sf = forceMainFrictionSlope(j, velocity: v, radius: r, roughness: c)
        return (sf.squareRoot() * pow(r, 2.0 / 3.0) / v)
    }

    /// Friction slope of a full force main for velocity v (m/s) and hydraulic radius r (m).
    func forceMainFrictionSlope(_ j: Int, velocity v: Double, radius r: Double, roughness c: Double) -> Double {
        switch options.forceMainEquation {
        case .hazenWilliams:
            guard c > 0 else { return 0 }
            return pow(v / (0.849 * c * pow(r, 0.63)), 1.852)
        case .darcyWeisbach:
            let re = max(4 * r * v / SWMMConstant.viscosity, 10)
            let f: Double
            if re < 2000 { f = 64 / re } else {
                let t = log10(c / (14.8 * r) + 5.74 / pow(re, 0.9))
                f = 0.25 / (t * t)
            }
            return f * v * v / (2 * gravity * 4 * r)
        }
    }

    /// Links ordered so that every link comes after all links draining into its upstream node.
    private func topologicalOrder(inCount: [Int]) -> [Int] {
        var remaining = inCount
        var outgoing = Array(repeating: [Int](), count: nodeCount)
        for j in 0..<linkCount { outgoing[node1[j]].append(j) }
        var queue = (0..<nodeCount).filter { remaining[$0] == 0 }
        var order: [Int] = []
        var head = 0
        while head < queue.count {
            let n = queue[head]; head += 1
            for j in outgoing[n] {
                order.append(j)
                let m = node2[j]
                remaining[m] -= 1
                if remaining[m] == 0 { queue.append(m) }
            }
        }
        if order.count < linkCount {
            // Cycles: append the rest in input order.
            var seen = Array(repeating: false, count: linkCount)
            for j in order { seen[j] = true }
            for j in 0..<linkCount where !seen[j] { order.append(j) }
        }
        return order
    }

    // MARK: - Initial state (node_initState, flowrout_init)

    private mutating func initialiseState() {
        for i in 0..<nodeCount {
            fullVolume[i] = 0
            if nodeKind[i] == .storage { fullVolume[i] = storageVolume(i, fullDepth[i]) }
        }
        // Type 1 pumps give their inlet node a wet-well volume.
        for j in 0..<linkCount where linkKind[j] == .pump {
            if let p = pump[j], p.curveKind == .type1, nodeKind[node1[j]] != .storage {
                fullVolume[node1[j]] = max(fullVolume[node1[j]], p.curve.x.last ?? 0)
            }
        }
        for i in 0..<nodeCount {
            oldVolume[i] = nodeVolume(i, oldDepth[i])
            newVolume[i] = oldVolume[i]
        }
        for j in 0..<linkCount {
            oldFlow[j] = q0[j]; newFlow[j] = q0[j]
            if linkKind[j] == .conduit {
                linkNewDepth[j] = normalDepth(j, abs(q0[j]) / barrels[j])
                linkOldDepth[j] = linkNewDepth[j]
            }
        }
        if method == .dynamicWave {
            for j in 0..<linkCount {
                let n1 = node1[j], n2 = node2[j]
                crownElev[n1] = max(crownElev[n1], invert[n1] + offset1[j] + xsect[j].yFull)
                crownElev[n2] = max(crownElev[n2], invert[n2] + offset2[j] + xsect[j].yFull)
            }
            // Node depths from connected link depths where no initial depth is given.
            var sum = Array(repeating: 0.0, count: nodeCount), count = Array(repeating: 0.0, count: nodeCount)
            for j in 0..<linkCount {
                let y = linkNewDepth[j] > SWMMConstant.fudge ? linkNewDepth[j] + offset1[j] : 0
                sum[node1[j]] += y; count[node1[j]] += 1
                sum[node2[j]] += y; count[node2[j]] += 1
            }
            for i in 0..<nodeCount where nodeKind[i] != .outfall && nodeKind[i] != .storage && oldDepth[i] <= 0 && count[i] > 0 {
                newDepth[i] = sum[i] / count[i]
            }
            for j in 0..<linkCount { setOutfallDepth(j, time: 0) }
            for j in 0..<linkCount where linkKind[j] == .conduit && q0[j] == 0 {
                let y1 = min(max(newDepth[node1[j]] - offset1[j], 0), xsect[j].yFull)
                let y2 = min(max(newDepth[node2[j]] - offset2[j], 0), xsect[j].yFull)
                linkNewDepth[j] = max(0.5 * (y1 + y2), SWMMConstant.fudge)
            }
        }
        for i in 0..<nodeCount {
            inflow[i] = 0; outflow[i] = 0
            if options.allowPonding && pondedArea[i] > 0 && newDepth[i] > fullDepth[i] {
                newVolume[i] = fullVolume[i] + (newDepth[i] - fullDepth[i]) * pondedArea[i]
            } else {
                newVolume[i] = nodeVolume(i, newDepth[i])
            }
            oldDepth[i] = newDepth[i]
            oldVolume[i] = newVolume[i]
        }
        for j in 0..<linkCount {
            if newFlow[j] >= 0 {
                outflow[node1[j]] += newFlow[j]; inflow[node2[j]] += newFlow[j]
            } else {
                inflow[node1[j]] -= newFlow[j]; outflow[node2[j]] -= newFlow[j]
            }
            if linkKind[j] == .conduit {
                q1[j] = newFlow[j] / barrels[j]; q2[j] = q1[j]
                a1[j] = xsect[j].area(linkNewDepth[j]); a2[j] = a1[j]
                linkNewVolume[j] = a1[j] * length[j] * barrels[j]
                linkOldVolume[j] = linkNewVolume[j]
                linkOldDepth[j] = linkNewDepth[j]
            }
        }
    }

    // MARK: - Node geometry

    /// Stored volume at depth d (m³): storage units integrate their area curve; other nodes hold no
    /// volume of their own (SWMM's junction volume is carried by the minimum surface area only in
    /// the mass balance).
    func nodeVolume(_ i: Int, _ d: Double) -> Double {
        if nodeKind[i] == .storage { return storageVolume(i, d) }
        if fullDepth[i] > 0 { return fullVolume[i] * (d / fullDepth[i]) }
        return 0
    }

    func storageArea(_ i: Int, _ d: Double) -> Double {
        guard let s = storage[i] else { return 0 }
        switch s.shape {
        case .functional(let a, let b, let c):
            return c + a * pow(max(d, 0), b)
        case .tabular(let curve):
            return HydraulicState.lookupExtended(curve, d)
        }
    }

    func storageVolume(_ i: Int, _ d: Double) -> Double {
        guard let s = storage[i], d > 0 else { return 0 }
        if d >= fullDepth[i] && fullVolume[i] > 0 { return fullVolume[i] }
        switch s.shape {
        case .functional(let a, let b, let c):
            return c * d + a / (b + 1) * pow(d, b + 1)
        case .tabular(let curve):
            // End-area integration of the area curve from depth 0 to d.
            let xs = curve.x, ys = curve.y
            guard !xs.isEmpty else { return 0 }
            var v = 0.0
            var xPrev = 0.0, yPrev = HydraulicState.lookupExtended(curve, 0)
            for k in 0..<xs.count where xs[k] > 0 {
                if xs[k] >= d { break }
                v += 0.5 * (yPrev + ys[k]) * (xs[k] - xPrev)
                xPrev = xs[k]; yPrev = ys[k]
            }
            let yd = HydraulicState.lookupExtended(curve, d)
            v += 0.5 * (yPrev + yd) * (d - xPrev)
            return v
        }
    }

    /// Depth of a storage unit holding volume v (bisection on the volume curve).
    func storageDepth(_ i: Int, _ v: Double) -> Double {
        if v <= 0 { return 0 }
        if fullVolume[i] > 0 && v >= fullVolume[i] { return fullDepth[i] }
        var lo = 0.0, hi = fullDepth[i]
        for _ in 0..<50 {
            let mid = 0.5 * (lo + hi)
            if storageVolume(i, mid) < v { lo = mid } else { hi = mid }
        }
        return 0.5 * (lo + hi)
    }

    /// Linear interpolation with extrapolation from the end segments (SWMM table_lookupEx).
    static func lookupExtended(_ c: Curve, _ x: Double) -> Double {
        let n = c.x.count
        if n == 0 { return 0 }
        if n == 1 { return c.y[0] }
        var k = 1
        while k < n - 1 && x > c.x[k] { k += 1 }
        let x0 = c.x[k - 1], x1 = c.x[k]
        let dx = x1 - x0
        if dx == 0 { return c.y[k] }
        if x < x0 && k == 1 {
            // Below the first point SWMM extrapolates linearly, but not below 0.
            let y = c.y[0] + (x - x0) * (c.y[1] - c.y[0]) / dx
            return max(y, 0)
        }
        return c.y[k - 1] + (x - x0) * (c.y[k] - c.y[k - 1]) / dx
    }

    /// Linear interpolation holding end values (SWMM table_lookup).
    static func lookup(_ c: Curve, _ x: Double) -> Double {
        let n = c.x.count
        if n == 0 { return 0 }
        if x <= c.x[0] { return c.y[0] }
        if x >= c.x[n - 1] { return c.y[n - 1] }
        var k = 1
        while x > c.x[k] { k += 1 }
        let x0 = c.x[k - 1], x1 = c.x[k]
        return x1 > x0 ? c.y[k - 1] + (x - x0) * (c.y[k] - c.y[k - 1]) / (x1 - x0) : c.y[k]
    }

    /// Slope of the curve segment containing x.
    static func slopeAt(_ c: Curve, _ x: Double) -> Double {
        let n = c.x.count
        if n < 2 { return 0 }
        var k = 1
        while k < n - 1 && x > c.x[k] { k += 1 }
        let dx = c.x[k] - c.x[k - 1]
        return dx > 0 ? (c.y[k] - c.y[k - 1]) / dx : 0
    }

    /// Stepwise lookup: the y of the first point whose x exceeds `x` (SWMM table_intervalLookup).
    static func intervalLookup(_ c: Curve, _ x: Double) -> Double {
        let n = c.x.count
        if n == 0 { return 0 }
        if x < c.x[0] { return 0 }
        for k in 0..<n where x < c.x[k] { return c.y[k - 1 < 0 ? 0 : k - 1] }
        return c.y[n - 1]
    }

    // MARK: - Link geometry helpers

    /// Normal depth of flow q (per barrel) in conduit j, metres.
    func normalDepth(_ j: Int, _ q: Double) -> Double {
        guard linkKind[j] == .conduit, !isDummy[j] else { return 0 }
        var q = abs(q)
        if q > qMax[j] { q = qMax[j] }
        if q <= 0 || beta[j] <= 0 { return 0 }
        let x = xsect[j]
        return x.depth(ofArea: x.area(ofSectionFactor: q / beta[j]))
    }

    /// Critical depth of flow q (per barrel) in conduit j, metres.
    func criticalDepth(_ j: Int, _ q: Double) -> Double {
        guard linkKind[j] == .conduit, !isDummy[j] else { return 0 }
        return xsect[j].criticalDepth(abs(q), gravity: gravity)
    }

    /// Froude number for velocity v at depth y in conduit j.
    func froudeNumber(_ j: Int, _ v: Double, _ y: Double) -> Double {
        guard linkKind[j] == .conduit else { return 0 }
        let x = xsect[j]
        if y <= SWMMConstant.fudge { return 0 }
        if !x.isOpen && x.yFull - y <= SWMMConstant.fudge { return 0 }
        let w = x.width(y)
        guard w > 0 else { return 0 }
        let hd = x.area(y) / w
        return abs(v) / (gravity * hd).squareRoot()
    }

    /// True if reverse flow (sign of q) is blocked by a flap gate on the link or on an outfall.
    func flapGateCloses(_ j: Int, _ q: Double) -> Bool {
        if hasFlapGate[j] && q * direction[j] < 0 { return true }
        var n = -1
        if q < 0 { n = node2[j] }
        if q > 0 { n = node1[j] }
        if n >= 0, nodeKind[n] == .outfall, outfall[n]?.flapGate == true { return true }
        return false
    }

    // MARK: - Outfalls

    /// Sets the depth of an outfall at either end of link j from the link's flow (link_setOutfallDepth).
    mutating func setOutfallDepth(_ j: Int, time: Double) {
        let n: Int, z: Double
        if nodeKind[node2[j]] == .outfall { n = node2[j]; z = offset2[j] }
        else if nodeKind[node1[j]] == .outfall { n = node1[j]; z = offset1[j] }
        else { return }
        guard let boundary = outfall[n] else { return }
        // Normal and critical depth of the link's flow (0 for regulators), computed only where
        // the boundary uses them: a raised free or normal outfall is dry whatever the flow.
        let q = linkKind[j] == .conduit ? abs(newFlow[j] / barrels[j]) : 0
        let stage: Double
        switch boundary.stage {
        case .free:
            newDepth[n] = z > 0 ? 0 : min(normalDepth(j, q), criticalDepth(j, q))
            return
        case .normal:
            newDepth[n] = z > 0 ? 0 : normalDepth(j, q)
            return
        case .fixed(let s):
            stage = s
        case .tidal(let curve):
            let clock = options.start.advanced(by: time)
            let first = curve.x.first ?? 0
            stage = HydraulicState.lookup(curve, first + clock.secondOfDay / 3600)
        case .timeSeries(let series):
            var s = series
            s.holdsLastValue = true
            stage = s.value(at: time)
        }
        let yc = min(criticalDepth(j, q), normalDepth(j, q)) + invert[n] + z
        if yc <= stage { newDepth[n] = stage - invert[n] } else { newDepth[n] = yc - invert[n] }
        if newDepth[n] < 0 { newDepth[n] = 0 }
    }
}
