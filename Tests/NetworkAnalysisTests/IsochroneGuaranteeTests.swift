import Foundation
import GeoCore
import Testing
@testable import NetworkAnalysis

/// The raster service-area polygon keeps the promise: it contains every reached road part
/// and no unreached intersection, and it is a valid polygon, on networks built to break it.
@Suite("Service-area polygons keep their guarantees")
struct IsochroneGuaranteeTests {
    /// Checks one area against an independent plain Dijkstra from the same origin.
    func expectGuarantees(_ graph: RoadGraph, from origin: EdgePosition, _ area: ServiceArea,
                          avoiding closures: RoadClosures = .none, _ comment: String) throws {
        let tree = graph.tree(from: origin, closures: closures, plain: true)
        let reached = graph.network.nodes.indices.filter { tree.plainCost[$0] <= area.seconds }
        #expect(area.reachedNodes == reached.count, "\(comment): reached node count")
        if area.roads.lineStrings.isEmpty {
            #expect(area.area.isEmpty, "\(comment): nothing reached, empty area")
            return
        }
        let report = try area.area.validityReason()
        #expect(report.isValid, "\(comment): \(report.reason) at \(String(describing: report.location))")
        let prepared = try PreparedGeometry(area.area)
        #expect(try prepared.covers(.multiLineString(area.roads)), "\(comment): covers the reached roads")
        for line in area.roads.lineStrings {
            for p in line.positions {
                #expect(try prepared.contains(x: p.x, y: p.y), "\(comment): reached vertex \(p) inside")
            }
        }
        for v in reached {
            let u = graph.network.nodes[v]
            #expect(try prepared.contains(x: u.x, y: u.y), "\(comment): reached node \(v) inside")
        }
        let reachedSet = Set(reached)
        let roads = Geometry.multiLineString(area.roads)
        for v in graph.network.nodes.indices where !reachedSet.contains(v) {
            let u = graph.network.nodes[v]
            guard try prepared.intersects(x: u.x, y: u.y) else { continue }
            // Only an unreached node lying on a reached road may stay inside.
            #expect(try roads.distance(to: .point(Point(u))) == 0, "\(comment): unreached node \(v) at \(u) inside")
        }
    }

    /// Two one-way streets 8 m apart in opposite directions, cross streets every 100 m, 10 m/s.
    /// The westbound street is only entered from its far east end, so from the eastbound
    /// street's start none of its intersections is reachable within 90 s, though all lie 8 m
    /// from reached road; and each break ends a partial piece just short of its next node.
    static let parallelStreets: RoadGraph = {
        var lines: [RoadLine] = []
        let xs = stride(from: 0.0, through: 1000, by: 100).map { $0 }
        lines.append(RoadLine(id: "east", coordinates: xs.map { Position(x: $0, y: 0) }, speedKmh: 36, oneway: true))
        lines.append(RoadLine(id: "west", coordinates: xs.reversed().map { Position(x: $0, y: 8) }, speedKmh: 36, oneway: true))
        lines.append(RoadLine(id: "link", coordinates: [Position(x: 1000, y: 0), Position(x: 1000, y: 8)], speedKmh: 36))
        for x in xs.dropFirst().dropLast() {
            lines.append(RoadLine(id: "south\(Int(x))", coordinates: [Position(x: x, y: 0), Position(x: x, y: -300)], speedKmh: 36))
            lines.append(RoadLine(id: "north\(Int(x))", coordinates: [Position(x: x, y: 8), Position(x: x, y: 300)], speedKmh: 36))
        }
        return try! RoadGraph(lines: lines, profile: .driving)
    }()

    /// A jittered 14 × 14 grid with one-way streets (deterministic), as the benchmark city.
    static let jitteredGrid: RoadGraph = {
        var state: UInt64 = 7
        func unit() -> Double {
            state = state &* 6364136223846793005 &+ 1442695040888963407
            return Double(state >> 11) / Double(1 << 53)
        }
        let side = 14
        var p = [Position](repeating: Position(x: 0, y: 0), count: side * side)
        for i in 0..<side { for j in 0..<side {
            p[i * side + j] = Position(x: 500_000 + Double(i) * 60 + (unit() - 0.5) * 30,
                                       y: 3_370_000 + Double(j) * 60 + (unit() - 0.5) * 30)
        } }
        var lines: [RoadLine] = []
        for axis in 0..<2 {
            for a in 0..<side {
                var c = (0..<side).map { k in axis == 0 ? p[a * side + k] : p[k * side + a] }
                if a % 4 == 2 { c.reverse() }
                lines.append(RoadLine(id: "r\(lines.count)", coordinates: c, speedKmh: a % 5 == 0 ? 50 : 30, oneway: a % 4 == 2))
            }
        }
        return try! RoadGraph(lines: lines, profile: .driving)
    }()

