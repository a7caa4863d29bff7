import CityModel
import Flood
import FloodSim
import Foundation
import GeoCore
import ProcessRuntime
import Scenarios
@testable import Sponge
import SWMMFormat
import Testing
import TestSupport
import TwinStore

/// The planner's side of the sponge city on the sample district (issue 53 §4): the
/// `lid_facilities` layer edited by a department, `sponge-evaluate` over the store's drainage
/// network against SWMM 5.2.4's own continuous run of the same model, and `compare-scenarios` of
/// LID plans, whose facilities FloodSim's LID engine simulates. Records are a month long: the
/// district's continuous runs are minutes each in a debug build.
@Suite("Sponge city on the sample district", .serialized)
struct DistrictSpongeTests {
    static let repository = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

    /// The district store (every layer, `lid_facilities` empty), built once.
    static let district = Task<URL, any Error> {
        let dir = try TemporaryDirectory.forProcess("sponge-district").url
        let store = try SpatiaLiteStore(path: dir.appendingPathComponent("district.sqlite").path)
        try await DistrictLoader.build(into: store, layersDirectory: repository.appendingPathComponent("Layers"))
        return dir
    }

    static func store() async throws -> (SpatiaLiteStore, URL) {
        let dir = try await district.value
        return (try SpatiaLiteStore(path: dir.appendingPathComponent("district.sqlite").path), dir)
    }

    /// The first `days` rows of NOAA's Seattle record (the fixture of the design-rainfall tests) as CSV text.
    static func recordCSV(days: Int) throws -> String {
        let text = try String(contentsOf: try DesignRainfallTests.fixture("seattle-weather-daily", "csv"), encoding: .utf8)
        return text.split(separator: "\n", omittingEmptySubsequences: true).prefix(days + 1).joined(separator: "\n") + "\n"
    }

    static let waterBureau = Caller.department(name: "水务和湖泊局", role: .editor, user: "规划员")

    /// A plan of three facilities on two subcatchments, written by 水务和湖泊局 (a contributor of the co-built layer).
    static func writePlan(_ plan: String, store: any FeatureStore) async throws {
        // Written once per store: the serialized tests share it.
        if try await store.feature(layer: LIDFacilityLayer.id, id: "\(plan)-BC1", by: .admin) != nil { return }
        let square = try Geometry(wkt: "POLYGON((114.800 30.840, 114.8003 30.840, 114.8003 30.8403, 114.800 30.8403, 114.800 30.840))")
        func facility(_ id: String, _ type: String, _ sub: String, _ area: Double, _ imperv: Double, cost: Double) -> Feature {
            Feature(id: .string("\(plan)-\(id)"), geometry: square,
                    properties: ["name": .string("\(type) \(id)"), "type": .string(type), "plan": .string(plan), "subcatchment": .string(sub),
                                 "area_m2": .number(area), "from_impervious_pct": .number(imperv), "unit_cost_yuan_m2": .number(cost), "status": "规划"])
        }
        try await store.insert(layer: LIDFacilityLayer.id, features: [
            facility("BC1", "生物滞留设施", "SC-0001", 400, 30, cost: 800),
            facility("PP1", "透水铺装", "SC-0001", 600, 20, cost: 300),
            facility("GR1", "绿色屋顶", "SC-0004", 500, 25, cost: 500),
        ], by: waterBureau, at: nil)
    }

    static func answer(_ process: some TypedProcess, _ inputs: [String: JSONValue], store: any FeatureStore) async throws -> JSONValue {
        try await process.validate(inputs, store: store, caller: .admin)
        return try await process.execute(inputs, store: store, caller: .admin, progress: .ignored)
    }

    @Test("a plan written by a contributing department: stamped with its department, read back as SWMM LID kinds with costs; an unknown plan is refused")
    func planInTheLayer() async throws {
        let (store, _) = try await Self.store()
        try await Self.writePlan("plan-a", store: store)
        let features = try await store.query(layer: LIDFacilityLayer.id, FeatureQuery(limit: 100), by: .admin).features
        #expect(features.allSatisfy { $0.properties[CoBuilding.property] == "水务和湖泊局" })
        let plan = try await LIDFacilityLayer.plan("plan-a", store: store, caller: .admin)
        #expect(plan.map(\.facility.kind) == [.bioRetention, .greenRoof, .permeablePavement])
        #expect(plan.map(\.totalCostYuan) == [320_000.0, 250_000.0, 180_000.0])
        #expect(LIDPlanSummary(plan: "plan-a", facilities: plan).totalCostYuan == 750_000)
        await #expect(throws: SpongeInputError.self) { try await LIDFacilityLayer.plan("no-such-plan", store: store, caller: .admin) }
        #expect(try await LIDFacilityLayer.plan(LIDFacilityLayer.basePlan, store: store, caller: .admin).isEmpty)
        // The plan goes into the district's model as SWMM reads it: one control per facility.
        let model = try await DistrictSponge.model(store: store, caller: .admin, plan: plan)
        #expect(model.subcatchmentsWithLID == ["SC-0001", "SC-0004"])
    }

