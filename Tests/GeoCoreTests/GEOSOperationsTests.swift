import Testing
import Foundation
@testable import GeoCore

@Suite struct PredicateTests {
    let a = Geometry.polygon(squareParcel(0, 0))
    let b = Geometry.polygon(squareParcel(5, 5))          // overlaps a in (5,5)-(10,10)
    let east = Geometry.polygon(squareParcel(10, 0))      // shares a's east edge
    let inner = Geometry.polygon(squareParcel(2, 2, size: 2))

    @Test func emptyGeometryMeetsNothing() throws {
        #expect(try !Empty.polygon.intersects(a))
        #expect(try Empty.polygon.disjoint(a))
        #expect(try !a.contains(Empty.polygon))
        #expect(try !Empty.polygon.within(a))
        #expect(try Empty.polygon.relate(a) == "FFFFFF212")
    }

    @Test func overlappingSquares() throws {
        #expect(try a.intersects(b))
        #expect(try a.overlaps(b))
        #expect(try !a.touches(b))
        #expect(try !a.contains(b))
        #expect(try !a.disjoint(b))
        #expect(try a.relate(b) == "212101212")
    }

    @Test func neighbouringParcelsTouch() throws {
        #expect(try a.touches(east))
        #expect(try a.intersects(east))
        #expect(try !a.overlaps(east))
        #expect(try a.relate(east) == "FF2F11212")
    }

    @Test func buildingInsideParcel() throws {
        #expect(try a.contains(inner))
        #expect(try inner.within(a))
        #expect(try a.covers(inner))
        #expect(try inner.coveredBy(a))
        #expect(try !inner.contains(a))
        #expect(try a.relate(inner, pattern: "T*****FF*"))    // contains
        #expect(try inner.relate(a, pattern: "T*F**F***"))    // within
        #expect(try !a.relate(inner, pattern: "T*F**F***"))
    }

    @Test func pointOnBoundaryIsCoveredNotContained() throws {
        let gate = Geometry.point(x: 10, y: 5)
        #expect(try !a.contains(gate))
        #expect(try a.covers(gate))
        #expect(try gate.coveredBy(a))
        #expect(try a.touches(gate))
        #expect(try !gate.within(a))
    }

    @Test func roadCrossesDistrict() throws {
        let road = Geometry.lineString([.init(-5, 5), .init(15, 5)])
        #expect(try road.crosses(a))
        #expect(try a.crosses(road))
        #expect(try !road.within(a))
    }

    @Test func topologicalAndExactEquality() throws {
        let rotated = Geometry.polygon([.init(10, 0), .init(10, 10), .init(0, 10), .init(0, 0), .init(10, 0)])
        #expect(try a.equals(rotated))
        #expect(try !a.equalsExact(rotated))
        let nudged = Geometry.polygon([.init(0, 0), .init(10.01, 0), .init(10, 10), .init(0, 10), .init(0, 0)])
        #expect(try a.equalsExact(nudged, tolerance: 0.1))
        #expect(try !a.equalsExact(nudged, tolerance: 0.001))
        #expect(try !a.equals(nudged))
    }

    @Test func malformedRelatePatternIsGEOSError() {
        expectOperationError(.geos, containing: "relate pattern") {
            _ = try a.relate(b, pattern: "T*F")
        }
    }
}

@Suite struct OverlayTests {
    let a = Geometry.polygon(squareParcel(0, 0))
    let b = Geometry.polygon(squareParcel(5, 5))

    @Test func withEmptyGeometry() throws {
        #expect(try a.intersection(Empty.polygon).isEmpty)
        #expect(try a.union(Empty.polygon).area == 100)
        #expect(try a.difference(Empty.polygon).area == 100)
        #expect(try Empty.polygon.unaryUnion().isEmpty)
    }

    @Test func overlappingSquares() throws {
        let i = try a.intersection(b)
        #expect(try i.area == 25)
        #expect(i.envelope == Envelope(minX: 5, minY: 5, maxX: 10, maxY: 10))
        #expect(try a.union(b).area == 175)
        #expect(try a.difference(b).area == 75)
        #expect(try b.difference(a).area == 75)
        #expect(try a.symmetricDifference(b).area == 150)
        #expect(try a.symmetricDifference(b).type == .multiPolygon)
    }

