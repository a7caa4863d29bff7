import Foundation
import GeoCore
import Testing
@testable import NetworkAnalysis

/// Issue 22 on small hand-made networks (10 m/s driving, so seconds are tenths of metres):
/// a point equally near several roads is reached through the best of them, ties are decided by
/// `RoadAccess.tieMetres` and not by floating-point noise, and an origin on a junction starts
/// from the junction with every road leaving it.
@Suite("Road access: tied roads and origins on junctions")
struct RoadAccessTests {
    static func p(_ x: Double, _ y: Double) -> Position { Position(x: x, y: y) }

    /// A 100 m block whose four sides are separate roads, listed south first, and a long road
    /// leaving its north-east corner eastwards.
    static func block(_ profile: TravelProfile) throws -> RoadGraph {
        try RoadGraph(lines: [
            RoadLine(id: "S", coordinates: [p(0, 0), p(100, 0)], speedKmh: 36),
            RoadLine(id: "E", coordinates: [p(100, 0), p(100, 100)], speedKmh: 36),
            RoadLine(id: "N", coordinates: [p(0, 100), p(100, 100)], speedKmh: 36),
            RoadLine(id: "W", coordinates: [p(0, 0), p(0, 100)], speedKmh: 36),
            RoadLine(id: "X", coordinates: [p(100, 100), p(1000, 100)], speedKmh: 36),
        ], profile: profile)
    }

    /// Junction J at (0, 0): a one-way road leaves it eastwards (listed first, so a tie-break by
    /// order lands on it), a two-way road northwards; the block closes through (100, 100).
    static func junction(_ profile: TravelProfile) throws -> RoadGraph {
        try RoadGraph(lines: [
            RoadLine(id: "oneway-east", coordinates: [p(0, 0), p(100, 0)], speedKmh: 36, oneway: true),
            RoadLine(id: "north", coordinates: [p(0, 0), p(0, 100)], speedKmh: 36),
            RoadLine(id: "east-north", coordinates: [p(100, 0), p(100, 100)], speedKmh: 36),
            RoadLine(id: "north-east", coordinates: [p(0, 100), p(100, 100)], speedKmh: 36),
        ], profile: profile)
    }

    @Test("a point 50 m from four roads meets all four; 4 cm of difference is a tie, 20 cm is not")
    func tiesByTolerance() throws {
        let graph = try Self.block(.driving)
        let centre = try #require(graph.access(to: Self.p(50, 50)))
        #expect(centre.positions.map { graph.network.lines[Int(graph.network.pieces[$0.piece].line)].id } == ["S", "E", "N", "W"])
        #expect(centre.distance == 50)
        let nearlyCentre = try #require(graph.access(to: Self.p(50, 50.02)))
        #expect(nearlyCentre.positions.count == 4)
        #expect(abs(nearlyCentre.distance - 49.98) < 1e-9)
        let offCentre = try #require(graph.access(to: Self.p(50, 50.2)))
        #expect(offCentre.positions.count == 1)
        #expect(graph.network.lines[Int(graph.network.pieces[offCentre.nearest.piece].line)].id == "N")
    }

    @Test("a target equally near four roads is reached through the fastest one, driving and walking",
          arguments: [TravelProfile.driving, .walking])
    func equidistantTarget(profile: TravelProfile) throws {
        let graph = try Self.block(profile)
        let origin = try #require(graph.access(to: Self.p(500, 100)))
        let shelter = try #require(graph.access(to: Self.p(50, 50)))
        let speed = (profile.fixedSpeedKmh ?? 36) / 3.6
        // Through N (400 m along X, then 50 m west) or E (50 m south); through S or W it would be 550 m.
        let seconds = try #require(graph.travelTime(from: origin, to: shelter))
        #expect(abs(seconds - 450 / speed) < 1e-9)
        let route = try #require(graph.route(from: origin, to: shelter))
        #expect(abs(route.metres - 450) < 1e-9)
        #expect([Self.p(50, 100), Self.p(100, 50)].contains(try #require(route.coordinates.last)))
        let nearest = graph.nearest(from: origin, targets: [shelter], count: 1)
        #expect(abs((nearest.first?.seconds ?? -1) - 450 / speed) < 1e-9)
        #expect(abs((graph.travelTimes(from: origin, to: [shelter]).first ?? nil).map { $0 - 450 / speed } ?? 1) < 1e-9)
        // The points themselves, as `route(from:to:)` snaps them.
        #expect(abs((try graph.route(from: Self.p(500, 100), to: Self.p(50, 50))?.metres ?? -1) - 450) < 1e-9)
    }

    @Test("a service area from a point equally near four roads leaves along all of them")
    func equidistantOrigin() throws {
        let graph = try Self.block(.driving)
        let origin = try #require(graph.access(to: Self.p(50, 50)))
        // 5 s = 50 m: from the four mid-sides every corner of the block is reached.
        let area = try #require(try graph.serviceAreas(from: origin, breaks: [5]).first)
        #expect(area.reachedNodes == 4)
        #expect(abs(area.reachedMetres - 400) < 1e-6)
        for corner in [Self.p(0, 0), Self.p(100, 0), Self.p(0, 100), Self.p(100, 100)] {
            #expect(try area.area.intersects(.point(Point(corner))), "corner \(corner)")
        }
    }

