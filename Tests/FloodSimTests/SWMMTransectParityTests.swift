@testable import FloodSim
import Foundation
import SWMMFormat
import Testing

/// Natural channels (IRREGULAR transects), a CUSTOM shape, STREETs and culverts under inlet control against
/// SWMM 5.2.4 (Fixtures/swmm/transects, by Scripts/reference/make_swmm_transect_fixtures.py).
/// Channels: a 500 m conduit at 0.2 % slope settles at the normal depth, which must match SWMM's
/// within 2 %, as must the flow. Culverts: the headwater node's depth at every reported step within
/// 5 % of SWMM's (where SWMM's is over 5 cm) and its peak within 2 %.
@Suite("Transects, custom shapes and culverts match SWMM 5.2.4")
struct SWMMTransectParityTests {
    struct Reference: Decodable { var depth_m: Double; var flow_m3s: Double; var max_depth_m: Double; var depths_m: [Double] }

    static let references: [String: Reference] = {
        guard let url = Bundle.module.url(forResource: "transects", withExtension: "json", subdirectory: "Fixtures/swmm/transects"),
              let data = try? Data(contentsOf: url), let table = try? JSONDecoder().decode([String: Reference].self, from: data)
        else { return [:] }
        return table
    }()

    /// Runs fixture `name` whole, checks J1's peak depth against SWMM's (within 2 %) and returns J1's
    /// index and SWMM's reference.
    static func runCheckingPeak(_ name: String) throws -> (node: Int, reference: Reference) {
        let reference = try #require(references[name], "\(name) has no SWMM reference")
        let url = try #require(Bundle.module.url(forResource: name, withExtension: "inp", subdirectory: "Fixtures/swmm/transects"))
        let result = try DrainageRun.run(try SWMMModel(contentsOf: url))
        let node = try #require(result.nodeNames.firstIndex(of: "J1"))
        let peak = result.nodes[node].maxDepth
        #expect(abs(peak - reference.max_depth_m) <= 0.02 * reference.max_depth_m, "\(name): peak depth \(peak) m, SWMM \(reference.max_depth_m) m")
        return (node, reference)
    }

    /// The routing engine of fixture `name`, to step to SWMM's reporting times.
    static func engine(_ name: String) throws -> DrainageRouting {
        let url = try #require(Bundle.module.url(forResource: name, withExtension: "inp", subdirectory: "Fixtures/swmm/transects"))
        return try DrainageRouting(network: try SWMMModel(contentsOf: url).hydraulicNetwork())
    }

    @Test("the fixtures cover channels in and over their banks, a custom shape, streets and five culvert codes")
    func listed() {
        for name in ["SINGLE-30", "SINGLE-80", "OVERBANK-05", "OVERBANK-50", "MODIFIED-05", "MODIFIED-50", "CUSTOM-50", "CUSTOM-90",
                     "STREET-20", "STREET-60", "BACKED-20", "BACKED-60",
                     "CULVERT-01", "CULVERT-05", "CULVERT-48", "CULVERT-09", "CULVERT-14"] {
            #expect(Self.references[name] != nil, "\(name) has no SWMM reference")
        }
    }

    @Test("normal depth and flow within 2 % of SWMM",
          arguments: ["SINGLE-30", "SINGLE-80", "OVERBANK-05", "OVERBANK-50", "MODIFIED-05", "MODIFIED-50", "CUSTOM-50", "CUSTOM-90",
                      "STREET-20", "STREET-60", "BACKED-20", "BACKED-60"])
    func normalFlow(_ name: String) throws {
        let (node, reference) = try Self.runCheckingPeak(name)
        // The steady state at the end of the run (SWMM's last reported step).
        let engine = try Self.engine(name)
        engine.advance(to: 3 * 3600)
        let depth = engine.depth(atNode: node), flow = abs(engine.flow(inLink: 0))
        #expect(abs(depth - reference.depth_m) <= 0.02 * reference.depth_m, "\(name): depth \(depth) m, SWMM \(reference.depth_m) m")
        #expect(abs(flow - reference.flow_m3s) <= 0.02 * reference.flow_m3s, "\(name): flow \(flow) m³/s, SWMM \(reference.flow_m3s) m³/s")
    }

