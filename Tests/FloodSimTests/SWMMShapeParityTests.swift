@testable import FloodSim
import Foundation
import SWMMFormat
import Testing

/// Every cross-section shape the engine routes against SWMM 5.2.4 on a one-conduit model
/// (Fixtures/swmm/shapes, by Scripts/reference/make_swmm_shape_fixtures.py): a 500 m conduit at
/// 0.2 % slope carrying half its full-flow capacity settles at the normal depth, which must match
/// SWMM's within 2 %, as must the flow.
@Suite("Cross-section shapes: normal depth and flow match SWMM 5.2.4")
struct SWMMShapeParityTests {
    struct Reference: Decodable { var depth_m: Double; var flow_m3s: Double }

    static let references: [String: Reference] = {
        guard let url = Bundle.module.url(forResource: "shapes", withExtension: "json", subdirectory: "Fixtures/swmm/shapes"),
              let data = try? Data(contentsOf: url), let table = try? JSONDecoder().decode([String: Reference].self, from: data)
        else { return [:] }
        return table
    }()

    @Test("every shape SWMM tabulates or gives in closed form is listed")
    func listed() {
        for shape in ["CIRCULAR", "EGG", "HORSESHOE", "GOTHIC", "CATENARY", "SEMIELLIPTICAL", "BASKETHANDLE", "SEMICIRCULAR",
                      "HORIZ_ELLIPSE", "VERT_ELLIPSE", "ARCH", "RECT_OPEN", "TRAPEZOIDAL", "RECT_TRIANGULAR", "RECT_ROUND",
                      "MODBASKETHANDLE", "POWER"] {
            #expect(Self.references[shape] != nil, "\(shape) has no SWMM reference")
        }
    }

    @Test("normal depth and flow within 2 % of SWMM", arguments: references.keys.sorted())
    func normalFlow(_ shape: String) throws {
        let reference = try #require(Self.references[shape])
        let url = try #require(Bundle.module.url(forResource: shape, withExtension: "inp", subdirectory: "Fixtures/swmm/shapes"))
        let result = try DrainageRun.run(try SWMMModel(contentsOf: url))
        let node = try #require(result.nodeNames.firstIndex(of: "J1"))
        let link = try #require(result.linkNames.firstIndex(of: "C1"))
        let depth = result.nodes[node].maxDepth, flow = abs(result.links[link].maxFlow)
        let check = {
            #expect(abs(depth - reference.depth_m) <= 0.02 * reference.depth_m, "\(shape): depth \(depth) m, SWMM \(reference.depth_m) m")
            #expect(abs(flow - reference.flow_m3s) <= 0.02 * reference.flow_m3s, "\(shape): flow \(flow) m³/s, SWMM \(reference.flow_m3s) m³/s")
        }
        if let gap = Self.knownGaps[shape] { withKnownIssue(Comment(rawValue: gap)) { check() } } else { check() }
    }

    /// Shapes routed before this suite whose normal depth still differs from SWMM's (open work).
    static let knownGaps = [
        // SWMM's own run is suspect: it passes 0.002 m³/s of a steady 0.167 m³/s inflow and fills the node.
        // SWMM 5.2.4's rect_round_getRofY gives the bottom arc's radius as r/2·(1 − sin θ)/θ where a
        // segment's is r/2·(θ − sin θ)/θ (xsect.c), the likely cause; CityTwin keeps the segment's.
        "RECT_ROUND": "SWMM 5.2.4 conveys 0.002 m³/s of the 0.167 m³/s inflow (node 0.558 m deep); CityTwin conveys it at 0.250 m",
    ]
}