    @Test func unaryUnionDissolvesAdjacentBlocks() throws {
        let blocks = Geometry.multiPolygon(MultiPolygon([Polygon(exterior: squareParcel(0, 0)), Polygon(exterior: squareParcel(10, 0))]))
        let district = try blocks.unaryUnion()
        #expect(district.type == .polygon)
        #expect(try district.area == 200)
        #expect(district.envelope == Envelope(minX: 0, minY: 0, maxX: 20, maxY: 10))
    }

    @Test func gridSizeSnapsResultVertices() throws {
        let shifted = Geometry.polygon(squareParcel(5.3, 5.3))
        let floating = try a.intersection(shifted)
        #expect(abs(try floating.area - 4.7 * 4.7) < 1e-9)
        let snapped = try a.intersection(shifted, gridSize: 1)
        snapped.forEachPosition { p in
            #expect(p.x == p.x.rounded() && p.y == p.y.rounded())
        }
        #expect(try snapped.area == 25)
        #expect(try a.union(shifted, gridSize: 1).area == 175)
        #expect(try a.unaryUnion(gridSize: 0.5).area == 100)
    }

    @Test func negativeGridSizeIsRejected() {
        expectOperationError(.invalidArgument, containing: "gridSize") { _ = try a.intersection(b, gridSize: -1) }
    }

    @Test func overlayOfInvalidPolygonsIsTopologyError() {
        // Two bow-ties (self-intersecting at their centre), unioned: GEOS refuses invalid input.
        let bowtie = Geometry.polygon([.init(0, 0), .init(10, 10), .init(10, 0), .init(0, 10), .init(0, 0)])
        let other = Geometry.polygon([.init(0, 0), .init(10, 10), .init(0, 10), .init(10, 0), .init(0, 0)])
        expectOperationError(.geos, containing: "TopologyException") { _ = try bowtie.union(other) }
    }
}

@Suite struct BufferTests {
    @Test func emptyBuffersToEmpty() throws {
        #expect(try Empty.polygon.buffer(distance: 5).isEmpty)
        #expect(try Empty.point.buffer(distance: 5).isEmpty)
    }

    @Test func pointBufferApproximatesCircle() throws {
        // 8 segments per quadrant: a regular 32-gon inscribed in the circle of radius 10.
        let r = 10.0, n = 32.0
        let disc = try Geometry.point(x: 500_000, y: 3_380_000).buffer(distance: r)
        let polygonArea = n / 2 * r * r * sin(2 * .pi / n)
        #expect(abs(try disc.area - polygonArea) < 1e-6)
        #expect(abs(try disc.area - .pi * r * r) < 0.01 * .pi * r * r)
        #expect(disc.positionCount == 33)
        let finer = try Geometry.point(x: 0, y: 0).buffer(distance: r, parameters: .init(quadrantSegments: 32))
        #expect(abs(try finer.area - .pi * r * r) < abs(try disc.area - .pi * r * r))
    }

    @Test func capStylesOfARoadCorridor() throws {
        let road = Geometry.lineString([.init(0, 0), .init(10, 0)])
        #expect(abs(try road.buffer(distance: 2, parameters: .init(capStyle: .flat)).area - 40) < 1e-9)
        #expect(abs(try road.buffer(distance: 2, parameters: .init(capStyle: .square)).area - 56) < 1e-9)
        let round = try road.buffer(distance: 2).area
        #expect(round > 40 && round < 40 + .pi * 4)
    }

    @Test func singleSidedBufferKeepsOneSide() throws {
        let road = Geometry.lineString([.init(0, 0), .init(10, 0)])
        let left = try road.buffer(distance: 2, parameters: .init(capStyle: .flat, singleSided: true))
        #expect(abs(try left.area - 20) < 1e-9)
        #expect(left.envelope == Envelope(minX: 0, minY: 0, maxX: 10, maxY: 2))
        let right = try road.buffer(distance: -2, parameters: .init(capStyle: .flat, singleSided: true))
        #expect(right.envelope == Envelope(minX: 0, minY: -2, maxX: 10, maxY: 0))
    }

