@testable import FloodSim
import Foundation
import SWMMFormat
import Testing

/// SWMM 5.2's Preissmann slot (`SURCHARGE_METHOD SLOT`) against SWMM 5.2.4 (Fixtures/swmm/slot,
/// by Scripts/reference/make_swmm_slot_fixtures.py): circular sewers surcharged by a storm (fixed
/// and variable step), closed box culverts surcharged by hydrographs, the storm network with
/// manholes that flood or pond, a sewer into an overtopped trapezoidal channel under a culvert,
/// and EPA's Example2 and extran1 with the slot. Flooding within 2 % of SWMM's (1 m³ when SWMM
/// floods nothing), every node's maximum depth within 5 %, the percent of routing steps not
/// converging within 1 point of SWMM's and the routing continuity error within 1 point (measured:
/// within 0.03 point except the ponded network, −1.39 % against SWMM's −1.93 %).
@Suite("Preissmann slot surcharge (SURCHARGE_METHOD SLOT) matches SWMM 5.2.4")
struct SWMMSlotParityTests {
    struct Reference: Decodable {
        var flooding_m3: Double
        var routing_error_pct: Double
        var not_converging_pct: Double
        var max_depth_m: [String: Double]
    }

    static let cases = ["CIRC_STORM", "CIRC_STORM_VS", "RECT_BOX", "CIRC_FLOOD", "CIRC_PONDED", "OPEN_MIXED",
                        "Example2_SLOT", "extran1_SLOT"]

    static let references: [String: Reference] = {
        guard let url = Bundle.module.url(forResource: "slot", withExtension: "json", subdirectory: "Fixtures/swmm/slot"),
              let data = try? Data(contentsOf: url), let table = try? JSONDecoder().decode([String: Reference].self, from: data)
        else { return [:] }
        return table
    }()

    @Test("every slot case has a SWMM reference")
    func listed() {
        for c in Self.cases { #expect(Self.references[c] != nil, "\(c) has no SWMM reference") }
    }

    @Test("flooding, node depths, convergence and continuity match SWMM", arguments: cases)
    func parity(_ name: String) throws {
        let reference = try #require(Self.references[name])
        let url = try #require(Bundle.module.url(forResource: name, withExtension: "inp", subdirectory: "Fixtures/swmm/slot"))
        let model = try SWMMModel(contentsOf: url)
        #expect(model.routingOptions().surchargeMethod == .slot)
        let result = try DrainageRun.run(model, baseDirectory: url.deletingLastPathComponent())
        let flooding = result.routing.flooding, expected = reference.flooding_m3
        #expect(abs(flooding - expected) <= max(0.02 * expected, expected > 0 ? 0 : 1),
                "\(name): flooding \(flooding) m³, SWMM \(expected) m³")
        for (k, id) in result.nodeNames.enumerated() {
            guard let ref = reference.max_depth_m[id], ref > 0 else { continue }
            let depth = result.nodes[k].maxDepth
            #expect(abs(depth - ref) <= 0.05 * ref, "\(name) node \(id): max depth \(depth) m, SWMM \(ref) m")
        }
        #expect(abs(result.nonConvergingPercent - reference.not_converging_pct) <= 1,
                "\(name): \(result.nonConvergingPercent) % of steps not converging, SWMM \(reference.not_converging_pct) %")
        #expect(abs(result.routing.errorPercent - reference.routing_error_pct) <= 1,
                "\(name): routing continuity error \(result.routing.errorPercent) %, SWMM \(reference.routing_error_pct) %")
    }

    /// The slot's width (SWMM's getSlotWidth): none below 98.5257 % of full depth or in an open
    /// section, Sjöberg's 0.5423·wMax·exp(−(y/yFull)^2.4) up to 1.78 full depths, 1 % of wMax
    /// above; the area grows by the slot's width above the crown.
    @Test("the slot's width and area follow Sjöberg's formula")
    func slotGeometry() throws {
        let pipe = try SectionGeometry(CrossSection(shape: .circular, geometry1: 0.6))
        let cutoff = SWMMConstant.slotCrownCutoff
        #expect(pipe.slotWidth(0.98 * 0.6, cutoff: cutoff) == 0)
        #expect(abs(pipe.slotWidth(0.6, cutoff: cutoff) - 0.6 * 0.5423 * exp(-1)) < 1e-12)
        #expect(abs(pipe.slotWidth(1.5 * 0.6, cutoff: cutoff) - 0.6 * 0.5423 * exp(-pow(1.5, 2.4))) < 1e-12)
        #expect(abs(pipe.slotWidth(2 * 0.6, cutoff: cutoff) - 0.006) < 1e-12)
        let w = pipe.slotWidth(0.9, cutoff: cutoff)
        #expect(abs(pipe.slotArea(0.9, slotWidth: w) - (pipe.aFull + 0.3 * w)) < 1e-12)
        let channel = try SectionGeometry(CrossSection(shape: .trapezoidal, geometry1: 0.6, geometry2: 1, geometry3: 1.5, geometry4: 1.5))
        #expect(channel.slotWidth(1.2, cutoff: cutoff) == 0)
        #expect(abs(channel.widthAboveFull(1.2) - (1 + 3 * 1.2)) < 1e-12)
    }
}
