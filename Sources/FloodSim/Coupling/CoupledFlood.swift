import GeoCore

/// A 1D–2D coupled urban flood run: subcatchment runoff into the pipe network (`DrainageRouting`),
/// the street surface on the DEM (`SurfaceFlow`), and manholes trading water between the two
/// (`ManholeExchange`, flood.md §4.6).
///
/// **Where rain goes.** Rain that falls on a subcatchment becomes runoff (nonlinear reservoirs with
/// infiltration) that enters the network at the subcatchment's outlet inlet; the 2D grid receives
/// only what the network cannot take (manhole spills and node overflow) plus `gridRainfall`, which
/// a caller gives for cells outside every subcatchment (use `SurfaceRainfall.cellWeights` = 0 on
/// subcatchment cells) — so no drop is counted twice.
///
/// **Lockstep.** Both models advance in coupling intervals of `settings.couplingInterval` seconds
/// (by default the network's routing step). At the start of each interval every linked manhole's
/// discharge Q (positive pipe → street) is computed from the node head and the cell's water level;
/// the surface takes Q, plus the overflow the engine shed in the previous interval, as a point
/// source and steps to the interval's end with its own CFL steps; the water the surface really
/// gave or took (a sink never takes more than the cell holds) then goes to the engine as the
/// node's lateral inflow (−Q), together with the runoff of the interval, and the engine routes to
/// the same instant. Node overflow the engine would lose (flooding) is carried to the node's cell
/// in the next interval instead; overflow at a node without a cell is lost and reported.
///
/// **River stage.** Give the network's outfalls a fixed or time-series stage and the surface
/// `SurfaceBoundary.fixedLevels` cells along the river; both are boundaries of the coupled system
/// and their flows appear in the balance as outflow (or inflow).
///
/// One instance is one run and is not thread-safe (the surface sweeps on its own threads).
public final class CoupledFlood {
    /// A manhole linked to a surface cell.
    public struct Link: Sendable, Equatable {
        /// Node index in the network.
        public var node: Int
        /// The surface cell over the manhole (not a building or no-data cell).
        public var cell: SurfaceCell
        /// Manhole cover area A in m² (a 0.7 m cover is about 0.4 m²; an inlet grate 0.2–1 m²).
        public var area: Double

        public init(node: Int, cell: SurfaceCell, area: Double = 0.5) {
            self.node = node
            self.cell = cell
            self.area = area
        }
    }

    /// Settings of the coupling itself.
    public struct Settings: Sendable, Equatable {
        /// Seconds between exchanges (both models meet at each multiple); `nil` uses the network's
        /// routing step.
        public var couplingInterval: Double?
        /// Depth in metres above which a cell counts as flooded for `hoursAboveThreshold`
        /// (15 cm: the road acceptance rule, flood.md §1.1).
        public var depthThreshold: Double = 0.15
        /// Seconds between samples of the depth grid for `hoursAboveThreshold`.
        public var statisticsInterval: Double = 60
        /// Surface scheme settings.
        public var surface: SurfaceFlowSettings = .init()
        /// Seconds between kept snapshots of the depth grid and the node depths
        /// (`CoupledFloodResult.snapshots`), or nil to keep none. The first snapshot is taken at
        /// the first coupling interval ending at or after this time, the last at the end.
        public var snapshotInterval: Double?
        /// At most this many snapshots are kept (memory stays bounded: one `Float` per cell and
        /// per node each); a shorter `snapshotInterval` is widened to `duration ÷ maxSnapshots`.
        public var maxSnapshots: Int = 200

        public init(couplingInterval: Double? = nil, depthThreshold: Double = 0.15, statisticsInterval: Double = 60,
                    surface: SurfaceFlowSettings = .init(), snapshotInterval: Double? = nil, maxSnapshots: Int = 200) {
            self.couplingInterval = couplingInterval
            self.depthThreshold = depthThreshold
            self.statisticsInterval = statisticsInterval
            self.surface = surface
            self.snapshotInterval = snapshotInterval
            self.maxSnapshots = maxSnapshots
        }
    }

    public let network: HydraulicNetwork
    public let links: [Link]
    public let duration: Double
    public let settings: Settings

    private let routing: DrainageRouting
    private let surface: SurfaceFlow
    private let runoffSimulation: RunoffSimulation?
    private let exchanges: [ManholeExchange]
    private let ground: [Double]
    private let cellArea: Double

