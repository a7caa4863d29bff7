@testable import FloodSim
import Foundation
import SWMMFormat
import Testing

/// Conduit evaporation and seepage, and steady-flow routing, against SWMM 5.2.4 (issue 53 §1;
/// Fixtures/swmm/conduit_losses, by Scripts/reference/make_swmm_conduit_loss_fixtures.py): a
/// hydrograph through two channels (trapezoidal, open rectangular or circular) under kinematic wave,
/// dynamic wave or steady flow, losing water to evaporation from open sections (constant with monthly
/// adjustments, monthly, or a time series) and to `[LOSSES]` seepage; three cases with a decaying
/// pollutant (one per method), one in US units. SWMM's flooding, evaporation, seepage and outflow within 2 %, each
/// node's maximum depth within 5 %, each link's largest flow within 2 %, the continuity error within
/// 0.2 points, and the pollutant's seepage loss and outflow within 2 %.
@Suite("Conduit evaporation, seepage and steady flow match SWMM 5.2.4")
struct SWMMConduitLossParityTests {
    struct Quality: Decodable { var seepage_loss: Double; var outflow: Double; var reacted: Double }

    struct Reference: Decodable {
        var max_depth_m: [String: Double]
        var max_flow_m3s: [String: Double]
        var flooding_m3: Double, evaporation_m3: Double, seepage_m3: Double, outflow_m3: Double, inflow_m3: Double
        var continuity_error_pct: Double
        var quality: Quality?
    }

    static let references: [String: Reference] = {
        guard let url = Bundle.module.url(forResource: "conduit_losses", withExtension: "json", subdirectory: "Fixtures/swmm/conduit_losses"),
              let data = try? Data(contentsOf: url), let table = try? JSONDecoder().decode([String: Reference].self, from: data)
        else { return [:] }
        return table
    }()

    static func run(_ name: String) throws -> (SWMMModel, DrainageRun.Result) {
        let url = try #require(Bundle.module.url(forResource: name, withExtension: "inp", subdirectory: "Fixtures/swmm/conduit_losses"))
        let model = try SWMMModel(contentsOf: url)
        return (model, try DrainageRun.run(model, baseDirectory: url.deletingLastPathComponent()))
    }

    static func close(_ mine: Double, _ swmm: Double, _ fraction: Double, floor: Double) -> Bool {
        abs(mine - swmm) <= max(fraction * abs(swmm), floor)
    }

    @Test("every case has a SWMM reference")
    func listed() {
        for name in ["KW_TRAPEZOID_EVAP_SEEP", "KW_TRAPEZOID_SEEP_HIGH", "DW_RECT_OPEN_EVAP_MONTHLY_SEEP", "DW_TRAPEZOID_EVAP_SEEP",
                     "DW_CIRCULAR_SEEP", "DW_TIMESERIES_EVAP", "DW_CONSTANT_EVAP_ADJUSTED", "SF_TRAPEZOID_EVAP_SEEP", "SF_OVER_CAPACITY",
                     "KW_QUALITY_EVAP_SEEP", "DW_QUALITY_EVAP_SEEP", "SF_QUALITY_EVAP_SEEP", "US_DW_TRAPEZOID_EVAP_SEEP"] {
            #expect(Self.references[name] != nil, "\(name) has no SWMM reference")
        }
    }

