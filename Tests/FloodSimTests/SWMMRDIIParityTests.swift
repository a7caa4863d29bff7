@testable import FloodSim
import Foundation
import SWMMFormat
import Testing

/// RDII (SWMM 5.2's RTK unit hydrographs with initial abstraction) against SWMM 5.2.4 on generated
/// sanitary sewers (Fixtures/swmm/rdii, by Scripts/reference/make_swmm_rdii_fixtures.py): two
/// gauges, monthly hydrographs across a month boundary, storms separated by dry days (the
/// abstraction used and recovered), SWMM 5.0's one-line format, gauges sharing a series, a rain
/// interval shorter than the wet step, and RDII carrying a pollutant. Each RDII node's inflow
/// volume and peak, the routing continuity's RDII row, SWMM's Rainfall Dependent I/I table and
/// the flooding within 2 %, every node's maximum depth within 5 %.
@Suite("RDII: unit hydrograph inflows, continuity, flooding and depths match SWMM 5.2.4")
struct SWMMRDIIParityTests {
    struct Reference: Decodable {
        struct Continuity: Decodable { var flooding_m3: Double; var outflow_m3: Double }
        struct Node: Decodable { var max_depth_m: Double }
        struct NodeRDII: Decodable { var volume_m3: Double; var peak_m3s: Double }
        struct RDII: Decodable {
            var rdii_inflow_m3: Double
            var sewershed_rainfall_m3: Double
            var produced_m3: Double
            var nodes: [String: NodeRDII]
        }
        struct Load: Decodable { var rdii_kg: Double; var outflow_kg: Double }
        var routing_continuity: Continuity
        var nodes: [String: Node]
        var rdii: RDII
        var quality: [String: Load]?
    }

    static let references: [String: Reference] = {
        guard let url = Bundle.module.url(forResource: "rdii", withExtension: "json", subdirectory: "Fixtures/swmm/rdii"),
              let data = try? Data(contentsOf: url), let table = try? JSONDecoder().decode([String: Reference].self, from: data)
        else { return [:] }
        return table
    }()

    static func model(_ name: String) throws -> SWMMModel {
        let url = try #require(Bundle.module.url(forResource: name, withExtension: "inp", subdirectory: "Fixtures/swmm/rdii"))
        return try SWMMModel(contentsOf: url)
    }

    /// Within `share` of SWMM's value, or `floor` where the report's printed digits are the limit
    /// (its volumes in hectare-metres or acre-feet to three decimals: 10 m³ or 1.23 m³).
    static func close(_ value: Double, _ reference: Double, share: Double = 0.02, floor: Double = 0) -> Bool {
        abs(value - reference) <= max(share * abs(reference), floor)
    }