    /// Prepares a run.
    /// - Parameters:
    ///   - network: the pipe network in SI (its `inflows` are external inflows besides runoff).
    ///   - runoff: subcatchments whose outlets name nodes of `network`, or `nil` for none. Its
    ///     duration is set to `duration`.
    ///   - surface: the street surface (DEM, roughness, buildings, boundary).
    ///   - gridRainfall: rain on cells outside the subcatchments (see the type's notes).
    ///   - links: manholes and their cells; at most one link per node.
    ///   - duration: simulated seconds (> 0).
    /// - Throws: `HydraulicsError` for an invalid network; `FloodInputError`
    ///   naming the link or subcatchment for a node index out of range, a blocked or outside cell,
    ///   a bad manhole area, a node linked twice, a runoff outlet naming no node, or bad settings.
    public init(network: HydraulicNetwork, runoff: RunoffSimulation? = nil, surface domain: SurfaceDomain,
                gridRainfall: SurfaceRainfall = .none, links: [Link], duration: Double,
                settings: Settings = .init()) throws {
        guard duration > 0, duration.isFinite else {
            throw FloodInputError("duration must be > 0 s, got \(duration)", field: "duration")
        }
        if let c = settings.couplingInterval, !(c > 0 && c.isFinite) {
            throw FloodInputError("coupling interval must be > 0 s, got \(c)", field: "settings.couplingInterval")
        }
        guard settings.statisticsInterval > 0, settings.statisticsInterval.isFinite else {
            throw FloodInputError("statistics interval must be > 0 s", field: "settings.statisticsInterval")
        }
        var net = network
        net.options.duration = duration
        routing = try DrainageRouting(network: net)
        surface = try SurfaceFlow(domain: domain, rainfall: gridRainfall, settings: settings.surface)
        var seen = Set<Int>()
        var exchanges: [ManholeExchange] = []
        var ground: [Double] = []
        for (k, link) in links.enumerated() {
            guard link.node >= 0, link.node < network.nodes.count else {
                throw FloodInputError("node index \(link.node) is not in the network", field: "links[\(k)]")
            }
            let id = network.nodes[link.node].id
            if case .outfall = network.nodes[link.node].kind {
                throw FloodInputError("outfall \(id) cannot be linked to the surface", field: "links[\(k)]")
            }
            guard seen.insert(link.node).inserted else {
                throw FloodInputError("node \(id) is linked twice", field: "links[\(k)]")
            }
            guard link.cell.column >= 0, link.cell.column < domain.width, link.cell.row >= 0, link.cell.row < domain.height,
                  !domain.isBlocked(link.cell) else {
                throw FloodInputError("node \(id): \(link.cell) is outside the grid or on a building",
                                    field: "links[\(k)]")
            }
            do { exchanges.append(try ManholeExchange(area: link.area)) } catch let e as FloodInputError {
                throw FloodInputError("node \(id): \(e.message)", field: "links[\(k)].area")
            }
            ground.append(surface.waterLevel(at: link.cell) - surface.depth(at: link.cell))
        }
        if var r = runoff {
            for s in r.subcatchments {
                if case .node(let name) = s.outlet, network.nodeIndex(name) == nil {
                    throw FloodInputError("subcatchment \(s.name) drains to node \(name), which the network lacks",
                                        field: "runoff.subcatchments")
                }
            }
            r.duration = duration
            runoffSimulation = r
        } else {
            runoffSimulation = nil
        }
        self.network = net
        self.links = links
        self.duration = duration
        self.settings = settings
        self.exchanges = exchanges
        self.ground = ground
        self.cellArea = domain.cellSize * domain.cellSize
    }

    /// Runs the whole duration.
    /// - Parameter progress: called after every coupling interval in which at least 0.5 % of the
    ///   duration passed, and at the end: stage `simulating`, simulated seconds of the duration.
    public func run(progress: ((WorkProgress) -> Void)? = nil) -> CoupledFloodResult {
        run(checkingCancellation: {}, progress: progress)
    }

    /// Runs the whole duration unless cancelled: `isCancelled` is asked before the runoff phase
    /// and before every coupling interval, so a cancelled run stops within one interval (the
    /// intervals completed are the ones `progress` saw when every interval is reported).
    /// - Parameters:
    ///   - isCancelled: true once the caller no longer wants the result (a dismissed job:
    ///     `{ Task.isCancelled }` from inside the job's task).
    ///   - progress: as for `run(progress:)`.
    /// - Throws: `CancellationError` when `isCancelled` returned true; nothing of the run is kept.
    public func run(isCancelled: @escaping @Sendable () -> Bool,
                    progress: ((WorkProgress) -> Void)? = nil) throws -> CoupledFloodResult {
        try run(checkingCancellation: { if isCancelled() { throw CancellationError() } }, progress: progress)
    }

