import Foundation
import GeoCore
@testable import Flood
@testable import Scenarios
import ProcessRuntime
import Testing

/// Issue 58 §7: `compare-scenarios` compares two runs only when they differ in the plan alone
/// (sandbox changes, network upgrades, parking guidance). Runs of another storm, river stage,
/// duration scale, coarsening, output interval, start or DEM are refused, naming each condition,
/// or compared on request with the table marked. Scenario records as a finished run leaves them.
@Suite("Scenarios: a comparison only across the plan")
struct ScenarioRunConditionsTests {
    static let models = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("Models/scenarios")

    static func model(_ name: String) throws -> FloodScenario {
        try FloodScenario.load(contentsOf: models.appendingPathComponent("\(name).json"))
    }

    /// A finished scenario as `scenario-run` records it: the conditions its run ran under.
    static func finished(_ id: String, model name: String? = "p50-waterlogging", kind: String = "flood", parameters: [String: JSONValue] = [:],
                         durationScale: Double = 0.03, demCoarsening: Int = 10, outputInterval: Double? = 300,
                         summary: JSONValue? = nil, base: Date = Date(timeIntervalSince1970: 1_780_000_000)) throws -> Scenario {
        var s = Scenario(id: id, kind: kind, district: "420117", base: base, parameters: parameters)
        s.status = .successful
        var result: [String: JSONValue] = ["layers": []]
        if kind == "flood", let name {
            result["conditions"] = ScenarioRunConditions.flood(try model(name), durationScale: durationScale, demCoarsening: demCoarsening,
                                                               outputInterval: outputInterval, parameters: parameters).json
        }
        if let summary { result["summary"] = summary }
        s.result = .object(result)
        return s
    }

    /// The refusal of comparing `b` with `a`, or nil when they compare.
    static func refusal(_ a: Scenario, _ b: Scenario) -> ScenarioError? {
        do { _ = try ScenarioComparison.check(a, b); return nil } catch let e as ScenarioError { return e } catch { return nil }
    }

    @Test("the p50 pair (the same storm, with and without storage tanks) compares: the tanks are the plan")
    func samePlanConditions() throws {
        let a = try Self.finished("p50-base"), b = try Self.finished("p50-storage", model: "p50-with-storage")
        #expect(Self.refusal(a, b) == nil)
        // Created at different instants without a start: the storm starts at each base, which
        // moves the time stamps only.
        let later = try Self.finished("p50-later", model: "p50-with-storage", base: Date(timeIntervalSince1970: 1_790_000_000))
        #expect(Self.refusal(a, later) == nil)
    }

    @Test("another storm is refused naming b and each differing storm parameter; accepted, the comparison is marked")
    func otherStorm() throws {
        let a = try Self.finished("p50-base"), b = try Self.finished("p3-base", model: "p3-sewer-design")
        let e = try #require(Self.refusal(a, b))
        #expect(e.code == .invalidScenario && e.field == "b")
        #expect(e.message.contains("storm.returnPeriodYears (a: 50, b: 3)"), "\(e.message)")
        #expect(e.message.contains("storm.durationMinutes (a: 180, b: 120)"))
        #expect(e.message.contains("riverStageMetres (a: 19.5, b: not set)"))
        #expect(e.message.contains("acceptDifferentConditions"))
        let differences = try ScenarioComparison.check(a, b, acceptingDifferentConditions: true)
        #expect(Set(differences.map(\.condition)) == ["storm.returnPeriodYears", "storm.durationMinutes", "riverStageMetres", "stageReceivingWaters"])
        var c = ScenarioComparison(a: a, b: b)
        c.conditionDifferences = differences
        #expect(c.summary["sameConditions"] == .bool(false))
        #expect(c.summary["conditionsDiffer"]?.arrayValue?.count == 4)
        #expect(c.summary["note"]?.stringValue?.hasPrefix("NOT COMPARABLE") == true)
        #expect(try c.definition(id: "diff_p50_base_p3_base").title.en.hasSuffix("(runs under different conditions: not the plan's effect)"))
        #expect(ScenarioComparison(a: a, b: a).summary["sameConditions"] == .bool(true))
    }

