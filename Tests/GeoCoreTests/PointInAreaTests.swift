import Foundation
import Testing
@testable import GeoCore

/// `IndexedPointInArea` (the polygonal fast path of `PreparedGeometry`'s point predicates)
/// must give GEOS's answer for every point: random ones, and the degenerate ones where
/// ray-crossing implementations usually go wrong.
@Suite struct PointInAreaTests {
    /// A wobbly district boundary with a lake hole, plus a detached island: a multipolygon.
    static let district: Geometry = {
        var shell: [Position] = []
        for k in 0..<400 {
            let a = Double(k) / 400 * 2 * .pi
            let r = 1000 + 200 * Foundation.sin(7 * a) + 60 * Foundation.sin(31 * a)
            shell.append(Position((r * Foundation.cos(a) * 1000).rounded() / 1000, (r * Foundation.sin(a) * 1000).rounded() / 1000))
        }
        shell.append(shell[0])
        let lake: [Position] = [.init(-100, -100), .init(-100, 100), .init(100, 100), .init(100, -100), .init(-100, -100)]
        let island: [Position] = [.init(2000, 0), .init(2300, 0), .init(2300, 300), .init(2150, 450), .init(2000, 300), .init(2000, 0)]
        return .multiPolygon(MultiPolygon([Polygon(exterior: shell, interiors: [lake]), Polygon(exterior: island)]))
    }()

    func expectAgreesWithGEOS(_ g: Geometry, _ points: [Position], sourceLocation: SourceLocation = #_sourceLocation) throws {
        let locator = try #require(IndexedPointInArea(g))
        for p in points {
            let point = Geometry.point(x: p.x, y: p.y)
            let expected: PointLocation = try g.contains(point) ? .interior : (try g.intersects(point) ? .boundary : .exterior)
            #expect(locator.locate(p.x, p.y) == expected, "(\(p.x), \(p.y))", sourceLocation: sourceLocation)
        }
    }

    @Test func notPolygonalHasNoLocator() {
        #expect(IndexedPointInArea(.polygon(Polygon(exterior: []))) == nil)
        #expect(IndexedPointInArea(.lineString([.init(0, 0), .init(1, 1)])) == nil)
        #expect(IndexedPointInArea(.point(x: 1, y: 1)) == nil)
    }

    @Test func randomPointsAgreeWithGEOS() throws {
        var rng = SplitMix(seed: 11)
        let pts = (0..<4000).map { _ in Position(-1400 + 3900 * rng.next(), -1400 + 2800 * rng.next()) }
        try expectAgreesWithGEOS(Self.district, pts)
    }

    @Test func verticesAndEdgesAreBoundary() throws {
        guard case .multiPolygon(let m) = Self.district else {
            Issue.record("the district fixture must be a multipolygon")
            return
        }
        var pts: [Position] = []
        for poly in m.polygons { for ring in poly.rings { pts += ring } }
        // Points on the lake's horizontal and vertical edges, and on the island's vertical edge.
        pts += [.init(0, 100), .init(-100, 0), .init(100, -50), .init(2000, 150), .init(2300, 299.5),
                .init(2075, 375)]   // exactly on the diagonal (2000,300)-(2150,450)
        // Points level with vertices (ray passes through a vertex) just left and right of the shape.
        pts += m.polygons[0].exterior.prefix(60).flatMap { [Position($0.x - 1e-7, $0.y), Position($0.x + 1e-7, $0.y)] }
        try expectAgreesWithGEOS(Self.district, pts)
    }

    @Test func exactOrientationOnNearlyCollinearPoints() {
        // Points a hair off the line y = x at large coordinates: the naive cross product errs here.
        // Dyadic coordinates (exact in binary) so the midpoint is exactly on the line.
        let a = (x: 529_300.125, y: 3_385_870.375)
        let d = 1234.5
        let b = (x: a.x + d, y: a.y + d)
        #expect(Orientation.of(a.x, a.y, b.x, b.y, a.x + d / 2, a.y + d / 2) == .collinear)
        #expect(Orientation.of(a.x, a.y, b.x, b.y, a.x + d / 2, (a.y + d / 2).nextUp) == .left)
        #expect(Orientation.of(a.x, a.y, b.x, b.y, a.x + d / 2, (a.y + d / 2).nextDown) == .right)
    }

    @Test func preparedFastPathMatchesGEOSPointPredicates() throws {
        let prepared = try PreparedGeometry(Self.district)
        var rng = SplitMix(seed: 12)
        for _ in 0..<1500 {
            let x = -1400 + 3900 * rng.next(), y = -1400 + 2800 * rng.next()
            let p = Geometry.point(x: x, y: y)
            #expect(try prepared.contains(x: x, y: y) == Self.district.contains(p))
            #expect(try prepared.intersects(x: x, y: y) == Self.district.intersects(p))
        }
    }
}

