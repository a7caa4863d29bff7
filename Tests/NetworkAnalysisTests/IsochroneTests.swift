import GeoCore
import Testing
@testable import NetworkAnalysis

@Suite("Service areas (isochrones)")
struct IsochroneTests {
    @Test("a zero break covers only the origin")
    func zeroBreak() throws {
        let graph = RoadGridFixture.driving
        let origin = try #require(graph.snap(position(RoadGridFixture.shared.isochrones[0].at)))
        let area = try #require(try graph.serviceAreas(from: origin, breaks: [0]).first)
        #expect(try area.area.contains(.point(Point(origin.point))))
        #expect(area.reachedMetres == 0)
    }

    @Test("bad breaks are refused")
    func badBreaks() throws {
        let graph = RoadGridFixture.driving
        let origin = try #require(graph.snap(position(RoadGridFixture.shared.isochrones[0].at)))
        #expect(throws: RoadNetworkError.self) { try graph.serviceAreas(from: origin, breaks: [60, -1]) }
    }

    @Test("each area contains every node networkx reaches and no node it does not")
    func reachability() throws {
        for (k, c) in RoadGridFixture.shared.isochrones.enumerated() {
            let graph = RoadGridFixture.graph(c.profile)
            let origin = try #require(graph.snap(position(c.at)))
            let area = try #require(try graph.serviceAreas(from: origin, breaks: [c.seconds]).first)
            let prepared = try PreparedGeometry(area.area)
            #expect(!c.reachable.isEmpty && !c.unreachable.isEmpty, "case \(k)")
            for p in c.reachable { #expect(try prepared.contains(.point(Point(position(p)))), "case \(k) reachable \(p)") }
            for p in c.unreachable { #expect(try !prepared.intersects(.point(Point(position(p)))), "case \(k) unreachable \(p)") }
            #expect(try area.area.covers(.multiLineString(area.roads)), "case \(k) roads")
        }
    }

    @Test("several breaks nest: a longer break covers the shorter one")
    func nested() throws {
        let graph = RoadGridFixture.walking
        let origin = try #require(graph.snap(position(RoadGridFixture.shared.isochrones[1].at)))
        let areas = try graph.serviceAreas(from: origin, breaks: [600, 300, 900])
        #expect(areas.map(\.seconds) == [300, 600, 900])
        #expect(areas[0].reachedNodes <= areas[1].reachedNodes && areas[1].reachedNodes <= areas[2].reachedNodes)
        #expect(try areas[2].area.covers(.multiLineString(areas[0].roads)))
    }

    @Test("closing every road at the origin leaves nothing reachable")
    func closedOrigin() throws {
        let graph = RoadGridFixture.driving
        let origin = try #require(graph.snap(position(RoadGridFixture.shared.isochrones[0].at)))
        let area = try #require(try graph.serviceAreas(from: origin, breaks: [60], avoiding: RoadClosures(pieces: [origin.piece])).first)
        #expect(area.area.isEmpty)
        #expect(area.reachedNodes == 0)
    }
}
