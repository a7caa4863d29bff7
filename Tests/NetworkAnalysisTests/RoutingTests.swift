import Foundation
import GeoCore
import Testing
@testable import NetworkAnalysis

/// The networkx fixture (Scripts/reference/make_network_fixtures.py): a jittered grid city in
/// EPSG:4547 metres with one-way streets, bends, gaps and an elevated road without junctions.
struct RoadGridFixture: Decodable {
    struct Line: Decodable {
        var id: String
        var coordinates: [[Double]]
        var speed_kmh: Double
        var oneway: Bool
        var `class`: String
    }
    struct RouteCase: Decodable { var from: [Double]; var to: [Double]; var profile: String; var seconds: Double? }
    struct ClosureCase: Decodable {
        var from: [Double]; var to: [Double]; var area: [[Double]]; var openSeconds: Double; var seconds: Double?
    }
    struct IsochroneCase: Decodable {
        var at: [Double]; var profile: String; var seconds: Double; var reachable: [[Double]]; var unreachable: [[Double]]
    }
    var lines: [Line]
    var nodeCount: Int
    var pieceCount: Int
    var routes: [RouteCase]
    var closures: [ClosureCase]
    var isochrones: [IsochroneCase]

    static let shared: RoadGridFixture = {
        let url = Bundle.module.url(forResource: "roads-grid", withExtension: "json", subdirectory: "Fixtures")!
        return try! JSONDecoder().decode(RoadGridFixture.self, from: Data(contentsOf: url))
    }()

    var roadLines: [RoadLine] {
        lines.map { RoadLine(id: $0.id, coordinates: $0.coordinates.map { Position(x: $0[0], y: $0[1]) },
                             speedKmh: $0.speed_kmh, oneway: $0.oneway, roadClass: $0.class) }
    }

    static let driving = try! RoadGraph(lines: shared.roadLines, profile: .driving)
    static let walking = try! RoadGraph(lines: shared.roadLines, profile: .walking)
    static func graph(_ profile: String) -> RoadGraph { profile == "walking" ? walking : driving }
}

func position(_ a: [Double]) -> Position { Position(x: a[0], y: a[1]) }

func expectSeconds(_ actual: Double?, closeTo expected: Double?, _ comment: Comment? = nil) {
    if let expected, let actual {
        #expect(abs(actual - expected) <= 1e-6 * max(1, expected), comment)
    } else {
        #expect(actual == nil && expected == nil, comment)
    }
}

@Suite("Routing on a road network")
struct RoutingTests {
    @Test("an empty network has nothing to snap to and refuses routes")
    func emptyNetwork() throws {
        let graph = try RoadGraph(lines: [], profile: .driving)
        #expect(graph.network.nodes.isEmpty)
        #expect(graph.snap(Position(x: 0, y: 0)) == nil)
        #expect(throws: RoadNetworkError.self) { try graph.route(from: Position(x: 0, y: 0), to: Position(x: 1, y: 1)) }
    }

    @Test("bad road lines are refused with the line named")
    func badLines() {
        let tooShort = RoadLine(coordinates: [Position(x: 0, y: 0)], speedKmh: 30)
        #expect { try RoadNetwork(lines: [tooShort]) } throws: { ($0 as? GeometryError)?.position == "lines[0]" }
        let stopped = RoadLine(coordinates: [Position(x: 0, y: 0), Position(x: 10, y: 0)], speedKmh: 0)
        #expect { try RoadNetwork(lines: [stopped, stopped]) } throws: { ($0 as? RoadNetworkError)?.field == "lines[0].speedKmh" }
    }

    @Test("lines split at shared vertices, not at bends or crossings without a vertex")
    func splitting() throws {
        let fixture = RoadGridFixture.shared
        let network = RoadGridFixture.driving.network
        #expect(network.nodes.count == fixture.nodeCount)
        #expect(network.pieces.count == fixture.pieceCount)
    }

    @Test("route times equal networkx for random snapped origin-destination pairs")
    func routesMatchNetworkx() throws {
        for (k, c) in RoadGridFixture.shared.routes.enumerated() {
            let graph = RoadGridFixture.graph(c.profile)
            let route = try graph.route(from: position(c.from), to: position(c.to))
            expectSeconds(route?.seconds, closeTo: c.seconds, "route \(k) (\(c.profile))")
        }
    }

    @Test("route geometry runs from the snapped origin to the snapped target and its length adds up")
    func routeGeometry() throws {
        let graph = RoadGridFixture.driving
        for c in RoadGridFixture.shared.routes.prefix(40) where c.profile == "driving" {
            let a = try #require(graph.snap(position(c.from))), b = try #require(graph.snap(position(c.to)))
            let route = try #require(graph.route(from: a, to: b))
            #expect(route.coordinates.first == a.point)
            #expect(route.coordinates.last == b.point)
            var length = 0.0
            for i in 1..<route.coordinates.count {
                length += hypot(route.coordinates[i].x - route.coordinates[i - 1].x, route.coordinates[i].y - route.coordinates[i - 1].y)
            }
            #expect(abs(length - route.metres) < 1e-6 * max(1, length))
        }
    }

    @Test("a one-way street is driven only in its direction; walkers use it both ways")
    func oneway() throws {
        // A square block: the south side (0,0)→(100,0) is one-way eastbound.
        let p = [Position(x: 0, y: 0), Position(x: 100, y: 0), Position(x: 100, y: 100), Position(x: 0, y: 100)]
        let lines = [
            RoadLine(coordinates: [p[0], p[1]], speedKmh: 36, oneway: true),
            RoadLine(coordinates: [p[1], p[2]], speedKmh: 36),
            RoadLine(coordinates: [p[2], p[3]], speedKmh: 36),
            RoadLine(coordinates: [p[3], p[0]], speedKmh: 36),
        ]
        let driving = try RoadGraph(lines: lines, profile: .driving)
        let east = try #require(try driving.route(from: Position(x: 10, y: -1), to: Position(x: 90, y: -1)))
        #expect(abs(east.seconds - 8) < 1e-9)            // 80 m at 10 m/s
        let west = try #require(try driving.route(from: Position(x: 90, y: -1), to: Position(x: 10, y: -1)))
        #expect(abs(west.seconds - 32) < 1e-9)           // 10 + 100 + 100 + 100 + 10 m around the block
        let walking = try RoadGraph(lines: lines, profile: .walking)
        let walk = try #require(try walking.route(from: Position(x: 90, y: -1), to: Position(x: 10, y: -1)))
        #expect(abs(walk.seconds - 80 / (5 / 3.6)) < 1e-9)
    }
}
