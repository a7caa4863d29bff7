@testable import FloodSim
import Foundation
import SWMMFormat
import Testing

/// Partly open V-notch and trapezoidal weirs against SWMM 5.2.4 (Fixtures/swmm/weirs, by
/// Scripts/reference/make_swmm_weir_fixtures.py): a wet well spilling over weir W1 that a control
/// rule sets to 0.6 for two hours or moves with a control curve (down to 0.3, surcharging the
/// weir), free or drowned downstream. A V-notch weir below a setting of 1 flows as a trapezoidal
/// one (SWMM's weir_getFlow), so its flow and the well's depth at every reported minute, the
/// well's maximum depth and the flooding must match SWMM's.
@Suite("Partly open V-notch and trapezoidal weirs match SWMM 5.2.4")
struct SWMMWeirParityTests {
    struct Reference: Decodable {
        var flow_m3s: [Double]
        var depth_m: [Double]
        var settings: [Double]
        var report_step_s: Double
        var max_depth_m: Double
        var flooding_m3: Double
        var actions: Int
    }

    static let references: [String: Reference] = {
        guard let url = Bundle.module.url(forResource: "weirs", withExtension: "json", subdirectory: "Fixtures/swmm/weirs"),
              let data = try? Data(contentsOf: url), let table = try? JSONDecoder().decode([String: Reference].self, from: data)
        else { return [:] }
        return table
    }()

    @Test("every weir case has a SWMM reference")
    func listed() {
        for kind in ["VNOTCH_TIMED", "VNOTCH_ENDS", "VNOTCH_CURVE", "VNOTCH_SUBMERGED", "TRAPEZOIDAL_TIMED", "TRAPEZOIDAL_CURVE",
                     "TRAPEZOIDAL_SUBMERGED"] {
            #expect(Self.references[kind] != nil, "\(kind) has no SWMM reference")
        }
    }

    /// At every reported minute: W1's setting within 0.01 of SWMM's, its flow within 2 % of
    /// SWMM's peak flow and the well's depth within 2 % of SWMM's maximum depth; the maximum depth
    /// within 2 % and the flooding within 1 m³.
    @Test("weir flow, setting and wet-well depth over time match SWMM", arguments: references.keys.sorted())
    func series(_ kind: String) throws {
        let reference = try #require(Self.references[kind])
        let url = try #require(Bundle.module.url(forResource: kind, withExtension: "inp", subdirectory: "Fixtures/swmm/weirs"))
        let model = try SWMMModel(contentsOf: url)
        try model.checkSimulated()
        let network = try model.hydraulicNetwork()
        let engine = try DrainageRouting(network: network)
        engine.controls = try model.controlRules(network: network)
        let w1 = try #require(network.linkIndex("W1")), ww = try #require(network.nodeIndex("WW"))
        let peak = try #require(reference.flow_m3s.max()), deepest = reference.max_depth_m
        var worstFlow = 0.0, worstDepth = 0.0, worstSetting = 0.0, maxDepth = 0.0
        for k in reference.flow_m3s.indices {
            engine.advance(to: Double(k + 1) * reference.report_step_s)
            worstFlow = max(worstFlow, abs(engine.flow(inLink: w1) - reference.flow_m3s[k]))
            worstDepth = max(worstDepth, abs(engine.depth(atNode: ww) - reference.depth_m[k]))
            worstSetting = max(worstSetting, abs(engine.linkSettings[w1] - reference.settings[k]))
            maxDepth = max(maxDepth, engine.depth(atNode: ww))
        }
        #expect(worstSetting <= 0.01, "\(kind): setting off SWMM's by \(worstSetting)")
        #expect(worstFlow <= 0.02 * peak, "\(kind): flow off SWMM's by \(worstFlow) m³/s (peak \(peak) m³/s)")
        #expect(worstDepth <= 0.02 * deepest, "\(kind): depth off SWMM's by \(worstDepth) m (max \(deepest) m)")
        let result = try DrainageRun.run(model, baseDirectory: url.deletingLastPathComponent())
        let index = try #require(result.nodeNames.firstIndex(of: "WW"))
        #expect(abs(result.nodes[index].maxDepth - deepest) <= 0.02 * deepest, "\(kind): WW max depth \(result.nodes[index].maxDepth) m, SWMM \(deepest) m")
        #expect(abs(result.routing.flooding - reference.flooding_m3) <= max(1, 0.02 * reference.flooding_m3))
        #expect(result.controlActions.count >= reference.actions, "\(kind): \(result.controlActions.count) control actions, SWMM \(reference.actions)")
    }
}
