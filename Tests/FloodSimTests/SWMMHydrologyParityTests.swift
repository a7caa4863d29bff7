@testable import FloodSim
import Foundation
import SWMMFormat
import Testing

/// The hydrology inputs of issue 53 §1 against SWMM 5.2.4 on small generated models
/// (Fixtures/swmm/hydrology, by Scripts/reference/make_swmm_hydrology_fixtures.py): evaporation
/// from a time series (with and without DRY_ONLY), a monthly RECOVERY pattern under each
/// infiltration method, `[ADJUSTMENTS]` (monthly evaporation, rainfall and conductivity; the
/// subcatchments' N-PERV, DSTORE and INFIL patterns), `[INFLOWS]` baselines with time patterns
/// `IGNORE_RAINFALL YES` (every gage dry, external inflows still routed) and FILE rain gages in
/// SWMM's user-prepared format (intensities in mm/h; a cumulative total in inches, reset once).
/// Each case: the runoff continuity rows, every subcatchment's runoff, evaporation, infiltration
/// and peak, the runoff reaching the nodes, the external inflow, flooding and outflow within 2 %
/// of SWMM's, every node's maximum depth within 5 %.
/// The fixture also holds SWMM's answer without each feature, and the engine must move as SWMM
/// does when the feature is taken out (`featureMoves`). RECOVERY under the curve number is
/// refused (`recoveryUnderCurveNumberRefused`).
@Suite("Hydrology inputs (evaporation series, recovery, adjustments, inflow patterns) match SWMM 5.2.4")
struct SWMMHydrologyParityTests {
    struct Reference: Decodable {
        struct Sub: Decodable { var runoff_mm: Double; var peak_m3s: Double; var evaporation_mm: Double; var infiltration_mm: Double }
        struct Routing: Decodable { var external_inflow_m3: Double; var wet_weather_inflow_m3: Double; var flooding_m3: Double; var outflow_m3: Double }
        var runoff_continuity_mm: [String: Double]
        var subcatchments: [String: Sub]
        var routing: Routing
        var nodes: [String: Double]
        struct Without: Decodable { var runoff_continuity_mm: [String: Double]; var routing: Routing }
        /// SWMM's answer for the same model without the feature.
        var without: Without?
    }

    static let names = ["EVAP_TIMESERIES", "EVAP_TIMESERIES_DRYONLY", "RECOVERY_HORTON", "RECOVERY_MODHORTON", "RECOVERY_GREENAMPT",
                        "RECOVERY_CN", "ADJUSTMENTS", "ADJUSTMENTS_GREENAMPT", "ADJUST_SUBCATCH", "INFLOW_PATTERN",
                        "IGNORE_RAINFALL", "RAIN_FILE", "RAIN_FILE_CUMULATIVE"]

    /// The cases a run simulates: RECOVERY under the curve number stays refused
    /// (`recoveryUnderCurveNumberRefused`).
    static let simulated = names.filter { $0 != "RECOVERY_CN" }

    static let references: [String: Reference] = {
        guard let url = Bundle.module.url(forResource: "hydrology", withExtension: "json", subdirectory: "Fixtures/swmm/hydrology"),
              let data = try? Data(contentsOf: url), let table = try? JSONDecoder().decode([String: Reference].self, from: data)
        else { return [:] }
        return table
    }()

    static func model(_ name: String) throws -> (SWMMModel, URL) {
        let url = try #require(Bundle.module.url(forResource: name, withExtension: "inp", subdirectory: "Fixtures/swmm/hydrology"))
        return (try SWMMModel(contentsOf: url), url.deletingLastPathComponent())
    }

    /// The model run as `citytwin simulate drainage` runs a .inp: files it names (the RAIN_FILE
    /// cases' rain files) are read beside it.
    static func drainage(_ name: String) throws -> DrainageRun.Result {
        let url = try #require(Bundle.module.url(forResource: name, withExtension: "inp", subdirectory: "Fixtures/swmm/hydrology"))
        let (model, lines) = try SWMMModel.parsing(try String(contentsOf: url, encoding: .utf8))
        let dir = url.deletingLastPathComponent()
        return try DrainageRun.run(model, baseDirectory: dir, interfaceFiles: SWMMInterfaceFiles(directory: dir, lines: lines))
    }

    /// Within `tolerance` of SWMM's value, or `floor` where the report's printed digits are the limit.
    static func close(_ value: Double, _ reference: Double, _ tolerance: Double = 0.02, floor: Double) -> Bool {
        abs(value - reference) <= max(tolerance * abs(reference), floor)
    }