    @Test("another resolution, length, output interval, start or DEM is refused, naming it")
    func otherRun() throws {
        let a = try Self.finished("p50-base")
        let cases: [(Scenario, String)] = [
            (try Self.finished("p50-fine", demCoarsening: 5), "demCoarsening (a: 10, b: 5)"),
            (try Self.finished("p50-long", durationScale: 0.25), "durationScale (a: 0.03, b: 0.25)"),
            (try Self.finished("p50-steps", outputInterval: 600), "outputIntervalMinutes (a: 5, b: 10)"),
            (try Self.finished("p50-night", parameters: ["start": "2026-07-01T02:00:00Z"]), "start (a: not set, b: 2026-07-01T02:00:00Z)"),
            (try Self.finished("p50-dem", parameters: ["dem": "dem-2025"]), "dem (a: not set, b: dem-2025)"),
        ]
        for (b, named) in cases {
            let e = Self.refusal(a, b)
            #expect(e?.field == "b" && e?.message.contains(named) == true, "\(b.id): \(e?.message ?? "compared")")
        }
    }

    @Test("runs recorded before their conditions were: compared by storm depth, length, cell size and parameters")
    func olderRecords() throws {
        func old(_ id: String, rain: Double, parameters: [String: JSONValue] = ["model": "p50-waterlogging", "durationScale": 0.03, "demCoarsening": 10]) throws -> Scenario {
            try Self.finished(id, model: nil, parameters: parameters,
                              summary: ["rainfallMillimetres": .number(rain), "simulatedSeconds": 900, "cellSize": 100])
        }
        let a = try old("old-a", rain: 19.43)
        #expect(Self.refusal(a, try old("old-b", rain: 19.43, parameters: ["model": "p50-with-storage", "durationScale": 0.03, "demCoarsening": 10])) == nil)
        let e = Self.refusal(a, try old("old-c", rain: 80.1))
        #expect(e?.message.contains("storm.rainMillimetres (a: 19.43, b: 80.1)") == true, "\(e?.message ?? "compared")")
        // One record with its conditions and one without: both are read from their records.
        var recorded = try Self.finished("new-a")
        recorded.parameters = ["model": "p50-waterlogging", "durationScale": 0.03, "demCoarsening": 10]
        var o = recorded.result?.objectValue ?? [:]
        o["summary"] = ["rainfallMillimetres": 19.43, "simulatedSeconds": 900, "cellSize": 100]
        recorded.result = .object(o)
        #expect(Self.refusal(a, recorded) == nil)
    }

    @Test("signal scenarios compare within one period, parking ones with the same drivers and seed (guidance is the plan)")
    func trafficConditions() throws {
        let am = try Self.finished("sig-am", kind: "signal", parameters: ["period": "07:00-09:00"])
        #expect(Self.refusal(am, try Self.finished("sig-default", kind: "signal")) == nil)
        let pm = Self.refusal(am, try Self.finished("sig-pm", kind: "signal", parameters: ["period": "17:00-19:00"]))
        #expect(pm?.message.contains("period (a: 07:00-09:00, b: 17:00-19:00)") == true, "\(pm?.message ?? "compared")")
        let unguided = try Self.finished("park-base", kind: "parking")
        #expect(Self.refusal(unguided, try Self.finished("park-guided", kind: "parking", parameters: ["guidance": "guided"])) == nil)
        let seeded = Self.refusal(unguided, try Self.finished("park-seed", kind: "parking", parameters: ["seed": 3]))
        #expect(seeded?.message.contains("seed (a: 17, b: 3)") == true, "\(seeded?.message ?? "compared")")
    }
}
