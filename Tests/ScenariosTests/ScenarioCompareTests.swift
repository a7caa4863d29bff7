import CityModel
import Foundation
import GeoCore
@testable import Flood
@testable import Scenarios
import ProcessRuntime
import TestSupport
import Testing
import TwinStore

/// Issue 19 §1, §2, §5: scenarios as stored objects (base instant, sandbox changes, model
/// parameters), run through process `scenario-run`, compared with `compare-scenarios`. The p50
/// pair (without and with the storage tanks of `Models/scenarios/p50-with-storage.json`) runs on
/// the sample district at the quick settings of `FloodScenarioDistrictTests` (storm at 3 % of its
/// duration, 100 m cells) with a depth snapshot every 5 simulated minutes.
@Suite("Scenarios: create, run, compare", .serialized)
struct ScenarioCompareTests {
    static let repository = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

    /// A district store of its own (the flood suite writes to its own concurrently).
    static let district = Task<URL, any Error> {
        let dir = try TemporaryDirectory.forProcess("scenarios").url
        let store = try SpatiaLiteStore(path: dir.appendingPathComponent("district.sqlite").path)
        try await DistrictLoader.build(into: store, layersDirectory: repository.appendingPathComponent("Layers"))
        return dir
    }

    static func registry(_ dir: URL) -> ProcessRegistry {
        let flood = FloodScenarioProcess(scenariosDirectory: repository.appendingPathComponent("Models/scenarios"),
                                         stormCatalog: repository.appendingPathComponent("Models/storm-intensity.json"),
                                         rasters: .beside(storeDirectory: dir),
                                         resultLayers: repository.appendingPathComponent("Layers/results"))
        return ProcessRegistry([flood, ScenarioRunProcess(flood: flood), CompareScenariosProcess()])
    }

    static let quick: JSONValue = ["durationScale": 0.03, "demCoarsening": 10, "outputIntervalMinutes": 5]

    static func document(_ id: String, model: String, district: String? = nil, changes: [JSONValue] = []) -> JSONValue {
        var parameters = quick.objectValue ?? [:]
        parameters["model"] = .string(model)
        var o: [String: JSONValue] = ["id": .string(id), "title": .string(id), "parameters": .object(parameters), "changes": .array(changes)]
        if let district { o["district"] = .string(district) }
        return .object(o)
    }

    /// The store with the p50 pair run (once for the suite).
    static let pair = Task<URL, any Error> {
        let dir = try await district.value
        let store = try SpatiaLiteStore(path: dir.appendingPathComponent("district.sqlite").path)
        let processes = Self.registry(dir)
        let catalog = ScenarioCatalog(store: store)
        let flood = try #require(processes["flood-scenario"] as? FloodScenarioProcess)
        _ = try await catalog.create(Self.document("p50-base", model: "p50-waterlogging"), by: .admin, flood: flood)
        _ = try await catalog.create(Self.document("p50-storage", model: "p50-with-storage"), by: .admin, flood: flood)
        let run = try #require(processes["scenario-run"])
        for id in ["p50-base", "p50-storage"] {
            _ = try await processes.run(run.id, inputs: ["scenario": .string(id)], caller: .admin, store: store)
        }
        return dir
    }

    static func store(_ dir: URL) throws -> SpatiaLiteStore {
        try SpatiaLiteStore(path: dir.appendingPathComponent("district.sqlite").path)
    }

    static func roads(_ layer: String, _ store: any FeatureStore) async throws -> [String: Double] {
        var out: [String: Double] = [:]
        for try await f in store.stream(layer: layer, FeatureQuery(limit: 5000), by: .admin) {
            out[f.id.map { "\($0)" } ?? ""] = f.properties["max_depth_m"]?.doubleValue ?? 0
        }
        return out
    }

