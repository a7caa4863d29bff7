@testable import FloodSim
import Foundation
import SWMMFormat
import Testing

/// The geometry tables built from a transect or a shape curve, on shapes whose geometry is known
/// in closed form.
@Suite("Transect and shape-curve geometry tables")
struct SectionProfileTests {
    /// SWMM's hydraulic radius of a transect carries (1.486 / 1.49)^1.5: its Manning constant over
    /// the one its radius formula divides by.
    static let radiusFactor = pow(1.486 / 1.49, 1.5)

    @Test("a rectangular transect with one n has a rectangle's area, width and hydraulic radius")
    func rectangle() throws {
        // A 4 m wide, 2 m deep channel: stations 0, 0, 4, 4 at elevations 2, 0, 0, 2.
        let p = try SectionProfile.transect(stations: [0, 0, 4, 4], elevations: [2, 0, 0, 2], leftN: 0.03, rightN: 0.03,
                                            channelN: 0.03, leftBank: 0, rightBank: 4)
        #expect(abs(p.yFull - 2) < 1e-12)
        #expect(abs(p.aFull - 8) < 1e-9)
        #expect(abs(p.wMax - 4) < 1e-9)
        #expect(abs(p.rFull - Self.radiusFactor * 8 / 8) < 1e-9)
        let x = try SectionGeometry(CrossSection(shape: .irregular, geometry1: p.yFull, profile: p))
        #expect(x.isOpen)
        #expect(abs(x.area(1) - 4) < 1e-9)
        #expect(abs(x.width(1) - 4) < 1e-9)
        #expect(abs(x.width(2.5) - 4) < 1e-9, "an open channel keeps its top width above full")
        #expect(abs(x.hydraulicRadius(1) - Self.radiusFactor * 4 / 6) < 1e-3)
        #expect(abs(x.depth(ofArea: 4) - 1) < 1e-9)
    }

    @Test("rougher overbanks carry less: the same section with n 0.1 on the banks has a smaller radius")
    func overbanks() throws {
        let stations = [0.0, 10, 12, 18, 20, 30], elevations = [3.0, 1.0, 0, 0, 1, 3]
        let smooth = try SectionProfile.transect(stations: stations, elevations: elevations, leftN: 0.03, rightN: 0.03,
                                                 channelN: 0.03, leftBank: 10, rightBank: 20)
        let rough = try SectionProfile.transect(stations: stations, elevations: elevations, leftN: 0.1, rightN: 0.1,
                                                channelN: 0.03, leftBank: 10, rightBank: 20)
        #expect(smooth.aFull == rough.aFull)
        #expect(rough.rFull < 0.95 * smooth.rFull)
        // Below the banks only the channel carries flow: the tables agree there (y/yFull = 0.2).
        #expect(abs(smooth.radius[10] * smooth.rFull - rough.radius[10] * rough.rFull) < 1e-9)
    }

    @Test("a shape curve of constant width is a closed rectangle")
    func customRectangle() throws {
        let p = try SectionProfile.shape(depths: [0, 1], widths: [1.5, 1.5], fullDepth: 2)
        #expect(!p.isOpen)
        #expect(abs(p.aFull - 6) < 1e-9)
        #expect(abs(p.wMax - 3) < 1e-9)
        #expect(abs(p.rFull - 6 / 10) < 1e-9, "the full perimeter closes over the top")
        let x = try SectionGeometry(CrossSection(shape: .custom, geometry1: 2, profile: p))
        #expect(abs(x.area(1) - 3) < 1e-9)
        #expect(abs(x.hydraulicRadius(1) - 3 / 5) < 1e-3)
        #expect(x.width(2) == 0, "a closed shape has no top width at its crown")
    }

    @Test("shape curves and transects SWMM rejects are errors",
          arguments: [([1.2, 1.5], [1.0, 1.0]), ([0.0, 0.5, 0.3], [1.0, 1.0, 1.0]), ([0.0, 1.0], [-1.0, 1.0])])
    func badCurves(depths: [Double], widths: [Double]) {
        #expect(throws: HydraulicsError.self) { try SectionProfile.shape(depths: depths, widths: widths, fullDepth: 1) }
    }

    @Test("a transect's meander modifier shortens the conduit and scales its n as SWMM does")
    func meander() throws {
        let text = """
        [OPTIONS]
        FLOW_UNITS CMS
        FLOW_ROUTING DYNWAVE
        [JUNCTIONS]
        J1 10 5
        [OUTFALLS]
        O1 9 FREE
        [CONDUITS]
        C1 J1 O1 500 0.013
        [XSECTIONS]
        C1 IRREGULAR T1 0 0 0 1
        [TRANSECTS]
        NC 0 0 0.04
        X1 T1 4 0 10 0 0 1.44 2 0.5
        GR 2 0 0 0 0 5 2 5
        """
        let model = try SWMMModel(parsing: text)
        let t = try #require(try model.transects().first)
        let p = t.points(unit: 1)
        #expect(p.stations == [0, 0, 10, 10], "stations × 2")
        #expect(p.elevations == [2.5, 0.5, 0.5, 2.5], "elevations + 0.5")
        #expect(p.leftBank == 0 && p.rightBank == 20, "bank stations × 2")
        let network = try model.hydraulicNetwork()
        guard case .conduit(let c) = try #require(network.links.first).kind else { Issue.record("not a conduit"); return }
        #expect(c.length == 500 && c.meander == 1.44, "the main channel's length, the flood plain's is 500 / 1.44")
        #expect(abs(c.roughness - 0.04 * 1.2) < 1e-12)
        #expect(abs(c.crossSection.geometry1 - 2) < 1e-12)
    }
}
