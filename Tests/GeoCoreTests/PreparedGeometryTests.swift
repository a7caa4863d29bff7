import Testing
@testable import GeoCore

@Suite struct PreparedGeometryTests {
    /// A flood zone with an island (hole) and a concave notch: boundary cases on every side.
    let floodZone = Geometry.polygon(
        [.init(0, 0), .init(20, 0), .init(20, 20), .init(12, 20), .init(12, 8), .init(8, 8), .init(8, 20),
         .init(0, 20), .init(0, 0)],
        holes: [[.init(2, 2), .init(2, 6), .init(6, 6), .init(6, 2), .init(2, 2)]])

    @Test func emptyGeometryContainsNothing() throws {
        let empty = try PreparedGeometry(Empty.polygon)
        #expect(try !empty.contains(x: 0, y: 0))
        #expect(try !empty.intersects(x: 0, y: 0))
        #expect(try empty.contains([Position(0, 0), Position(1, 1)]) == [false, false])
        #expect(try !empty.intersects(Geometry.polygon(squareParcel(0, 0))))
        #expect(try empty.disjoint(Geometry.polygon(squareParcel(0, 0))))
    }

    @Test func pointFastPathsAgreeWithUnpreparedOnAGrid() throws {
        let zone = try PreparedGeometry(floodZone)
        var grid = [Position]()
        // Half-unit steps from -1 to 21: hits vertices, edges, the hole's rim and the outside.
        for i in -2...42 { for j in -2...42 { grid.append(Position(Double(i) / 2, Double(j) / 2)) } }
        let batch = try zone.contains(grid)
        let batchIntersects = try zone.intersects(grid)
        var inside = 0, onBoundary = 0
        for (k, p) in grid.enumerated() {
            let point = Geometry.point(x: p.x, y: p.y)
            let contained = try floodZone.contains(point)
            let touching = try floodZone.intersects(point)
            #expect(try zone.contains(x: p.x, y: p.y) == contained, "\(p)")
            #expect(try zone.intersects(x: p.x, y: p.y) == touching, "\(p)")
            #expect(try zone.contains(point) == contained, "\(p)")
            #expect(batch[k] == contained, "\(p)")
            #expect(batchIntersects[k] == touching, "\(p)")
            if contained { inside += 1 }
            if touching && !contained { onBoundary += 1 }
        }
        // The grid really exercises all three cases.
        #expect(inside > 100 && onBoundary > 50 && inside + onBoundary < grid.count)
        #expect(try !zone.contains(x: 4, y: 4))      // on the island
        #expect(try zone.intersects(x: 2, y: 4))     // on the island's shore
        #expect(try !zone.contains(x: 2, y: 4))
    }

    @Test func geometryPredicatesAgreeWithUnprepared() throws {
        let zone = try PreparedGeometry(floodZone)
        let candidates: [Geometry] = [
            Empty.polygon,
            .polygon(squareParcel(14, 2, size: 4)),                 // inside
            .polygon(squareParcel(3, 3, size: 2)),                  // in the island
            .polygon(squareParcel(18, 18, size: 4)),                // overlapping a corner
            .polygon(squareParcel(20, 0, size: 5)),                 // touching the east edge
            .polygon(squareParcel(-1, -1, size: 30)),               // covering everything
            .lineString([.init(-5, 10), .init(25, 10)]),      // crossing
            .lineString([.init(0, 0), .init(20, 0)]),         // along the south edge
            .point(x: 10, y: 4),
        ]
        for c in candidates {
            #expect(try zone.contains(c) == floodZone.contains(c), "\(c)")
            #expect(try zone.covers(c) == floodZone.covers(c), "\(c)")
            #expect(try zone.coveredBy(c) == floodZone.coveredBy(c), "\(c)")
            #expect(try zone.crosses(c) == floodZone.crosses(c), "\(c)")
            #expect(try zone.disjoint(c) == floodZone.disjoint(c), "\(c)")
            #expect(try zone.intersects(c) == floodZone.intersects(c), "\(c)")
            #expect(try zone.overlaps(c) == floodZone.overlaps(c), "\(c)")
            #expect(try zone.touches(c) == floodZone.touches(c), "\(c)")
            #expect(try zone.within(c) == floodZone.within(c), "\(c)")
        }
        // containsProperly: inside without touching the boundary.
        #expect(try zone.containsProperly(.polygon(squareParcel(14, 2, size: 4))))
        #expect(try !zone.containsProperly(.lineString([.init(14, 0), .init(14, 4)])))
        #expect(try zone.contains(.lineString([.init(14, 0), .init(14, 4)])))
    }

    @Test func keepsTheGeometryItWasBuiltFrom() throws {
        let zone = try PreparedGeometry(floodZone)
        #expect(zone.geometry == floodZone)
        #expect(zone.envelope == Envelope(minX: 0, minY: 0, maxX: 20, maxY: 20))
    }

    @Test func nonFinitePointsAreRejectedWithTheirIndex() throws {
        let zone = try PreparedGeometry(floodZone)
        expectOperationError(.invalidArgument, containing: "not finite") { _ = try zone.contains(x: .nan, y: 1) }
        do {
            _ = try zone.contains([Position(1, 1), Position(.infinity, 1)])
            Issue.record("expected an error")
        } catch let e as GeometryError {
            #expect(e.code == .invalidArgument)
            #expect(e.position == "positions[1]")
        }
    }

    @Test func invalidGeometryCannotBePrepared() {
        let open: [Position] = [.init(0, 0), .init(1, 0), .init(1, 1), .init(0, 1)]
        expectOperationError(.geos, containing: "closed") { _ = try PreparedGeometry(.polygon(open)) }
    }
}
