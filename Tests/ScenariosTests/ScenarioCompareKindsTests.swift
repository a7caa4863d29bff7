import CityModel
import Foundation
import GeoCore
import NetworkAnalysis
@testable import Emergency
@testable import Flood
@testable import Parking
@testable import Scenarios
@testable import Signals
import ProcessRuntime
import SignalSim
import Testing
import TwinStore

/// Issue 19 §1 beyond flood: `compare-scenarios` on signal scenarios (delay per intersection) and
/// parking scenarios (search time per lot), and a flood scenario's sandbox road closures in its
/// cut-off analysis. Runs in the district store of `ScenarioCompareTests` (same serialized suite).
extension ScenarioCompareTests {
    static func json(_ feature: Feature) throws -> JSONValue {
        try JSONDecoder().decode(JSONValue.self, from: JSONEncoder().encode(feature))
    }

    static func layer(_ id: String, _ store: any FeatureStore) async throws -> [String: Feature] {
        var out: [String: Feature] = [:]
        for try await f in store.stream(layer: id, FeatureQuery(limit: 10_000), by: .admin) { out[f.id.map { "\($0)" } ?? ""] = f }
        return out
    }

    /// Runs the scenarios `ids` (default a and b), then compares b against a.
    static func runAndCompare(_ a: String, _ b: String, store: any FeatureStore, registry: ProcessRegistry,
                              run ids: [String]? = nil, acceptingDifferentConditions: Bool = false) async throws -> JSONValue {
        let run = try #require(registry["scenario-run"])
        for id in ids ?? [a, b] {
            _ = try await registry.run(run.id, inputs: ["scenario": .string(id)], caller: .admin, store: store)
        }
        let compare = try #require(registry["compare-scenarios"])
        var inputs: [String: JSONValue] = ["a": .string(a), "b": .string(b)]
        if acceptingDifferentConditions { inputs["acceptDifferentConditions"] = true }
        return try await registry.run(compare.id, inputs: inputs, caller: .admin, store: store)
    }

    static func row(_ result: JSONValue, _ prefix: String) throws -> (a: Double, b: Double, difference: Double) {
        let table = try #require(result["summary"]?["table"]?.arrayValue)
        let row = try #require(table.first { $0["measure"]?.stringValue?.hasPrefix(prefix) == true }, "no row \(prefix) in \(table)")
        return (row["a"]?.doubleValue ?? .nan, row["b"]?.doubleValue ?? .nan, row["difference"]?.doubleValue ?? .nan)
    }

    @Test("a scenario created just after an edit of the map has the edit in its base, read back from the catalog")
    func baseAfterEdit() async throws {
        let dir = try await Self.district.value
        let store = try Self.store(dir)
        let catalog = ScenarioCatalog(store: store)
        for k in 0..<3 {
            var plan = try #require(try await store.stream(layer: "signal_plans", FeatureQuery(limit: 1), by: .admin).first { _ in true })
            plan.properties["approved_by"] = .string("base-after-edit \(k)")
            try await store.upsert(layer: "signal_plans", features: [plan], by: .admin, at: nil)
            _ = try await catalog.create(["id": .string("base-edit-\(k)"), "kind": "signal"], by: .admin)
            let base = try await catalog.scenario("base-edit-\(k)", by: .admin).base
            let seen = try await store.stream(layer: "signal_plans", FeatureQuery(asOf: base, limit: 10_000), by: .admin).first { $0.id == plan.id }
            #expect(seen?.properties["approved_by"] == .string("base-after-edit \(k)"), "base \(Scenario.instantText(base))")
        }
    }

