import GeoCore
import Testing
@testable import NetworkAnalysis

@Suite("Routing around closed roads")
struct RoutingClosureTests {
    @Test("closing the roads in a small area reroutes as networkx does without them")
    func closuresReroute() throws {
        let graph = RoadGridFixture.driving
        for (k, c) in RoadGridFixture.shared.closures.enumerated() {
            let area = Geometry.polygon(Polygon(exterior: c.area.map(position)))
            let closures = try RoadClosures(network: graph.network, intersecting: area)
            #expect(!closures.isEmpty)
            let open = try graph.route(from: position(c.from), to: position(c.to))
            expectSeconds(open?.seconds, closeTo: c.openSeconds, "open route \(k)")
            let detour = try graph.route(from: position(c.from), to: position(c.to), avoiding: closures)
            expectSeconds(detour?.seconds, closeTo: c.seconds, "closed route \(k)")
            if let detour {
                #expect(closures.pieces.isDisjoint(with: detour.pieces))
                #expect(try !Geometry.lineString(LineString(detour.coordinates)).intersects(area))
            }
        }
    }

    @Test("an empty hazard area closes nothing")
    func emptyArea() throws {
        let closures = try RoadClosures(network: RoadGridFixture.driving.network, intersecting: .polygon(Polygon(exterior: [])))
        #expect(closures.isEmpty)
    }
}
