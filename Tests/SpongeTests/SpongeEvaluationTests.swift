import FloodSim
import Foundation
@testable import Sponge
import SWMMFormat
import Testing

/// The capture rate from continuous runoff simulation against SWMM 5.2.4's own continuous run of the
/// same model over the same record (Fixtures/sponge-example1.*, by
/// Scripts/reference/make_sponge_swmm_fixtures.py: EPA's Example1 with evaporation, run-on and two
/// tagged zones, over NOAA's Seattle record 2012–2015): within 1 percentage point for every
/// subcatchment, every drainage zone and the whole model.
@Suite("Sponge evaluate: capture rates within 1 point of SWMM 5.2.4's continuous run")
struct SpongeEvaluationTests {
    struct Reference: Decodable {
        struct Sub: Decodable { var zone: String; var capture_rate: Double; var precip_in: Double; var runon_in: Double }
        var subcatchments: [String: Sub]
        var zones: [String: Double]
        var model: Double
    }

    static func evaluate(withLID: Bool = false, output: RunoffSimulation.Output = .totals,
                         edit: (inout SWMMModel) -> Void = { _ in }) throws -> SpongeEvaluation {
        let (record, _) = try DesignRainfallTests.seattle()
        var model = try SWMMModel(contentsOf: try DesignRainfallTests.fixture("sponge-example1", "inp"))
        edit(&model)
        return try SpongeEvaluation(model: model, record: record, withLID: withLID, output: output)
    }

    static func reference() throws -> Reference {
        try JSONDecoder().decode(Reference.self, from: Data(contentsOf: try DesignRainfallTests.fixture("sponge-example1.reference", "json")))
    }

    @Test("every subcatchment, zone and the model within 1 percentage point of SWMM")
    func parity() throws {
        let answer = try Self.evaluate()
        let reference = try Self.reference()
        #expect(answer.subcatchments.count == reference.subcatchments.count)
        for s in answer.subcatchments {
            let r = try #require(reference.subcatchments[s.name])
            #expect(s.zone == r.zone)
            #expect(abs(s.captureRate - r.capture_rate) <= 0.01, "subcatchment \(s.name): \(s.captureRate), SWMM \(r.capture_rate)")
            // The same rain fell: the record reached every gage whole (SWMM reports inches to 0.01).
            #expect(abs(s.rainfallMillimetres / 25.4 - r.precip_in) <= 0.01, "subcatchment \(s.name): \(s.rainfallMillimetres) mm of rain")
            #expect(abs(s.runonMillimetres / 25.4 - r.runon_in) <= max(0.02 * r.runon_in, 0.01))
        }
        #expect(Set(answer.zones.map(\.name)) == Set(reference.zones.keys))
        for z in answer.zones {
            let r = try #require(reference.zones[z.name])
            #expect(abs(z.captureRate - r) <= 0.01, "zone \(z.name): \(z.captureRate), SWMM \(r)")
        }
        #expect(answer.zones.first { $0.name == "north" }?.basis == .tag)
        #expect(answer.zones.first { $0.name == "outfall 18" }?.basis == .outfall)
        #expect(abs(answer.model.captureRate - reference.model) <= 0.01, "model: \(answer.model.captureRate), SWMM \(reference.model)")
        #expect(abs(answer.continuity.errorPercent) < 0.5)
        #expect(answer.lid == "without")
        #expect(answer.warnings.contains { $0.contains("4.0 years") })
    }

    @Test("the totals-only run gives the answer of the full-series run to the last digit")
    func totalsOnly() throws {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        let totals = try encoder.encode(try Self.evaluate(output: .totals))
        let series = try encoder.encode(try Self.evaluate(output: .series))
        #expect(totals == series, "\(String(decoding: totals, as: UTF8.self))\n\(String(decoding: series, as: UTF8.self))")
        // The runoff engine's own totals, bit for bit, and no step kept in the totals-only run.
        let (record, _) = try DesignRainfallTests.seattle()
        let model = try SWMMModel(contentsOf: try DesignRainfallTests.fixture("sponge-example1", "inp"))
        let simulation = try model.overRecord(record, withoutLID: true).runoffSimulation()
        let full = simulation.run(output: .series), kept = simulation.run(output: .totals)
        #expect(kept.times.isEmpty && kept.outflow.isEmpty)
        #expect(full.times.count == full.steps + 1 && kept.steps == full.steps && full.steps > 35_000)
        #expect(kept.rainfallDepth == full.rainfallDepth && kept.runonDepth == full.runonDepth)
        #expect(kept.evaporationDepth == full.evaporationDepth && kept.infiltrationDepth == full.infiltrationDepth)
        #expect(kept.runoffDepth == full.runoffDepth && kept.peakRunoff == full.peakRunoff)
        #expect(kept.continuity.rainfall == full.continuity.rainfall && kept.continuity.evaporation == full.continuity.evaporation)
        #expect(kept.continuity.infiltration == full.continuity.infiltration && kept.continuity.runoff == full.continuity.runoff)
        #expect(kept.continuity.finalStorage == full.continuity.finalStorage)
        // Run-on kept per subcatchment is the runoff of those draining onto it, delivered a step later.
        let subs = simulation.subcatchments
        var upstream = [Double](repeating: 0, count: subs.count)
        for (j, s) in subs.enumerated() {
            if case .subcatchment(let k) = s.outlet, k != j { upstream[k] += full.runoffDepth[j] * s.area }
        }
        #expect(upstream.contains { $0 > 0 })
        for (k, s) in subs.enumerated() {
            #expect(abs(full.runonDepth[k] * s.area - upstream[k]) <= 1e-6 * max(upstream[k], 1), "subcatchment \(s.name)")
            let balance = full.rainfallDepth[k] + full.runonDepth[k] - full.evaporationDepth[k] - full.infiltrationDepth[k] - full.runoffDepth[k]
            #expect(balance >= -1e-3 * full.rainfallDepth[k], "subcatchment \(s.name): more water left than came")
        }
    }

