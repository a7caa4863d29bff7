import FloodSim
import Foundation
import GeoCore
import ProcessRuntime
import SWMMFormat
import TwinStore

/// Runs a `FloodScenario` on the district in a store: reads the drainage, hydrology, land-use,
/// building and road layers (one reprojection batch to EPSG:4547), builds the SWMM-compatible
/// network and the DEM surface, runs the coupled 1D–2D model and writes the result layers
/// (`FloodResultLayers`) and the maximum-depth raster.
public enum FloodScenarioRun {
    /// How to run.
    public struct Options: Sendable {
        /// The id of the district DEM among the store's managed rasters (`ManagedRasters`; EPSG:4547 metres).
        public var dem: String
        /// `Models/storm-intensity.json`.
        public var stormCatalog: URL
        /// Where the maximum-depth raster is written (`<layer stem>_maxdepth.asc`, beside the
        /// `<layer stem>_depth` layer); nil to skip it.
        public var rasters: ResultRasters?
        /// Scales the storm duration (and so the run) for quick runs; 1 is the scenario as written.
        public var durationScale: Double
        /// Coarsens the DEM by this block factor (1 = the DEM's 10 m cells) for quick runs.
        public var demCoarsening: Int
        /// Threads of the surface kernel.
        public var threads: Int
        /// Write the result layers to the store (false: compute only).
        public var writeLayers: Bool
        /// The result layers' definition templates (`Layers/results`, `FloodResultLayers.definitions(from:)`).
        public var resultLayers: URL
        /// The map as of this instant (nil: now): a scenario's base.
        public var asOf: Date?
        /// Sandbox edits applied to the layers read, in memory only (a scenario's changes).
        public var changes: [ScenarioChange] = []
        /// Seconds between the depth and node-depth snapshots kept as results over time
        /// (`FloodTimeSteps`: a depth grid per step beside the depth layer, hydrographs at the
        /// nodes, depth over time on the roads); nil keeps none. Needs `rasters`.
        public var outputInterval: Double?
        /// The instant of the storm's start, for the steps' date-times.
        public var start: Date = Date(timeIntervalSince1970: 0)
        /// The sharing of the result layers when not their templates' (a draft flood run's: its owner's alone).
        public var resultSharing: SharingPolicy?
        /// What the result layers describe when not the city as it stands (a scenario's run: a
        /// what-if, `LayerConditions`): their definitions carry it and their titles the marking,
        /// and a what-if raises no alert.
        public var resultConditions: LayerConditions?
        /// One district of a city (`FloodDistrictPart`: `D000`, `D007`): its drainage network alone on the
        /// DEM cut to that network's extent; nil runs the whole store as one model.
        public var district: String?

        public init(dem: String = ManagedRaster.defaultDEM, stormCatalog: URL, rasters: ResultRasters? = nil, durationScale: Double = 1, demCoarsening: Int = 1,
                    threads: Int = 2, writeLayers: Bool = true, resultLayers: URL = ProjectFiles.url("Layers/results")) {
            self.dem = dem; self.stormCatalog = stormCatalog; self.rasters = rasters
            self.durationScale = durationScale; self.demCoarsening = demCoarsening; self.threads = threads; self.writeLayers = writeLayers
            self.resultLayers = resultLayers
        }
    }

    /// Builds the district's SWMM model for `scenario` (for `.inp` export: `SWMMModel.inpText()`).
    /// - Throws: `ScenarioError`, `StoreError`, `GeometryError`.
    public static func drainageModel(_ scenario: FloodScenario, store: any FeatureStore, caller: Caller, stormCatalog: URL,
                                     durationScale: Double = 1) async throws -> SWMMModel {
        let layers = try await FloodDistrictLayers.read(from: store, by: caller)
        let storm = try await rainfall(scenario, store: store, caller: caller, stormCatalog: stormCatalog, durationScale: durationScale).storm
        return try DistrictDrainageModel(layers: layers, scenario: scenario, storm: storm).swmm
    }

