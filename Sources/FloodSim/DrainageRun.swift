import Foundation
import GeoCore
import SWMMFormat

/// A SWMM model run end to end: rainfall → runoff (at WET_STEP/DRY_STEP) → runoff as lateral
/// inflow at the outlet nodes → hydraulic routing (`DrainageRouting`, DYNWAVE or KINWAVE per
/// `[OPTIONS]`). Results are in SI units.
public enum DrainageRun {
    /// What a run reports: both continuity tables, and node and link summaries by name.
    public struct Result: Sendable {
        public var runoff: RunoffContinuity
        public var routing: RoutingContinuity
        /// Node names in the engine's order, with their statistics.
        public var nodeNames: [String]
        public var nodes: [NodeStatistics]
        public var linkNames: [String]
        public var links: [LinkStatistics]
        /// Runoff volume that reached the drainage nodes, m³ (the routing's wet-weather inflow).
        public var runoffToNodes: Double
        /// Routing steps taken, mean Picard iterations per step, and percent of steps that did not
        /// converge (SWMM's "Average Iterations per Step" and "Percent Not Converging").
        public var routingSteps = 0
        public var averageIterations = 0.0
        public var nonConvergingPercent = 0.0
        /// The control actions the rules took (SWMM's control-action report).
        public var controlActions: [ControlActionRecord] = []
        /// Each LID usage's water balance (SWMM's LID Performance Summary).
        public var lidPerformance: [LIDPerformance] = []
        /// What the aquifers under the subcatchments did (SWMM's groundwater summary and
        /// continuity), when the model has groundwater.
        public var groundwater: GroundwaterResult? = nil
        /// Subcatchment names in the runoff's order (the order of `groundwater.summaries`).
        public var subcatchmentNames: [String] = []
        /// What the pollutants did on the surface and in the conveyance system, when the model
        /// simulates water quality.
        public var surfaceQuality: SurfaceQualityResult? = nil
        public var routingQuality: QualityRoutingResult? = nil
        /// The RDII the `[RDII]` nodes received (SWMM's "Rainfall Dependent I/I" totals), when
        /// the model has RDII.
        public var rdii: RDIIResult? = nil
    }

    /// Runs `model`.
    /// - Parameters:
    ///   - baseDirectory: where FILE references of the model are read.
    ///   - interfaceFiles: leave to read and write the hot-start files `[FILES]` names (only the
    ///     command line gives it, for a `.inp` its administrator passed); without it a model with
    ///     `[FILES]` is refused, so no other caller can make the engine touch a file it names.
    ///   - progress: called during both stages, `runoff` then `routing`, each counting simulated
    ///     seconds of its own duration (so the share starts again at the routing).
    /// - Throws: `SWMMInputError` for model data the run cannot use or would not simulate
    ///   (`SWMMModel.checkSimulated()`), `HydraulicsError` from the engine.
    public static func run(_ model: SWMMModel, baseDirectory: URL? = nil, interfaceFiles: SWMMInterfaceFiles? = nil,
                           progress: ((WorkProgress) -> Void)? = nil) throws -> Result {
        // `[CONTROLS]` are read once, resolved against the network right after it is built (still
        // before anything runs): checked apart first, they were read twice (10 % of extran10's run
        // in session 16's profile).
        try model.checkSimulated(interfaceFiles: interfaceFiles != nil, controls: false)
        let hotStart = try interfaceFiles != nil ? model.hotStartFiles() : (use: nil, save: nil)
        var network = try model.hydraulicNetwork(baseDirectory: baseDirectory)
        var controls = try model.controlRules(network: network, baseDirectory: baseDirectory)
        let rdii = try network.rdii.isEmpty ? nil : model.rdii(network: network, baseDirectory: baseDirectory)
        var runoffContinuity = RunoffContinuity()
        var runoffVolume = 0.0
        var runoffTimes: [Double] = []
        var lidPerformance: [LIDPerformance] = []
        var groundwater: GroundwaterResult?
        let modelInflows = network.inflows
        var qualityInflows = try model.qualityInflows(network: network, baseDirectory: baseDirectory)
        var surfaceQuality: SurfaceQualityResult?
        if !model.subcatchments.isEmpty {
            var sim = try model.runoffSimulation(baseDirectory: baseDirectory)
            sim.quality = try model.surfaceQualitySetup()
            let duration = sim.duration
            // Reported about every 1 % of the duration, as the routing reports (a report per runoff
            // step, the progress bar reading the clock each time, was 4 % of Example5's run).
            var nextReport = 0.0
            let r = sim.run { t in
                guard let progress, t >= nextReport || t >= duration else { return }
                progress(WorkProgress(stage: "runoff", completed: t, total: duration, unit: "s"))
                nextReport = t + duration / 100
            }
            runoffContinuity = r.continuity
            runoffVolume = r.continuity.runoff + r.continuity.drains
            runoffTimes = r.times
            lidPerformance = r.lidPerformance
            for (node, series) in RunoffSimulation.nodeInflows(r, subcatchments: sim.subcatchments) {
                guard let k = network.nodeIndex(node) else { continue }
                network.inflows.append(NodeInflow(node: k, series: series, scale: 1))
            }
            for (node, series) in sim.groundwaterInflows(r) {
                guard let k = network.nodeIndex(node) else { continue }
                network.inflows.append(NodeInflow(node: k, series: series, scale: 1))
            }
            groundwater = r.groundwater
            surfaceQuality = r.quality
            qualityInflows += RunoffSimulation.qualityInflows(r, sim, network: network)
        }
        let engine = try DrainageRouting(network: network)
        if let files = interfaceFiles, let use = hotStart.use {
            try engine.applyHotStart(model.readHotStart(use, files: files, network: network))
        }
        controls?.runoffTimes = runoffTimes
        engine.controls = controls
        if model.simulatesQuality {
            engine.quality = QualityRouting(pollutants: try model.pollutants(), inflows: qualityInflows, flowInflows: modelInflows,
                                            start: network.options.start, nodeCount: network.nodes.count, linkCount: network.links.count)
            engine.quality?.treatments = try model.treatments(network: network)
            engine.quality?.treatmentUnits = (flow: model.units.flowRate, length: model.units.length)
        }
        let routed = engine.run { p in progress?(p) }
        if let files = interfaceFiles, let save = hotStart.save {
            try model.saveHotStart(save, engine.hotStartState, files: files, network: network)
        }
        return Result(runoff: runoffContinuity, routing: routed.continuity, nodeNames: network.nodes.map(\.id), nodes: routed.nodes,
                      linkNames: network.links.map(\.id), links: routed.links, runoffToNodes: runoffVolume,
                      routingSteps: routed.steps, averageIterations: routed.averageIterations,
                      nonConvergingPercent: routed.nonConvergingPercent, controlActions: engine.controlActions,
                      lidPerformance: lidPerformance,
                      groundwater: groundwater, subcatchmentNames: model.subcatchments.map(\.name),
                      surfaceQuality: surfaceQuality, routingQuality: engine.qualityResults(), rdii: rdii)
    }
}