    @Test("nothing reachable gives the empty polygon")
    func emptyReach() throws {
        let graph = Self.parallelStreets
        let origin = try #require(graph.snap(Position(x: 50, y: 0)))
        let area = try #require(try graph.serviceAreas(from: origin, breaks: [120], avoiding: RoadClosures(pieces: [origin.piece])).first)
        #expect(area.area.isEmpty)
        #expect(area.roads.lineStrings.isEmpty)
    }

    @Test("unreached intersections 8 m from reached road and just past a partial piece stay outside")
    func parallelOneWays() throws {
        let graph = Self.parallelStreets
        let origin = try #require(graph.snap(Position(x: 0, y: 0)))
        let areas = try graph.serviceAreas(from: origin, breaks: [30, 59.7, 90])
        for a in areas { try expectGuarantees(graph, from: origin, a, "break \(a.seconds)") }
        // The westbound street's intersections really are 8 m from reached road and outside.
        let prepared = try PreparedGeometry(areas[2].area)
        #expect(try !prepared.intersects(x: 300, y: 8))
        #expect(try prepared.contains(x: 300, y: 0))
        // 59.7 s reach 597 m: the node at 600 m is 3 m past the tip and outside.
        #expect(try !PreparedGeometry(areas[1].area).intersects(x: 600, y: 0))
    }

    @Test("coarse and fine cells, walking and driving, on a jittered grid with one-way streets")
    func jitteredGrid() throws {
        for profile in [TravelProfile.driving, .walking] {
            let graph = try RoadGraph(network: Self.jitteredGrid.network, profile: profile)
            let origin = try #require(graph.snap(Position(x: 500_390, y: 3_370_390)))
            for cell in [4.0, 12.5, 25, 40] {
                let areas = try graph.serviceAreas(from: origin, breaks: [20, 45, 90, 400], cellMetres: cell)
                for a in areas { try expectGuarantees(graph, from: origin, a, "\(profile.name) cell \(cell) break \(a.seconds)") }
            }
        }
    }

    @Test("the fixture city's areas keep the guarantees for every case and several breaks")
    func fixtureCity() throws {
        for (k, c) in RoadGridFixture.shared.isochrones.enumerated() {
            let graph = RoadGridFixture.graph(c.profile)
            let origin = try #require(graph.snap(position(c.at)))
            let areas = try graph.serviceAreas(from: origin, breaks: [c.seconds / 2, c.seconds, c.seconds * 2])
            for a in areas { try expectGuarantees(graph, from: origin, a, "case \(k) break \(a.seconds)") }
            #expect(try areas[2].area.covers(.multiLineString(areas[0].roads)), "case \(k) nested roads")
        }
    }

    @Test("closed roads are not reached and their far intersections stay outside")
    func closures() throws {
        let graph = Self.parallelStreets
        let origin = try #require(graph.snap(Position(x: 0, y: 0)))
        let closed = try #require(graph.snap(Position(x: 350, y: 0))).piece
        let closures = RoadClosures(pieces: [closed])
        let area = try #require(try graph.serviceAreas(from: origin, breaks: [90], avoiding: closures).first)
        try expectGuarantees(graph, from: origin, area, avoiding: closures, "closed 300–400 m")
        #expect(try !PreparedGeometry(area.area).intersects(x: 500, y: 0))
        #expect(try !PreparedGeometry(area.area).intersects(x: 400, y: 0))
    }

    @Test("bad cell sizes are refused")
    func badCell() throws {
        let graph = Self.parallelStreets
        let origin = try #require(graph.snap(Position(x: 0, y: 0)))
        #expect(throws: RoadNetworkError.self) { try graph.serviceAreas(from: origin, breaks: [60], cellMetres: 0) }
        #expect(throws: RoadNetworkError.self) { try graph.serviceAreas(from: origin, breaks: [60], cellMetres: .nan) }
    }
}
