@testable import FloodSim
import Foundation
import SWMMFormat
import Testing

/// Storage units and weir coefficient curves against SWMM 5.2.4 (issue 53 §1; Fixtures/swmm/storage,
/// by Scripts/reference/make_swmm_storage_fixtures.py): a unit ST taking a hydrograph and
/// draining through two conduits to an outfall, shaped CONICAL, PARABOLIC or PYRAMIDAL, losing
/// water to evaporation (constant or monthly, × Fevap) and to seepage (a constant Ksat, or
/// modified Green–Ampt through the bottom and banks of functional, tabular and pyramidal units),
/// surcharging above its full depth, or spilling over a weir whose coefficient is a curve of
/// head; one case in US units. SWMM's flooding within 2 %, every node's maximum depth within
/// 5 %, the evaporation and exfiltration losses, outflow and final storage within 2 %, the
/// storage summary's volumes, and ST's depth (and W1's flow) at every reported 5 minutes.
@Suite("Storage units and weir coefficient curves match SWMM 5.2.4")
struct SWMMStorageParityTests {
    struct StorageStats: Decodable {
        var max_volume_m3: Double, avg_volume_m3: Double, evap_loss_m3: Double, exfil_loss_m3: Double
    }

    struct Reference: Decodable {
        var report_step_s: Double
        var depth_m: [Double]
        var max_depth_m: [String: Double]
        var flooding_m3: Double, evaporation_m3: Double, exfiltration_m3: Double, outflow_m3: Double
        var inflow_m3: Double
        var continuity_error_pct: Double
        var report_rows: [String: Double]
        var storage: StorageStats
        var weir_flow_m3s: [Double]?
    }

    static let references: [String: Reference] = {
        guard let url = Bundle.module.url(forResource: "storage", withExtension: "json", subdirectory: "Fixtures/swmm/storage"),
              let data = try? Data(contentsOf: url), let table = try? JSONDecoder().decode([String: Reference].self, from: data)
        else { return [:] }
        return table
    }()

    static func model(_ name: String) throws -> (SWMMModel, URL) {
        let url = try #require(Bundle.module.url(forResource: name, withExtension: "inp", subdirectory: "Fixtures/swmm/storage"))
        return (try SWMMModel(contentsOf: url), url)
    }

    /// `mine` within `fraction` of `swmm`, or within `floor` (the same unit) for small values.
    static func close(_ mine: Double, _ swmm: Double, _ fraction: Double, floor: Double) -> Bool {
        abs(mine - swmm) <= max(fraction * abs(swmm), floor)
    }

    @Test("every storage and weir-curve case has a SWMM reference")
    func listed() {
        for name in ["CONICAL", "PARABOLIC", "PYRAMIDAL", "EVAP_CONSTANT", "EVAP_MONTHLY", "SEEP_KSAT", "SEEP_GREENAMPT_FUNCTIONAL",
                     "SEEP_GREENAMPT_TABULAR", "SEEP_GREENAMPT_PYRAMIDAL", "EVAP_SEEP_TABULAR", "SURCHARGE", "SURCHARGE_HOLDS",
                     "SURCHARGE_FLOODS", "US_CONICAL_SEEP_EVAP", "WEIR_CURVE_TRANSVERSE", "WEIR_CURVE_VNOTCH"] {
            #expect(Self.references[name] != nil, "\(name) has no SWMM reference")
        }
    }