extension DrainageRun.Result {
    /// The summary as one JSON document in SI units, the shape `citytwin simulate drainage --json`
    /// prints and `Scripts/reference/make_swmm_fixtures.py` writes for SWMM itself.
    public func summaryJSON() -> [String: Any] {
        var nodesJSON: [String: Any] = [:]
        for (k, name) in nodeNames.enumerated() {
            let s = nodes[k]
            nodesJSON[name] = ["max_depth_m": s.maxDepth, "hours_flooded": s.hoursFlooded,
                               "max_flood_rate_m3s": s.maxFloodRate, "flood_volume_m3": s.floodVolume]
        }
        var linksJSON: [String: Any] = [:]
        for (k, name) in linkNames.enumerated() {
            linksJSON[name] = ["max_flow_m3s": abs(links[k].maxFlow), "max_velocity_ms": links[k].maxVelocity]
        }
        var result: [String: Any] = [
            "runoff_continuity": ["rainfall_m3": runoff.rainfall, "runoff_m3": runoff.runoff, "lid_drainage_m3": runoff.drains,
                                  "error_pct": runoff.errorPercent],
            "routing_continuity": ["inflow_m3": routing.totalInflow, "rdii_m3": routing.rdiiInflow, "flooding_m3": routing.flooding,
                                   "outflow_m3": routing.externalOutflow, "evaporation_m3": routing.evaporationLoss,
                                   "exfiltration_m3": routing.seepageLoss, "error_pct": routing.errorPercent],
            "nodes": nodesJSON,
            "links": linksJSON,
        ]
        // SWMM's control-action report, when the model has control rules that acted.
        if !controlActions.isEmpty {
            result["control_actions"] = controlActions.map { ["time_s": $0.time, "link": $0.link, "setting": $0.setting, "rule": $0.rule] }
        }
        // SWMM's LID Performance Summary, when the model has LID usage: depths in mm over each usage's area.
        if !lidPerformance.isEmpty {
            result["lid_performance"] = lidPerformance.map { p -> [String: Any] in
                ["subcatchment": p.subcatchment, "control": p.control, "inflow_mm": p.inflow * 1000, "evaporation_mm": p.evaporation * 1000,
                 "infiltration_mm": p.infiltration * 1000, "surface_outflow_mm": p.surfaceOutflow * 1000,
                 "drain_outflow_mm": p.drainOutflow * 1000, "initial_storage_mm": p.initialStorage * 1000,
                 "final_storage_mm": p.finalStorage * 1000, "continuity_error_pct": p.continuityErrorPercent]
            }
        }
        if let groundwater { result["groundwater"] = groundwater.summaryJSON(subcatchments: subcatchmentNames) }
        if let q = qualityJSON() { result["quality"] = q }
        // SWMM's "Rainfall Dependent I/I" table and each RDII node's inflow (volume and peak).
        if let rdii {
            var nodes: [String: Any] = [:]
            let duration = rdii.duration
            for r in rdii.inflows where r.node < nodeNames.count {
                nodes[nodeNames[r.node]] = ["volume_m3": r.volume(until: duration), "peak_m3s": r.peak(until: duration)]
            }
            result["rdii"] = ["sewershed_rainfall_m3": rdii.sewershedRainfall, "produced_m3": rdii.produced,
                              "ratio": rdii.ratio, "nodes": nodes]
        }
        return result
    }
}
