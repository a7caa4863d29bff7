import Foundation
import GeoCore

/// The 1D drainage hydraulics engine: routes flows through a `HydraulicNetwork` step by step,
/// SWMM 5.2 compatible (dynamic wave or kinematic wave), in SI units.
///
/// Use it either as a whole run (`run(progress:)`) or stepwise for 1D–2D coupling: set each node's
/// lateral inflow (m³/s, negative = withdrawal) with `setLateralInflow(_:atNode:)`, call `step()`
/// or `advance(to:)`, then read `nodeDepths`, `nodeHeads`, `nodeOverflows` and `linkFlows`.
/// State is held in flat arrays; a step allocates nothing.
public final class DrainageRouting {
    // The routing state and statistics are only touched from this class's own methods, one call
    // at a time: the run-time exclusivity checks Swift otherwise makes on every access to a class
    // property cost more than a step's arithmetic in the inner loops.
    @exclusivity(unchecked) var state: HydraulicState
    /// The network being routed.
    public let network: HydraulicNetwork
    /// Simulated time reached, seconds from the start.
    @exclusivity(unchecked) public private(set) var time: Double = 0

    @exclusivity(unchecked) private var statistics: RoutingStatistics
    @exclusivity(unchecked) private var totals = RoutingContinuity()
    @exclusivity(unchecked) private var rates = StepRates()
    @exclusivity(unchecked) private var stepCount = 0
    @exclusivity(unchecked) private var trialCount = 0
    @exclusivity(unchecked) private var nonConverged = 0
    /// The control rules being applied (SWMM `[CONTROLS]`), with their run-time state.
    @exclusivity(unchecked) private var controller: ControlRuleRunner?
    /// Pollutants routed along with the flow (SWMM's water quality), or nil; with each node's flow
    /// leaving the system over the step and whether it flooded, for its mass balance.
    public var quality: QualityRouting? {
        didSet {
            qualityOutflow = Array(repeating: 0, count: quality == nil ? 0 : state.nodeCount)
            qualityFlooded = qualityOutflow.map { _ in false }
            if stepCount == 0 { quality?.start(state) }   // initial concentrations where the start has water
        }
    }
    @exclusivity(unchecked) private var qualityOutflow: [Double] = [], qualityFlooded: [Bool] = []
    /// Whether any inflow has a dry-weather part or a patterned baseline (whose patterns need the
    /// step's calendar position).
    private let hasDryWeather: Bool

    /// Flow rates summed over nodes at the end of a step, m³/s (for trapezoidal mass-balance totals).
    fileprivate struct StepRates {
        var dryWeather = 0.0, lateral = 0.0, external = 0.0, rdii = 0.0, flooding = 0.0, outflow = 0.0, withdrawal = 0.0
        var evaporation = 0.0, seepage = 0.0
    }

    /// Prepares a run; throws `HydraulicsError` naming the node or link when the network is invalid.
    public init(network: HydraulicNetwork) throws {
        self.network = network
        state = try HydraulicState(network: network)
        hasDryWeather = network.inflows.contains { $0.dryWeather != nil || $0.patternedBaseline != nil }
        statistics = RoutingStatistics(nodes: Array(repeating: NodeStatistics(), count: network.nodes.count),
                                       links: Array(repeating: LinkStatistics(), count: network.links.count),
                                       volumeSum: Array(repeating: 0, count: network.nodes.count))
        totals.initialStorage = storedVolume(initial: true)
        for i in 0..<state.nodeCount {
            statistics.nodes[i].maxDepth = state.newDepth[i]
            statistics.nodes[i].maxHead = state.newDepth[i] + state.invert[i]
        }
    }