    @Test("a facility the layer cannot describe is refused naming the feature and the field")
    func badFacility() throws {
        let f = Feature(id: .string("LID-9"), geometry: nil, properties: ["type": "雨水花园", "plan": "p", "subcatchment": "SC-0001", "area_m2": 10,
                                                                          "from_impervious_pct": 10, "parameters": ["STORAGE": [1, 2, 3, 4]]])
        #expect(throws: SpongeInputError("lid_facilities LID-9.parameters.STORAGE", "a 雨水花园 (RG) has the layers SURFACE, SOIL, not STORAGE")) {
            try LIDFacilityLayer.facility(f)
        }
        var g = f
        g.properties["type"] = "水池"
        #expect { try LIDFacilityLayer.facility(g) } throws: { ($0 as? SpongeInputError)?.input == "lid_facilities LID-9.type" }
    }

    @Test("sponge-evaluate of the base network: capture per subcatchment, zone and district within 1 point of SWMM 5.2.4's continuous run of the same model")
    func baseAgainstSWMM() async throws {
        let (store, dir) = try await Self.store()
        let days = 31
        let csv = try Self.recordCSV(days: days)
        let answer = try await Self.answer(SpongeEvaluateProcess(), ["dailyRainfall": .string(csv)], store: store)
        let evaluation = try #require(answer["evaluation"])
        #expect(evaluation["lid"] == "without")
        #expect(answer["plan"]?["facilities"] == 0)
        // The same record's design depth by the standard's method.
        let record = try DailyRainfall(csv: csv)
        #expect(answer["designRainfall"]?["depthMillimetres"]?.doubleValue == (try DesignRainfall(record: record, rate: 0.75)).designRainfallMillimetres)
        // SWMM itself on the model the store's layers make.
        let python = Self.repository.appendingPathComponent(".venv/bin/python")
        try #require(FileManager.default.isExecutableFile(atPath: python.path), "no .venv/bin/python with swmm-toolkit (Scripts/setup.sh --test)")
        let inp = dir.appendingPathComponent("sponge-base.inp")
        try (try await DistrictSponge.model(store: store, caller: .admin, plan: [])).inpText().write(to: inp, atomically: true, encoding: .utf8)
        let csvFile = dir.appendingPathComponent("record.csv")
        try csv.write(to: csvFile, atomically: true, encoding: .utf8)
        let run = try await CommandProcess.run(python.path, [Self.repository.appendingPathComponent("Scripts/reference/sponge_district_reference.py").path,
                                                              inp.path, csvFile.path, String(days)], separateErrors: true, within: 900)
        #expect(run.exitStatus == 0, "\(run.output)")
        let reference = try JSONDecoder().decode(JSONValue.self, from: Data(run.output.utf8))
        let model = try #require(evaluation["model"]?["captureRate"]?.doubleValue), swmmModel = try #require(reference["model"]?.doubleValue)
        #expect(abs(model - swmmModel) <= 0.01, "district \(model), SWMM \(swmmModel)")
        let zones = try #require(evaluation["zones"]?.arrayValue)
        #expect(zones.count == reference["zones"]?.objectValue?.count)
        for z in zones {
            let name = try #require(z["name"]?.stringValue)
            let swmm = try #require(reference["zones"]?[name]?.doubleValue, "SWMM has no zone \(name)")
            #expect(abs((z["captureRate"]?.doubleValue ?? -1) - swmm) <= 0.01, "zone \(name)")
        }
        for s in try #require(evaluation["subcatchments"]?.arrayValue) {
            let name = try #require(s["name"]?.stringValue)
            let swmm = try #require(reference["subcatchments"]?[name]?.doubleValue)
            #expect(abs((s["captureRate"]?.doubleValue ?? -1) - swmm) <= 0.01, "subcatchment \(name)")
        }
    }

    @Test("the base plan measured for a comparison: a 30-min design storm routed, a peak at every outfall, the capture of sponge-evaluate")
    func baseMeasures() async throws {
        let (store, _) = try await Self.store()
        let record = try DailyRainfall(csv: try Self.recordCSV(days: 31))
        let measures = try await LIDPlanMeasures.measure(plan: LIDFacilityLayer.basePlan, record: record, storm: try DistrictSponge.designStorm(minutes: 30),
                                                         store: store, caller: .admin)
        let evaluation = try await DistrictSponge.evaluate(plan: [], record: record, store: store, caller: .admin)
        #expect(measures.captureRate == evaluation.model.captureRate)
        let model = try await DistrictSponge.model(store: store, caller: .admin, plan: [])
        #expect(Set(measures.peakOutfallFlows.keys) == Set(model.outfalls.map(\.name)))
        #expect(measures.peakOutfallFlows.values.contains { $0 > 0 })
        #expect(measures.floodingCubicMetres >= 0 && abs(measures.routingContinuityErrorPercent) < 5)
        #expect(measures.summary.totalCostYuan == 0 && measures.summary.facilities == 0)
    }

    /// Also the plan's own capture against the base's (the capture row's difference): the suite once
    /// evaluated both a second time in a test of their own, two more month-long runs for the same figure.
    @Test("with LID: compare-scenarios of a plan against the base, the plan capturing more (needs the LID simulation)")
    func comparePlanWithBase() async throws {
        let (store, _) = try await Self.store()
        try await Self.writePlan("plan-a", store: store)
        let answer = try await Self.answer(CompareScenariosProcess(), ["kind": "lid-plans", "a": "base", "b": "plan-a", "stormMinutes": 30,
                                                                        "dailyRainfall": .string(try Self.recordCSV(days: 31))], store: store)
        let table = try #require(answer["summary"]?["table"]?.arrayValue)
        let capture = try #require(table.first { $0["measure"] == "annual runoff volume capture rate" })
        #expect((capture["difference"]?.doubleValue ?? 0) > 0)
        let cost = try #require(table.first { $0["measure"] == "total cost" })
        #expect(cost["b"]?.doubleValue == 750_000 && cost["a"]?.doubleValue == 0)
        #expect(answer["summary"]?["costPerPercentagePointYuan"]?.doubleValue != nil)
    }
}