    @Test func joinStylesAtACorner() throws {
        let bend = Geometry.lineString([.init(0, 0), .init(10, 0), .init(10, 10)])
        let flat = BufferParameters(capStyle: .flat, joinStyle: .mitre)
        let mitre = try bend.buffer(distance: 1, parameters: flat).area
        var bevelled = flat
        bevelled.joinStyle = .bevel
        let bevel = try bend.buffer(distance: 1, parameters: bevelled).area
        // Mitre fills the outer corner square (1 x 1), bevel only half of it.
        #expect(abs(mitre - 40) < 1e-9)
        #expect(abs(bevel - 39.5) < 1e-9)
    }

    @Test func negativeBufferShrinksParcel() throws {
        #expect(abs(try Geometry.polygon(squareParcel(0, 0)).buffer(distance: -1).area - 64) < 1e-9)
        #expect(try Geometry.polygon(squareParcel(0, 0)).buffer(distance: -6).isEmpty)
    }

    @Test func offsetCurveIsAKerbLine() throws {
        let road = Geometry.lineString([.init(0, 0), .init(10, 0)])
        #expect(try road.offsetCurve(distance: 2) == .lineString([.init(0, 2), .init(10, 2)]))
        let right = try road.offsetCurve(distance: -2)
        #expect(right.envelope == Envelope(minX: 0, minY: -2, maxX: 10, maxY: -2))
    }

    @Test func badParametersAreRejected() {
        let p = Geometry.point(x: 0, y: 0)
        expectOperationError(.invalidArgument, containing: "distance") { _ = try p.buffer(distance: .nan) }
        expectOperationError(.invalidArgument, containing: "quadrantSegments") {
            _ = try p.buffer(distance: 1, parameters: .init(quadrantSegments: 0))
        }
        expectOperationError(.invalidArgument, containing: "mitreLimit") {
            _ = try p.buffer(distance: 1, parameters: .init(mitreLimit: -1))
        }
    }
}

@Suite struct SimplifyAndHullTests {
    let wiggly = Geometry.lineString([.init(0, 0), .init(1, 0.1), .init(2, -0.1), .init(3, 0.1), .init(4, 0)])

    @Test func emptyStaysEmpty() throws {
        #expect(try Empty.lineString.simplify(tolerance: 1).isEmpty)
        #expect(try Empty.polygon.simplifyPreservingTopology(tolerance: 1).isEmpty)
        #expect(try Empty.polygon.convexHull().isEmpty)
    }

    @Test func douglasPeuckerDropsSmallWiggles() throws {
        #expect(try wiggly.simplify(tolerance: 0.5) == .lineString([.init(0, 0), .init(4, 0)]))
        #expect(try wiggly.simplify(tolerance: 0.05) == wiggly)
    }

    @Test func topologyPreservingSimplifyKeepsHoles() throws {
        // A parcel with a courtyard close to its edge: plain DP may drop the shell's detail
        // past the hole; the topology-preserving variant keeps the result valid.
        var shell = [Position]()
        for i in 0...20 { shell.append(.init(Double(i), i % 2 == 0 ? 0 : 0.4)) }
        shell += [.init(20, 10), .init(0, 10), .init(0, 0)]
        let hole: [Position] = [.init(5, 0.6), .init(5, 2), .init(6, 2), .init(6, 0.6), .init(5, 0.6)]
        let parcel = Geometry.polygon(shell, holes: [hole])
        #expect(try parcel.isValid)
        let simplified = try parcel.simplifyPreservingTopology(tolerance: 1)
        #expect(try simplified.isValid)
        #expect(simplified.positionCount < parcel.positionCount)
        guard case .polygon(let p) = simplified else { Issue.record("\(simplified)"); return }
        #expect(p.interiors.count == 1)
    }