    static func evaluateWithLIDPlan(withLID: Bool) throws -> SpongeEvaluation {
        let (record, _) = try DesignRainfallTests.seattle()
        let model = try SWMMModel(contentsOf: try DesignRainfallTests.fixture("sponge-example1-lid", "inp"))
        return try SpongeEvaluation(model: model, record: record, withLID: withLID)
    }

    @Test("with its LID controls, every subcatchment, zone and the model within 1 percentage point of SWMM")
    func parityWithLID() throws {
        let answer = try Self.evaluateWithLIDPlan(withLID: true)
        let reference = try JSONDecoder().decode(Reference.self, from: Data(contentsOf: try DesignRainfallTests.fixture("sponge-example1-lid.reference", "json")))
        #expect(answer.lid == "with")
        for s in answer.subcatchments {
            let r = try #require(reference.subcatchments[s.name])
            #expect(abs(s.captureRate - r.capture_rate) <= 0.01, "subcatchment \(s.name) with LID: \(s.captureRate), SWMM \(r.capture_rate)")
        }
        for z in answer.zones {
            let r = try #require(reference.zones[z.name])
            #expect(abs(z.captureRate - r) <= 0.01, "zone \(z.name) with LID: \(z.captureRate), SWMM \(r)")
        }
        #expect(abs(answer.model.captureRate - reference.model) <= 0.01, "model with LID: \(answer.model.captureRate), SWMM \(reference.model)")
        #expect(abs(answer.continuity.errorPercent) < 0.5)
        // The comparison is the run without LID: the plain model's figures.
        let plain = try Self.evaluate()
        let other = try #require(answer.lidComparison)
        #expect(other.lid == "without")
        #expect(other.model.captureRate == plain.model.captureRate)
        #expect(answer.model.captureRate > plain.model.captureRate, "the LID plan captures more")
        #expect(answer.lidPerformance.count == 7)
        for p in answer.lidPerformance {
            #expect(p.inflowMillimetres > 0, "\(p.control) in \(p.subcatchment) took no water")
            #expect(abs(p.continuityErrorPercent) < 1, "\(p.control) in \(p.subcatchment): continuity error \(p.continuityErrorPercent) %")
        }
    }

    @Test("without LID the main figures leave the LID usage out and the comparison has it")
    func withoutLID() throws {
        let without = try Self.evaluateWithLIDPlan(withLID: false)
        #expect(without.lid == "without")
        #expect(without.lidLeftOut == ["1", "2", "3", "4", "5", "6"])
        #expect(without.warnings.contains { $0.contains("LID controls of 6 subcatchments were left out") })
        let plain = try Self.evaluate()
        #expect(without.model.captureRate == plain.model.captureRate)
        let with = try Self.evaluateWithLIDPlan(withLID: true)
        #expect(without.lidComparison?.lid == "with")
        #expect(without.lidComparison?.model.captureRate == with.model.captureRate)
        #expect(without.lidPerformance.map(\.control) == with.lidPerformance.map(\.control))
        #expect(plain.lidComparison == nil && plain.lidPerformance.isEmpty)
    }

    @Test("a LID usage naming a control the model does not define is refused naming the item")
    func lidUsage() throws {
        let addLID: (inout SWMMModel) -> Void = { m in
            m.rawSections.append(SWMMRawSection(name: "LID_USAGE", lines: [["5", "GreenRoof", "1", "1000", "0", "0", "0", "0"]]))
        }
        for withLID in [false, true] {
            let error = #expect(throws: SWMMInputError.self) { try Self.evaluate(withLID: withLID, edit: addLID) }
            #expect(error?.section == "LID_USAGE")
            #expect(error?.reason.contains("subcatchment 5") == true && error?.reason.contains("GreenRoof") == true, "\(String(describing: error))")
        }
    }

    @Test("a model without subcatchments is refused")
    func noLand() throws {
        let error = #expect(throws: SpongeInputError.self) { try Self.evaluate { $0.subcatchments = [] } }
        #expect(error?.input == "model")
    }
}
