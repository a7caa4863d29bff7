@testable import FloodSim
import Foundation
import SWMMFormat
import Testing

/// Groundwater (SWMM 5.2's two-zone aquifer under a subcatchment) against SWMM 5.2.4 on small
/// generated models and EPA's Example5 (Fixtures/swmm/groundwater, by
/// Scripts/reference/make_swmm_groundwater_fixtures.py): the groundwater balance (infiltration,
/// upper and lower zone ET, deep percolation, lateral flow, final storage), the final upper-zone
/// moisture and water table, and what the lateral flow brings to the drainage network, each
/// within 2 % of SWMM's; with LID units over the aquifer (their seepage capped by the upper
/// zone's room and feeding it), each unit's LID Performance Summary too.
@Suite("Groundwater: balance, final state and lateral inflow match SWMM 5.2.4")
struct SWMMGroundwaterParityTests {
    struct Reference: Decodable {
        var continuity_mm: [String: Double]
        var final_upper_moisture: Double
        var final_water_table_m: Double
        var groundwater_inflow_m3: Double
        var outflow_m3: Double
        var flooding_m3: Double
        var lid: [LIDRow]?
    }

    /// One row of SWMM's LID Performance Summary, mm over the usage's area.
    struct LIDRow: Decodable {
        var subcatchment: String, control: String
        var inflow_mm: Double, evaporation_mm: Double, infiltration_mm: Double, surface_outflow_mm: Double
        var drain_outflow_mm: Double, final_storage_mm: Double
    }

    static let references: [String: Reference] = {
        guard let url = Bundle.module.url(forResource: "groundwater", withExtension: "json", subdirectory: "Fixtures/swmm/groundwater"),
              let data = try? Data(contentsOf: url), let table = try? JSONDecoder().decode([String: Reference].self, from: data)
        else { return [:] }
        return table
    }()

    /// Within 2 % of SWMM's value, or 0.02 mm where the report's three decimals are the limit.
    static func close(_ value: Double, _ reference: Double, floor: Double = 0.02) -> Bool {
        abs(value - reference) <= max(0.02 * abs(reference), floor)
    }

    @Test("every generated case and Example5 have a SWMM reference")
    func listed() {
        for name in ["BASE", "EVAPORATION", "POWER_LAW", "FIXED_DEPTH", "FULL_AQUIFER", "US_OVERRIDES", "LID_TRENCH", "LID_GARDEN_BARREL",
                     "Example5"] {
            #expect(Self.references[name] != nil, "\(name) has no SWMM reference")
        }
    }

