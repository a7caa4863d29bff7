import GeoCore
import NetworkAnalysis
import Testing
@testable import FireRescue

/// GB 50974-2014 §7.2.4–7.2.5 on small networks whose answers are worked out by hand.
@Suite("Hydrant coverage: 150 m along the streets, 120 m spacing, both sides of wide roads")
struct HydrantCoverageTests {
    /// A 1,000 m east–west street and a 400 m street north from its middle (a T junction at x = 500).
    static func tee(wide: Bool = false) throws -> RoadNetwork {
        try RoadNetwork(lines: [
            RoadLine(id: "main-w", coordinates: [Position(x: 0, y: 0), Position(x: 500, y: 0)], speedKmh: 50),
            RoadLine(id: "main-e", coordinates: [Position(x: 500, y: 0), Position(x: 1000, y: 0)], speedKmh: 50),
            RoadLine(id: "north", coordinates: [Position(x: 500, y: 0), Position(x: 500, y: 400)], speedKmh: 30),
        ])
    }

    static func hydrant(_ id: String, _ x: Double, _ y: Double, working: Bool = true) -> HydrantCoverage.Hydrant {
        HydrantCoverage.Hydrant(id: id, position: Position(x: x, y: y), working: working, reason: working ? nil : "status 待维修")
    }

    @Test("one hydrant at the junction covers 150 m along each of the three streets, not a 150 m circle")
    func alongTheStreets() throws {
        let c = HydrantCoverage.compute(network: try Self.tee(), hydrants: [Self.hydrant("H1", 500, -4)], buildings: [
            ("near", Position(x: 600, y: 20)),          // on main-e, 100 m along: covered
            ("diagonal", Position(x: 620, y: 120)),      // 170 m from the hydrant straight, but on "north" 120 m along: covered
            ("far", Position(x: 690, y: 30)),           // 190 m along main-e: not covered
        ], roadWidths: [:])
        #expect(abs(c.protection.totalMetres - 1400) < 1e-9)
        #expect(abs(c.protection.coveredMetres - 450) < 1e-6, "\(c.protection.coveredMetres)")
        #expect(c.protection.gaps.count == 3)
        #expect(c.uncoveredBuildings.map(\.id) == ["far"])
        #expect(abs(c.uncoveredBuildings[0].metres - 190) < 1e-6)
    }

    @Test("a building farther than 500 m from every street is off the network: listed apart, neither covered nor uncovered")
    func offTheNetwork() throws {
        let c = HydrantCoverage.compute(network: try Self.tee(), hydrants: [Self.hydrant("H1", 500, -4)], buildings: [
            ("yard", Position(x: 0, y: 700)),           // 583 m from "north"'s end, 700 m from main-w: off the network
            ("edge", Position(x: 0, y: 499)),           // 499 m from main-w's start: on it, 499 + 500 m along it
            ("near", Position(x: 600, y: 20)),
        ], roadWidths: [:])
        #expect(HydrantCoverage.maximumBuildingOffset == 500)
        #expect(c.offNetworkBuildings.map(\.id) == ["yard"])
        #expect(abs(c.offNetworkBuildings[0].offset - (500.0 * 500 + 300 * 300).squareRoot()) < 1e-6)
        #expect(c.uncoveredBuildings.map(\.id) == ["edge"], "\(c.uncoveredBuildings)")
        #expect(c.buildingsChecked == 3)
    }

    @Test("hydrants 200 m apart leave spacing gaps of 80 m between them; 120 m apart leave none")
    func spacing() throws {
        let street = try RoadNetwork(lines: [RoadLine(id: "s", coordinates: [Position(x: 0, y: 0), Position(x: 600, y: 0)], speedKmh: 30)])
        let wide = HydrantCoverage.compute(network: street, hydrants: [Self.hydrant("a", 100, 5), Self.hydrant("b", 300, 5), Self.hydrant("c", 500, 5)],
                                           buildings: [], roadWidths: [:])
        // Within 60 m of a hydrant: [40, 160], [240, 360], [440, 560]; gaps [0,40], [160,240], [360,440], [560,600].
        #expect(wide.spacing.gaps.map { ($0.start * 1000).rounded() / 1000 } == [0, 160, 360, 560])
        #expect(abs(wide.spacing.totalMetres - wide.spacing.coveredMetres - 240) < 1e-6)
        let close = HydrantCoverage.compute(network: street, hydrants: stride(from: 60.0, through: 540, by: 120).map { Self.hydrant("h\($0)", $0, 5) },
                                            buildings: [], roadWidths: [:])
        #expect(close.spacing.gaps.isEmpty)
    }

    @Test("a hydrant 待维修 or 80 m off every street does not count")
    func onlyWorkingHydrants() throws {
        let c = HydrantCoverage.compute(network: try Self.tee(), hydrants: [Self.hydrant("broken", 505, 5, working: false),
                                                                           Self.hydrant("yard", 505, 85)], buildings: [], roadWidths: [:])
        // "yard" is 5 m from "north" (x = 500): it counts; move it off the streets and nothing is covered.
        #expect(c.offStreet.isEmpty && c.protection.coveredMetres > 0)
        let off = HydrantCoverage.compute(network: try Self.tee(), hydrants: [Self.hydrant("broken", 505, 5, working: false),
                                                                             Self.hydrant("yard", 700, 80)], buildings: [], roadWidths: [:])
        #expect(off.offStreet == ["yard"])
        #expect(off.protection.coveredMetres == 0 && off.protection.gaps.count == 3)
    }

    @Test("a road wider than 60 m with hydrants on one side only is listed with the side it has")
    func bothSidesOfWideRoads() throws {
        let hydrants = [Self.hydrant("n1", 200, 30), Self.hydrant("n2", 800, 30)]
        let one = HydrantCoverage.compute(network: try Self.tee(), hydrants: hydrants, buildings: [],
                                          roadWidths: ["main-w": 70, "main-e": 70, "north": 20])
        #expect(one.oneSidedWideRoads.map(\.road).sorted() == ["main-e", "main-w"])
        #expect(one.oneSidedWideRoads.allSatisfy { $0.side == "left" })
        let both = HydrantCoverage.compute(network: try Self.tee(), hydrants: hydrants + [Self.hydrant("s1", 250, -30), Self.hydrant("s2", 750, -30)],
                                           buildings: [], roadWidths: ["main-w": 70, "main-e": 70])
        #expect(both.oneSidedWideRoads.isEmpty)
    }
}
