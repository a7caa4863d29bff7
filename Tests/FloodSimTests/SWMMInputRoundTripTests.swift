@testable import FloodSim
import Foundation
@testable import SWMMFormat
import Testing

/// The EPA example models copied into `Fixtures/swmm/` (see `Scripts/reference/make_swmm_fixtures.py`).
enum SWMMFixtures {
    static let models = ["Example1", "Example2", "Example3", "Example4", "Example5", "Example6", "extran1", "extran2", "extran3",
                         "extran4", "extran5", "extran6", "extran7", "extran8a", "extran8b", "extran9", "extran10"]

    static func url(_ name: String, _ ext: String = "inp") throws -> URL {
        try #require(Bundle.module.url(forResource: name, withExtension: ext, subdirectory: "Fixtures/swmm"))
    }

    static func model(_ name: String) throws -> SWMMModel { try SWMMModel(contentsOf: url(name)) }
}

@Suite("SWMM .inp reader and writer round trip")
struct SWMMInputRoundTripTests {
    @Test("an empty file is an empty model and writes as empty text")
    func empty() throws {
        let m = try SWMMModel(parsing: "")
        #expect(m == SWMMModel())
        #expect(m.inpText() == "")
        #expect(m.flowUnits == .cfs)
    }

    @Test("every EPA example model reads, writes and reads back equal", arguments: SWMMFixtures.models)
    func roundTrip(name: String) throws {
        let model = try SWMMFixtures.model(name)
        let again = try SWMMModel(parsing: model.inpText())
        #expect(again == model)
        #expect(again.inpText() == model.inpText())
    }

    @Test("Example1: 8 subcatchments, 13 junctions, 1 outfall, 13 conduits, Horton, kinematic wave, CFS")
    func example1Contents() throws {
        let m = try SWMMFixtures.model("Example1")
        #expect(m.subcatchments.count == 8 && m.junctions.count == 13 && m.outfalls.count == 1 && m.conduits.count == 13)
        #expect(m.flowUnits == .cfs && m.infiltrationMethod == .horton && m.flowRouting == "KINWAVE")
        #expect(m.durationSeconds == 36 * 3600)
        #expect(m.stepSeconds("WET_STEP", default: 0) == 900 && m.stepSeconds("ROUTING_STEP", default: 0) == 60)
        #expect(m.infiltration.first?.parameters == .horton(maxRate: 0.35, minRate: 0.25, decay: 4.14, dryTimeDays: 0.5, maxVolume: 0))
        #expect(m.timeseries(named: "TS1")?.points.count == 11)
        #expect(m.rawSections.map(\.name) == ["POLLUTANTS", "LANDUSES", "COVERAGES", "LOADINGS", "BUILDUP", "WASHOFF", "TAGS", "MAP", "SYMBOLS"])
        #expect(m.outfalls[0].boundary == .free)
        #expect(m.crossSections.first { $0.link == "1" }?.depth == 1.5)
    }

    @Test("Example3 keeps storage, pumps, curves, patterns and dry-weather flow with empty pattern names")
    func example3Contents() throws {
        let m = try SWMMFixtures.model("Example3")
        #expect(m.storage.first?.shape == .functional(a: 12.566, b: 0, c: 0))
        #expect(m.pumps.first?.curve == "PUMP_CURVE1")
        #expect(m.curve(named: "PUMP_CURVE1")?.kind == "PUMP4")
        #expect(m.pattern(named: "DWF")?.factors.count == 24)
        #expect(m.dryWeatherFlows.first?.patterns == ["", "", "DWF", "", "", "", ""])
    }

    @Test("SI units: CMS models convert lengths by 1, US models by 0.3048 m/ft and acres to m²")
    func units() {
        #expect(SWMMFlowUnits.cfs.units.length == 0.3048)
        #expect(abs(SWMMFlowUnits.cfs.cubicMetresPerSecond - 0.0283168) < 1e-7)
        #expect(abs(SWMMFlowUnits.mgd.cubicMetresPerSecond - 0.0438126) < 1e-6)
        #expect(abs(SWMMFlowUnits.gpm.cubicMetresPerSecond - 6.30902e-5) < 1e-9)
        #expect(SWMMFlowUnits.lps.units.landArea == 10_000 && SWMMFlowUnits.lps.units.rainDepth == 0.001)
        #expect(abs(SWMMFlowUnits.cfs.units.landArea - 4046.86) < 0.01)
    }

    @Test("quoted names with spaces survive the writer")
    func quotedTokens() throws {
        let text = """
        [JUNCTIONS]
        "J 1"  10  3
        [OUTFALLS]
        O1  0  FREE  NO
        [CONDUITS]
        C1  "J 1"  O1  100  0.013
        [XSECTIONS]
        C1  CIRCULAR  1  0  0  0  1
        """
        let m = try SWMMModel(parsing: text)
        #expect(m.junctions[0].name == "J 1" && m.conduits[0].fromNode == "J 1")
        #expect(try SWMMModel(parsing: m.inpText()) == m)
    }
}