    @Test func negativeToleranceIsRejected() {
        expectOperationError(.invalidArgument, containing: "tolerance") { _ = try wiggly.simplify(tolerance: -1) }
    }

    @Test func convexHullOfIncidents() throws {
        let incidents = Geometry.multiPoint(MultiPoint([
            Point(x: 0, y: 0), Point(x: 10, y: 0), Point(x: 10, y: 10), Point(x: 0, y: 10), Point(x: 5, y: 5),
        ]))
        let hull = try incidents.convexHull()
        #expect(hull.type == .polygon)
        #expect(try hull.area == 100)
        #expect(try Geometry.multiPoint(MultiPoint([Point(x: 0, y: 0), Point(x: 1, y: 1)])).convexHull().type == .lineString)
    }

    @Test func concaveHullFollowsAnLShape() throws {
        var points = [Point]()
        for x in 0...10 { for y in 0...10 where x <= 3 || y <= 3 { points.append(Point(x: Double(x), y: Double(y))) } }
        let cloud = Geometry.multiPoint(MultiPoint(points))
        let convex = try cloud.convexHull().area
        // Delaunay edges run from 1 (grid step) to ~9.9 (across the notch): 0.1 keeps the grid's
        // diagonals (1.41) and drops the triangles spanning the notch. The hull is the L
        // (10x3 + 3x7) plus the half cell cut off by the diagonal (3,4)-(4,3) at the inner corner.
        let tight = try cloud.concaveHull(ratio: 0.1).area
        #expect(abs(try cloud.concaveHull(ratio: 1).area - convex) < 1e-9)
        #expect(tight < convex)
        #expect(abs(tight - 51.5) < 1e-9)
        expectOperationError(.invalidArgument, containing: "ratio") { _ = try cloud.concaveHull(ratio: 2) }
    }
}

@Suite struct MeasureTests {
    let parcel = Geometry.polygon(squareParcel(0, 0), holes: [[.init(2, 2), .init(2, 4), .init(4, 4), .init(4, 2), .init(2, 2)]])

    @Test func emptyMeasuresZero() throws {
        #expect(try Empty.polygon.area == 0)
        #expect(try Empty.lineString.length == 0)
        expectOperationError(.invalidArgument, containing: "empty") { _ = try Empty.polygon.distance(to: parcel) }
        expectOperationError(.invalidArgument, containing: "empty") { _ = try parcel.hausdorffDistance(to: Empty.polygon) }
    }

    @Test func areaAndPerimeterOfParcelWithCourtyard() throws {
        #expect(try parcel.area == 96)
        #expect(try parcel.length == 48)
        #expect(try Geometry.lineString([.init(0, 0), .init(3, 4)]).length == 5)
        #expect(try Geometry.point(x: 1, y: 1).area == 0)
    }

    @Test func distances() throws {
        let well = Geometry.point(x: 13, y: 14)
        #expect(try parcel.distance(to: well) == 5)
        #expect(try parcel.distance(to: .point(x: 3, y: 3)) == 1)      // in the courtyard
        #expect(try parcel.distance(to: .point(x: 5, y: 5)) == 0)
        let a = Geometry.lineString([.init(0, 0), .init(10, 0)])
        let b = Geometry.lineString([.init(0, 1), .init(10, 3)])
        #expect(abs(try a.hausdorffDistance(to: b) - 3) < 1e-12)
    }
}

@Suite struct ConstructionTests {
    let a = Geometry.polygon(squareParcel(0, 0))

    @Test func emptyGeometry() throws {
        #expect(try Empty.polygon.centroid() == .point(Point(nil)))
        #expect(try Empty.polygon.pointOnSurface().isEmpty)
        #expect(try Empty.polygon.boundary().isEmpty)
        expectOperationError(.invalidArgument, containing: "empty") { _ = try Empty.polygon.nearestPoints(to: a) }
    }