    @Test("a scenario's status and its job id written at the same instant (the worker and the server that submitted the job) both stay")
    func recordUpdatesKeepEachOther() async throws {
        let dir = try await Self.district.value
        let store = try Self.store(dir)
        let catalog = ScenarioCatalog(store: store)
        _ = try await catalog.create(["id": "record-race", "kind": "signal"], by: .admin)
        for round in 0..<12 {
            // The server adds the job id while the job's worker moves the status on, each to the record it read.
            async let job = catalog.update("record-race", by: .admin) { $0.job = "job-\(round)" }
            async let status = catalog.update("record-race", by: .admin) {
                $0.status = round.isMultiple(of: 2) ? .running : .accepted
                $0.error = "round \(round)"
            }
            _ = try await (job, status)
            let record = try await catalog.scenario("record-race", by: .admin)
            #expect(record.job == "job-\(round)" && record.error == "round \(round)", "round \(round): \(record.document)")
        }
        await #expect(throws: ScenarioError.self) { try await catalog.update("no-such-record", by: .admin) { $0.job = "x" } }
    }

    @Test("a signal scenario re-timing one intersection: compare gives less delay there and nowhere else, as the runs' own layers say")
    func signalScenarioComparison() async throws {
        let dir = try await Self.district.value
        let store = try Self.store(dir)
        let registry = Self.registry(dir)
        let catalog = ScenarioCatalog(store: store)
        _ = try await catalog.create(["id": "sig-base", "kind": "signal", "parameters": ["period": "07:00-09:00"]], by: .admin)
        let run = try #require(registry["scenario-run"])
        _ = try await registry.run(run.id, inputs: ["scenario": "sig-base"], caller: .admin, store: store)
        let base = try await Self.layer("scenario_sig_base_intersections", store)
        #expect(base.count >= 2, "every signalised intersection with a plan")
        #expect(base.values.allSatisfy { $0.properties.keys.contains("counts_note") && $0.properties["counts_note"] == .null },
                "the sample day's counts are whole at every signal: nothing to note")
        // Re-time the intersection with the most delay: Webster's plan for the period's busiest hour.
        let worst = try #require(base.max { ($0.value.properties["delay_s"]?.doubleValue ?? 0) < ($1.value.properties["delay_s"]?.doubleValue ?? 0) }?.key)
        let intersection = try #require(try await SignalizedIntersection.load(id: worst, from: store, by: .admin))
        let read = try await intersection.countsIfReadable(from: store, by: .admin)
        let (counts, minutes) = (read.intervals, read.minutes)
        let plan = try SignalPlanning.plans(for: intersection, counts: counts, intervalMinutes: minutes, period: (420, 540), settings: SignalTimingSettings())[0]
        let feature = SignalPlanLayer.feature(for: intersection, plan: plan)
        _ = try await catalog.create(["id": "sig-retimed", "kind": "signal", "parameters": ["period": "07:00-09:00"],
                                      "changes": [["layer": "signal_plans", "op": "upsert", "feature": try Self.json(feature)]]], by: .admin)
        let result = try await Self.runAndCompare("sig-base", "sig-retimed", store: store, registry: registry)
        #expect(result["layers"] == ["diff_sig_base_sig_retimed"])
        let retimed = try await Self.layer("scenario_sig_retimed_intersections", store)
        let a = try #require(base[worst]?.properties["delay_s"]?.doubleValue), b = try #require(retimed[worst]?.properties["delay_s"]?.doubleValue)
        #expect(retimed[worst]?.properties["plan_id"] == feature.properties["intersection"].map { _ in .string(feature.id?.description ?? "") })
        #expect(b < a, "\(worst): \(a) s/veh on the stored plan, \(b) s/veh re-timed")
        let diff = try await Self.layer("diff_sig_base_sig_retimed", store)
        let changed = diff.values.filter { $0.properties["kind"] == "intersection" }
        #expect(changed.map { $0.properties["object_id"]?.stringValue } == [worst], "only the re-timed intersection changes")
        #expect(changed.first?.properties["change"] == "less delay")
        #expect(abs((changed.first?.properties["difference"]?.doubleValue ?? .nan) - (b - a)) < 0.0015)
        // The table's flow-weighted mean recomputed from the two layers.
        func mean(_ fs: [String: Feature]) -> Double {
            let q = fs.values.map { $0.properties["flow_veh_h"]?.doubleValue ?? 0 }, d = fs.values.map { $0.properties["delay_s"]?.doubleValue ?? 0 }
            return zip(q, d).reduce(0) { $0 + $1.0 * $1.1 } / q.reduce(0, +)
        }
        let row = try Self.row(result, "mean control delay")
        #expect(abs(row.a - mean(base)) < 0.001 && abs(row.b - mean(retimed)) < 0.001 && row.difference < 0)
        print("signal: \(worst) \(a) → \(b) s/veh; mean \(row.a) → \(row.b) s/veh over \(base.count) intersections")
    }

    @Test("a parking scenario closing the largest lot: compare lists it closed and a longer search, the same drivers")
    func parkingScenarioComparison() async throws {
        let dir = try await Self.district.value
        let store = try Self.store(dir)
        let registry = Self.registry(dir)
        let catalog = ScenarioCatalog(store: store)
        let lots = try await StoreParkingLot.load(from: store, by: .admin)
        let largest = try #require(lots.max { $0.capacity < $1.capacity })
        _ = try await catalog.create(["id": "park-base", "kind": "parking"], by: .admin)
        _ = try await catalog.create(["id": "park-closed", "kind": "parking",
                                      "changes": [["layer": "parking_lots", "op": "delete", "id": .string(largest.id)]]], by: .admin)
        _ = try await catalog.create(["id": "park-guided", "kind": "parking", "parameters": ["guidance": "guided"]], by: .admin)
        let result = try await Self.runAndCompare("park-base", "park-closed", store: store, registry: registry)
        let a = try await Self.layer("scenario_park_base_parking", store), b = try await Self.layer("scenario_park_closed_parking", store)
        #expect(b[largest.id] == nil && a[largest.id] != nil)
        let diff = try await Self.layer("diff_park_base_park_closed", store)
        #expect(diff["lot/\(largest.id)"]?.properties["change"] == "closed")
        for (id, f) in diff where id != "lot/\(largest.id)" {
            let lot = f.properties["object_id"]?.stringValue ?? ""
            let d = (b[lot]?.properties["mean_search_s"]?.doubleValue ?? .nan) - (a[lot]?.properties["mean_search_s"]?.doubleValue ?? .nan)
            #expect(abs((f.properties["difference"]?.doubleValue ?? .nan) - d) < 0.0015, "\(id)")
        }
        let search = try Self.row(result, "mean parking search time")
        #expect(search.b > search.a, "closing \(largest.id) (\(largest.capacity) berths): \(search.a) → \(search.b) s")
        let sa = try await catalog.scenario("park-base", by: .admin), sb = try await catalog.scenario("park-closed", by: .admin)
        #expect(sa.result?["summary"]?["drivers"] == sb.result?["summary"]?["drivers"], "the same demand meets fewer berths")
        // Guidance on the same lots and trips shortens the search.
        let guided = try await Self.runAndCompare("park-base", "park-guided", store: store, registry: registry)
        let g = try Self.row(guided, "mean parking search time")
        #expect(g.b < g.a, "guided \(g.b) s against unguided \(g.a) s")
        print("parking: closing \(largest.id) \(search.a) → \(search.b) s; guided \(g.a) → \(g.b) s")
        // Bad input names the field.
        await #expect(throws: ScenarioError.self) { _ = try await catalog.create(["id": "park-bad", "kind": "parking", "parameters": ["guidance": "psychic"]], by: .admin) }
        do { _ = try await catalog.create(["id": "sig-bad", "kind": "signal", "parameters": ["period": "9-7"]], by: .admin); Issue.record("a bad period was accepted") } catch let e as ScenarioError {
            #expect(e.field == "parameters.period")
        }
        do {
            _ = try await catalog.create(["id": "park-bad2", "kind": "parking", "changes": [["layer": "roads", "op": "delete", "id": "R1"]]], by: .admin)
            Issue.record("a parking scenario changing roads was accepted")
        } catch let e as ScenarioError { #expect(e.field == "changes[0].layer") }
        let compare = try #require(registry["compare-scenarios"])
        do { try await registry.validate(["a": "park-base", "b": "sig-base"], for: compare, store: store, caller: .admin); Issue.record("kinds mixed") } catch let e as ScenarioError {
            #expect(e.field == "b")
        }
    }

    @Test("a road closed in the sandbox cuts off what only it reached: at the door, and isolated behind closed roads")
    func sandboxClosureCutsOff() async throws {
        let dir = try await Self.pair.value
        let store = try Self.store(dir)
        let registry = Self.registry(dir)
        let flood = try #require(registry["flood-scenario"] as? FloodScenarioProcess)
        let roads = try await StoreRoadGraph.load(from: store, profile: .driving)
        let network = roads.graph.network
        var resources: [EmergencyResource] = []
        for layer in EmergencyResource.layers { resources += try await EmergencyResource.load(layer: layer, from: store, by: .admin) }
        let accesses = try roads.access(resources: resources).accesses
        func lines(_ access: RoadAccess) -> Set<String> { Set(access.positions.map { network.lines[Int(network.pieces[$0.piece].line)].id ?? "" }) }
        func length(_ line: String) -> Double { network.pieces.filter { network.lines[Int($0.line)].id == line }.reduce(0) { $0 + $1.length } }
        // r1: the resource on the shortest road; closing every road that meets it leaves that road an island.
        let candidates = zip(resources, accesses).compactMap { r, a in a.map { (r, lines($0)) } }
        let (r1, own) = try #require(candidates.min { $0.1.map(length).reduce(0, +) < $1.1.map(length).reduce(0, +) })
        let nodes = Set(network.pieces.filter { own.contains(network.lines[Int($0.line)].id ?? "") }.flatMap { [$0.from, $0.to] })
        let around = Set(network.pieces.filter { nodes.contains($0.from) || nodes.contains($0.to) }.map { network.lines[Int($0.line)].id ?? "" }).subtracting(own)
        // r2: a resource far from r1 whose own road is closed: cut off at the door.
        let (r2, door) = try #require(candidates.first { $0.1.isDisjoint(with: own.union(around)) && !$0.1.isEmpty && $0.0.id != r1.id })
        let closed = around.union(door).sorted()
        let changes: [JSONValue] = closed.map { ["layer": "roads", "op": "delete", "id": .string($0)] }
        _ = try await ScenarioCatalog(store: store).create(Self.document("p50-closed", model: "p50-waterlogging", changes: changes), by: .admin, flood: flood)
        // p50-base (the pair's) is the same storm with every road open.
        let result = try await Self.runAndCompare("p50-base", "p50-closed", store: store, registry: registry, run: ["p50-closed"])
        let cutoff = try await Self.layer("scenario_p50_closed_cutoff", store)
        #expect(cutoff["\(r1.layer)/\(r1.id)"]?.properties["reason"] == "isolated", "\(r1.layer)/\(r1.id) behind \(around.sorted())")
        #expect(cutoff["\(r2.layer)/\(r2.id)"]?.properties["reason"] == "closed", "\(r2.layer)/\(r2.id) on \(door.sorted())")
        for road in closed { #expect(cutoff["road/\(road)"]?.properties["reason"] == "closed") }
        let open = try await Self.layer("scenario_p50_base_cutoff", store)
        #expect(open["\(r1.layer)/\(r1.id)"] == nil && open["\(r2.layer)/\(r2.id)"] == nil)
        let summary = try #require(try await ScenarioCatalog(store: store).scenario("p50-closed", by: .admin).result?["summary"])
        #expect(summary["cutOffResources"]?.doubleValue == Double(cutoff.values.filter { $0.properties["kind"] == "resource" }.count))
        let diff = try await Self.layer("diff_p50_base_p50_closed", store)
        #expect(diff["resource/\(r1.layer)/\(r1.id)"]?.properties["change"] == "newly cut off")
        #expect(diff["resource/\(r2.layer)/\(r2.id)"]?.properties["change"] == "newly cut off")
        let row = try Self.row(result, "cut-off emergency resources")
        #expect(row.b >= row.a + 2)
    }
}

extension ScenarioCompareTests {
    /// A cloudburst on the quick settings' 100 m cells: 20 minutes of the Suzhou formula at the
    /// largest return period a scenario takes, 1000 a, far beyond design (≈ 97 mm), enough water to
    /// stand on the streets, where the quick p50 storm only wets them.
    static let cloudburst: JSONValue = [
        "id": "cloudburst", "title": "短历时特大暴雨（20 min，测试用）", "return_period_a": 1000, "duration_min": 20, "peak_ratio": 0.4,
        "time_step_min": 5, "storm_formula": "suzhou-2025", "outfall_stage_m": 19.5, "stage_receiving_waters": ["长江", "举水"],
    ]

    @Test("a quick storm that floods roads: flooded roads > 0; compare against the quick p50 run is refused (another storm), and on request lists them marked not comparable")
    func quickStormFloodsRoads() async throws {
        let dir = try await Self.pair.value
        let store = try Self.store(dir)
        let registry = Self.registry(dir)
        let flood = try #require(registry["flood-scenario"] as? FloodScenarioProcess)
        _ = try await ScenarioCatalog(store: store).create(
            ["id": "burst", "parameters": ["model": Self.cloudburst, "durationScale": 1, "demCoarsening": 10, "outputIntervalMinutes": 5]], by: .admin, flood: flood)
        let result = try await Self.runAndCompare("p50-base", "burst", store: store, registry: registry, run: ["burst"], acceptingDifferentConditions: true)
        // Issue 58 §7: another storm (and duration scale) is no effect of a plan. Refused by
        // default, naming b and the conditions; compared on request, the summary says so.
        let compare = try #require(registry["compare-scenarios"])
        do {
            try await registry.validate(["a": "p50-base", "b": "burst"], for: compare, store: store, caller: .admin)
            Issue.record("a comparison across storms was accepted")
        } catch let e as ScenarioError {
            #expect(e.field == "b" && e.message.contains("storm.returnPeriodYears (a: 50, b: 1000)") && e.message.contains("durationScale (a: 0.03, b: 1)"), "\(e.message)")
        }
        let differing = Set(result["summary"]?["conditionsDiffer"]?.arrayValue?.compactMap { $0["condition"]?.stringValue } ?? [])
        #expect(differing.isSuperset(of: ["storm.returnPeriodYears", "storm.durationMinutes", "storm.formula", "durationScale"]), "\(differing)")
        #expect(result["summary"]?["sameConditions"] == .bool(false) && result["summary"]?["note"]?.stringValue?.hasPrefix("NOT COMPARABLE") == true)
        let ra = try await Self.roads("scenario_p50_base_roads", store), rb = try await Self.roads("scenario_burst_roads", store)
        let wetA = Set(ra.filter { $0.value > 0.15 }.keys), wetB = Set(rb.filter { $0.value > 0.15 }.keys)
        #expect(!wetB.isEmpty, "the cloudburst floods roads (deepest \(rb.values.max() ?? 0) m)")
        let row = try Self.row(result, "flooded roads")
        #expect(row.a == Double(wetA.count) && row.b == Double(wetB.count) && row.difference > 0)
        let diff = try await Self.layer("diff_p50_base_burst", store)
        let newly = Set(diff.values.filter { $0.properties["kind"] == "road" && $0.properties["change"] == "newly flooded" }
            .compactMap { $0.properties["object_id"]?.stringValue })
        #expect(newly == wetB.subtracting(wetA) && !newly.isEmpty)
        print("cloudburst: flooded roads \(wetA.count) → \(wetB.count), deepest \(rb.values.max() ?? 0) m")
    }
}
