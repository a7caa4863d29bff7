import Foundation
import GeoCore
import Testing
@testable import NetworkAnalysis

/// A 3 × 3 block grid, 100 m blocks, every street a line through three junctions. `H1` (y = 100)
/// and `V1` (x = 100) cross at the centre; `V0` and `H2` (the west and north edges) are fast
/// (72 km/h = 20 m/s), the rest 36 km/h (10 m/s).
private func streetGrid() -> [RoadLine] {
    func street(_ id: String, _ a: (Double, Double), _ b: (Double, Double), _ c: (Double, Double), fast: Bool = false) -> RoadLine {
        RoadLine(id: id, coordinates: [Position(x: a.0, y: a.1), Position(x: b.0, y: b.1), Position(x: c.0, y: c.1)],
                 speedKmh: fast ? 72 : 36)
    }
    return [
        street("H0", (0, 0), (100, 0), (200, 0)),
        street("H1", (0, 100), (100, 100), (200, 100)),
        street("H2", (0, 200), (100, 200), (200, 200), fast: true),
        street("V0", (0, 0), (0, 100), (0, 200), fast: true),
        street("V1", (100, 0), (100, 100), (100, 200)),
        street("V2", (200, 0), (200, 100), (200, 200)),
    ]
}

private let centre = Position(x: 100, y: 100)

private func points(_ route: Route?) -> [[Double]] {
    (route?.coordinates ?? []).map { [($0.x * 1e6).rounded() / 1e6, ($0.y * 1e6).rounded() / 1e6] }
}

/// A one-way approach `E` (eastbound, (0,0) → (100,0)) to junction (100,0); from there `F` runs
/// east to a dead end at (200,0), `G` north to a dead end at (100,150) and `J` south to
/// (100,-100). All 36 km/h (10 m/s).
private func deadEnds() -> [RoadLine] {
    func road(_ id: String, _ c: [(Double, Double)], oneway: Bool = false) -> RoadLine {
        RoadLine(id: id, coordinates: c.map { Position(x: $0.0, y: $0.1) }, speedKmh: 36, oneway: oneway)
    }
    return [
        road("E", [(0, 0), (100, 0)], oneway: true),
        road("F", [(100, 0), (200, 0)]),
        road("G", [(100, 0), (100, 150)]),
        road("J", [(100, 0), (100, -100)]),
    ]
}

@Suite("Turn restrictions at junctions")
struct TurnRestrictionTests {
    @Test("an empty network with restrictions reports them and routes nothing")
    func emptyNetwork() throws {
        let graph = try RoadGraph(lines: [], profile: .driving,
                                  restrictions: [TurnRestriction(fromRoad: "H1", toRoad: "V1", kind: .noLeftTurn)])
        #expect(graph.network.nodes.isEmpty)
        #expect(graph.unresolvedRestrictions.count == 1)
        #expect(graph.unresolvedRestrictions.first?.reason.contains("H1") == true)
    }