    /// The scenario's rain: the design storm of its formula, or for a nowcast the rain its gauges
    /// observed (read as `caller`, who must read the SensorThings service's governing layer) and its forecast.
    /// - Throws: `ScenarioError` naming the field (`durationScale` scales design storms only).
    static func rainfall(_ scenario: FloodScenario, store: any FeatureStore, caller: Caller, stormCatalog: URL,
                         durationScale: Double) async throws -> (storm: Hyetograph, verified: Bool, observed: ObservedRainfall.Summary?) {
        guard let observed = scenario.rainfall else {
            let (formula, verified) = try scenario.formula(catalog: stormCatalog)
            return (scenario.storm(formula: formula, durationScale: durationScale), verified, nil)
        }
        guard durationScale == 1 else {
            throw ScenarioError(.invalidScenario, "durationScale scales a design storm; a nowcast runs its observed window as observed", field: "durationScale")
        }
        guard let sensing = store as? any SensingStore else {
            throw ScenarioError(.invalidScenario, "rainfall: this store has no SensorThings observations", field: "rainfall")
        }
        guard try await store.layerDefinition(SensingAlerts.governingLayer, for: caller) != nil else {
            throw ScenarioError(.invalidScenario, "rainfall: the rain gauges' observations follow layer '\(SensingAlerts.governingLayer)', which this caller cannot read",
                                field: "rainfall")
        }
        let (storm, summary) = try await observed.hyetograph(step: scenario.timeStep, sensing: sensing)
        return (storm, true, summary)
    }

