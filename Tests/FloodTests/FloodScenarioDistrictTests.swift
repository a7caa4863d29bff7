import CityModel
import Emergency
import Flood
import FloodSim
import Foundation
import GeoCore
import ProcessRuntime
import SWMMFormat
import Scenarios
import Testing
import TestSupport
import TwinStore

/// The coupled flood scenarios on the real sample district, built once for the suite into a
/// temporary SpatiaLite store. To keep a debug run short the storm is scaled to 3 % of its
/// duration (two 5-min intervals of the 180-min 50-a storm, intensities from the formula for that
/// duration, 15 min simulated) and the 10 m DEM is coarsened 10× to 100 m cells (buildings then do
/// not block flow; see `DistrictSurface`). The kernels are the same code as a full run's.
@Suite("Flood scenarios on the sample district", .serialized)
struct FloodScenarioDistrictTests {
    static let repository = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
    static let scenarios = repository.appendingPathComponent("Models/scenarios")
    static let catalog = repository.appendingPathComponent("Models/storm-intensity.json")

    /// The directory of the district store (`district.sqlite`, its DEM a managed raster), built on first use.
    static let district = Task<URL, any Error> {
        let dir = try TemporaryDirectory.forProcess("flood").url
        let store = try SpatiaLiteStore(path: dir.appendingPathComponent("district.sqlite").path)
        try await DistrictLoader.build(into: store, layersDirectory: repository.appendingPathComponent("Layers"))
        return dir
    }

    static func districtStore() async throws -> (SpatiaLiteStore, URL) {
        let dir = try await district.value
        return (try SpatiaLiteStore(path: dir.appendingPathComponent("district.sqlite").path), dir)
    }

    static func options(_ dir: URL) -> FloodScenarioRun.Options {
        FloodScenarioRun.Options(stormCatalog: catalog,
                                 rasters: .beside(storeDirectory: dir),
                                 durationScale: 0.03, demCoarsening: 10, resultLayers: repository.appendingPathComponent("Layers/results"))
    }