    @Test("a forbidden left turn sends the driver round the block on the fast streets")
    func noLeftTurn() throws {
        let open = try RoadGraph(lines: streetGrid(), profile: .driving)
        let from = Position(x: 50, y: 100), to = Position(x: 100, y: 150)
        let direct = try #require(try open.route(from: from, to: to))
        #expect(abs(direct.seconds - 10) < 1e-9)
        #expect(points(direct) == [[50, 100], [100, 100], [100, 150]])

        let restricted = try RoadGraph(lines: streetGrid(), profile: .driving, restrictions: [
            TurnRestriction(id: "T1", fromRoad: "H1", toRoad: "V1", via: centre, kind: .noLeftTurn),
        ])
        #expect(restricted.unresolvedRestrictions.isEmpty)
        let detour = try #require(try restricted.route(from: from, to: to))
        // West 50 m at 10 m/s, V0 north and H2 east 100 m each at 20 m/s, V1 south 50 m at 10 m/s.
        #expect(abs(detour.seconds - 20) < 1e-9)
        #expect(abs(detour.metres - 300) < 1e-9)
        #expect(points(detour) == [[50, 100], [0, 100], [0, 200], [100, 200], [100, 150]])
        // Coming from the east the same turn onto V1 northbound is a right turn: still allowed.
        let fromEast = try #require(try restricted.route(from: Position(x: 150, y: 100), to: to))
        #expect(abs(fromEast.seconds - 10) < 1e-9)
        // The plain Dijkstra on the split graph (the closure path) agrees with the hierarchy.
        let o = try #require(restricted.snap(from)), t = try #require(restricted.snap(to))
        let plain = restricted.tree(from: o, closures: .none, plain: true)
        #expect(abs((restricted.arrival(at: t, from: o, tree: plain, closures: .none)?.seconds ?? -1) - 20) < 1e-9)
        // With V0 north of H1 flooded the closure search (Dijkstra on the split graph) still obeys
        // the ban: the best is a U-turn at a neighbouring junction, 300 m at 10 m/s.
        let flooded = RoadClosures(pieces: [try #require(restricted.snap(Position(x: 0, y: 150))).piece])
        #expect(abs((restricted.travelTime(from: o, to: t, avoiding: flooded) ?? -1) - 30) < 1e-9)
        #expect(abs((open.travelTime(from: o, to: t, avoiding: flooded) ?? -1) - 10) < 1e-9)
    }

    @Test("only straight on forbids the turns and the U-turn, but not going straight")
    func onlyStraightOn() throws {
        let graph = try RoadGraph(lines: streetGrid(), profile: .driving, restrictions: [
            TurnRestriction(fromRoad: "H1", toRoad: "H1", via: centre, kind: .onlyStraightOn),
        ])
        #expect(graph.unresolvedRestrictions.isEmpty)
        let from = Position(x: 50, y: 100)
        // The right turn south: west, V0 south (fast), H0 east, V1 north.
        let south = try #require(try graph.route(from: from, to: Position(x: 100, y: 50)))
        #expect(abs(south.seconds - 25) < 1e-9)
        #expect(points(south) == [[50, 100], [0, 100], [0, 0], [100, 0], [100, 50]])
        // The left turn north: west, V0 north, H2 east (both fast), V1 south.
        let north = try #require(try graph.route(from: from, to: Position(x: 100, y: 150)))
        #expect(abs(north.seconds - 20) < 1e-9)
        // Straight on is untouched.
        let east = try #require(try graph.route(from: from, to: Position(x: 150, y: 100)))
        #expect(abs(east.seconds - 10) < 1e-9)
        #expect(points(east) == [[50, 100], [100, 100], [150, 100]])
        // Traffic arriving on V1 may still turn onto H1.
        let fromSouth = try #require(try graph.route(from: Position(x: 100, y: 50), to: Position(x: 50, y: 100)))
        #expect(abs(fromSouth.seconds - 10) < 1e-9)
    }

    @Test("a U-turn ban at a dead end sends the driver to the next dead end")
    func noUTurn() throws {
        let from = Position(x: 50, y: 0), to = Position(x: 100, y: -50)
        let open = try RoadGraph(lines: deadEnds(), profile: .driving)
        #expect(abs((try open.route(from: from, to: to)?.seconds ?? -1) - 10) < 1e-9)

        // No right turn from E onto J: turn round at F's dead end and come back (a left turn).
        let noRight = TurnRestriction(fromRoad: "E", toRoad: "J", kind: .noRightTurn)
        let turnRound = try RoadGraph(lines: deadEnds(), profile: .driving, restrictions: [noRight])
        let viaF = try #require(try turnRound.route(from: from, to: to))
        #expect(abs(viaF.seconds - 30) < 1e-9)
        #expect(points(viaF) == [[50, 0], [100, 0], [200, 0], [100, 0], [100, -50]])

        // Ban the U-turn at F's dead end too: G's dead end is 50 m further (100 m there and back).
        let banned = try RoadGraph(lines: deadEnds(), profile: .driving, restrictions: [
            noRight, TurnRestriction(fromRoad: "F", toRoad: "F", via: Position(x: 200, y: 0), kind: .noUTurn),
        ])
        #expect(banned.unresolvedRestrictions.isEmpty)
        let viaG = try #require(try banned.route(from: from, to: to))
        #expect(abs(viaG.seconds - 40) < 1e-9)
        #expect(points(viaG) == [[50, 0], [100, 0], [100, 150], [100, 0], [100, -50]])

        // Ban that one as well: J cannot be reached any more.
        let trapped = try RoadGraph(lines: deadEnds(), profile: .driving, restrictions: [
            noRight, TurnRestriction(fromRoad: "F", toRoad: "F", via: Position(x: 200, y: 0), kind: .noUTurn),
            TurnRestriction(fromRoad: "G", toRoad: "G", via: Position(x: 100, y: 150), kind: .noUTurn),
        ])
        #expect(try trapped.route(from: from, to: to) == nil)
    }

    @Test("walkers ignore turn restrictions")
    func walkingUnaffected() throws {
        let restrictions = [
            TurnRestriction(fromRoad: "H1", toRoad: "V1", via: centre, kind: .noLeftTurn),
            TurnRestriction(fromRoad: "H1", toRoad: "H1", via: centre, kind: .onlyStraightOn),
        ]
        let plain = try RoadGraph(lines: streetGrid(), profile: .walking)
        let restricted = try RoadGraph(lines: streetGrid(), profile: .walking, restrictions: restrictions)
        #expect(restricted.arcCount == plain.arcCount)
        for to in [Position(x: 100, y: 150), Position(x: 100, y: 50)] {
            let a = try #require(try plain.route(from: Position(x: 50, y: 100), to: to))
            let b = try #require(try restricted.route(from: Position(x: 50, y: 100), to: to))
            #expect(a == b)
            #expect(abs(b.seconds - 100 / (5 / 3.6)) < 1e-9)
        }
        // Driving with the same restrictions does add junction copies.
        let driving = try RoadGraph(lines: streetGrid(), profile: .driving, restrictions: restrictions)
        #expect(driving.arcCount > (try RoadGraph(lines: streetGrid(), profile: .driving)).arcCount)
    }

    @Test("restrictions that do not match the roads are listed with the reason")
    func unresolved() throws {
        let graph = try RoadGraph(lines: streetGrid(), profile: .driving, restrictions: [
            TurnRestriction(id: "bad-road", fromRoad: "H9", toRoad: "V1", kind: .noLeftTurn),
            TurnRestriction(id: "apart", fromRoad: "H0", toRoad: "H2", kind: .noLeftTurn),
            TurnRestriction(id: "ambiguous", fromRoad: "H1", toRoad: "H1", kind: .noUTurn),
            TurnRestriction(id: "far", fromRoad: "H1", toRoad: "V1", via: Position(x: 300, y: 300), kind: .noLeftTurn),
            TurnRestriction(id: "no-such-turn", fromRoad: "H1", toRoad: "V1", via: centre, kind: .noStraightOn),
            TurnRestriction(id: "ok", fromRoad: "H1", toRoad: "V1", via: centre, kind: .noRightTurn),
        ])
        let reasons = Dictionary(uniqueKeysWithValues: graph.unresolvedRestrictions.map { ($0.restriction.id ?? "", $0.reason) })
        #expect(reasons.count == 5)
        #expect(reasons["bad-road"]?.contains("road H9 is not in the roads layer") == true)
        #expect(reasons["apart"]?.contains("do not meet") == true)
        #expect(reasons["ambiguous"]?.contains("meet at 3 junctions") == true)
        #expect(reasons["far"]?.contains("from the via point") == true)
        #expect(reasons["no-such-turn"]?.contains("no straight-on movement from H1 onto V1") == true)
        #expect(graph.unresolvedRestrictions.map(\.index) == [0, 1, 2, 3, 4])
        // The resolvable one still applies: from (50,100) south onto V1 is a right turn.
        let south = try #require(try graph.route(from: Position(x: 50, y: 100), to: Position(x: 100, y: 50)))
        #expect(south.seconds > 10)
    }

    @Test("service areas map junction copies back to their junction")
    func serviceArea() throws {
        let restricted = try RoadGraph(lines: streetGrid(), profile: .driving, restrictions: [
            TurnRestriction(fromRoad: "H1", toRoad: "V1", via: centre, kind: .noLeftTurn),
        ])
        let origin = try #require(restricted.snap(Position(x: 50, y: 100)))
        let area = try #require(try restricted.serviceAreas(from: origin, breaks: [12], polygons: false).first)
        // Within 12 s: (0,100) and the centre at 5 s; (0,200) and (0,0) via fast V0 at 10 s — 4 of
        // 9 junctions, the centre counted once although it has a copy; the rest take 15 s or more.
        #expect(area.reachedNodes == 4)
        // H1 west piece 100 + east piece 70, V1 south 70, V0 100 + 100, H2 40, H0 20; without the
        // restriction V1 north of the centre adds 70 m.
        #expect(abs(area.reachedMetres - 500) < 1e-6)
        let open = try RoadGraph(lines: streetGrid(), profile: .driving)
        let openArea = try #require(try open.serviceAreas(from: origin, breaks: [12], polygons: false).first)
        #expect(openArea.reachedNodes == 4)
        #expect(abs(openArea.reachedMetres - 570) < 1e-6)
        // The polygon construction also works on the split graph.
        let polygon = try #require(try restricted.serviceAreas(from: origin, breaks: [12]).first)
        #expect(!polygon.area.isEmpty)
    }
}

/// The networkx fixture (Scripts/reference/make_turn_restriction_fixtures.py): a jittered 8 × 8
/// grid, one road per block side, some one-way, with 70 random restrictions.
struct TurnRestrictionFixture: Decodable {
    struct Line: Decodable { var id: String; var coordinates: [[Double]]; var speed_kmh: Double; var oneway: Bool }
    struct Restriction: Decodable { var id: String; var from: String; var to: String; var via: [Double]; var kind: String }
    struct RouteCase: Decodable { var from: [Double]; var to: [Double]; var seconds: Double? }
    var lines: [Line]
    var restrictions: [Restriction]
    var routes: [RouteCase]

    static func load() throws -> TurnRestrictionFixture {
        let url = try #require(Bundle.module.url(forResource: "turn-restrictions-grid", withExtension: "json", subdirectory: "Fixtures"))
        return try JSONDecoder().decode(TurnRestrictionFixture.self, from: Data(contentsOf: url))
    }

    var roadLines: [RoadLine] {
        lines.map { RoadLine(id: $0.id, coordinates: $0.coordinates.map { Position(x: $0[0], y: $0[1]) },
                             speedKmh: $0.speed_kmh, oneway: $0.oneway) }
    }

    func turnRestrictions() throws -> [TurnRestriction] {
        try restrictions.map {
            TurnRestriction(id: $0.id, fromRoad: $0.from, toRoad: $0.to, via: Position(x: $0.via[0], y: $0.via[1]),
                            kind: try #require(TurnRestriction.Kind(rawValue: $0.kind)))
        }
    }
}

@Suite("Turn restrictions against networkx on the edge-based graph")
struct TurnRestrictionReferenceTests {
    @Test("driving times equal networkx's line-graph shortest paths")
    func matchesLineGraph() throws {
        let fixture = try TurnRestrictionFixture.load()
        let graph = try RoadGraph(lines: fixture.roadLines, profile: .driving, restrictions: try fixture.turnRestrictions())
        #expect(graph.unresolvedRestrictions.map(\.reason) == [])
        let open = try RoadGraph(lines: fixture.roadLines, profile: .driving)
        var slower = 0
        for (k, c) in fixture.routes.enumerated() {
            let o = try #require(graph.snap(position(c.from))), t = try #require(graph.snap(position(c.to)))
            #expect(o.distance < 1e-6 && t.distance < 1e-6)
            let got = graph.travelTime(from: o, to: t)
            if let want = c.seconds {
                #expect(abs((got ?? -1) - want) < 1e-6, "route \(k)")
                let route = try #require(graph.route(from: o, to: t))
                #expect(abs(route.seconds - want) < 1e-6)
                if let free = open.travelTime(from: o, to: t), free < want - 1e-6 { slower += 1 }
            } else {
                #expect(got == nil, "route \(k)")
            }
        }
        // The restrictions matter for some of the routes (else this test could not fail).
        #expect(slower > 0)
        // One many-to-many matrix gives the same times as the single queries.
        let origins = try fixture.routes.prefix(8).map { try #require(graph.snap(position($0.from))) }
        let targets = try fixture.routes.prefix(8).map { try #require(graph.snap(position($0.to))) }
        let matrix = graph.travelTimeMatrix(from: origins, to: targets)
        for (i, c) in fixture.routes.prefix(8).enumerated() {
            #expect(matrix[i][i] == nil && c.seconds == nil || abs((matrix[i][i] ?? -1) - (c.seconds ?? -2)) < 1e-6)
        }
    }

    /// A `side` × `side` street grid `spacing` m apart, one road per street (so roads run through
    /// junctions), random speeds and one-way streets, and `count` random turn restrictions.
    static func restrictedGrid(side: Int, spacing: Double, restrictions count: Int, rng: inout SplitMix64) throws -> RoadGraph {
        var lines: [RoadLine] = []
        for i in 0..<side {
            let ys = (0..<side).map { Position(x: Double(i) * spacing, y: Double($0) * spacing) }
            let xs = (0..<side).map { Position(x: Double($0) * spacing, y: Double(i) * spacing) }
            lines.append(RoadLine(id: "V\(i)", coordinates: ys, speedKmh: Double(20 + 10 * rng.integer(0...3)), oneway: i % 4 == 1))
            lines.append(RoadLine(id: "H\(i)", coordinates: xs, speedKmh: Double(20 + 10 * rng.integer(0...3)), oneway: i % 4 == 3))
        }
        let kinds = TurnRestriction.Kind.allCases
        var restrictions: [TurnRestriction] = []
        for _ in 0..<count {
            let i = rng.integer(0...(side - 1)), j = rng.integer(0...(side - 1))
            let via = Position(x: Double(i) * spacing, y: Double(j) * spacing)
            let from = rng.integer(0...1) == 0 ? "V\(i)" : "H\(j)"
            let kind = rng.pick(kinds)
            let to = kind == .noUTurn ? from : (rng.integer(0...1) == 0 ? "V\(i)" : "H\(j)")
            restrictions.append(TurnRestriction(fromRoad: from, toRoad: to, via: via, kind: kind))
        }
        return try RoadGraph(lines: lines, profile: .driving, restrictions: restrictions)
    }

    @Test("nearest sweeps the hierarchy only above its targets (RPHAST) and ranks, times and routes them as a plain Dijkstra does, turn restrictions included")
    func nearestWithSweepSelectionEqualsDijkstra() throws {
        var rng = SplitMix64(seed: 11)
        let graph = try Self.restrictedGrid(side: 12, spacing: 80, restrictions: 80, rng: &rng)
        func snap() throws -> EdgePosition {
            try #require(graph.snap(Position(x: Double(rng.integer(0...879)), y: Double(rng.integer(0...879)))))
        }
        for _ in 0..<30 {
            let targets = try (0..<rng.integer(1...12)).map { _ in RoadAccess(try snap()) }
            let selection = graph.sweepSelection(reaching: targets)
            #expect(selection.count < graph.graphNodeCount || targets.count > 6)
            #expect(zip(selection, selection.dropFirst()).allSatisfy { $0 > $1 })
            for _ in 0..<4 {
                let o = RoadAccess(try snap())
                let plain = graph.tree(from: o.positions, closures: .none, plain: true)
                let expected = targets.enumerated().compactMap { i, t in
                    graph.arrival(at: t.positions, from: o.positions, tree: plain, closures: .none).map { (i, $0.seconds) }
                }.sorted { ($0.1, $0.0) < ($1.1, $1.0) }
                // Its own selection (made in the call) and one made for more targets: the same answer.
                let more = graph.sweepSelection(reaching: targets + (try (0..<5).map { _ in RoadAccess(try snap()) }))
                for found in [graph.nearest(from: o, targets: targets, count: targets.count),
                              graph.nearest(from: o, targets: targets, count: targets.count, sweeping: more)] {
                    #expect(found.count == expected.count)
                    for (f, e) in zip(found, expected) {
                        #expect(abs(f.seconds - e.1) < 1e-9)
                        let route = try #require(f.route)
                        #expect(abs(route.seconds - f.seconds) < 1e-9)
                    }
                }
            }
        }
    }

    @Test("the hierarchy equals a plain Dijkstra on the split graph for random restrictions")
    func hierarchyEqualsDijkstra() throws {
        var rng = SplitMix64(seed: 7)
        let graph = try Self.restrictedGrid(side: 10, spacing: 90, restrictions: 120, rng: &rng)
        #expect(graph.graphNodeCount > graph.network.nodes.count)
        for _ in 0..<40 {
            let o = try #require(graph.snap(Position(x: Double(rng.integer(0...809)), y: Double(rng.integer(0...809)))))
            let fast = graph.tree(from: o, closures: .none)
            let plain = graph.tree(from: o, closures: .none, plain: true)
            for v in 0..<graph.graphNodeCount {
                let a = fast.seconds(to: Int32(v), in: graph), b = plain.seconds(to: Int32(v), in: graph)
                #expect(a == b || abs(a - b) < 1e-9)
            }
            for _ in 0..<5 {
                let t = try #require(graph.snap(Position(x: Double(rng.integer(0...809)), y: Double(rng.integer(0...809)))))
                let a = graph.arrival(at: t, from: o, tree: fast, closures: .none)?.seconds
                let b = graph.arrival(at: t, from: o, tree: plain, closures: .none)?.seconds
                #expect((a == nil) == (b == nil))
                if let a, let b { #expect(abs(a - b) < 1e-9) }
                // The route's pieces join up and its time is the sum of its parts.
                if let r = graph.route(from: o, to: t, tree: fast, closures: .none), let a {
                    #expect(abs(r.seconds - a) < 1e-9)
                }
            }
        }
    }
}