    @Test("groundwater balance and final state within 2 % of SWMM", arguments: references.keys.sorted())
    func parity(_ name: String) throws {
        let reference = try #require(Self.references[name])
        let url = try #require(Bundle.module.url(forResource: name, withExtension: "inp", subdirectory: "Fixtures/swmm/groundwater"))
        let model = try SWMMModel(contentsOf: url)
        let setup = try #require(try model.groundwaterSetup().first ?? nil)
        let result = try DrainageRun.run(model)
        let gw = try #require(result.groundwater, "\(name): no groundwater result")
        let summary = try #require(gw.summaries.first ?? nil)
        let area = try #require(try model.runoffSimulation().subcatchments.first?.area)
        let c = gw.continuity
        let mine: [String: Double] = [
            "initial_storage": c.initialStorage, "infiltration": c.infiltration, "upper_et": c.upperEvaporation,
            "lower_et": c.lowerEvaporation, "deep_percolation": c.deepPercolation, "groundwater_flow": c.lateralFlow,
            "final_storage": c.finalStorage,
        ].mapValues { $0 / area * 1000 }
        for (key, swmm) in reference.continuity_mm {
            let value = try #require(mine[key])
            #expect(Self.close(value, swmm), "\(name): \(key) \(value) mm, SWMM \(swmm) mm")
        }
        #expect(Self.close(summary.finalUpperMoisture, reference.final_upper_moisture, floor: 0.001),
                "\(name): final upper moisture \(summary.finalUpperMoisture), SWMM \(reference.final_upper_moisture)")
        // The water table against its height above the aquifer bottom (an elevation's 2 % would
        // depend on the datum).
        let height = summary.finalWaterTable - setup.bottomElevation, swmmHeight = reference.final_water_table_m - setup.bottomElevation
        #expect(Self.close(height, swmmHeight, floor: 0.005), "\(name): water table \(summary.finalWaterTable) m, SWMM \(reference.final_water_table_m) m")
        let inflow = c.lateralFlow
        #expect(Self.close(inflow, reference.groundwater_inflow_m3, floor: 1), "\(name): groundwater to the nodes \(inflow) m³, SWMM \(reference.groundwater_inflow_m3) m³")
        #expect(Self.close(result.routing.externalOutflow, reference.outflow_m3, floor: 1),
                "\(name): outflow \(result.routing.externalOutflow) m³, SWMM \(reference.outflow_m3) m³")
        #expect(abs(result.routing.flooding - reference.flooding_m3) <= max(0.02 * reference.flooding_m3, 1),
                "\(name): flooding \(result.routing.flooding) m³, SWMM \(reference.flooding_m3) m³")
    }

    /// LID units over an aquifer: each unit's inflow, evaporation, infiltration, surface and drain
    /// outflow and final storage within 2 % of SWMM's summary or its 0.01 mm rounding (the
    /// trench's seepage, 200 mm/h, is held to what the nearly saturated upper zone takes: 244.7 mm
    /// of 2,269 mm; without the cap it seeps 1,376 mm).
    @Test("LID units over an aquifer match SWMM's LID Performance Summary", arguments: ["LID_TRENCH", "LID_GARDEN_BARREL"])
    func lidsOverAquifer(_ name: String) throws {
        let rows = try #require(Self.references[name]?.lid)
        let url = try #require(Bundle.module.url(forResource: name, withExtension: "inp", subdirectory: "Fixtures/swmm/groundwater"))
        let result = try DrainageRun.run(try SWMMModel(contentsOf: url))
        #expect(result.lidPerformance.count == rows.count)
        for row in rows {
            let p = try #require(result.lidPerformance.first { $0.subcatchment == row.subcatchment && $0.control == row.control })
            let pairs: [(String, Double, Double)] = [
                ("inflow", p.inflow, row.inflow_mm), ("evaporation", p.evaporation, row.evaporation_mm),
                ("infiltration", p.infiltration, row.infiltration_mm), ("surface outflow", p.surfaceOutflow, row.surface_outflow_mm),
                ("drain outflow", p.drainOutflow, row.drain_outflow_mm), ("final storage", p.finalStorage, row.final_storage_mm),
            ]
            for (what, metres, swmm) in pairs {
                let mm = metres * 1000
                #expect(abs(mm - swmm) <= max(0.02 * abs(swmm), 0.01), "\(name) \(row.control) \(what): \(mm) mm, SWMM \(swmm) mm")
            }
        }
    }

    @Test("the lateral flow reaches the network: the outfall receives runoff and groundwater")
    func lateralInflowIsRouted() throws {
        let url = try #require(Bundle.module.url(forResource: "BASE", withExtension: "inp", subdirectory: "Fixtures/swmm/groundwater"))
        var model = try SWMMModel(contentsOf: url)
        let with = try DrainageRun.run(model)
        model.options.append(SWMMOption(key: "IGNORE_GROUNDWATER", value: "YES"))
        let without = try DrainageRun.run(model)
        let gw = try #require(with.groundwater).continuity.lateralFlow
        #expect(without.groundwater == nil)
        #expect(gw > 100, "the aquifer drains \(gw) m³")
        #expect(abs(with.routing.externalOutflow - without.routing.externalOutflow - gw) <= 0.02 * gw,
                "outflow \(with.routing.externalOutflow) m³ with groundwater, \(without.routing.externalOutflow) m³ without, aquifer \(gw) m³")
    }
}
