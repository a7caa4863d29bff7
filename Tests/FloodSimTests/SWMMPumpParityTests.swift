@testable import FloodSim
import Foundation
import SWMMFormat
import Testing

/// Every pump type against SWMM 5.2.4 on a one-pump model (Fixtures/swmm/pumps, by
/// Scripts/reference/make_swmm_pump_fixtures.py): a wet well filled by a triangular inflow and
/// pumped to an outfall. The wet well's largest depth, the pump's largest flow and the volume the
/// outfall receives must match SWMM's within 2 % (depths within 1 cm when shallower than 0.5 m).
@Suite("Pump curves: wet-well depth, pump flow and pumped volume match SWMM 5.2.4")
struct SWMMPumpParityTests {
    struct Reference: Decodable { var max_depth_m: Double; var max_flow_m3s: Double; var pumped_m3: Double; var flooding_m3: Double }

    static let references: [String: Reference] = {
        guard let url = Bundle.module.url(forResource: "pumps", withExtension: "json", subdirectory: "Fixtures/swmm/pumps"),
              let data = try? Data(contentsOf: url), let table = try? JSONDecoder().decode([String: Reference].self, from: data)
        else { return [:] }
        return table
    }()

    @Test("every pump type has a SWMM reference")
    func listed() {
        for kind in ["TYPE1", "TYPE2", "TYPE2_ONOFF", "TYPE3", "TYPE4", "IDEAL"] {
            #expect(Self.references[kind] != nil, "\(kind) has no SWMM reference")
        }
    }

    @Test("wet-well depth, pump flow and pumped volume within 2 % of SWMM", arguments: references.keys.sorted())
    func pump(_ kind: String) throws {
        let reference = try #require(Self.references[kind])
        let url = try #require(Bundle.module.url(forResource: kind, withExtension: "inp", subdirectory: "Fixtures/swmm/pumps"))
        let result = try DrainageRun.run(try SWMMModel(contentsOf: url))
        let well = try #require(result.nodeNames.firstIndex(of: "WW"))
        let outfall = try #require(result.nodeNames.firstIndex(of: "O1"))
        let pump = try #require(result.linkNames.firstIndex(of: "P1"))
        let depth = result.nodes[well].maxDepth, flow = abs(result.links[pump].maxFlow)
        let pumped = result.nodes[outfall].outfallVolume
        let depthTolerance = max(0.02 * reference.max_depth_m, reference.max_depth_m < 0.5 ? 0.01 : 0)
        #expect(abs(depth - reference.max_depth_m) <= depthTolerance, "\(kind): wet well \(depth) m deep, SWMM \(reference.max_depth_m) m")
        #expect(abs(flow - reference.max_flow_m3s) <= 0.02 * reference.max_flow_m3s, "\(kind): pump flow \(flow) m³/s, SWMM \(reference.max_flow_m3s) m³/s")
        #expect(abs(pumped - reference.pumped_m3) <= 0.02 * reference.pumped_m3, "\(kind): pumped \(pumped) m³, SWMM \(reference.pumped_m3) m³")
        #expect(abs(result.routing.flooding - reference.flooding_m3) <= 1, "\(kind): flooding \(result.routing.flooding) m³, SWMM \(reference.flooding_m3) m³")
    }
}
