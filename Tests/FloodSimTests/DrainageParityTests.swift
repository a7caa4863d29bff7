@testable import FloodSim
import Foundation
import SWMMFormat
import Testing

/// End-to-end runs against EPA SWMM 5.2.4 (fixtures by Scripts/reference/make_swmm_fixtures.py):
/// total flooding and every node's maximum depth within 2 %, continuity errors below 0.5 %.
@Suite("Drainage parity with SWMM 5.2.4")
struct DrainageParityTests {
    struct Reference: Decodable {
        struct Continuity: Decodable { var flooding_m3: Double; var error_pct: Double }
        struct Node: Decodable { var max_depth_m: Double; var flood_volume_m3: Double? }
        var routing_continuity: Continuity
        var nodes: [String: Node]
    }

    @Test("flooding, node depths and continuity match SWMM", arguments: ["Example1", "Example1-dynwave", "Example2", "extran1"])
    func parity(name: String) throws {
        let url = try SWMMFixtures.url(name)
        let reference = try JSONDecoder().decode(Reference.self, from: Data(contentsOf: SWMMFixtures.url(name + ".reference", "json")))
        let result = try DrainageRun.run(try SWMMModel(contentsOf: url), baseDirectory: url.deletingLastPathComponent())
        let flooding = result.routing.flooding
        let expected = reference.routing_continuity.flooding_m3
        #expect(abs(flooding - expected) <= 0.02 * expected, "\(name): flooding \(flooding) m³, SWMM \(expected) m³")
        #expect(abs(result.routing.errorPercent) < 0.5, "\(name): routing continuity error \(result.routing.errorPercent) %")
        #expect(abs(result.runoff.errorPercent) < 0.5, "\(name): runoff continuity error \(result.runoff.errorPercent) %")
        for (k, id) in result.nodeNames.enumerated() {
            guard let ref = reference.nodes[id], ref.max_depth_m > 0 else { continue }
            let depth = result.nodes[k].maxDepth
            #expect(abs(depth - ref.max_depth_m) <= 0.02 * ref.max_depth_m, "\(name) node \(id): max depth \(depth) m, SWMM \(ref.max_depth_m) m")
        }
    }
}