    /// Starts from a saved state (SWMM's USE HOTSTART: node depths and lateral inflows, link
    /// flows, depths and settings) instead of the initial depths and flows; before the first step.
    /// - Throws: `HydraulicsError` after the first step or when the state does not fit the network.
    public func applyHotStart(_ h: RoutingHotStart) throws {
        guard stepCount == 0, time == 0 else { throw HydraulicsError(.invalidValue, "a hot start applies only before the first routing step") }
        guard h.nodeDepths.count == state.nodeCount, h.lateralInflows.count == state.nodeCount, h.linkFlows.count == state.linkCount,
              h.linkDepths.count == state.linkCount, h.linkSettings.count == state.linkCount else {
            throw HydraulicsError(.invalidValue, "a hot start of \(h.nodeDepths.count) nodes and \(h.linkFlows.count) links does not fit a network of \(state.nodeCount) and \(state.linkCount)")
        }
        let values = h.nodeDepths + h.lateralInflows + h.linkFlows + h.linkDepths + h.linkSettings
        guard values.allSatisfy(\.isFinite), h.nodeDepths.allSatisfy({ $0 >= 0 }), h.linkDepths.allSatisfy({ $0 >= 0 }) else {
            throw HydraulicsError(.invalidValue, "a hot start's depths must be finite and ≥ 0, its flows and settings finite")
        }
        state.applyHotStart(h)
        totals.initialStorage = storedVolume(initial: true)
        for i in 0..<state.nodeCount {
            statistics.nodes[i].maxDepth = state.newDepth[i]
            statistics.nodes[i].maxHead = state.newDepth[i] + state.invert[i]
        }
    }

    /// Control rules to apply from the next step on (nil: none). Setting them restarts their
    /// clocks (rule step, link switch times, PID errors).
    public var controls: ControlRules? {
        get { controller?.rules }
        set {
            controller = newValue.map { ControlRuleRunner(rules: $0, network: network) }
            if var c = controller {
                c.nextRuleTime = time
                controller = c
            }
        }
    }

    /// The constant control actions taken so far (SWMM's control-action report).
    public var controlActions: [ControlActionRecord] { controller?.log ?? [] }

    // MARK: - Coupling interface

    /// Sets the lateral inflow at node `index` (m³/s; negative withdraws water), used from the next
    /// step on until changed.
    public func setLateralInflow(_ flow: Double, atNode index: Int) {
        guard index >= 0, index < state.nodeCount, flow.isFinite else { return }
        state.callerLateral[index] = flow
    }

    /// Lateral inflows set by the caller, m³/s, indexed by node.
    public var lateralInflows: [Double] {
        get { state.callerLateral }
        set {
            for i in 0..<min(newValue.count, state.nodeCount) where newValue[i].isFinite {
                state.callerLateral[i] = newValue[i]
            }
        }
    }

    /// Water depth above each node's invert, metres.
    public var nodeDepths: [Double] { state.newDepth }
    /// Hydraulic head (invert + depth) at each node, metres above datum.
    public var nodeHeads: [Double] { (0..<state.nodeCount).map { state.newDepth[$0] + state.invert[$0] } }
    /// Overflow rate at each node over the last step (flooding or flow into ponding), m³/s.
    public var nodeOverflows: [Double] { state.overflow }
    /// Volume stored at each node (ponded water included), m³.
    public var nodeVolumes: [Double] { state.newVolume }
    /// Total inflow to each node over the last step (lateral + links), m³/s.
    public var nodeInflows: [Double] { state.inflow }
    /// Flow in each link, m³/s, positive from `fromNode` to `toNode`.
    public var linkFlows: [Double] { (0..<state.linkCount).map { state.newFlow[$0] * state.direction[$0] } }
    /// Each link's current setting: a pump's speed (0 off), a conduit's status (0 closed, 1
    /// open), a regulator's opening fraction.
    public var linkSettings: [Double] { state.setting }
    /// Flow depth in each link, metres.
    public var linkDepths: [Double] { state.linkNewDepth }

    /// Depth at node `index`, metres (0 if out of range).
    public func depth(atNode index: Int) -> Double { index >= 0 && index < state.nodeCount ? state.newDepth[index] : 0 }
    /// Head at node `index`, metres above datum (0 if out of range).
    public func head(atNode index: Int) -> Double {
        index >= 0 && index < state.nodeCount ? state.newDepth[index] + state.invert[index] : 0
    }
    /// Overflow at node `index` over the last step, m³/s (0 if out of range).
    public func overflow(atNode index: Int) -> Double { index >= 0 && index < state.nodeCount ? state.overflow[index] : 0 }
    /// Flow in link `index`, m³/s from its from-node to its to-node (0 if out of range).
    public func flow(inLink index: Int) -> Double {
        index >= 0 && index < state.linkCount ? state.newFlow[index] * state.direction[index] : 0
    }

    // MARK: - Stepping

