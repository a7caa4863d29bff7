import GeoCore
import ProcessRuntime
import Scenarios
@testable import Sponge
import Testing

/// `LIDPlanComparison` on plain values, and the refusals of the sponge processes' inputs (no store).
@Suite("LID plan comparison and the sponge processes' inputs")
struct LIDPlanComparisonTests {
    static func measures(_ plan: String, capture: Double, zones: [String: Double], peaks: [String: Double], flooding: Double,
                         cost: Double) -> LIDPlanMeasures {
        var summary = LIDPlanSummary(plan: plan, facilities: [])
        summary.totalCostYuan = cost
        return LIDPlanMeasures(summary: summary, captureRate: capture, zoneCaptureRates: zones, peakOutfallFlows: peaks,
                               floodingCubicMetres: flooding, routingContinuityErrorPercent: 0, warnings: [])
    }

    @Test("b against a: capture in points, peaks per outfall, flooding, Σ cost and the cost per point gained")
    func table() {
        let a = Self.measures("base", capture: 0.62, zones: ["outfall O1": 0.60, "outfall O2": 0.65], peaks: ["O1": 2.0, "O2": 1.0], flooding: 300, cost: 0)
        let b = Self.measures("plan-a", capture: 0.70, zones: ["outfall O1": 0.70, "outfall O2": 0.69], peaks: ["O1": 1.5, "O2": 1.0], flooding: 120, cost: 4_000_000)
        let c = LIDPlanComparison(a: a, b: b)
        func row(_ m: String) -> LIDPlanComparison.Row? { c.table.first { $0.measure == m } }
        #expect(abs((row("annual runoff volume capture rate")?.difference ?? 0) - 8) < 1e-9)
        #expect(row("flooding volume")?.difference == -180)
        #expect(row("largest peak flow at an outfall")?.difference == -0.5)
        #expect(row("total cost")?.b == 4_000_000)
        #expect(abs((c.costPerPercentagePointYuan ?? 0) - 500_000) < 1e-6)
        #expect(c.outfalls.map(\.measure) == ["O1", "O2"] && c.outfalls[0].difference == -0.5)
        #expect(c.zones.count == 2 && abs((c.zones[0].difference ?? 0) - 10) < 1e-9)
        #expect(c.notes.isEmpty)
        // A plan that gains nothing has no cost per point, and says so.
        let none = LIDPlanComparison(a: b, b: a)
        #expect(none.costPerPercentagePointYuan == nil && none.notes.count == 1)
    }

    @Test("rainfall inputs: one record, inline days in order or CSV text, never a server path; LID inputs only with kind lid-plans")
    func refusals() throws {
        let evaluate = SpongeEvaluateProcess()
        func refusal(_ inputs: [String: JSONValue], _ process: some TypedProcess = evaluate) -> String? {
            do { _ = try process.input(inputs); return nil } catch let e as ProcessInputError { return e.input } catch { return "\(error)" }
        }
        #expect(refusal([:]) == "dailyRainfall")
        #expect(refusal(["dailyRainfall": [["date": "2024-07-01", "precipitation": 3]], "datastream": 4]) == "datastream")
        #expect(refusal(["dailyRainfall": [["date": "2024-07-02", "precipitation": 3], ["date": "2024-07-01", "precipitation": 1]]]) == "dailyRainfall[1].date")
        #expect(refusal(["dailyRainfall": [["date": "2024-07-01", "precipitation": -3]]]) == "dailyRainfall[0].precipitation")
        #expect(refusal(["dailyRainfall": "/etc/passwd"]) != nil, "a path is CSV text without the header, refused")
        #expect(refusal(["datastream": 4, "from": "2024-07-01T00:00:00Z"]) == "to")
        #expect(refusal(["dailyRainfall": [["date": "2024-07-01", "precipitation": 3]]]) == nil)
        #expect(refusal(["dailyRainfall": "date,precipitation\n2024-07-01,3\n"], SpongeDesignRainfallProcess()) == nil)
        let compare = CompareScenariosProcess()
        #expect(refusal(["a": "s1", "b": "s2", "dailyRainfall": "date,precipitation\n2024-07-01,3\n"], compare) == "dailyRainfall")
        #expect(refusal(["kind": "lid-plans", "a": "base", "b": "plan-a"], compare) == "dailyRainfall")
        #expect(refusal(["kind": "lid-plans", "a": "plan-a", "b": "plan-a", "dailyRainfall": [["date": "2024-07-01", "precipitation": 3]]], compare) == "b")
        #expect(refusal(["kind": "lid-plans", "a": "base", "b": "plan-a", "dailyRainfall": [["date": "2024-07-01", "precipitation": 3]]], compare) == nil)
    }

    @Test("an inline record runs sponge-design-rainfall without a store, as the CLI answers it")
    func designRainfallWithoutStore() async throws {
        let (record, _) = try DesignRainfallTests.seattle()
        let days: [JSONValue] = record.days.map { ["date": .string($0.date), "precipitation": .number($0.millimetres), "snow": .bool($0.snow)] }
        let answer = try await SpongeDesignRainfallProcess().execute(["dailyRainfall": .array(days), "rate": 0.8], caller: .admin, progress: .ignored)
        let direct = try DesignRainfall(record: record, rate: 0.8)
        #expect(answer["designRainfall"]?["designRainfallMillimetres"]?.doubleValue == direct.designRainfallMillimetres)
        #expect(answer["designRainfall"]?["dropped"]?["snowDays"]?.integerValue == Int64(direct.dropped.snowDays))
    }
}