    /// Runs the scenario and (unless `options.writeLayers` is false) writes its result layers.
    /// Cancelling the calling task stops the run within one coupling interval; no layer or raster
    /// is written then.
    /// - Throws: `ScenarioError` for a bad scenario, DEM or district; `SWMMInputError` or
    ///   `HydraulicsError` for a network the engine refuses; `StoreError` from the store;
    ///   `CancellationError` when the task was cancelled.
    public static func run(_ scenario: FloodScenario, store: any FeatureStore, caller: Caller, options: Options,
                           progress: ((WorkProgress) -> Void)? = nil) async throws -> FloodScenarioSummary {
        let clock = ContinuousClock.now
        guard options.durationScale > 0, options.durationScale <= 1 else {
            throw ScenarioError(.invalidScenario, "duration scale must be in (0, 1], got \(options.durationScale)", field: "durationScale")
        }
        progress?(.stage("reading layers", fraction: 0))
        let (storm, verified, observed) = try await rainfall(scenario, store: store, caller: caller, stormCatalog: options.stormCatalog,
                                                             durationScale: options.durationScale)
        var layers = try await FloodDistrictLayers.read(from: store, by: caller, asOf: options.asOf, changes: options.changes)
        var extent: Envelope?
        if let district = options.district { (layers, extent) = try FloodDistrictPart.restrict(layers, to: district) }
        try scenario.checkStage(within: FloodScenario.stageRange(outfalls: layers.features["drainage_outfalls"] ?? [],
                                                                 manholes: layers.features["drainage_manholes"] ?? []))
        let model = try DistrictDrainageModel(layers: layers, scenario: scenario, storm: storm)
        var network = try model.swmm.hydraulicNetwork()
        // A city without a drainage model floods on its surface alone: no node, no subcatchment, all rain on the grid.
        let runoff: RunoffSimulation? = model.surfaceOnly ? nil : try model.swmm.runoffSimulation()
        var dem = try await ManagedDEM.read(options.dem, from: store, crs: layers.metricCRS)
        if let extent { dem = try FloodDistrictPart.crop(dem, to: extent) }
        var stage: SurfaceTimeSeries?
        switch scenario.outfallStage {
        case .fixed(let z)?: stage = SurfaceTimeSeries(constant: z)
        case .series(let t, let s)?: stage = try SurfaceTimeSeries(times: t.map { $0 * 60 }, values: s)
        case nil: stage = nil
        }
        progress?(.stage("preparing the surface", fraction: 0.02))
        let surface = try DistrictSurface.build(dem: dem, factor: options.demCoarsening, layers: layers, stage: stage,
                                                stageRivers: scenario.stageReceivingWaters)
        let links = surface.links(for: model, network: network)
        // The rim of a linked manhole is the ground of its cell, so the engine floods exactly
        // when the water would rise above the street the 2D model sees.
        for link in links {
            let z = Double(surface.domain.elevation[column: link.cell.column, row: link.cell.row])
            let node = network.nodes[link.node]
            network.nodes[link.node].maxDepth = Swift.max(0.3, z - node.invertElevation)
        }
        let rain = try SurfaceRainfall(startTimes: storm.starts + [storm.end(storm.starts.count - 1)],
                                       intensities: storm.intensities + [0], cellWeights: surface.rainWeights)
        let coupled = try CoupledFlood(network: network, runoff: runoff, surface: surface.domain, gridRainfall: rain, links: links,
                                       duration: model.duration,
                                       settings: .init(surface: SurfaceFlowSettings(threads: Swift.max(1, options.threads)),
                                                       snapshotInterval: options.rasters == nil ? nil : options.outputInterval))
        // A cancelled task (a dismissed `flood-scenario` job) stops the simulation within one
        // coupling interval and writes nothing.
        let result = try coupled.run(isCancelled: { Task.isCancelled }) { p in
            // The simulation is 5–90 % of the run; its report keeps its simulated seconds.
            progress?(p.within(0.05...0.9))
        }
        try Task.checkCancellation()
        // A blown-up term cancels in the continuity error (what came in went out again): such a
        // run answers nothing, so it is refused before any layer or raster is written.
        if let why = result.balance.implausibility {
            throw ScenarioError(.implausibleResult, "the flood run on \(Int(surface.domain.cellSize)) m cells is refused and nothing was written: \(why). "
                                + "Water balance: \(result.balance.termsDescription)")
        }
        progress?(.stage("writing results", fraction: 0.9))
        var results = try FloodResultLayers(scenario: scenario, result: result, layers: layers, surface: surface.domain,
                                            permanentWater: surface.permanentWater)
        results.sharing = options.resultSharing
        results.conditions = options.resultConditions
        // A road the scenario's sandbox removes is a closed road: the cut-off analysis routes around it.
        let closedRoads = Set(options.changes.filter { $0.layer == "roads" && $0.operation == .delete }.map(\.featureID))
        try await results.markCutOff(store: store, by: caller, closedRoads: closedRoads)
        var written: [String] = []
        var alerts: FloodNowcastAlerts.Count?
        if options.writeLayers {
            written = try await results.write(to: store, by: caller, templates: options.resultLayers)
            // A nowcast is a forecast of a real event: its flooded roads and cut-off resources are
            // alerts. A what-if's never are.
            if let rain = scenario.rainfall, options.resultConditions?.isWhatIf != true {
                alerts = try await FloodNowcastAlerts(scenario: scenario, results: results, phenomenonTime: rain.to)
                    .write(to: store, by: caller)
            }
        }
        var raster: String?
        if let rasters = options.rasters {
            raster = try rasters.write(result.surface.maxDepth, layer: scenario.layerStem + "_depth",
                                       name: scenario.maxDepthRasterName, precision: 3)
        }
        var timeSteps: FloodTimeSteps?
        if let rasters = options.rasters, !result.snapshots.isEmpty {
            // Observed rain (a nowcast) runs on the wall clock; a design storm on its own T+.
            let steps = try FloodTimeSteps.write(result.snapshots, stem: scenario.layerStem, start: options.start,
                                                 clock: scenario.rainfall == nil ? .storm : .wall, rasters: rasters,
                                                 network: network, roads: results.roadLines, permanentWater: surface.permanentWater)
            timeSteps = steps
            if options.writeLayers {
                let features = try FloodResultLayers.stepFeatures(result.snapshots, steps: steps, toStorage: layers.toStorage,
                                                                              permanentWater: surface.permanentWater)
                written.append(try await results.writeSteps(features, to: store, by: caller, templates: options.resultLayers))
            }
        }
        progress?(.stage("done", fraction: 1))
        let elapsed = ContinuousClock.now - clock
        let cellArea = surface.domain.cellSize * surface.domain.cellSize
        // The flooded area and volume leave out permanent water (rivers and lakes are not a flood).
        let floodDepth = try FloodResultLayers.flood(result.surface.maxDepth, outside: surface.permanentWater)
        return FloodScenarioSummary(
            scenario: scenario.id, layers: written, drainage: model.surfaceOnly ? "surface only" : nil, maxDepthRaster: raster, timeSteps: timeSteps, formulaVerified: verified,
            rainfallMillimetres: storm.totalDepth, observedRainfall: observed, alerts: alerts, simulatedSeconds: result.duration,
            runSeconds: Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18,
            cells: surface.domain.width * surface.domain.height, cellSize: surface.domain.cellSize,
            nodes: network.nodes.count, links: network.links.count, subcatchments: runoff?.subcatchments.count ?? 0,
            linkedManholes: links.count,
            floodedAreaSquareMetres: Double(floodDepth.values.filter { $0 > 0.15 }.count) * cellArea,
            peakFloodVolume: floodDepth.values.reduce(0) { $0 + ($1 > 0.05 ? Double($1) : 0) } * cellArea,
            spilledVolume: result.balance.pipeToSurface, drainedVolume: result.balance.surfaceToPipe,
            outfallVolume: result.balance.outfallOutflow,
            floodedRoadKilometres: results.floodedRoadLength / 1000, floodedRoads: results.floodedRoads,
            floodedBuildings: results.buildingCount, cutOffResources: results.cutOffCount,
            massBalanceErrorPercent: result.balance.errorPercent, balance: result.balance.description, balanceTerms: result.balance.terms,
            routingContinuityErrorPercent: result.routing.continuity.errorPercent,
            routingSteps: result.routing.steps, routingIterations: result.routing.averageIterations,
            routingNonConvergingPercent: result.routing.nonConvergingPercent, surfaceSteps: result.surface.steps,
            couplingIntervals: result.intervals,
            surfaceContinuityErrorPercent: result.surface.volumeBalance.relativeError * 100,
            topSpillingManholes: result.exchanges.filter { $0.spilled > 0 }.sorted { $0.spilled > $1.spilled }.prefix(10)
                .map { network.nodes[$0.node].id })
    }
}