    @Test("an origin on a junction whose first road is one-way leaves along every road of the junction",
          arguments: [TravelProfile.driving, .walking])
    func junctionOrigin(profile: TravelProfile) throws {
        let graph = try Self.junction(profile)
        let speed = (profile.fixedSpeedKmh ?? 36) / 3.6
        let j = try #require(graph.access(to: Self.p(0, 0)))
        #expect(j.distance == 0)
        let north = try #require(graph.access(to: Self.p(0, 100)))
        // Straight up the two-way road, not round the block through the one-way street.
        let t = try #require(graph.travelTime(from: j, to: north))
        #expect(abs(t - 100 / speed) < 1e-9)
        // The same as from a point 1 m up the two-way road, within what that metre costs.
        let near = try #require(graph.access(to: Self.p(0, 1)))
        let tNear = try #require(graph.travelTime(from: near, to: north))
        #expect(abs(t - tNear) <= 1 / speed + 1e-9)
        // A caller's own single road position on the one-way piece at the junction does the same.
        let onOneway = EdgePosition(piece: 0, offset: 0, point: Self.p(0, 0))
        #expect(abs((graph.travelTime(from: onOneway, to: north.nearest) ?? -1) - 100 / speed) < 1e-9)
        let route = try #require(graph.route(from: j, to: north))
        #expect(route.coordinates.first == Self.p(0, 0) && route.coordinates.last == Self.p(0, 100))
        #expect(abs(route.metres - 100) < 1e-9)
    }

    @Test("the origin's own junction is reached at 0 s and lies inside every service area from it")
    func junctionReachedAtZero() throws {
        let graph = try Self.junction(.driving)
        let j = try #require(graph.access(to: Self.p(0, 0)))
        // Even a 0 s break reaches the junction the vehicle stands on.
        let areas = try graph.serviceAreas(from: j, breaks: [0, 5, 10])
        #expect(areas.map(\.reachedNodes) == [1, 1, 3])
        for a in areas where !a.area.isEmpty {
            #expect(try a.area.intersects(.point(Point(Self.p(0, 0)))), "break \(a.seconds)")
        }
        // A target standing on the junction is reached at 0 s; a target on the junction at the
        // end of the one-way piece is reached by the fastest way to that junction.
        #expect(graph.travelTime(from: j, to: j) == 0)
        let east = EdgePosition(piece: 0, offset: 100, point: Self.p(100, 0))
        let fromNorth = try #require(graph.access(to: Self.p(100, 100)))
        #expect(abs((graph.travelTime(from: fromNorth, to: RoadAccess(east)) ?? -1) - 10) < 1e-9)
    }

    @Test("with closures, the tied positions on closed roads are left out")
    func closedTies() throws {
        let graph = try Self.block(.driving)
        let closures = RoadClosures(pieces: [2])   // N
        let shelter = try #require(graph.access(to: Self.p(50, 50), avoiding: closures))
        #expect(shelter.positions.count == 3 && !shelter.positions.contains { $0.piece == 2 })
        let origin = try #require(graph.access(to: Self.p(500, 100)))
        // Round by E: 400 + 100 + 50 (S) or + 50 (E's midpoint): E's mid-side is 450 m away too.
        let t = try #require(graph.travelTime(from: origin, to: shelter, avoiding: closures))
        #expect(abs(t - 45) < 1e-9)
    }

    /// `Fixtures/road-access-grid.json` (Scripts/reference/make_road_access_fixtures.py): travel
    /// times networkx gives on a street grid under the same access rules.
    struct Fixture: Decodable {
        struct Line: Decodable { var id: String; var coordinates: [[Double]]; var speed_kmh: Double; var oneway: Bool }
        struct Place: Decodable { var id: String; var position: [Double] }
        var lines: [Line]
        var shelters: [Place]
        var incidents: [Place]
        var ties: [String: Int]
        var seconds: [String: [String: [String: Double?]]]
    }

    @Test("travel times from junctions, streets and blocks to shelters between streets equal networkx's",
          arguments: ["driving", "walking"])
    func networkxReference(profile: String) throws {
        let url = try #require(Bundle.module.url(forResource: "road-access-grid", withExtension: "json", subdirectory: "Fixtures"))
        let fixture = try JSONDecoder().decode(Fixture.self, from: Data(contentsOf: url))
        let lines = fixture.lines.map {
            RoadLine(id: $0.id, coordinates: $0.coordinates.map { Position(x: $0[0], y: $0[1]) }, speedKmh: $0.speed_kmh, oneway: $0.oneway)
        }
        let graph = try RoadGraph(lines: lines, profile: try #require(TravelProfile.named(profile)))
        func access(_ place: Fixture.Place) throws -> RoadAccess {
            let a = try #require(graph.access(to: Position(x: place.position[0], y: place.position[1])))
            #expect(a.positions.count == fixture.ties[place.id], "\(place.id) meets \(a.positions.count) streets")
            return a
        }
        let shelters = try fixture.shelters.map(access)
        var compared = 0
        for incident in fixture.incidents {
            let origin = try access(incident)
            let expected = try #require(fixture.seconds[profile]?[incident.id])
            let times = graph.travelTimes(from: origin, to: shelters)
            for (k, shelter) in fixture.shelters.enumerated() {
                let want = expected[shelter.id] ?? nil
                #expect((times[k] == nil) == (want == nil), "\(incident.id) → \(shelter.id)")
                if let got = times[k], let want {
                    #expect(abs(got - want) < 1e-6, "\(incident.id) → \(shelter.id): \(got) s, networkx \(want) s")
                    compared += 1
                }
            }
        }
        #expect(compared > 200)
    }
}
