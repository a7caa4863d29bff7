import ArgumentParser
import CityModel
import Flood
import Foundation
import GeoCore
import ProcessRuntime
import Scenarios
import TwinStore

/// `citytwin simulate flood --scenario FILE`: the coupled 1D–2D flood run on the district in the
/// store, a new flood run (`FloodRunCatalog`) writing its own result layers
/// (`flood_<scenario>_<n>_depth|roads|buildings|cutoff`, a draft until published) and the
/// maximum-depth raster beside a SpatiaLite store; `--write-inp` exports the district's drainage
/// model as a SWMM 5 `.inp` instead of running.
struct SimulateFloodCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "flood",
        abstract: "Runs a coupled flood scenario on the district and writes the result layers.",
        discussion: """
            Scenario files live in Models/scenarios/ (return period, duration, peak ratio, river stage, upgrades). \
            The DEM is a raster the store manages (`citytwin raster list`; `citytwin district build` imports the sample's as 'dem'). \
            --write-inp OUT.inp writes the SWMM model of the district's drainage layers (open it in EPA SWMM 5.2) and exits.
            """)

    @Option(help: "The scenario file (JSON), e.g. Models/scenarios/p50-waterlogging.json.")
    var scenario: String

    @OptionGroup var storeOption: StoreOption
    @OptionGroup var rasterOption: RasterOption
    var store: String { storeOption.path }

    @Option(help: "The id of the DEM among the store's managed rasters (citytwin raster list).")
    var dem: String = ManagedRaster.defaultDEM

    @Option(help: "Scale the storm duration (0–1] for a quick run.")
    var durationScale: Double = 1

    @Option(help: "Coarsen the DEM by this block factor (1 = its own 10 m cells).")
    var demCoarsening: Int = 1

    @Option(help: "Threads for the 2D surface.")
    var threads: Int = 2

    @Option(help: "The storm-intensity catalogue.")
    var stormCatalog: String = ProjectFiles.path("Models/storm-intensity.json")

    @Option(help: "Write the district's drainage model as SWMM .inp to this file and exit.")
    var writeInp: String?

    func run() async throws {
        let scenarioValue = try FloodScenario.load(contentsOf: URL(fileURLWithPath: scenario))
        let location = try StoreLocation(store)
        let featureStore = try await location.openExisting()
        let catalog = URL(fileURLWithPath: stormCatalog)
        if let writeInp {
            let model = try await FloodScenarioRun.drainageModel(scenarioValue, store: featureStore, caller: .admin, stormCatalog: catalog,
                                                                 durationScale: durationScale)
            try writeOutputFile(model.inpText(), to: writeInp)
            print("Wrote \(writeInp): \(model.junctions.count) junctions, \(model.outfalls.count) outfalls, \(model.storage.count) storage units, "
                  + "\(model.conduits.count) conduits, \(model.pumps.count) pumps, \(model.subcatchments.count) subcatchments")
            return
        }
        let options = FloodScenarioRun.Options(dem: dem, stormCatalog: catalog,
                                               rasters: rasterOption.rasters(for: location),
                                               durationScale: durationScale, demCoarsening: demCoarsening, threads: threads)
        let bar = ProgressBar("flood \(scenarioValue.id)")
        let (run, summary) = try await FloodRunCatalog(store: featureStore).run(scenarioValue, options: options, by: .admin) { bar.update($0) }
        bar.finish(.stage("done", fraction: 1))
        func f(_ v: Double, _ digits: Int = 1) -> String { String(format: "%.\(digits)f", v) }
        print("Scenario \(summary.scenario): \(f(summary.rainfallMillimetres)) mm of rain\(summary.formulaVerified ? "" : " (storm formula UNVERIFIED)"), "
              + "\(f(summary.simulatedSeconds / 60, 0)) min simulated in \(f(summary.runSeconds)) s")
        print("  model: \(summary.nodes) nodes, \(summary.links) links, \(summary.subcatchments) subcatchments, "
              + "\(summary.cells) cells of \(f(summary.cellSize, 0)) m, \(summary.linkedManholes) manholes linked")
        let sim = summary.simulatedSeconds
        print("  steps: 1D \(summary.routingSteps) (mean \(f(sim / Double(Swift.max(1, summary.routingSteps)), 2)) s, "
              + "\(f(summary.routingIterations, 2)) iterations, \(f(summary.routingNonConvergingPercent)) % not converging), "
              + "2D \(summary.surfaceSteps) (mean \(f(sim / Double(Swift.max(1, summary.surfaceSteps)), 2)) s), \(summary.couplingIntervals) exchanges")
        if summary.routingNonConvergingPercent > FloodScenarioSummary.nonConvergingWarningPercent {
            print("  note: \(f(summary.routingNonConvergingPercent)) % of the 1D steps ended with node heads still moving more than "
                  + "1.5 mm after 8 trials (SWMM's 'percent not converging'); pipe heads and spills are approximate")
        }
        print("  flooded roads (> 15 cm): \(summary.floodedRoads) segments, \(f(summary.floodedRoadKilometres, 2)) km")
        print("  buildings with water at the ground floor: \(summary.floodedBuildings)")
        print("  emergency resources cut off (their access road closed by water ≥ 15 cm): \(summary.cutOffResources)")
        print("  area deeper than 15 cm: \(f(summary.floodedAreaSquareMetres / 10_000, 2)) ha; spilled from pipes \(f(summary.spilledVolume, 0)) m³, "
              + "drained back \(f(summary.drainedVolume, 0)) m³, outfalls \(f(summary.outfallVolume, 0)) m³")
        print("  mass balance error: \(f(summary.massBalanceErrorPercent, 3)) % (routing \(f(summary.routingContinuityErrorPercent, 3)) %, "
              + "surface \(f(summary.surfaceContinuityErrorPercent, 4)) %)")
        print("  " + summary.balance)
        // Each term's share of all water in: a term that dwarfs the storm shows even at 0 % error.
        for side in ["in", "out", "stored"] {
            let terms = summary.balanceTerms.filter { $0.side == side }
            guard !terms.isEmpty else { continue }
            print("    \(side): " + terms.map { "\($0.name) \(f($0.volume, 0)) m³ (\(f($0.percentOfInflow)) %)" }.joined(separator: ", "))
        }
        if !summary.topSpillingManholes.isEmpty {
            print("  manholes spilling most (storage candidates): " + summary.topSpillingManholes.joined(separator: ", "))
        }
        if !summary.layers.isEmpty { print("  layers: " + summary.layers.joined(separator: ", ")) }
        if let raster = summary.maxDepthRaster { print("  max-depth raster: \(raster) (served by `citytwin serve` on this store)") }
        print("run \(run.id): a draft, seen by \(FloodRunCatalog.owner) alone; `citytwin flood-runs publish \(run.id)` makes it the current run "
              + "every department's map and hazard overlay answer from (`flood-runs list|archive|delete` for the rest)")
    }
}