/// What a flood scenario run produced, for the CLI summary and the process outputs.
public struct FloodScenarioSummary: Sendable, Encodable {
    public var scenario: String
    /// Ids of the result layers written.
    public var layers: [String]
    /// `surface only` when the store holds no drainage model: the street surface took all the rain
    /// and no pipe drained any (absent for a coupled run).
    public var drainage: String?
    /// The maximum-depth raster written (ESRI ASCII, in the city's metric CRS, m), if any: its path relative to
    /// the API's root (`/collections/<stem>_depth/rasters/<stem>_maxdepth.asc`, `ResultRasters`),
    /// served under the depth layer's access rules; never a file path on the server.
    public var maxDepthRaster: String?
    /// The depth per time step and the series over time, when the run kept snapshots.
    public var timeSteps: FloodTimeSteps?
    /// Whether the storm formula is verified (flood.md §2.2 marks Wuhan's as unverified).
    public var formulaVerified: Bool
    /// Storm depth, mm.
    public var rainfallMillimetres: Double
    /// A nowcast's rain: the gauges, what each observed, the forecast.
    public var observedRainfall: ObservedRainfall.Summary?
    /// A nowcast's alerts in `alerts`: raised, updated, cleared.
    public var alerts: FloodNowcastAlerts.Count?
    public var simulatedSeconds: Double
    /// Wall-clock seconds of the run.
    public var runSeconds: Double
    public var cells: Int
    /// Surface cell size, m.
    public var cellSize: Double
    public var nodes: Int
    public var links: Int
    public var subcatchments: Int
    public var linkedManholes: Int
    /// Area that was deeper than 15 cm at some time, m².
    public var floodedAreaSquareMetres: Double
    /// Σ over cells of the maximum depth (where > 5 cm) × cell area, m³.
    public var peakFloodVolume: Double
    /// Water that left the pipes onto the streets, m³.
    public var spilledVolume: Double
    /// Street water that drained back into the pipes, m³.
    public var drainedVolume: Double
    /// Water discharged through the outfalls, m³.
    public var outfallVolume: Double
    public var floodedRoadKilometres: Double
    public var floodedRoads: Int
    public var floodedBuildings: Int
    public var cutOffResources: Int
    /// Coupled mass-balance error, percent.
    public var massBalanceErrorPercent: Double
    /// The coupled continuity account as text.
    public var balance: String
    /// Each term of the account (rain, inflows, outfalls, the river stage's in and out, storage)
    /// with its share of all water that entered: a term that dwarfs the storm shows here even
    /// when `massBalanceErrorPercent` is 0. (A run with a term the model cannot explain is
    /// refused, `ScenarioError.Code.implausibleResult`.)
    public var balanceTerms: [CoupledFloodBalance.Term]
    public var routingContinuityErrorPercent: Double
    /// 1D routing steps taken (mean step = `simulatedSeconds` ÷ this).
    public var routingSteps: Int
    /// Mean Picard iterations per routing step.
    public var routingIterations: Double
    /// Percent of 1D routing steps that did not converge: SWMM's "Percent Not Converging", the
    /// steps whose node heads still moved more than the head tolerance (1.5 mm) after the last
    /// of the trials (8) the engine allows per step. It counts steps, not time, and the step goes
    /// on with the last trial's heads; a high value (above a few percent, as the coupled run's
    /// surcharged manholes exchanging with the streets give) means the pipe heads and the spills
    /// onto the streets are approximate, not that the run failed. See
    /// `nonConvergingWarningPercent`.
    public var routingNonConvergingPercent: Double
    /// Above this percent of non-converging steps the summaries say the 1D heads are approximate.
    public static let nonConvergingWarningPercent = 5.0
    /// 2D surface (CFL) steps taken.
    public var surfaceSteps: Int
    /// 1D–2D exchanges.
    public var couplingIntervals: Int
    public var surfaceContinuityErrorPercent: Double
    /// The ten manholes that spilled most onto the streets, most first (candidates for storage).
    public var topSpillingManholes: [String]
}
