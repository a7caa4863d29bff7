import GeoCore
import Testing
@testable import NetworkAnalysis

@Suite("Nearest resources and travel-time matrices")
struct RoutingNearestTests {
    let graph = RoadGridFixture.driving
    var points: [EdgePosition] {
        RoadGridFixture.shared.routes.compactMap { graph.snap(position($0.to)) }
    }

    @Test("no targets, no answers")
    func noTargets() throws {
        let origin = try #require(graph.snap(position(RoadGridFixture.shared.routes[0].from)))
        #expect(graph.nearest(from: origin, targets: [], count: 3).isEmpty)
        #expect(graph.travelTimes(from: origin, to: []).isEmpty)
    }

    @Test("one-to-many times equal single routes (networkx-checked above)")
    func oneToMany() throws {
        let targets = Array(points.prefix(60))
        for c in RoadGridFixture.shared.routes.prefix(5) {
            let origin = try #require(graph.snap(position(c.from)))
            let times = graph.travelTimes(from: origin, to: targets)
            for (t, target) in zip(times, targets) {
                expectSeconds(t, closeTo: graph.route(from: origin, to: target)?.seconds)
            }
        }
    }

    @Test("a many-to-many matrix holds one row per origin")
    func matrix() throws {
        let origins = Array(points.prefix(4)), targets = Array(points.suffix(7))
        let m = graph.travelTimeMatrix(from: origins, to: targets)
        #expect(m.count == 4 && m.allSatisfy { $0.count == 7 })
        for (i, o) in origins.enumerated() { #expect(m[i] == graph.travelTimes(from: o, to: targets)) }
    }

    @Test("nearest-N returns the N fastest targets with routes that take that long")
    func nearestN() throws {
        let targets = Array(points.prefix(50))
        for c in RoadGridFixture.shared.routes.suffix(8) {
            let origin = try #require(graph.snap(position(c.from)))
            let best = graph.nearest(from: origin, targets: targets, count: 3)
            let times = graph.travelTimes(from: origin, to: targets)
            let expected = times.enumerated().compactMap { i, t in t.map { (i, $0) } }
                .sorted { ($0.1, $0.0) < ($1.1, $1.0) }.prefix(3)
            #expect(best.map(\.index) == expected.map(\.0))
            for b in best {
                let route = try #require(b.route)
                #expect(abs(route.seconds - b.seconds) < 1e-9)
                #expect(route.coordinates.last == targets[b.index].point)
            }
        }
    }
}
