import CityModel
import Foundation
import GeoCore
import ProcessRuntime
import TestSupport
import Testing
import TwinStore
@testable import Flood
@testable import Scenarios

/// Issue 58 §5: a flood scenario's numbers have ranges, and a refusal names the field and the range.
@Suite("Flood scenario ranges", .temporaryDirectories)
struct FloodScenarioRangeTests {
    static func scenario(_ fields: String) -> Data {
        Data(#"{"id": "x", "duration_min": 60, \#(fields)}"#.utf8)
    }

    @Test("a return period outside 1–1000 a, a sill above a storey and a bad storage depth are refused naming the field and the range")
    func documentRanges() throws {
        for (fields, field, range) in [(#""return_period_a": 100000"#, "return_period_a", "1–1000 a"),
                                       (#""return_period_a": 0.5"#, "return_period_a", "1–1000 a"),
                                       (#""return_period_a": 5, "ground_floor_sill_m": 12"#, "ground_floor_sill_m", "0–3 m"),
                                       (#""return_period_a": 5, "upgrades": {"storage": [{"node": "J1", "volume_m3": 500, "depth_m": 400}]}"#,
                                        "upgrades.storage[0]", "0.1–60 m")] {
            do {
                _ = try FloodScenario.decode(Self.scenario(fields), source: "x.json")
                Issue.record("\(fields) was accepted")
            } catch let e as ScenarioError {
                #expect(e.field == field && e.message.contains(field) && e.message.contains(range), "\(e.message)")
            }
        }
        #expect(try FloodScenario.decode(Self.scenario(#""return_period_a": 1000"#), source: "x.json").returnPeriod == 1000)
        #expect(try FloodScenario.decode(Self.scenario(#""return_period_a": 1"#), source: "x.json").returnPeriod == 1)
    }

    @Test("an outfall stage of 500 m or −1000 m is refused against the district's elevations, before a flood-scenario job is accepted; 19.5 m runs")
    func stageWithinTheDistrict() async throws {
        let (store, _, _) = try await EmergencyDistrict.makeStore(["drainage_outfalls", "drainage_manholes"], in: .forTestCase("flood-ranges"))
        let range = try #require(try await FloodScenario.stageRange(in: store, by: .admin))
        #expect(range.contains(19.5) && range.upperBound < 100 && range.lowerBound > 0, "\(range)")
        for stage in [500.0, -1000] {
            let s = try FloodScenario(id: "x", title: "x", returnPeriod: 50, duration: 60, outfallStage: .fixed(stage))
            let error = #expect(throws: ScenarioError.self) { try s.checkStage(within: range) }
            #expect(error?.field == "outfall_stage_m" && error?.message.contains(String(format: "%.2f–%.2f m", range.lowerBound, range.upperBound)) == true,
                    "\(error?.message ?? "")")
        }
        let series = try FloodScenario(id: "x", title: "x", returnPeriod: 50, duration: 60, outfallStage: .series(minutes: [0, 30], stage: [19.5, 500]))
        #expect(throws: ScenarioError.self) { try series.checkStage(within: range) }
        try FloodScenario(id: "x", title: "x", returnPeriod: 50, duration: 60, outfallStage: .fixed(19.5)).checkStage(within: range)

        // Through the process: refused in validation (no job), naming the field and the range.
        // The run's DEM, a raster the store manages (this check does not use its cells).
        let data = Data("ncols 1\nnrows 1\nxllcorner 0\nyllcorner 0\ncellsize 10\n20\n".utf8)
        try await store.putRaster(try ManagedRaster.describe(try Grid(esriASCIIData: data), data: data, id: ManagedRaster.defaultDEM, title: nil,
                                                               kind: .dem, crs: 4547, by: .admin), data: data, replace: true, by: .admin)
        let repository = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("../..").standardizedFileURL
        let flood = FloodScenarioProcess(scenariosDirectory: repository.appendingPathComponent("Models/scenarios"),
                                         stormCatalog: repository.appendingPathComponent("Models/storm-intensity.json"))
        let doc: JSONValue = ["id": "absurd", "return_period_a": 50, "duration_min": 60, "outfall_stage_m": 500]
        do {
            try await flood.validate(["scenario": doc], store: store, caller: .admin)
            Issue.record("a 500 m outfall stage was accepted")
        } catch let e as ProcessInputError {
            #expect(e.input == "scenario" && e.reason.contains("outfall_stage_m must be within the district's elevations"), "\(e.reason)")
        }
        let fine: JSONValue = ["id": "absurd", "return_period_a": 50, "duration_min": 60, "outfall_stage_m": 19.5]
        try await flood.validate(["scenario": fine], store: store, caller: .admin)
    }
}