    /// Routes one step of at most the routing step (variable under dynamic wave), never passing
    /// `limit` seconds of simulated time; returns the step length in seconds (0 when `limit` ≤ time).
    @discardableResult
    public func step(until limit: Double = .infinity) -> Double {
        let options = state.options
        var dt = options.routingStep
        if state.method == .dynamicWave { dt = state.dynamicRoutingStep(fixedStep: options.routingStep) }
        if controller != nil { dt = controller!.limitStep(dt, at: time) }
        let remaining = limit - time
        if remaining <= 1e-9 { return 0 }
        if dt > remaining { dt = remaining }
        addTotals(dt / 2)
        state.updatePumpTargets()
        controller?.apply(to: &state, time: time, dt: dt)
        state.applyTargetSettings(dt: dt)
        let t0 = time
        // Storage units' evaporation and seepage over the step, from their state now (SWMM's
        // node_getLosses before the step's inflows).
        state.updateStorageLosses(dt: dt, time: t0)
        applyInflows(at: t0)

        state.beginStep(dt: dt)
        if state.method == .dynamicWave {
            let r = state.dynamicWaveStep(dt: dt, time: t0)
            trialCount += r.trials
            if !r.converged { nonConverged += 1 }
        } else {
            state.kinematicWaveStep(dt: dt)
            trialCount += 1
        }
        time = t0 + dt
        controller?.stepEnded(at: time)
        stepCount += 1
        // The quality is lent the state (`inout`, not changed): handed it as a value, the whole
        // state was copied at each call.
        if let quality { quality.route(&state, t0: t0, dt: dt) }
        removeOutflows(dt)
        if let quality { quality.finish(&state, systemOutflow: qualityOutflow, flooded: qualityFlooded, dt: dt) }
        addTotals(dt / 2)
        state.updateStatistics(&statistics, dt: dt, time: time)
        return dt
    }

    /// Routes until simulated time `target` seconds (the last step is shortened to land on it).
    public func advance(to target: Double) {
        while time < target - 1e-9 {
            if step(until: target) == 0 { break }
        }
    }

    /// Routes to the end of `options.duration` and returns the statistics and continuity.
    /// - Parameter progress: called about every 1 % of the duration and at the end: stage
    ///   `routing`, simulated seconds of the duration.
    public func run(progress: ((WorkProgress) -> Void)? = nil) -> RoutingResults {
        let duration = state.options.duration
        var nextReport = 0.0
        while time < duration - 1e-9 {
            if step(until: duration) == 0 { break }
            if let progress, time >= nextReport {
                progress(WorkProgress(stage: "routing", completed: time, total: duration, unit: "s"))
                nextReport = time + duration / 100
            }
        }
        progress?(WorkProgress(stage: "routing", completed: time, total: duration, unit: "s"))
        return results()
    }

    /// Statistics and continuity of the run so far.
    public func results() -> RoutingResults {
        var c = totals
        c.finalStorage = storedVolume(initial: false)
        var nodes = statistics.nodes
        if stepCount > 0 {
            for i in 0..<state.nodeCount where state.nodeKind[i] == .storage {
                nodes[i].averageVolume = statistics.volumeSum[i] / Double(stepCount)
            }
        }
        return RoutingResults(nodes: nodes, links: statistics.links, continuity: c, steps: stepCount,
                              averageIterations: stepCount > 0 ? Double(trialCount) / Double(stepCount) : 0,
                              nonConvergingPercent: stepCount > 0 ? 100 * Double(nonConverged) / Double(stepCount) : 0)
    }

    /// What the pollutants did so far (nil without `quality`).
    public func qualityResults() -> QualityRoutingResult? { quality?.result(state) }

    // MARK: - Inflows and mass balance

    private func applyInflows(at t: Double) {
        rates = StepRates()
        // The calendar position of t, found once per step for every dry-weather inflow.
        let position = hasDryWeather ? state.options.start.advanced(by: t) : state.options.start
        state.applyInflows(at: t, position: position, rates: &rates)
    }