    @Test("every generated case has a SWMM reference")
    func listed() {
        for name in ["SI", "US", "POLLUTED"] { #expect(Self.references[name] != nil, "\(name) has no SWMM reference") }
    }

    @Test("RDII at each node, its continuity row, flooding and node depths match SWMM", arguments: ["SI", "US", "POLLUTED"])
    func parity(_ name: String) throws {
        let reference = try #require(Self.references[name])
        let model = try Self.model(name)
        let result = try DrainageRun.run(model)
        let rdii = try #require(result.rdii, "\(name): no RDII")
        let printed = model.units.flow.isUS ? 1.24 : 10.0
        for (node, swmm) in reference.rdii.nodes {
            let k = try #require(result.nodeNames.firstIndex(of: node))
            let inflow = try #require(rdii.inflows.first { $0.node == k }, "\(name): node \(node) has no RDII")
            let volume = inflow.volume(until: rdii.duration), peak = inflow.peak(until: rdii.duration)
            #expect(Self.close(volume, swmm.volume_m3), "\(name) \(node): RDII volume \(volume) m³, SWMM \(swmm.volume_m3) m³")
            #expect(Self.close(peak, swmm.peak_m3s), "\(name) \(node): RDII peak \(peak) m³/s, SWMM \(swmm.peak_m3s) m³/s")
        }
        let routed = result.routing.rdiiInflow
        #expect(Self.close(routed, reference.rdii.rdii_inflow_m3, floor: printed),
                "\(name): RDII inflow \(routed) m³, SWMM \(reference.rdii.rdii_inflow_m3) m³")
        #expect(Self.close(rdii.produced, reference.rdii.produced_m3, floor: printed),
                "\(name): RDII produced \(rdii.produced) m³, SWMM \(reference.rdii.produced_m3) m³")
        #expect(Self.close(rdii.sewershedRainfall, reference.rdii.sewershed_rainfall_m3, floor: printed),
                "\(name): sewershed rainfall \(rdii.sewershedRainfall) m³, SWMM \(reference.rdii.sewershed_rainfall_m3) m³")
        let flooding = result.routing.flooding, swmmFlooding = reference.routing_continuity.flooding_m3
        #expect(swmmFlooding > 1000, "\(name): the case floods")
        #expect(Self.close(flooding, swmmFlooding), "\(name): flooding \(flooding) m³, SWMM \(swmmFlooding) m³")
        #expect(Self.close(result.routing.externalOutflow, reference.routing_continuity.outflow_m3),
                "\(name): outflow \(result.routing.externalOutflow) m³, SWMM \(reference.routing_continuity.outflow_m3) m³")
        #expect(abs(result.routing.errorPercent) < 0.5, "\(name): routing continuity error \(result.routing.errorPercent) %")
        for (k, id) in result.nodeNames.enumerated() {
            guard let swmm = reference.nodes[id]?.max_depth_m, swmm > 0 else { continue }
            let depth = result.nodes[k].maxDepth
            #expect(Self.close(depth, swmm, share: 0.05), "\(name) node \(id): max depth \(depth) m, SWMM \(swmm) m")
        }
        if let loads = reference.quality {
            let q = try #require(result.routingQuality, "\(name): no quality routing")
            for (pollutant, swmm) in loads {
                let p = try #require(q.pollutants.firstIndex { $0.name == pollutant })
                let c = q.continuity[p]
                #expect(Self.close(c.rdiiInflow, swmm.rdii_kg, floor: 0.002), "\(name) \(pollutant): RDII load \(c.rdiiInflow) kg, SWMM \(swmm.rdii_kg) kg")
                #expect(Self.close(c.externalOutflow, swmm.outflow_kg, floor: 0.002),
                        "\(name) \(pollutant): outflow load \(c.externalOutflow) kg, SWMM \(swmm.outflow_kg) kg")
            }
        }
    }

    /// One hydrograph group on a gauge with a single 10 mm hour, no abstraction: the RDII volume is
    /// R × rain × area exactly (each triangle integrates to one), whatever the split of R.
    @Test("without an initial abstraction the RDII volume is R × rain × area")
    func volumeIsResponseRatio() {
        let uh = [RTKUnitHydrograph(r: 0.05, tHours: 0.5, k: 2), RTKUnitHydrograph(r: 0.03, tHours: 2, k: 3), RTKUnitHydrograph(r: 0.02, tHours: 6, k: 4)]
        let group = UnitHydrographGroup(name: "UH1", gauge: 0, months: Array(repeating: uh, count: 12))
        let rain = Hyetograph(depthsMillimetres: [10], interval: 3600, start: 3600)
        let setup = RDIISetup(groups: [group], sewersheds: [RDIISewershed(node: 0, group: 0, area: 1_000_000)], gauges: [rain], step: 300,
                              startDate: RDIISetup.dateNumber(year: 2021, month: 6, day: 1, secondOfDay: 0), duration: 4 * 86_400)
        let r = RDIIGeneration.run(setup)
        let volume = r.inflows[0].volume(until: setup.duration)
        #expect(abs(volume - 0.10 * 0.010 * 1_000_000) < 0.005 * 1000, "RDII \(volume) m³, expected 1000 m³")
        #expect(abs(r.sewershedRainfall - 10_000) < 1e-6, "sewershed rain \(r.sewershedRainfall) m³")
    }

    /// Rain less than the initial abstraction gives no RDII; the abstraction recovers at Drec per
    /// dry day, so the same storm a day later gives RDII only from what exceeds the recovered room.
    @Test("the initial abstraction takes the first rain and recovers while dry")
    func initialAbstraction() {
        let uh = RTKUnitHydrograph(r: 0.1, tHours: 1, k: 2, maxAbstraction: 8, recoveryRate: 4)
        let group = UnitHydrographGroup(name: "UH1", gauge: 0, months: Array(repeating: [uh, RTKUnitHydrograph(), RTKUnitHydrograph()], count: 12))
        let area = 1_000_000.0
        func produced(_ depths: [Double]) -> Double {
            let rain = Hyetograph(depthsMillimetres: depths, interval: 3600)
            let setup = RDIISetup(groups: [group], sewersheds: [RDIISewershed(node: 0, group: 0, area: area)], gauges: [rain], step: 300,
                                  startDate: RDIISetup.dateNumber(year: 2021, month: 6, day: 1, secondOfDay: 0), duration: 3 * 86_400)
            let r = RDIIGeneration.run(setup)
            return r.inflows.first.map { $0.volume(until: setup.duration) } ?? 0
        }
        // 6 mm: all abstracted.
        #expect(produced([6]) == 0)
        // 12 mm: 4 mm exceed the 8 mm abstraction.
        let once = produced([12])
        #expect(abs(once - 0.1 * 0.004 * area) < 1, "RDII \(once) m³, expected 400 m³")
        // 12 mm, a dry day (4 mm recovered of the 8 used), 12 mm again: 4 + 8 mm exceed.
        var twice = [Double](repeating: 0, count: 26)
        twice[0] = 12; twice[25] = 12
        let both = produced(twice)
        #expect(abs(both - 0.1 * 0.012 * area) < 2, "RDII \(both) m³, expected 1200 m³")
    }
}