    @Test("the p50 pair: no more flooded roads and no more spill with storage, and the diff agrees with the two runs' own layers")
    func p50PairComparison() async throws {
        let dir = try await Self.pair.value
        let store = try Self.store(dir)
        let registry = Self.registry(dir)
        let catalog = ScenarioCatalog(store: store)
        let a = try await catalog.scenario("p50-base", by: .admin), b = try await catalog.scenario("p50-storage", by: .admin)
        #expect(a.status == .successful && b.status == .successful, "\(a.error ?? "") \(b.error ?? "")")
        #expect(a.result?["layers"] == ["scenario_p50_base_depth", "scenario_p50_base_roads", "scenario_p50_base_buildings", "scenario_p50_base_cutoff",
                                   "scenario_p50_base_depth_steps"])
        let compare = try #require(registry["compare-scenarios"])
        let inputs: [String: JSONValue] = ["a": "p50-base", "b": "p50-storage"]
        let result = try await registry.run(compare.id, inputs: inputs, caller: .admin, store: store)
        #expect(result["layers"] == ["diff_p50_base_p50_storage"])
        // The same storm, resolution and steps (issue 58 §7): the difference is the tanks'.
        #expect(result["summary"]?["sameConditions"] == .bool(true) && result["summary"]?["note"] == nil)
        #expect(a.result?["conditions"]?["storm.returnPeriodYears"]?.doubleValue == 50 && a.result?["conditions"]?["demCoarsening"]?.doubleValue == 10)
        // Recompute from the two runs' own layers.
        let ra = try await Self.roads("scenario_p50_base_roads", store), rb = try await Self.roads("scenario_p50_storage_roads", store)
        let wetA = Set(ra.filter { $0.value > 0.15 }.keys), wetB = Set(rb.filter { $0.value > 0.15 }.keys)
        // The quick storm (3 % of its duration on 100 m cells) barely wets the streets, so the
        // tanks cannot remove flooded roads here: they must not add any, nor any spill from the
        // pipes. The tanks sit where the full-length storm spills most; with the levees holding
        // the rivers, this 5-minute storm spills first at other manholes (its spill is the same
        // with and without them). Fewer flooded roads and less spill show on a longer storm
        // (README, `citytwin scenario compare`; FloodScenarioDistrictTests puts tanks at the quick
        // run's own worst manholes and checks the spill falls).
        #expect(wetB.count <= wetA.count, "flooded roads: \(wetA.count) without storage, \(wetB.count) with")
        let spilledA = try #require(a.result?["summary"]?["spilledVolume"]?.doubleValue)
        let spilledB = try #require(b.result?["summary"]?["spilledVolume"]?.doubleValue)
        #expect(spilledB <= spilledA, "spilled \(spilledA) m³ without storage, \(spilledB) m³ with")
        let table = try #require(result["summary"]?["table"]?.arrayValue)
        let row = try #require(table.first { $0["measure"]?.stringValue?.hasPrefix("flooded roads") == true })
        #expect(row["a"]?.doubleValue == Double(wetA.count) && row["b"]?.doubleValue == Double(wetB.count))
        #expect(row["difference"]?.doubleValue == Double(wetB.count - wetA.count))
        var diff: [String: Feature] = [:]
        for try await f in store.stream(layer: "diff_p50_base_p50_storage", FeatureQuery(limit: 10_000), by: .admin) {
            diff[f.id.map { "\($0)" } ?? ""] = f
        }
        let noLonger = Set(diff.values.filter { $0.properties["kind"] == "road" && $0.properties["change"] == "no longer flooded" }
            .compactMap { $0.properties["object_id"]?.stringValue })
        let newly = Set(diff.values.filter { $0.properties["kind"] == "road" && $0.properties["change"] == "newly flooded" }
            .compactMap { $0.properties["object_id"]?.stringValue })
        #expect(noLonger == wetA.subtracting(wetB))
        #expect(newly == wetB.subtracting(wetA))
        for (id, depthA) in ra {
            let depthB = rb[id] ?? 0
            guard let f = diff["road/\(id)"] else {
                let unchanged = abs(depthB - depthA) < ScenarioComparison.depthTolerance && (depthA > 0.15) == (depthB > 0.15)
                #expect(unchanged, "road \(id) missing from the diff")
                continue
            }
            let difference = f.properties["difference"]?.doubleValue ?? Double.nan
            #expect(abs(difference - (depthB - depthA)) < 0.0015, "road \(id)")
        }
        // Buildings: the diff lists exactly the symmetric difference of the two flooded sets.
        func ids(_ layer: String) async throws -> Set<String> {
            var s = Set<String>()
            for try await f in store.stream(layer: layer, FeatureQuery(limit: 10_000), by: .admin) { s.insert(f.id.map { "\($0)" } ?? "") }
            return s
        }
        let ba = try await ids("scenario_p50_base_buildings"), bb = try await ids("scenario_p50_storage_buildings")
        let diffBuildings = Set(diff.values.filter { $0.properties["kind"] == "building" && ($0.properties["change"] == "newly flooded" || $0.properties["change"] == "no longer flooded") }
            .compactMap { $0.properties["object_id"]?.stringValue })
        #expect(diffBuildings == ba.symmetricDifference(bb))
    }

    @Test("a run keeps the depth per time step: grids beside the depth layer, hydrographs, road depth over time")
    func timeSteps() async throws {
        let dir = try await Self.pair.value
        let rasters = ResultRasters.beside(storeDirectory: dir)
        let steps = try #require(FloodTimeSteps.read(layer: "scenario_p50_base_depth", rasters: rasters))
        #expect(steps.steps.count >= 2)
        #expect(zip(steps.steps, steps.steps.dropFirst()).allSatisfy { $0.seconds < $1.seconds })
        let grids = try steps.steps.map { try Grid.read(esriASCIIAt: try #require(rasters.file(layer: steps.layer, name: $0.raster))) }
        #expect(grids.first?.values != grids.last?.values, "the water moves between the first and the last step")
        // The last step's deepest water is at most the run's maximum (the max-depth grid).
        let maxGrid = try Grid.read(esriASCIIAt: try #require(rasters.file(layer: steps.layer, name: "scenario_p50_base_maxdepth.asc")))
        let last = try #require(grids.last)
        for k in last.values.indices where maxGrid.isValid(maxGrid.values[k]) { #expect(last.values[k] <= maxGrid.values[k] + 0.0011) }
        // A step is chosen by instant; outside the run there is none.
        let start = try #require(Scenario.instant(steps.start))
        #expect(steps.step(at: start.addingTimeInterval(steps.steps[1].seconds + 1))?.raster == steps.steps[1].raster)
        #expect(steps.step(at: start.addingTimeInterval(-60)) == nil)
        #expect(steps.step(at: start.addingTimeInterval(steps.steps.last!.seconds + 60)) == nil)
        // The series: one row per node (road) and step.
        let csv = try String(contentsOf: try #require(rasters.file(layer: steps.layer, name: "scenario_p50_base_road_depths.csv")), encoding: .utf8)
        let store = try Self.store(dir)
        let roads = try await Self.roads("scenario_p50_base_roads", store)
        #expect(csv.split(separator: "\n").count == 1 + roads.count * steps.steps.count)
        // The deepest road depth over time equals the road layer's maximum only at most (snapshots sample the run).
        let nodes = try String(contentsOf: try #require(rasters.file(layer: steps.layer, name: "scenario_p50_base_node_depths.json")), encoding: .utf8)
        #expect(nodes.contains("\"depth_m\""))
    }

    @Test("a sandbox change applies only in the run: the live layer keeps its features and versions")
    func sandboxLeavesLiveLayers() async throws {
        let dir = try await Self.district.value
        let store = try Self.store(dir)
        let registry = Self.registry(dir)
        let flood = try #require(registry["flood-scenario"] as? FloodScenarioProcess)
        let before = try await store.count(layer: "drainage_storage", FeatureQuery(), by: .admin)
        let changesBefore = try await store.latestChange()
        let manhole = try #require(try await store.query(layer: "drainage_manholes", FeatureQuery(limit: 1), by: .admin).features.first)
        let node = manhole.id.map { "\($0)" } ?? ""
        guard case .point(let point)? = manhole.geometry, let p = point.position else { Issue.record("manhole without a point"); return }
        let d = 0.0004
        let tank: JSONValue = [
            "type": "Feature", "id": "TANK-NEW-1",
            "geometry": ["type": "Polygon", "coordinates": [[[.number(p.x - d), .number(p.y - d)], [.number(p.x + d), .number(p.y - d)],
                                                             [.number(p.x + d), .number(p.y + d)], [.number(p.x - d), .number(p.y - d)]]]],
            "properties": ["name": "新建调蓄池", "kind": "调蓄池", "volume_m3": 8000, "node": .string(node)],
        ]
        let scenario = try await ScenarioCatalog(store: store).create(
            Self.document("new-tank", model: "p3-sewer-design", changes: [["layer": "drainage_storage", "op": "upsert", "feature": tank]]), by: .admin, flood: flood)
        #expect(scenario.changes.count == 1)
        let layers = try await FloodDistrictLayers.read(from: store, by: .admin, asOf: scenario.base, changes: scenario.changes)
        #expect(layers["drainage_storage"].count == before + 1)
        #expect(layers["drainage_storage"].contains { $0.id == .string("TANK-NEW-1") })
        let run = try #require(registry["scenario-run"])
        _ = try await registry.run(run.id, inputs: ["scenario": "new-tank"], caller: .admin, store: store)
        #expect(try await store.count(layer: "drainage_storage", FeatureQuery(), by: .admin) == before)
        #expect(try await store.feature(layer: "drainage_storage", id: "TANK-NEW-1", by: .admin) == nil)
        let touched = try await store.changes(since: changesBefore, limit: 10_000, by: .admin).map(\.layer)
        #expect(!touched.contains("drainage_storage") && !touched.contains("drainage_manholes"), "\(Set(touched))")
        // The scenario record is versioned: created, running, successful.
        let versions = try await store.history(layer: ScenarioCatalog.layerID, featureID: "new-tank", by: .admin)
        #expect(versions.count >= 3)
        #expect(try await ScenarioCatalog(store: store).scenario("new-tank", by: .admin).status == .successful)
    }

    @Test("bad input names the field: unknown (404), unfinished (409), another district (400), a taken id, a bad change")
    func badInput() async throws {
        let dir = try await Self.pair.value
        let store = try Self.store(dir)
        let registry = Self.registry(dir)
        let flood = try #require(registry["flood-scenario"] as? FloodScenarioProcess)
        let catalog = ScenarioCatalog(store: store)
        let compare = try #require(registry["compare-scenarios"])
        func refusal(_ inputs: [String: JSONValue]) async -> ScenarioError? {
            do { try await registry.validate(inputs, for: compare, store: store, caller: .admin); return nil } catch let e as ScenarioError { return e } catch {
                Issue.record("unexpected \(error)"); return nil
            }
        }
        let unknown = await refusal(["a": "no-such", "b": "p50-base"])
        #expect(unknown?.code == .noSuchScenario && unknown?.field == "a")
        _ = try await catalog.create(Self.document("never-run", model: "p3-sewer-design"), by: .admin, flood: flood)
        let unfinished = await refusal(["a": "p50-base", "b": "never-run"])
        #expect(unfinished?.code == .scenarioNotFinished && unfinished?.field == "b")
        // A scenario of one community (another district code) that has run.
        let community = try #require(try await store.query(layer: "admin_divisions", FeatureQuery(limit: 100), by: .admin).features
            .first { $0.properties["level"] == "社区/村" }?.id.map { "\($0)" })
        var other = try await catalog.create(Self.document("community", model: "p3-sewer-design", district: community), by: .admin, flood: flood)
        other.status = .successful
        try await catalog.save(other, by: .admin)
        let districts = await refusal(["a": "p50-base", "b": "community"])
        #expect(districts?.code == .invalidScenario && districts?.field == "b")
        #expect(districts?.message.contains(community) == true)
        await #expect(throws: ScenarioError.self) { _ = try await catalog.create(Self.document("p50-base", model: "p50-waterlogging"), by: .admin, flood: flood) }
        do {
            _ = try await catalog.create(Self.document("bad-change", model: "p3-sewer-design", changes: [["layer": "parking_lots", "op": "delete", "id": "P1"]]),
                                         by: .admin, flood: flood)
            Issue.record("a change to a layer the flood run does not read was accepted")
        } catch let e as ScenarioError {
            #expect(e.field == "changes[0].layer")
        }
        do {
            _ = try await catalog.create(Self.document("bad-model", model: "no-such-model"), by: .admin, flood: flood)
            Issue.record("an unknown model was accepted")
        } catch let e as ScenarioError {
            #expect(e.field == "parameters.model")
        }
        // The default district is the root admin division; the base defaults to now.
        let pairA = try await catalog.scenario("p50-base", by: .admin)
        #expect(try await store.feature(layer: "admin_divisions", id: pairA.district, by: .admin)?.properties["parent_code"] == .null)
    }

    @Test("PostGIS keeps scenarios as SpatiaLite does and compares them alike",
          .enabled(if: ProcessInfo.processInfo.environment["CITYTWIN_TEST_POSTGRES_URL"].map { !$0.isEmpty } == true))
    func postGIS() async throws {
        let url = try #require(ProcessInfo.processInfo.environment["CITYTWIN_TEST_POSTGRES_URL"])
        let dir = try await Self.pair.value
        let lite = try Self.store(dir)
        let schema = "scn_" + UUID().uuidString.lowercased().replacingOccurrences(of: "-", with: "").prefix(20)
        let pg = try await PostGISStore.connect(url: url, schema: String(schema), maximumConnections: 4, connectionWait: .seconds(60))
        do {
            // The two finished scenarios and their result layers, copied as they are.
            let layers = ["scenario_p50_base_roads", "scenario_p50_base_buildings", "scenario_p50_base_cutoff",
                          "scenario_p50_storage_roads", "scenario_p50_storage_buildings", "scenario_p50_storage_cutoff"]
            for layer in layers {
                try await pg.createLayer(try #require(try await lite.layerDefinition(layer, for: .admin)))
                let features = try await lite.query(layer: layer, FeatureQuery(limit: 10_000), by: .admin).features
                try await pg.insert(layer: layer, features: features, by: .admin, at: nil)
            }
            let liteCatalog = ScenarioCatalog(store: lite), pgCatalog = ScenarioCatalog(store: pg)
            for id in ["p50-base", "p50-storage"] {
                let s = try await liteCatalog.scenario(id, by: .admin)
                try await pgCatalog.save(s, by: .admin)
                #expect(try await pgCatalog.scenario(id, by: .admin) == s)
            }
            #expect(try await pgCatalog.list(by: .admin).map(\.id) == ["p50-base", "p50-storage"])
            // Creating on PostGIS: validated and versioned the same way.
            let flood = try #require(Self.registry(dir)["flood-scenario"] as? FloodScenarioProcess)
            let created = try await pgCatalog.create(Self.document("pg-new", model: "p50-waterlogging", district: "420117"), by: .admin, flood: flood)
            var running = created
            running.status = .running
            try await pgCatalog.save(running, by: .admin)
            #expect(try await pg.history(layer: ScenarioCatalog.layerID, featureID: "pg-new", by: .admin).count == 2)
            await #expect(throws: ScenarioError.self) { _ = try await pgCatalog.create(Self.document("pg-new", model: "p50-waterlogging", district: "420117"), by: .admin, flood: flood) }
            let a = try await pgCatalog.scenario("p50-base", by: .admin), b = try await pgCatalog.scenario("p50-storage", by: .admin)
            let onPG = try await ScenarioComparison.compare(a, b, store: pg, by: .admin)
            let onLite = try await ScenarioComparison.compare(a, b, store: lite, by: .admin)
            #expect(onPG.rows == onLite.rows)
            #expect(onPG.changeCounts == onLite.changeCounts)
            let id = try await onPG.write(to: pg, by: .admin)
            #expect(try await pg.count(layer: id, FeatureQuery(), by: .admin) == onLite.features.count)
        } catch {
            try? await pg.dropSchema()
            throw error
        }
        try await pg.dropSchema()
    }
}