    private func removeOutflows(_ dt: Double) {
        let dw = state.method == .dynamicWave
        if state.hasStorageLosses {
            for i in 0..<state.nodeCount where state.nodeKind[i] == .storage {
                rates.evaporation += state.evaporationLoss[i] / dt
                rates.seepage += state.seepageLoss[i] / dt
                statistics.nodes[i].evaporationLoss += state.evaporationLoss[i]
                statistics.nodes[i].exfiltrationLoss += state.seepageLoss[i]
            }
        }
        if state.hasConduitLosses { state.addConduitLosses(to: &rates) }
        for i in 0..<state.nodeCount {
            var q = 0.0
            var flooded = false
            let terminalKW = !dw && state.degree[i] == 0 && state.nodeKind[i] != .storage
            if state.nodeKind[i] == .outfall || terminalKW {
                if state.outflow[i] == 0 { q = state.inflow[i] } else if state.inflow[i] == 0 {
                    q = -state.outflow[i]
                    state.inflow[i] = abs(q)
                }
                state.overflow[i] = 0
                state.newVolume[i] = 0
            } else {
                if state.newVolume[i] <= state.fullVolume[i] { q = state.overflow[i] }
                flooded = q > 0
            }
            if !qualityOutflow.isEmpty { qualityOutflow[i] = q; qualityFlooded[i] = flooded }
            if q > 0 {
                if flooded { rates.flooding += q } else { rates.outflow += q }
            } else {
                rates.external -= q
            }
        }
    }

    private func addTotals(_ dt: Double) {
        totals.dryWeatherInflow += rates.dryWeather * dt
        totals.lateralInflow += rates.lateral * dt
        totals.externalInflow += rates.external * dt
        totals.rdiiInflow += rates.rdii * dt
        totals.flooding += rates.flooding * dt
        totals.externalOutflow += rates.outflow * dt
        totals.withdrawal += rates.withdrawal * dt
        totals.evaporationLoss += rates.evaporation * dt
        totals.seepageLoss += rates.seepage * dt
    }

    /// Volume in nodes and links; under dynamic wave non-storage nodes below their crown also hold
    /// depth × minimum surface area (SWMM's massbal_getStorage).
    private func storedVolume(initial: Bool) -> Double {
        var v = 0.0
        for i in 0..<state.nodeCount {
            v += state.newVolume[i]
            if state.method == .dynamicWave && state.nodeKind[i] != .storage && state.nodeKind[i] != .outfall {
                let d = state.newDepth[i]
                if d <= state.crownElev[i] - state.invert[i] { v += d * state.minSurfArea }
            }
        }
        for j in 0..<state.linkCount { v += state.linkNewVolume[j] }
        return v
    }
}

/// The statistics a run gathers step by step (SWMM's stats.c), held in one value that the routing
/// object lends to the state's `updateStatistics`.
struct RoutingStatistics {
    var nodes: [NodeStatistics]
    var links: [LinkStatistics]
    /// Each node's stored volume summed over the steps (for storage units' mean volume).
    var volumeSum: [Double]
}

private extension HydraulicState {
    /// Old state ← new state at the start of a step of dt seconds; node flows start from the
    /// lateral inflow. (The step's bookkeeping loops are methods of the state lent inout: written
    /// through the routing object's property, every element write checked its array's uniqueness.)
    mutating func beginStep(dt: Double) {
        for j in 0..<linkCount {
            oldFlow[j] = newFlow[j]
            linkOldDepth[j] = linkNewDepth[j]
            linkOldVolume[j] = linkNewVolume[j]
        }
        for i in 0..<nodeCount {
            oldDepth[i] = newDepth[i]
            oldVolume[i] = newVolume[i]
            oldFlowInflow[i] = inflow[i]
            oldNetInflow[i] = inflow[i] - outflow[i]
            inflow[i] = newLatFlow[i]
            outflow[i] = losses[i]
            overflow[i] = 0
            if nodeKind[i] != .storage && newVolume[i] > fullVolume[i] {
                overflow[i] = (newVolume[i] - fullVolume[i]) / dt
            }
        }
    }

    /// Adds every conduit's evaporation and seepage over the step just routed (m³/s, all barrels)
    /// to the step's rates. Mutating only to be lent the state: a non-mutating method called through
    /// the routing object's property gets a copy of the whole state.
    mutating func addConduitLosses(to rates: inout DrainageRouting.StepRates) {
        for j in 0..<linkCount where linkKind[j] == .conduit {
            rates.evaporation += conduitEvapLoss[j] * barrels[j]
            rates.seepage += conduitSeepLoss[j] * barrels[j]
        }
    }