    @Test("a culvert's headwater follows SWMM's under inlet control",
          arguments: ["CULVERT-01", "CULVERT-05", "CULVERT-48", "CULVERT-09", "CULVERT-14"])
    func culvert(_ name: String) throws {
        let (node, reference) = try Self.runCheckingPeak(name)
        // The headwater at SWMM's reporting times (every 5 minutes from the first).
        let engine = try Self.engine(name)
        for (k, swmm) in reference.depths_m.enumerated() {
            engine.advance(to: Double(k + 1) * 300)
            let depth = engine.depth(atNode: node)
            guard swmm > 0.05 else { continue }
            let check = { #expect(abs(depth - swmm) <= 0.05 * swmm, "\(name): at \((k + 1) * 5) min depth \(depth) m, SWMM \(swmm) m") }
            if let gap = Self.knownGaps["\(name)@\((k + 1) * 5)"] { withKnownIssue(Comment(rawValue: gap)) { check() } } else { check() }
        }
    }

    /// Steps still off SWMM's (open work), by case and minute.
    /// (CULVERT-05's mitered inlet at 10 minutes was 0.534 m against SWMM's 0.444 m until the circle
    /// read SWMM's own tables: inlet control then took over one report step early.)
    static let knownGaps: [String: String] = [:]

    @Test("the same culvert without its code runs under outlet control and holds less water upstream")
    func withoutCode() throws {
        let url = try #require(Bundle.module.url(forResource: "CULVERT-01", withExtension: "inp", subdirectory: "Fixtures/swmm/transects"))
        var model = try SWMMModel(contentsOf: url)
        let inlet = try DrainageRun.run(model)
        model.crossSections[0].culvertCode = nil
        let barrel = try DrainageRun.run(model)
        let node = try #require(inlet.nodeNames.firstIndex(of: "J1"))
        #expect(barrel.nodes[node].maxDepth < inlet.nodes[node].maxDepth - 0.5,
                "inlet control raises the headwater: \(inlet.nodes[node].maxDepth) m with it, \(barrel.nodes[node].maxDepth) m without")
    }

    /// EPA's Example6: a two-barrel culvert (code 4) from a storage unit, a roadway weir over it,
    /// a trapezoidal channel to a fixed tailwater. Flooding within 2 % (both flood nothing: within
    /// 1 m³) and every node's maximum depth within 5 % of SWMM's.
    @Test("EPA's Example6 (culvert with roadway overtopping) matches SWMM")
    func example6() throws {
        let url = try SWMMFixtures.url("Example6")
        let reference = try JSONDecoder().decode(DrainageParityTests.Reference.self,
                                                 from: Data(contentsOf: SWMMFixtures.url("Example6.reference", "json")))
        let result = try DrainageRun.run(try SWMMModel(contentsOf: url), baseDirectory: url.deletingLastPathComponent())
        let expected = reference.routing_continuity.flooding_m3
        #expect(abs(result.routing.flooding - expected) <= max(1, 0.02 * expected), "flooding \(result.routing.flooding) m³, SWMM \(expected) m³")
        var compared = 0
        for (k, id) in result.nodeNames.enumerated() {
            guard let ref = reference.nodes[id], ref.max_depth_m > 0.01 else { continue }
            compared += 1
            let depth = result.nodes[k].maxDepth
            #expect(abs(depth - ref.max_depth_m) <= 0.05 * ref.max_depth_m, "node \(id): max depth \(depth) m, SWMM \(ref.max_depth_m) m")
        }
        #expect(compared == 3)
    }
}