    private func run(checkingCancellation check: () throws -> Void,
                     progress: ((WorkProgress) -> Void)?) rethrows -> CoupledFloodResult {
        try check()
        // Runoff first: it does not depend on the network (no backwater into inlets, as in SWMM).
        var runoffInflow: [(node: Int, series: TimeSeries)] = []
        var runoffContinuity = RunoffContinuity()
        if let runoffSimulation {
            let result = runoffSimulation.run()
            runoffContinuity = result.continuity
            for (name, series) in RunoffSimulation.nodeInflows(result, subcatchments: runoffSimulation.subcatchments) {
                if let i = network.nodeIndex(name) { runoffInflow.append((i, series)) }
            }
        }
        let nodeCount = network.nodes.count
        let linkedSlot: [Int?] = {
            var s = [Int?](repeating: nil, count: nodeCount)
            for (k, l) in links.enumerated() { s[l.node] = k }
            return s
        }()
        let isOutfall = network.nodes.map { node -> Bool in
            if case .outfall = node.kind { return true } else { return false }
        }
        let interval = settings.couplingInterval ?? network.options.routingStep
        var summaries = links.map { ManholeExchangeSummary(node: $0.node) }
        var previous = [Double](repeating: 0, count: links.count)   // last exchange discharge, m³/s
        var pendingOverflow = [Double](repeating: 0, count: links.count)   // m³ to put on the street next interval
        var lateral = [Double](repeating: 0, count: nodeCount)
        var balance = CoupledFloodBalance()
        let initialNetworkStorage = routing.results().continuity.initialStorage
        balance.initialStorage = initialNetworkStorage + surface.volumeBalance.initialStorage + runoffContinuity.initialStorage

        let width = surface.domain.width, height = surface.domain.height
        var hoursAbove = [Float](repeating: 0, count: width * height)
        var nextSample = settings.statisticsInterval
        var lastSample = 0.0
        var lastReport = 0.0
        var intervals = 0
        var source = [Double](repeating: 0, count: links.count)
        var applied = [Double](repeating: 0, count: links.count)
        var snapshots: [FloodSnapshot] = []
        let snapshotInterval = settings.snapshotInterval.map { Swift.max($0, duration / Double(Swift.max(1, settings.maxSnapshots))) }
        var nextSnapshot = snapshotInterval ?? .infinity

        var t = 0.0
        while t < duration - 1e-9 {
            try check()
            let tNext = Swift.min(duration, t + interval)
            let dt = tNext - t
            // 1. Exchange discharges from the state at t, plus the overflow shed last interval.
            for (k, link) in links.enumerated() {
                let flow = exchanges[k].flow(nodeHead: routing.head(atNode: link.node), groundLevel: ground[k],
                                             surfaceDepth: surface.depth(at: link.cell), previousDischarge: previous[k],
                                             timeStep: dt, cellArea: cellArea)
                source[k] = flow.discharge + pendingOverflow[k] / dt
                applied[k] = 0
                try? surface.setSource(source[k], at: link.cell)
            }
            // 2. The surface steps to tNext; sinks may take less than asked when a cell runs dry.
            while surface.time < tNext - 1e-9 {
                let h = surface.step(maxTimeStep: tNext - surface.time)
                if h <= 0 { break }
                for k in links.indices where source[k] < 0 {
                    applied[k] += surface.appliedSource(at: links[k].cell) * h
                }
            }
            for k in links.indices where source[k] >= 0 { applied[k] = source[k] * dt }
            // 3. What the surface really traded goes to the engine, with the interval's runoff.
            for i in 0..<nodeCount { lateral[i] = 0 }
            for (node, series) in runoffInflow {
                let v = Self.integral(series, from: t, to: tNext)
                lateral[node] += v / dt
                balance.runoffToNetwork += v
            }
            for (k, link) in links.enumerated() {
                let exchanged = applied[k] - pendingOverflow[k]   // m³, positive pipe → street
                lateral[link.node] -= exchanged / dt
                let q = exchanged / dt
                previous[k] = q
                if exchanged >= 0 {
                    balance.pipeToSurface += exchanged
                    summaries[k].spilled += exchanged
                    summaries[k].peakSpill = Swift.max(summaries[k].peakSpill, q)
                } else {
                    balance.surfaceToPipe -= exchanged
                    summaries[k].drained -= exchanged
                    summaries[k].peakDrainage = Swift.max(summaries[k].peakDrainage, -q)
                }
                pendingOverflow[k] = 0
            }
            for i in 0..<nodeCount { routing.setLateralInflow(lateral[i], atNode: i) }
            // 4. The engine routes to tNext; node overflow goes to the street next interval.
            while routing.time < tNext - 1e-9 {
                let h = routing.step(until: tNext)
                if h <= 0 { break }
                for i in 0..<nodeCount {
                    let ov = routing.overflow(atNode: i)
                    guard ov > 0 else { continue }
                    if let k = linkedSlot[i] {
                        pendingOverflow[k] += ov * h
                        balance.pipeToSurface += ov * h
                        summaries[k].spilled += ov * h
                    } else if !isOutfall[i] {
                        balance.unlinkedFlooding += ov * h
                    }
                }
            }
            t = tNext
            intervals += 1
            // 5. Time above the depth threshold, sampled.
            if t >= nextSample - 1e-9 || t >= duration - 1e-9 {
                let span = Float((t - lastSample) / 3600)
                lastSample = t
                for r in 0..<height {
                    for c in 0..<width where surface.depth(at: SurfaceCell(column: c, row: r)) > settings.depthThreshold {
                        hoursAbove[r * width + c] += span
                    }
                }
                nextSample = t + settings.statisticsInterval
            }
            // 6. Snapshots of the depth grid and the node depths at the output interval.
            if let snapshotInterval, t >= nextSnapshot - 1e-9 || t >= duration - 1e-9, snapshots.count < settings.maxSnapshots {
                var grid = surface.domain.elevation
                grid.noData = nil
                grid.withUnsafeMutableValues { out in
                    for r in 0..<height {
                        for c in 0..<width { out[r * width + c] = Float(surface.depth(at: SurfaceCell(column: c, row: r))) }
                    }
                }
                let nodeDepths = (0..<nodeCount).map { Float(routing.head(atNode: $0) - network.nodes[$0].invertElevation) }
                snapshots.append(FloodSnapshot(time: t, depth: grid, nodeDepths: nodeDepths))
                while nextSnapshot <= t + 1e-9 { nextSnapshot += snapshotInterval }
            }
            if let progress, t - lastReport >= duration / 200 || t >= duration - 1e-9 {
                progress(WorkProgress(stage: "simulating", completed: t, total: duration, unit: "s"))
                lastReport = t
            }
        }
        // Overflow the engine shed in the last interval is still on its way to the street.
        let inTransit = pendingOverflow.reduce(0, +)
        let routingResults = routing.results()
        let surfaceResult = surface.result()
        let sb = surfaceResult.volumeBalance
        let c = routingResults.continuity
        balance.subcatchmentRain = runoffContinuity.rainfall
        balance.gridRain = sb.rain
        balance.networkInflow = c.externalInflow + c.dryWeatherInflow + c.rdiiInflow
        balance.surfaceBoundaryInflow = sb.boundaryInflow
        balance.runoffLosses = runoffContinuity.infiltration + runoffContinuity.evaporation
        balance.surfaceLosses = sb.losses
        balance.outfallOutflow = c.externalOutflow + c.seepageLoss + c.evaporationLoss
        balance.surfaceBoundaryOutflow = sb.boundaryOutflow
        balance.stageInflow = sb.stageInflow
        balance.stageOutflow = sb.stageOutflow
        balance.stageFillCapacity = sb.stageFillCapacity
        balance.finalStorage = c.finalStorage + sb.storage + runoffContinuity.finalStorage + inTransit
            + (runoffContinuity.runoff - balance.runoffToNetwork)   // runoff produced but not yet delivered
        var hoursGrid = surfaceResult.maxDepth
        hoursGrid.withUnsafeMutableValues { out in for i in out.indices { out[i] = hoursAbove[i] } }
        return CoupledFloodResult(surface: surfaceResult, hoursAboveThreshold: hoursGrid, routing: routingResults,
                                  runoff: runoffContinuity, exchanges: summaries, balance: balance, duration: duration,
                                  intervals: intervals, snapshots: snapshots)
    }

    /// ∫ series dt from `a` to `b` seconds, the series linear between breakpoints and 0 outside them.
    static func integral(_ s: TimeSeries, from a: Double, to b: Double) -> Double {
        let times = s.times, values = s.values
        guard let first = times.first, let last = times.last, b > a, b > first, a < last else { return 0 }
        func value(_ t: Double, _ k: Int) -> Double {   // on segment k…k+1
            let t0 = times[k], t1 = times[k + 1]
            return t1 > t0 ? values[k] + (values[k + 1] - values[k]) * (t - t0) / (t1 - t0) : values[k + 1]
        }
        var total = 0.0
        var lo = 0, hi = times.count - 1
        while hi - lo > 1 {   // last breakpoint ≤ a
            let mid = (lo + hi) / 2
            if times[mid] <= a { lo = mid } else { hi = mid }
        }
        var k = lo
        while k < times.count - 1 && times[k] < b {
            let s0 = Swift.max(a, times[k]), s1 = Swift.min(b, times[k + 1])
            if s1 > s0 { total += 0.5 * (value(s0, k) + value(s1, k)) * (s1 - s0) }
            k += 1
        }
        return total
    }
}
