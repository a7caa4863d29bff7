import GeoCore
import Testing
@testable import NetworkAnalysis

@Suite("Snapping query points to road positions")
struct SnappingTests {
    let street = try! RoadGraph(lines: [
        RoadLine(coordinates: [Position(x: 0, y: 0), Position(x: 100, y: 0), Position(x: 100, y: 50)], speedKmh: 36),
    ], profile: .driving)

    @Test("a point snaps to the nearest position on the nearest road, not to a node")
    func snapsOntoEdge() throws {
        let p = try #require(street.snap(Position(x: 40, y: 7)))
        #expect(p.point == Position(x: 40, y: 0))
        #expect(p.offset == 40)
        #expect(p.distance == 7)
        let q = try #require(street.snap(Position(x: 108, y: 30)))
        #expect(q.point == Position(x: 100, y: 30))
        #expect(q.offset == 130)
    }

    @Test("a route starts at the snapped position and pays only the partial road")
    func partialCost() throws {
        let route = try #require(try street.route(from: Position(x: 40, y: 7), to: Position(x: 102, y: 20)))
        #expect(abs(route.metres - 80) < 1e-9)
        #expect(abs(route.seconds - 8) < 1e-9)
        #expect(route.coordinates == [Position(x: 40, y: 0), Position(x: 100, y: 0), Position(x: 100, y: 20)])
    }

    @Test("with closures, a point snaps to the nearest open road")
    func snapAvoidsClosedRoads() throws {
        let graph = RoadGridFixture.driving
        let point = Position(x: RoadGridFixture.shared.routes[0].from[0], y: RoadGridFixture.shared.routes[0].from[1])
        let open = try #require(graph.snap(point))
        let other = try #require(graph.snap(point, avoiding: RoadClosures(pieces: [open.piece])))
        #expect(other.piece != open.piece)
        #expect(other.distance >= open.distance)
    }
}
