@testable import FloodSim
import Foundation
import SWMMFormat
import Testing

/// Water quality (SWMM 5.2's buildup, washoff and quality routing) against SWMM 5.2.4 on EPA's
/// Example1 and a generated model with every buildup and washoff function, sweeping, BMP removal,
/// a co-pollutant, decay, a storage unit and external and dry-weather pollutant inflows
/// (Fixtures/swmm/quality, by Scripts/reference/make_swmm_quality_fixtures.py): each subcatchment's
/// washoff, each outfall's and link's load and the continuity tables within 2 % of SWMM's report.
@Suite("Water quality: washoff, loads and continuity match SWMM 5.2.4")
struct SWMMQualityParityTests {
    struct Reference: Decodable {
        var pollutants: [String]
        var runoff_continuity: [String: [String: Double]]
        var routing_continuity: [String: [String: Double]]
        var washoff: [String: [String: Double]]
        var outfalls: [String: [String: Double]]
        var links: [String: [String: Double]]
        var flooding_m3: Double
        var outflow_m3: Double
    }

    static let references: [String: Reference] = {
        guard let url = Bundle.module.url(forResource: "quality", withExtension: "json", subdirectory: "Fixtures/swmm/quality"),
              let data = try? Data(contentsOf: url), let table = try? JSONDecoder().decode([String: Reference].self, from: data)
        else { return [:] }
        return table
    }()

    static func model(_ name: String) throws -> SWMMModel {
        let url = try #require(Bundle.module.url(forResource: name, withExtension: "inp", subdirectory: "Fixtures/swmm/quality"))
        return try SWMMModel(contentsOf: url)
    }

    /// Within 2 % of SWMM's value, or the report's last printed digit (0.001 lb or kg; for counts
    /// the report's own precision).
    static func close(_ value: Double, _ reference: Double, floor: Double = 0.001) -> Bool {
        abs(value - reference) <= max(0.02 * abs(reference), floor)
    }

    @Test("Example1 and the generated model have a SWMM reference")
    func listed() {
        #expect(Self.references["Example1"] != nil)
        #expect(Self.references["MIX"] != nil)
        #expect(Self.references["MIX_DW"] != nil)
        #expect(Self.references["GW"] != nil)
    }

    @Test("washoff, outfall and link loads and continuity within 2 % of SWMM", arguments: ["Example1", "MIX", "MIX_DW", "GW"])
    func parity(_ name: String) throws {
        let reference = try #require(Self.references[name])
        let result = try DrainageRun.run(try Self.model(name))
        let surface = try #require(result.surfaceQuality, "\(name): no runoff quality")
        let routing = try #require(result.routingQuality, "\(name): no quality routing")
        #expect(routing.pollutants.map(\.name) == reference.pollutants)
        for (p, pollutant) in reference.pollutants.enumerated() {
            let floor = routing.pollutants[p].units == .countPerLitre ? 1e3 : 0.0011
            for (j, sub) in result.subcatchmentNames.enumerated() {
                let swmm = try #require(reference.washoff[sub]?[pollutant])
                #expect(Self.close(surface.washoff[j][p], swmm, floor: floor), "\(name) \(sub) \(pollutant): washoff \(surface.washoff[j][p]), SWMM \(swmm)")
            }
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
            let rc = surface.continuity[p], swmmRC = try #require(reference.runoff_continuity[pollutant])
            let mineRC: [String: Double] = ["initial_buildup": rc.initialBuildup, "surface_buildup": rc.surfaceBuildup, "wet_deposition": rc.wetDeposition,
                                            "sweeping_removal": rc.sweepingRemoval, "infiltration_loss": rc.infiltrationLoss, "bmp_removal": rc.bmpRemoval,
                                            "surface_runoff": rc.surfaceRunoff, "remaining_buildup": rc.remainingBuildup]
            for (key, value) in mineRC {
                let swmm = try #require(swmmRC[key])
                #expect(Self.close(value, swmm, floor: floor), "\(name) \(pollutant) runoff \(key): \(value), SWMM \(swmm)")
            }
            let qc = routing.continuity[p], swmmQC = try #require(reference.routing_continuity[pollutant])
            let mineQC: [String: Double] = ["dry_weather_inflow": qc.dryWeatherInflow, "wet_weather_inflow": qc.wetWeatherInflow,
                                            "groundwater_inflow": qc.groundwaterInflow,
                                            "external_inflow": qc.externalInflow, "external_outflow": qc.externalOutflow,
                                            "flooding_loss": qc.flooding, "mass_reacted": qc.reacted, "initial_stored": qc.initialStorage]
            for (key, value) in mineQC {
                let swmm = try #require(swmmQC[key])
                #expect(Self.close(value, swmm, floor: floor), "\(name) \(pollutant) routing \(key): \(value), SWMM \(swmm)")
            }
            // Continuity errors of the same magnitude as SWMM's: within 1.5 percentage points or
            // half of SWMM's own (the complete-mix reactors' error follows each step's volumes).
            for (mine, swmm, table) in [(rc.errorPercent, swmmRC["error_pct"] ?? 0, "runoff"), (qc.errorPercent, swmmQC["error_pct"] ?? 0, "routing")] {
                #expect(abs(mine - swmm) <= max(1.5, 0.5 * abs(swmm)), "\(name) \(pollutant) \(table) continuity error \(mine) %, SWMM \(swmm) %")
            }
        }
        #expect(abs(result.routing.flooding - reference.flooding_m3) <= max(0.02 * reference.flooding_m3, 1),
                "\(name): flooding \(result.routing.flooding) m³, SWMM \(reference.flooding_m3) m³")
        #expect(Self.close(result.routing.externalOutflow, reference.outflow_m3, floor: 1),
                "\(name): outflow \(result.routing.externalOutflow) m³, SWMM \(reference.outflow_m3) m³")
    }

    @Test("IGNORE_QUALITY YES routes the same flow without pollutants")
    func ignoreQuality() throws {
        var model = try Self.model("Example1")
        let with = try DrainageRun.run(model)
        model.options.append(SWMMOption(key: "IGNORE_QUALITY", value: "YES"))
        let without = try DrainageRun.run(model)
        #expect(without.surfaceQuality == nil && without.routingQuality == nil)
        #expect(without.routing.externalOutflow == with.routing.externalOutflow)
        #expect(without.routing.flooding == with.routing.flooding)
        #expect(with.summaryJSON()["quality"] != nil && without.summaryJSON()["quality"] == nil)
    }

    @Test("no rain, no washoff: buildup only grows and nothing reaches the outfall")
    func dryRun() throws {
        var model = try Self.model("Example1")
        model.timeseries.removeAll { $0.name == "TS1" }
        model.timeseries.append(SWMMTimeseries(name: "TS1", points: [.init(date: nil, hours: 0, value: 0), .init(date: nil, hours: 36, value: 0)]))
        let result = try DrainageRun.run(model)
        let surface = try #require(result.surfaceQuality)
        let tss = surface.continuity[0]
        #expect(tss.surfaceRunoff == 0)
        #expect(tss.surfaceBuildup > 0)
        #expect(abs(tss.initialBuildup + tss.surfaceBuildup - tss.remainingBuildup) < 1e-6 * tss.remainingBuildup)
        #expect(result.routingQuality?.outfallLoad.allSatisfy { $0.allSatisfy { $0 == 0 } } == true)
    }
}