    @Test("every case has a SWMM reference")
    func listed() {
        for name in Self.names { #expect(Self.references[name] != nil, "\(name) has no SWMM reference") }
    }

    /// A rain file is read only with the command line's leave: the same model reaching the
    /// engine any other way is refused naming the gage and the file.
    @Test("a FILE gage is refused without the command line's leave")
    func rainFileNeedsLeave() throws {
        let (model, dir) = try Self.model("RAIN_FILE")
        do {
            _ = try DrainageRun.run(model, baseDirectory: dir)
            Issue.record("ran a model naming a rain file without the leave")
        } catch let e as SWMMInputError {
            #expect(e.section == "RAINGAGES")
            #expect(e.description.contains("RG1") && e.description.contains("RAIN_FILE.dat"), "\(e)")
        }
    }

    /// The curve number's RECOVERY acts as SWMM's (`featureMoves`: infiltration −6.61 mm against
    /// SWMM's −6.63 mm) and infiltration and runoff are within 0.2 %, but evaporation is 2.3 %
    /// short of SWMM's (S2's 4.3 %; −2.1 % without the pattern too): after the first storm the
    /// wet steps end one 300 s step after SWMM's (S3's pervious recession stays 5 µm above its
    /// depression storage one step longer), which shifts the hourly dry steps, and S2's last
    /// hour of ponded water infiltrates here where SWMM's evaporates. So a run refuses it.
    @Test("RECOVERY under the curve number is refused, naming the subcatchment and the method")
    func recoveryUnderCurveNumberRefused() throws {
        do {
            _ = try Self.drainage("RECOVERY_CN")
            Issue.record("ran RECOVERY under CURVE_NUMBER, expected a refusal")
        } catch let e as SWMMInputError {
            #expect(e.section == "EVAPORATION", "\(e)")
            #expect(e.description.contains("S1") && e.description.contains("CURVE_NUMBER") && e.description.contains("RECOVERY"), "\(e)")
        }
    }

    @Test("runoff, inflow, flooding and node depths within SWMM's bounds", arguments: simulated)
    func parity(_ name: String) throws {
        let reference = try #require(Self.references[name])
        let (model, dir) = try Self.model(name)
        let sim = try model.runoffSimulation(baseDirectory: dir)
        let runoff = sim.run(output: .totals)
        let area = sim.subcatchments.reduce(0) { $0 + $1.area }
        let c = runoff.continuity
        // Continuity rows as depths over all subcatchments, mm (SWMM prints three decimals).
        let mine: [String: Double] = ["rainfall": c.rainfall, "evaporation": c.evaporation, "infiltration": c.infiltration,
                                      "runoff": c.runoff, "final_storage": c.finalStorage].mapValues { $0 / area * 1000 }
        for (key, swmm) in reference.runoff_continuity_mm {
            let value = try #require(mine[key], "\(key)")
            #expect(Self.close(value, swmm, floor: 0.01), "\(name): runoff continuity \(key) \(value) mm, SWMM \(swmm) mm")
        }
        for (j, s) in sim.subcatchments.enumerated() {
            // With IGNORE_RAINFALL YES SWMM prints no Subcatchment Runoff Summary (its continuity
            // rows are all zero): every subcatchment stays dry.
            let ref = reference.subcatchments[s.name] ?? Reference.Sub(runoff_mm: 0, peak_m3s: 0, evaporation_mm: 0, infiltration_mm: 0)
            if reference.subcatchments.isEmpty { #expect(reference.runoff_continuity_mm["rainfall"] == 0, "\(name): SWMM has no rows for \(s.name)") }
            let depth = runoff.runoffDepth[j] * 1000
            #expect(Self.close(depth, ref.runoff_mm, floor: 0.01), "\(name) \(s.name): runoff \(depth) mm, SWMM \(ref.runoff_mm) mm")
            let evap = runoff.evaporationDepth[j] * 1000, infil = runoff.infiltrationDepth[j] * 1000
            #expect(Self.close(evap, ref.evaporation_mm, floor: 0.01), "\(name) \(s.name): evaporation \(evap) mm, SWMM \(ref.evaporation_mm) mm")
            #expect(Self.close(infil, ref.infiltration_mm, floor: 0.01), "\(name) \(s.name): infiltration \(infil) mm, SWMM \(ref.infiltration_mm) mm")
            // The summary prints peaks to 0.01 m³/s.
            #expect(Self.close(runoff.peakRunoff[j], ref.peak_m3s, floor: 0.005),
                    "\(name) \(s.name): peak \(runoff.peakRunoff[j]) m³/s, SWMM \(ref.peak_m3s) m³/s")
        }
        let result = try Self.drainage(name)
        let r = reference.routing
        // The continuity table prints hectare-metres to three decimals: 10 m³. The engine's
        // external inflow carries the runoff too (DrainageRun adds it as node inflows): SWMM's
        // external and wet-weather rows together.
        #expect(Self.close(result.runoffToNodes, r.wet_weather_inflow_m3, floor: 5),
                "\(name): runoff to nodes \(result.runoffToNodes) m³, SWMM's wet-weather inflow \(r.wet_weather_inflow_m3) m³")
        let external = r.external_inflow_m3 + r.wet_weather_inflow_m3
        #expect(Self.close(result.routing.externalInflow, external, floor: 5),
                "\(name): external + wet-weather inflow \(result.routing.externalInflow) m³, SWMM \(external) m³")
        #expect(Self.close(result.routing.flooding, r.flooding_m3, floor: 5),
                "\(name): flooding \(result.routing.flooding) m³, SWMM \(r.flooding_m3) m³")
        #expect(Self.close(result.routing.externalOutflow, r.outflow_m3, floor: 5),
                "\(name): outflow \(result.routing.externalOutflow) m³, SWMM \(r.outflow_m3) m³")
        for (k, id) in result.nodeNames.enumerated() {
            guard let swmm = reference.nodes[id], swmm > 0 else { continue }
            let depth = result.nodes[k].maxDepth
            #expect(Self.close(depth, swmm, 0.05, floor: 0), "\(name) node \(id): max depth \(depth) m, SWMM \(swmm) m")
        }
    }

    /// The features move the engine as they move SWMM: the model without the feature (a constant
    /// 3 mm/day for the series, no RECOVERY, no `[ADJUSTMENTS]`, no baseline patterns) run by both,
    /// the engine's change of infiltration and evaporation (of flooding, for the inflow patterns)
    /// within 25 % of SWMM's change. Some features move the totals by less than the 2 % bound
    /// (the recovery pattern changes Horton infiltration by 1.2 %); this is what shows they act.
    @Test("each feature changes the engine's answer as it changes SWMM's", arguments: names.filter { !$0.hasPrefix("RAIN_FILE") })
    func featureMoves(_ name: String) throws {
        let reference = try #require(Self.references[name])
        let without = try #require(reference.without)
        let loaded = try Self.model(name)
        var model = loaded.0
        let dir = loaded.1
        if var e = model.evaporation {
            if case .timeseries = e.source { e.source = .constant(3.0) }
            e.recoveryPattern = nil
            model.evaporation = e
        }
        model.rawSections.removeAll { $0.name == "ADJUSTMENTS" }
        for k in model.inflows.indices { model.inflows[k].baselinePattern = nil }
        model.options.removeAll { $0.key.uppercased() == "IGNORE_RAINFALL" }
        func depths(_ m: SWMMModel) throws -> (infiltration: Double, evaporation: Double) {
            let sim = try m.runoffSimulation(baseDirectory: dir)
            let c = sim.run(output: .totals).continuity
            let area = sim.subcatchments.reduce(0) { $0 + $1.area }
            return (c.infiltration / area * 1000, c.evaporation / area * 1000)
        }
        func agrees(_ mine: Double, _ swmm: Double, floor: Double) -> Bool { abs(mine - swmm) <= max(0.25 * abs(swmm), floor) }
        if name == "INFLOW_PATTERN" || name == "IGNORE_RAINFALL" {
            let with = try Self.drainage(name).routing.flooding
            let plain = try DrainageRun.run(model, baseDirectory: dir).routing.flooding
            let swmm = reference.routing.flooding_m3 - without.routing.flooding_m3
            #expect(agrees(with - plain, swmm, floor: 10), "\(name): the patterns change flooding by \(with - plain) m³, SWMM's by \(swmm) m³")
        } else {
            let a = try depths(try Self.model(name).0), b = try depths(model)
            let c = reference.runoff_continuity_mm, w = without.runoff_continuity_mm
            let swmmInfil = (c["infiltration"] ?? 0) - (w["infiltration"] ?? 0), swmmEvap = (c["evaporation"] ?? 0) - (w["evaporation"] ?? 0)
            #expect(agrees(a.infiltration - b.infiltration, swmmInfil, floor: 0.05),
                    "\(name): the feature changes infiltration by \(a.infiltration - b.infiltration) mm, SWMM's by \(swmmInfil) mm")
            #expect(agrees(a.evaporation - b.evaporation, swmmEvap, floor: 0.05),
                    "\(name): the feature changes evaporation by \(a.evaporation - b.evaporation) mm, SWMM's by \(swmmEvap) mm")
        }
    }
}
