@testable import FloodSim
import Foundation
import SWMMFormat
import Testing

/// Treatment expressions at nodes (SWMM 5.2's `[TREATMENT]`) against SWMM 5.2.4 on the quality
/// parity test's MIX model with treatment at a storage unit and two junctions
/// (Fixtures/swmm/treatment, by Scripts/reference/make_swmm_treatment_fixtures.py): removal and
/// concentration lines over HRT, R_ of another pollutant, AREA, DEPTH, FLOW, DT and the inflow's
/// and node's concentrations; each outfall's and link's load, the outflow and the mass the
/// treatment removes (SWMM's Mass Reacted) within 2 % of SWMM's report.
@Suite("Treatment: outfall and link loads match SWMM 5.2.4")
struct SWMMTreatmentParityTests {
    struct Reference: Decodable {
        var pollutants: [String]
        var routing_continuity: [String: [String: Double]]
        var outfalls: [String: [String: Double]]
        var links: [String: [String: Double]]
        var outflow_m3: Double
    }

    static let references: [String: Reference] = {
        guard let url = Bundle.module.url(forResource: "treatment", withExtension: "json", subdirectory: "Fixtures/swmm/treatment"),
              let data = try? Data(contentsOf: url), let table = try? JSONDecoder().decode([String: Reference].self, from: data)
        else { return [:] }
        return table
    }()

    static func model(_ name: String) throws -> SWMMModel {
        let url = try #require(Bundle.module.url(forResource: name, withExtension: "inp", subdirectory: "Fixtures/swmm/treatment"))
        return try SWMMModel(contentsOf: url)
    }

    /// Within 2 % of SWMM's value, or the report's last printed digit.
    static func close(_ value: Double, _ reference: Double, floor: Double) -> Bool {
        abs(value - reference) <= max(0.02 * abs(reference), floor)
    }

    @Test("both cases have a SWMM reference")
    func listed() {
        #expect(Self.references["TREAT"] != nil)
        #expect(Self.references["TREAT_DW"] != nil)
    }

    @Test("outfall and link loads and the mass treated within 2 % of SWMM", arguments: ["TREAT", "TREAT_DW"])
    func parity(_ name: String) throws {
        let reference = try #require(Self.references[name])
        let result = try DrainageRun.run(try Self.model(name))
        let routing = try #require(result.routingQuality, "\(name): no quality routing")
        #expect(routing.pollutants.map(\.name) == reference.pollutants)
        for (p, pollutant) in reference.pollutants.enumerated() {
            let floor = routing.pollutants[p].units == .countPerLitre ? 1e3 : 0.0011
            for (node, loads) in reference.outfalls {
                let i = try #require(result.nodeNames.firstIndex(of: node))
                let swmm = try #require(loads[pollutant])
                #expect(Self.close(routing.outfallLoad[p][i], swmm, floor: floor), "\(name) outfall \(node) \(pollutant): \(routing.outfallLoad[p][i]), SWMM \(swmm)")
            }
            for (link, loads) in reference.links {
                let j = try #require(result.linkNames.firstIndex(of: link))
                let swmm = try #require(loads[pollutant])
                #expect(Self.close(routing.linkLoad[p][j], swmm, floor: floor), "\(name) link \(link) \(pollutant): \(routing.linkLoad[p][j]), SWMM \(swmm)")
            }
            let qc = routing.continuity[p], swmmQC = try #require(reference.routing_continuity[pollutant])
            for (key, value) in ["external_outflow": qc.externalOutflow, "mass_reacted": qc.reacted] {
                let swmm = try #require(swmmQC[key])
                #expect(Self.close(value, swmm, floor: floor), "\(name) \(pollutant) routing \(key): \(value), SWMM \(swmm)")
            }
        }
        #expect(abs(result.routing.externalOutflow - reference.outflow_m3) <= max(0.02 * reference.outflow_m3, 1),
                "\(name): outflow \(result.routing.externalOutflow) m³, SWMM \(reference.outflow_m3) m³")
    }

    @Test("treatment removes mass: the treated outfall load is below the untreated one")
    func treatmentActs() throws {
        var model = try Self.model("TREAT")
        let run = try DrainageRun.run(model)
        let treated = try #require(run.routingQuality)
        model.rawSections.removeAll { $0.name == "TREATMENT" }
        let untreated = try #require(try DrainageRun.run(model).routingQuality)
        let o = try #require(run.nodeNames.firstIndex(of: "O1"))
        for p in treated.pollutants.indices {
            #expect(treated.outfallLoad[p][o] < untreated.outfallLoad[p][o], "\(treated.pollutants[p].name): treated \(treated.outfallLoad[p][o]), untreated \(untreated.outfallLoad[p][o])")
        }
    }
}