    /// The whole run (`DrainageRun`): flooding within 2 % (or 1 m³), every node's maximum depth
    /// within 5 %, evaporation and exfiltration within 2 % (or 0.05 m³), outflow within 2 % (or
    /// 1 m³), the continuity error within 0.2 points of SWMM's, and ST's
    /// storage summary (largest volume and losses within 2 %, mean volume within 5 %).
    @Test("flooding, node depths, losses and continuity match SWMM", arguments: references.keys.sorted())
    func run(_ name: String) throws {
        let reference = try #require(Self.references[name])
        let (model, url) = try Self.model(name)
        let result = try DrainageRun.run(model, baseDirectory: url.deletingLastPathComponent())
        let c = result.routing
        #expect(Self.close(c.flooding, reference.flooding_m3, 0.02, floor: 1), "\(name): flooding \(c.flooding) m³, SWMM \(reference.flooding_m3) m³")
        for (node, depth) in reference.max_depth_m {
            let k = try #require(result.nodeNames.firstIndex(of: node))
            #expect(Self.close(result.nodes[k].maxDepth, depth, 0.05, floor: 0.005),
                    "\(name): \(node) max depth \(result.nodes[k].maxDepth) m, SWMM \(depth) m")
        }
        #expect(Self.close(c.evaporationLoss, reference.evaporation_m3, 0.02, floor: 0.05),
                "\(name): evaporation \(c.evaporationLoss) m³, SWMM \(reference.evaporation_m3) m³")
        #expect(Self.close(c.seepageLoss, reference.exfiltration_m3, 0.02, floor: 0.05),
                "\(name): exfiltration \(c.seepageLoss) m³, SWMM \(reference.exfiltration_m3) m³")
        #expect(Self.close(c.externalOutflow, reference.outflow_m3, 0.02, floor: 1), "\(name): outflow \(c.externalOutflow) m³, SWMM \(reference.outflow_m3) m³")
        #expect(Self.close(c.totalInflow, reference.inflow_m3, 0.005, floor: 0.1), "\(name): inflow \(c.totalInflow) m³, SWMM \(reference.inflow_m3) m³")
        // Initial and final stored volume: SWMM's report rows (`reportRows`); the toolkit's totals
        // hold other values for them.
        #expect(abs(c.errorPercent - reference.continuity_error_pct) <= 0.2, "\(name): continuity error \(c.errorPercent) %, SWMM \(reference.continuity_error_pct) %")
        let st = try #require(result.nodeNames.firstIndex(of: "ST"))
        let s = result.nodes[st]
        #expect(Self.close(s.maxVolume, reference.storage.max_volume_m3, 0.02, floor: 0.5), "\(name): ST max volume \(s.maxVolume) m³, SWMM \(reference.storage.max_volume_m3) m³")
        #expect(Self.close(s.averageVolume, reference.storage.avg_volume_m3, 0.05, floor: 0.5),
                "\(name): ST mean volume \(s.averageVolume) m³, SWMM \(reference.storage.avg_volume_m3) m³")
        #expect(Self.close(s.evaporationLoss, reference.storage.evap_loss_m3, 0.02, floor: 0.05),
                "\(name): ST evaporation \(s.evaporationLoss) m³, SWMM \(reference.storage.evap_loss_m3) m³")
        #expect(Self.close(s.exfiltrationLoss, reference.storage.exfil_loss_m3, 0.02, floor: 0.05),
                "\(name): ST exfiltration \(s.exfiltrationLoss) m³, SWMM \(reference.storage.exfil_loss_m3) m³")
    }

    /// SWMM's Flow Routing Continuity rows as the report prints them (hectare-metres, or
    /// acre-feet for US units, three decimals): ours rounded the same way within one unit of the
    /// last decimal, or 2 %.
    @Test("the routing continuity rows match SWMM's report", arguments: references.keys.sorted())
    func reportRows(_ name: String) throws {
        let reference = try #require(Self.references[name])
        let (model, url) = try Self.model(name)
        let result = try DrainageRun.run(model, baseDirectory: url.deletingLastPathComponent())
        let c = result.routing
        let unit = model.units.flow.isUS ? 1233.48183754752 : 10_000.0
        let mine: [String: Double] = ["External Inflow": c.externalInflow, "External Outflow": c.externalOutflow, "Flooding Loss": c.flooding,
                                      "Evaporation Loss": c.evaporationLoss, "Exfiltration Loss": c.seepageLoss,
                                      "Initial Stored Volume": c.initialStorage, "Final Stored Volume": c.finalStorage]
        for (row, value) in mine {
            let printed = try #require(reference.report_rows[row], "\(name): SWMM's report has no row \(row)")
            let ours = (value / unit * 1000).rounded() / 1000
            #expect(abs(ours - printed) <= max(0.0011, 0.02 * abs(printed)), "\(name): \(row) \(ours), SWMM prints \(printed)")
        }
    }

    /// Stepping the engine to each reported time: ST's depth within 2 % of SWMM's maximum depth
    /// at every report step, W1's flow within 2 % of SWMM's peak weir flow.
    @Test("the storage depth and weir flow over time match SWMM", arguments: references.keys.sorted())
    func series(_ name: String) throws {
        let reference = try #require(Self.references[name])
        let (model, _) = try Self.model(name)
        try model.checkSimulated()
        let network = try model.hydraulicNetwork()
        let engine = try DrainageRouting(network: network)
        let st = try #require(network.nodeIndex("ST"))
        let w1 = network.linkIndex("W1")
        let deepest = try #require(reference.max_depth_m["ST"])
        let peak = reference.weir_flow_m3s?.map(abs).max() ?? 0
        var worstDepth = 0.0, worstFlow = 0.0, at = 0, flowAt = 0
        for k in reference.depth_m.indices {
            engine.advance(to: Double(k + 1) * reference.report_step_s)
            let dd = abs(engine.depth(atNode: st) - reference.depth_m[k])
            if dd > worstDepth { worstDepth = dd; at = k }
            if let w1, let flows = reference.weir_flow_m3s, k < flows.count {
                let df = abs(engine.flow(inLink: w1) - flows[k])
                if df > worstFlow { worstFlow = df; flowAt = k }
            }
        }
        #expect(worstDepth <= 0.02 * deepest, "\(name): ST depth off SWMM's by \(worstDepth) m at report \(at + 1) (max \(deepest) m)")
        #expect(worstFlow <= 0.02 * max(peak, 1e-9), "\(name): W1 flow off SWMM's by \(worstFlow) m³/s at report \(flowAt + 1) (peak \(peak) m³/s)")
    }

    /// The analytical shapes' areas and volumes are SWMM's polynomials, checked against the
    /// solids' own formulas: a cylinder's πab·d, a pyramidal frustum's d/3·(A₁ + A₂ + √(A₁A₂))
    /// for a square base, a paraboloid's half of its circumscribing cylinder.
    @Test("analytical storage shapes hold the solids' volumes")
    func solids() throws {
        let model = try SWMMModel(parsing: """
            [OPTIONS]
            FLOW_UNITS CMS
            [JUNCTIONS]
            J1 0 3
            [STORAGE]
            CY 0 4 0 CYLINDRICAL 6 4 0
            PY 0 4 0 PYRAMIDAL 10 10 2
            PA 0 4 0 PARABOLIC 8 8 4
            [OUTFALLS]
            O1 0 FREE
            [CONDUITS]
            C1 J1 O1 10 0.013
            C2 CY O1 10 0.013
            C3 PY O1 10 0.013
            C4 PA O1 10 0.013
            [XSECTIONS]
            C1 CIRCULAR 0.5
            C2 CIRCULAR 0.5
            C3 CIRCULAR 0.5
            C4 CIRCULAR 0.5
            """)
        let network = try model.hydraulicNetwork()
        let state = try HydraulicState(network: network)
        let cy = try #require(network.nodeIndex("CY")), py = try #require(network.nodeIndex("PY")), pa = try #require(network.nodeIndex("PA"))
        #expect(abs(state.storageVolume(cy, 2) - Double.pi * 3 * 2 * 2) < 1e-9)
        // A square frustum 2 m high on a 10 m base, sides 2 run per rise: top 18 m.
        let a1 = 100.0, a2 = 18.0 * 18.0
        #expect(abs(state.storageVolume(py, 2) - 2.0 / 3 * (a1 + a2 + (a1 * a2).squareRoot())) < 1e-9)
        #expect(abs(state.storageArea(py, 2) - a2) < 1e-9)
        // A paraboloid 8 m across at 4 m high: at 4 m it holds half the cylinder π·4²·4.
        #expect(abs(state.storageVolume(pa, 4 - 1e-12) - Double.pi * 16 * 4 / 2) < 1e-6)
        #expect(abs(state.storageArea(pa, 4) - Double.pi * 16) < 1e-9)
    }
}