    @Test func centroidAndLabelPoint() throws {
        #expect(try a.centroid() == .point(x: 5, y: 5))
        // A U-shaped building: its centroid falls in the yard, the label point does not.
        let u = Geometry.polygon([.init(0, 0), .init(10, 0), .init(10, 10), .init(8, 10), .init(8, 2),
                                  .init(2, 2), .init(2, 10), .init(0, 10), .init(0, 0)])
        #expect(try !u.contains(u.centroid()))
        #expect(try u.contains(u.pointOnSurface()))
    }

    @Test func nearestPointsBetweenHydrantAndMain() throws {
        let main = Geometry.lineString([.init(0, 0), .init(10, 0)])
        let (onMain, hydrant) = try main.nearestPoints(to: .point(x: 4, y: 3))
        #expect(onMain == Position(4, 0))
        #expect(hydrant == Position(4, 3))
    }

    @Test func clipToTile() throws {
        let clipped = try a.clipped(to: Envelope(minX: 5, minY: -5, maxX: 15, maxY: 5))
        #expect(try clipped.area == 25)
        #expect(clipped.envelope == Envelope(minX: 5, minY: 0, maxX: 10, maxY: 5))
        #expect(try a.clipped(to: Envelope(minX: 20, minY: 20, maxX: 30, maxY: 30)).isEmpty)
    }

    @Test func boundaryEnvelopeReverseNormalize() throws {
        #expect(try a.boundary() == .lineString(squareParcel(0, 0)))
        #expect(try Geometry.lineString([.init(0, 0), .init(5, 5)]).boundary()
                == .multiPoint(MultiPoint([Point(x: 0, y: 0), Point(x: 5, y: 5)])))
        #expect(try Geometry.lineString([.init(0, 0), .init(5, 2)]).envelopeGeometry()
                == .polygon([.init(0, 0), .init(5, 0), .init(5, 2), .init(0, 2), .init(0, 0)]))
        #expect(try Geometry.lineString([.init(0, 0, 1), .init(5, 2, 2)]).reversed()
                == .lineString([.init(5, 2, 2), .init(0, 0, 1)]))
        // Normal form: shell clockwise from its lowest-left vertex, whatever the input order.
        let rotated = Geometry.polygon([.init(10, 10), .init(0, 10), .init(0, 0), .init(10, 0), .init(10, 10)])
        #expect(try rotated.normalized() == a.normalized())
        #expect(try a.normalized() == .polygon([.init(0, 0), .init(0, 10), .init(10, 10), .init(10, 0), .init(0, 0)]))
    }

    @Test func boundaryOfCollectionIsGEOSError() {
        let mixed = Geometry.geometryCollection(GeometryCollection([.point(x: 0, y: 0), a]))
        expectOperationError(.geos, containing: "boundary") { _ = try mixed.boundary() }
    }

    @Test func polygonizeStreetGrid() throws {
        // Three east-west and three north-south streets: a 2 x 2 grid of blocks once noded.
        var streets = [Geometry]()
        for i in 0...2 {
            let c = Double(i) * 100
            streets.append(.lineString([.init(0, c), .init(200, c)]))
            streets.append(.lineString([.init(c, 0), .init(c, 200)]))
        }
        #expect(try Geometry.polygonize([]) == .geometryCollection(GeometryCollection([])))
        let noded = try Geometry.multiLineString(MultiLineString(streets.compactMap {
            if case .lineString(let l) = $0 { l } else { nil }
        })).unaryUnion()
        let blocks = try Geometry.polygonize([noded])
        guard case .geometryCollection(let c) = blocks else { Issue.record("\(blocks)"); return }
        #expect(c.geometries.count == 4)
        for block in c.geometries {
            #expect(block.type == .polygon)
            #expect(abs(try block.area - 10_000) < 1e-6)
        }
    }

    @Test func polygonizeNamesTheBadLine() {
        let lines: [Geometry] = [.lineString([.init(0, 0), .init(1, 1)]), .lineString([.init(0, 0)])]
        do {
            _ = try Geometry.polygonize(lines)
            Issue.record("expected an error")
        } catch let e as GeometryError {
            #expect(e.position == "lines[1]")
        } catch { Issue.record("\(error)") }
    }
}