    @Test("flooding, losses, outflow, depths, flows and continuity match SWMM", arguments: references.keys.sorted())
    func parity(_ name: String) throws {
        let reference = try #require(Self.references[name])
        let (_, result) = try Self.run(name)
        let c = result.routing
        #expect(Self.close(c.flooding, reference.flooding_m3, 0.02, floor: 1), "\(name): flooding \(c.flooding) m³, SWMM \(reference.flooding_m3) m³")
        #expect(Self.close(c.evaporationLoss, reference.evaporation_m3, 0.02, floor: 0.5),
                "\(name): evaporation \(c.evaporationLoss) m³, SWMM \(reference.evaporation_m3) m³")
        #expect(Self.close(c.seepageLoss, reference.seepage_m3, 0.02, floor: 0.5), "\(name): seepage \(c.seepageLoss) m³, SWMM \(reference.seepage_m3) m³")
        #expect(Self.close(c.externalOutflow, reference.outflow_m3, 0.02, floor: 1), "\(name): outflow \(c.externalOutflow) m³, SWMM \(reference.outflow_m3) m³")
        #expect(Self.close(c.totalInflow, reference.inflow_m3, 0.005, floor: 0.1), "\(name): inflow \(c.totalInflow) m³, SWMM \(reference.inflow_m3) m³")
        #expect(abs(c.errorPercent - reference.continuity_error_pct) <= 0.2,
                "\(name): continuity error \(c.errorPercent) %, SWMM \(reference.continuity_error_pct) %")
        for (node, depth) in reference.max_depth_m where depth >= 0.01 {
            let k = try #require(result.nodeNames.firstIndex(of: node))
            #expect(Self.close(result.nodes[k].maxDepth, depth, 0.05, floor: 0.005), "\(name): \(node) max depth \(result.nodes[k].maxDepth) m, SWMM \(depth) m")
        }
        for (link, flow) in reference.max_flow_m3s {
            let k = try #require(result.linkNames.firstIndex(of: link))
            #expect(Self.close(abs(result.links[k].maxFlow), flow, 0.02, floor: 0.001), "\(name): \(link) max flow \(result.links[k].maxFlow) m³/s, SWMM \(flow) m³/s")
        }
        if let q = reference.quality {
            let mine = try #require(result.routingQuality?.continuity.first, "\(name): no quality results")
            #expect(Self.close(mine.seepageLoss, q.seepage_loss, 0.02, floor: 0.01), "\(name): TSS seepage loss \(mine.seepageLoss) kg, SWMM \(q.seepage_loss) kg")
            #expect(Self.close(mine.externalOutflow, q.outflow, 0.02, floor: 0.01), "\(name): TSS outflow \(mine.externalOutflow) kg, SWMM \(q.outflow) kg")
            #expect(Self.close(mine.reacted, q.reacted, 0.05, floor: 0.05), "\(name): TSS reacted \(mine.reacted) kg, SWMM \(q.reacted) kg")
        }
    }

    @Test("without the losses the same channels keep the water: evaporation and seepage are what the run takes")
    func lossesMatter() throws {
        let url = try #require(Bundle.module.url(forResource: "DW_TRAPEZOID_EVAP_SEEP", withExtension: "inp", subdirectory: "Fixtures/swmm/conduit_losses"))
        var model = try SWMMModel(contentsOf: url)
        let with = try DrainageRun.run(model).routing
        model.losses = []
        model.evaporation = nil
        let without = try DrainageRun.run(model).routing
        #expect(without.evaporationLoss == 0 && without.seepageLoss == 0)
        #expect(with.evaporationLoss > 100 && with.seepageLoss > 1000)
        // The water lost is missing from the outfall (to the continuity error's share).
        let lost = with.evaporationLoss + with.seepageLoss
        #expect(abs((without.externalOutflow - with.externalOutflow) - lost) <= 0.01 * without.externalOutflow)
    }

    @Test("evaporation adjustments over a TIMESERIES rate are refused (SWMM 5.2.4 piles them up at each climate update)")
    func timeseriesAdjustmentsRefused() throws {
        let url = try #require(Bundle.module.url(forResource: "DW_TIMESERIES_EVAP", withExtension: "inp", subdirectory: "Fixtures/swmm/conduit_losses"))
        let text = try String(contentsOf: url, encoding: .utf8) + "\n[ADJUSTMENTS]\nEVAPORATION 0 0 0.001 0 0 0 0 0 0 0 0 0\n"
        #expect { try DrainageRun.run(try SWMMModel(parsing: text)) } throws: { e in
            guard let e = e as? SWMMInputError else { return false }
            return e.section == "ADJUSTMENTS" && e.field == "EVAPORATION" && e.reason.contains("TIMESERIES")
        }
    }

    @Test("a negative seepage rate and seepage under [ADJUSTMENTS] CONDUCTIVITY are refused naming the conduit")
    func refusals() throws {
        let url = try #require(Bundle.module.url(forResource: "DW_TRAPEZOID_EVAP_SEEP", withExtension: "inp", subdirectory: "Fixtures/swmm/conduit_losses"))
        var model = try SWMMModel(contentsOf: url)
        model.losses[0].seepage = -3
        #expect { try DrainageRun.run(model) } throws: { e in
            guard let e = e as? SWMMInputError else { return false }
            return e.section == "LOSSES" && e.field == "Seepage" && e.reason.contains("C1")
        }
        let text = try String(contentsOf: url, encoding: .utf8) + "\n[ADJUSTMENTS]\nCONDUCTIVITY 1 1 1 0.5 1 1 1 1 1 1 1 1\n"
        let adjusted = try SWMMModel(parsing: text)
        #expect { try DrainageRun.run(adjusted) } throws: { e in
            guard let e = e as? SWMMInputError else { return false }
            return e.section == "LOSSES" && e.reason.contains("CONDUCTIVITY") && e.reason.contains("C1")
        }
    }
}
