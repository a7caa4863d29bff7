import GeoCore
import Testing
@testable import NetworkAnalysis

/// Roads slowed by water (issue 77): a slowed piece's travel time is multiplied by its factor in
/// the plain Dijkstra, the partial first and last pieces and the service area alike, and a
/// detour wins once the slowed way is slower.
@Suite("Slowed roads: travel time factors at query time")
struct SlowedRoadTests {
    /// A–B–C straight east, 1 000 m a piece at 36 km/h (100 s), and a detour A–D–C of two 1 500 m pieces (150 s each).
    static func graph() throws -> RoadGraph {
        let a = Position(x: 0, y: 0), b = Position(x: 1000, y: 0), c = Position(x: 2000, y: 0), d = Position(x: 1000, y: 1118.0339887)
        return try RoadGraph(lines: [
            RoadLine(id: "AB", coordinates: [a, b], speedKmh: 36), RoadLine(id: "BC", coordinates: [b, c], speedKmh: 36),
            RoadLine(id: "AD", coordinates: [a, d], speedKmh: 36), RoadLine(id: "DC", coordinates: [d, c], speedKmh: 36),
        ], profile: .driving)
    }

    static func piece(_ graph: RoadGraph, _ id: String) -> Int {
        graph.network.pieces.firstIndex { graph.network.lines[Int($0.line)].id == id }!
    }

    @Test("a piece slowed ×1.5 costs 150 s, partial pieces pay their share of it, and the detour wins at ×3")
    func factors() throws {
        let graph = try Self.graph()
        let bc = Self.piece(graph, "BC"), ab = Self.piece(graph, "AB")
        let from = try #require(graph.snap(Position(x: 0, y: 0))), to = try #require(graph.snap(Position(x: 2000, y: 0)))
        #expect(abs(try #require(graph.travelTime(from: from, to: to)) - 200) < 1e-6)
        let slow = RoadClosures(slowed: [bc: 1.5])
        #expect(abs(try #require(graph.travelTime(from: from, to: to, avoiding: slow)) - 250) < 1e-6)
        let route = try #require(graph.route(from: from, to: to, avoiding: slow))
        #expect(abs(route.seconds - 250) < 1e-6 && abs(route.metres - 2000) < 1e-6)
        // Mid-AB to mid-BC: 50 s on AB, 75 s on half of BC slowed ×1.5.
        let midAB = graph.network.position(on: ab, nearest: Position(x: 500, y: 0)), midBC = graph.network.position(on: bc, nearest: Position(x: 1500, y: 0))
        #expect(abs(try #require(graph.travelTime(from: midAB, to: midBC, avoiding: slow)) - 125) < 1e-6)
        // ×3: 100 + 300 s through B, 300 s round by D: the detour (3 000 m) is taken, not slower.
        let slower = try #require(graph.route(from: from, to: to, avoiding: RoadClosures(slowed: [bc: 3.5])))
        #expect(abs(slower.seconds - 300) < 1e-3 && slower.metres > 2900)
    }

    @Test("a service area reaches a slowed piece only as far as its slowed time allows")
    func serviceArea() throws {
        let graph = try Self.graph()
        let bc = Self.piece(graph, "BC")
        let from = try #require(graph.snap(Position(x: 0, y: 0)))
        let dry = try #require(try graph.serviceAreas(from: from, breaks: [150]).first)
        let wet = try #require(try graph.serviceAreas(from: from, breaks: [150], avoiding: RoadClosures(slowed: [bc: 2])).first)
        // Dry: AB 1 000 m + 500 m of BC + 1 500 m of AD; slowed ×2: 250 m of BC.
        #expect(abs(dry.reachedMetres - wet.reachedMetres - 250) < 1)
    }
}