    @Test("a 50-a storm floods streets: depth classes, road hours above 15 cm, balance within 1 %; storage tanks reduce the spill")
    func fiftyYearStorm() async throws {
        let (store, dir) = try await Self.districtStore()
        let scenario = try FloodScenario.load(contentsOf: Self.scenarios.appendingPathComponent("p50-waterlogging.json"))
        let summary = try await FloodScenarioRun.run(scenario, store: store, caller: .admin, options: Self.options(dir))
        #expect(abs(summary.massBalanceErrorPercent) < 1, "\(summary.balance)")
        #expect(summary.spilledVolume > 0, "a 50-a storm should surcharge the 3-a sewers")
        #expect(summary.layers == ["flood_p50_waterlogging_depth", "flood_p50_waterlogging_roads",
                                   "flood_p50_waterlogging_buildings", "flood_p50_waterlogging_cutoff"])
        let depth = try await store.query(layer: "flood_p50_waterlogging_depth", FeatureQuery(limit: 10), by: .admin).features
        #expect(!depth.isEmpty)
        let def = try await store.layerDefinition("flood_p50_waterlogging_roads", for: .admin)
        #expect(def?.category == .publicThemes && def?.sharing.type == .shared)
        let roads = try await store.query(layer: "flood_p50_waterlogging_roads", FeatureQuery(limit: 10_000), by: .admin).features
        #expect(!roads.isEmpty)
        for road in roads where (road.properties["max_depth_m"]?.doubleValue ?? 0) > 0.15 {
            #expect((road.properties["hours_above_15cm"]?.doubleValue ?? 0) > 0, "road \(road.id.map { "\($0)" } ?? "")")
        }
        // Issue 14 §6: the summary, the _cutoff layer and the hazard overlay on this run's depth
        // layer answer "which resources does the flood cut off" with the same resources; the
        // overlay's addresses and people are those of the buildings it counts.
        let cutoffLayer = try await store.query(layer: "flood_p50_waterlogging_cutoff", FeatureQuery(limit: 10_000), by: .admin).features
        let layerResources = Set(cutoffLayer.filter { $0.properties["kind"] == "resource" }.compactMap { $0.id?.description })
        #expect(layerResources.count == summary.cutOffResources)
        if summary.floodedAreaSquareMetres > 0 {
            let deep = try await HazardArea.union(of: "flood_p50_waterlogging_depth", filter: .init(property: "min_depth_m", minimum: 0.15),
                                                  from: store, by: .admin)
            let overlay = try await HazardOverlay.assess(deep, store: store, by: .admin)
            // At the door: the overlay's closed accesses; the run adds those the flood isolates from the network.
            let atDoor = Set(cutoffLayer.filter { $0.properties["kind"] == "resource" && $0.properties["reason"] == "flooded" }.compactMap { $0.id?.description })
            #expect(Set(overlay.accessClosed.map { "\($0.resource.layer)/\($0.resource.id)" }) == atDoor)
            if !overlay.buildings.isEmpty {
                #expect(!overlay.addresses.isEmpty, "\(overlay.buildings.count) buildings but no address")
                #expect(overlay.population > 0, "\(overlay.buildings.count) buildings but nobody living in them")
            }
        } else {
            #expect(summary.cutOffResources == 0)
        }
        // The summary names the raster by its API path, never by a file on the server.
        let raster = try #require(summary.maxDepthRaster)
        #expect(raster == "/collections/flood_p50_waterlogging_depth/rasters/flood_p50_waterlogging_maxdepth.asc")
        let file = try #require(ResultRasters.beside(storeDirectory: dir).file(layer: "flood_p50_waterlogging_depth", name: scenario.maxDepthRasterName))
        let grid = try Grid.read(esriASCIIAt: file)
        #expect(grid.values.contains { $0 > 0.05 })
        // The same storm with 8,000 m³ tanks at this run's five worst manholes. (The tanks of
        // p50-with-storage.json sit where the full-length storm spills most; with the levees
        // holding the rivers, this 5-minute storm spills first at other manholes, so those tanks
        // leave its spill unchanged: ScenarioCompareTests checks they add none.)
        var upgraded = try FloodScenario.load(contentsOf: Self.scenarios.appendingPathComponent("p50-with-storage.json"))
        upgraded.upgrades.storage = summary.topSpillingManholes.prefix(5).map { FloodScenario.StorageUpgrade(node: $0, volume: 8000, depth: 4) }
        let withTanks = try await FloodScenarioRun.run(upgraded, store: store, caller: .admin, options: Self.options(dir))
        #expect(withTanks.spilledVolume < summary.spilledVolume, "spill \(withTanks.spilledVolume) with tanks vs \(summary.spilledVolume)")
        #expect(abs(withTanks.massBalanceErrorPercent) < 1, "\(withTanks.balance)")
    }

    @Test("the exported .inp is valid SWMM 5.2.4 input")
    func inpRunsInSWMM() async throws {
        let python = Self.repository.appendingPathComponent(".venv/bin/python")
        guard FileManager.default.isExecutableFile(atPath: python.path) else {
            Issue.record("no .venv/bin/python with swmm-toolkit: the SWMM cross-check did not run")
            return
        }
        let (store, dir) = try await Self.districtStore()
        let scenario = try FloodScenario.load(contentsOf: Self.scenarios.appendingPathComponent("p50-waterlogging.json"))
        let model = try await FloodScenarioRun.drainageModel(scenario, store: store, caller: .admin, stormCatalog: Self.catalog,
                                                             durationScale: 0.03)
        let inp = dir.appendingPathComponent("district.inp")
        try model.inpText().write(to: inp, atomically: true, encoding: .utf8)
        // Our own reader takes it back.
        _ = try SWMMModel(contentsOf: inp)
        let rpt = dir.appendingPathComponent("district.rpt").path, out = dir.appendingPathComponent("district.out").path
        let swmm = try await CommandProcess.run(python.path, ["-c", "import sys\nfrom swmm.toolkit import solver\nsolver.swmm_run(sys.argv[1], sys.argv[2], sys.argv[3])",
                                                              inp.path, rpt, out], within: 600)
        let report = (try? String(contentsOfFile: rpt, encoding: .utf8)) ?? ""
        #expect(swmm.exitStatus == 0, "\(swmm.output)\n\(report.suffix(2000))")
        #expect(!report.contains("ERROR"), "\(report.components(separatedBy: "\n").filter { $0.contains("ERROR") }.prefix(5))")
        #expect(report.contains("Flow Routing Continuity"))
    }

    @Test("a scenario with a bad return period or an unknown formula is refused, naming the field")
    func badScenario() throws {
        do {
            _ = try FloodScenario.decode(Data(#"{"id": "x", "return_period_a": -1, "duration_min": 60}"#.utf8), source: "x.json")
            Issue.record("expected an error")
        } catch let e as ScenarioError {
            #expect(e.field == "return_period_a")
        }
        let s = try FloodScenario(id: "x", title: "x", returnPeriod: 5, duration: 60, stormFormula: "nowhere")
        #expect(throws: ScenarioError.self) { try s.formula(catalog: Self.catalog) }
    }
}