    /// This step's lateral inflows at time t (calendar `position`): external, dry-weather, RDII and
    /// the caller's, added to `rates`.
    mutating func applyInflows(at t: Double, position: SimulationClock, rates: inout DrainageRouting.StepRates) {
        for i in 0..<nodeCount {
            oldLatFlow[i] = newLatFlow[i]
            newLatFlow[i] = 0
        }
        // The inflows are read in place: a copy of each (its series and patterns) per step cost
        // more than its flow.
        for k in inflows.indices {
            var qx = inflows[k].baseline
            if let v = inflowSeries.value(k, at: t) { qx += inflows[k].scale * v }
            if let b = inflows[k].patternedBaseline { qx += b.flow(at: position) }
            if abs(qx) < SWMMConstant.flowTolerance { qx = 0 }
            var qd = inflows[k].dryWeather?.flow(at: position) ?? 0
            if abs(qd) < SWMMConstant.flowTolerance { qd = 0 }
            newLatFlow[inflows[k].node] += qx + qd
            rates.external += qx
            rates.dryWeather += qd
        }
        // RDII after the external, dry- and wet-weather inflows, as SWMM's addRdiiInflows.
        for r in rdii {
            let q = r.flow(at: t)
            if abs(q) < SWMMConstant.flowTolerance { continue }
            newLatFlow[r.node] += q
            rates.rdii += q
        }
        for i in 0..<nodeCount {
            let q = callerLateral[i]
            if q == 0 { continue }
            newLatFlow[i] += q
            if q > 0 { rates.lateral += q } else { rates.withdrawal -= q }
        }
    }

    /// Adds the step of dt seconds that ended at `time` to the statistics (SWMM's stats_updateNodeStats
    /// and stats_updateLinkStats). Mutating only to be lent the state rather than handed a copy of it.
    mutating func updateStatistics(_ stats: inout RoutingStatistics, dt: Double, time: Double) {
        let hours = dt / 3600
        for i in 0..<nodeCount {
            let d = newDepth[i]
            if d > stats.nodes[i].maxDepth {
                stats.nodes[i].maxDepth = d
                stats.nodes[i].timeOfMaxDepth = time
            }
            stats.nodes[i].maxHead = max(stats.nodes[i].maxHead, d + invert[i])
            stats.nodes[i].maxTotalInflow = max(stats.nodes[i].maxTotalInflow, inflow[i])
            if nodeKind[i] == .outfall {
                if inflow[i] > 0 { stats.nodes[i].outfallVolume += inflow[i] * dt }
                continue
            }
            let ov = overflow[i]
            if newVolume[i] > fullVolume[i] || ov > 0 {
                stats.nodes[i].hoursFlooded += hours
                stats.nodes[i].floodVolume += ov * dt
                if ov > stats.nodes[i].maxFloodRate {
                    stats.nodes[i].maxFloodRate = ov
                    stats.nodes[i].timeOfMaxFlooding = time
                }
                stats.nodes[i].maxPondedVolume = max(stats.nodes[i].maxPondedVolume, newVolume[i] - fullVolume[i])
            }
            if nodeKind[i] == .storage {
                stats.volumeSum[i] += newVolume[i]
                stats.nodes[i].maxVolume = max(stats.nodes[i].maxVolume, newVolume[i])
            }
            // Under dynamic wave a node surcharges above its highest crown; a storage unit only
            // when it may (a surcharge depth), as SWMM's stats_updateNodeStats.
            if method == .dynamicWave, nodeKind[i] != .storage || surDepth[i] > 0,
               d + invert[i] + SWMMConstant.fudge >= crownElev[i] { stats.nodes[i].hoursSurcharged += hours }
        }
        for j in 0..<linkCount {
            let q = newFlow[j] * direction[j]
            if abs(q) > abs(stats.links[j].maxFlow) {
                stats.links[j].maxFlow = q
                stats.links[j].timeOfMaxFlow = time
            }
            guard linkKind[j] == .conduit, !isDummy[j] else { continue }
            let y = linkNewDepth[j]
            if y > 0.01 * 0.3048 {
                let a = xsect[j].area(y)
                if a > SWMMConstant.fudgeArea {
                    let v = abs(newFlow[j]) / barrels[j] / a
                    stats.links[j].maxVelocity = max(stats.links[j].maxVelocity, v)
                }
            }
            let yFull = xsect[j].yFull
            if yFull > 0 {
                stats.links[j].maxFilling = max(stats.links[j].maxFilling, min(1, y / yFull))
                if y >= yFull { stats.links[j].hoursFull += hours }
            }
            if capacityLimited[j] { stats.links[j].hoursCapacityLimited += hours }
        }
    }
}
