import Foundation
import GeoCore
import Testing
@testable import Tiles

/// The cutter simplifies polygons without GEOS where GEOS's topology-preserving simplifier is
/// plain Douglas–Peucker; these checks hold that path to GEOS's own answer.
@Suite("Polygon simplification without GEOS matches GEOS")
struct TileSimplificationTests {
    private func square(_ side: Double, extraVertexOffset: Double? = nil) -> Polygon {
        var ring = [Position(x: 0, y: 0), Position(x: side, y: 0)]
        if let offset = extraVertexOffset { ring.append(Position(x: side + offset, y: side / 2)) }
        ring += [Position(x: side, y: side), Position(x: 0, y: side), Position(x: 0, y: 0)]
        return Polygon(exterior: ring)
    }

    @Test("an empty polygon stays empty; points and lines are left to GEOS")
    func emptyAndOthers() {
        let empty = Geometry.polygon(Polygon(exterior: []))
        #expect(TileCutter.simplifiedWithoutGEOS(empty, tolerance: 16) == empty)
        #expect(TileCutter.simplifiedWithoutGEOS(.point(x: 1, y: 2), tolerance: 16) == nil)
        #expect(TileCutter.simplifiedWithoutGEOS(.lineString(LineString([Position(x: 0, y: 0), Position(x: 9, y: 9)])), tolerance: 16) == nil)
    }

    @Test("convexity: a square is, a dented square, a collinear vertex and a star are not")
    func convexity() {
        #expect(TileCutter.isStrictlyConvex(square(10).exterior))
        #expect(!TileCutter.isStrictlyConvex(square(10, extraVertexOffset: -2).exterior))
        #expect(!TileCutter.isStrictlyConvex(square(10, extraVertexOffset: 0).exterior))
        var star = (0..<5).map { k in
            let a = 4 * Double.pi * Double(k) / 5
            return Position(x: 100 * cos(a), y: 100 * sin(a))
        }
        star.append(star[0])
        #expect(!TileCutter.isStrictlyConvex(star))
    }

    @Test("a large square is kept whole, as GEOS keeps it")
    func largeSquare() throws {
        let g = Geometry.polygon(square(200))
        #expect(TileCutter.simplifiedWithoutGEOS(g, tolerance: 16) == g)
        #expect(try g.simplifyPreservingTopology(tolerance: 16) == g)
    }

    @Test("a convex vertex within the tolerance of its chord is removed, as GEOS removes it")
    func nearlyStraightVertex() throws {
        let g = Geometry.polygon(square(200, extraVertexOffset: 5))
        #expect(TileCutter.simplifiedWithoutGEOS(g, tolerance: 16) == .polygon(square(200)))
        #expect(try g.simplifyPreservingTopology(tolerance: 16) == .polygon(square(200)))
    }

    @Test("a dent within the tolerance is left to GEOS (a chord could cross the ring)")
    func dent() {
        #expect(TileCutter.simplifiedWithoutGEOS(.polygon(square(200, extraVertexOffset: -5)), tolerance: 16) == nil)
    }

    @Test("whenever GEOS is skipped, the result is GEOS's (3,000 random polygons: convex, dented, with holes)")
    func randomPolygons() throws {
        var seed: UInt64 = 42
        func random() -> Double {
            seed = seed &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            return Double(seed >> 11) / Double(1 << 53)
        }
        func ring(center: Position, radius: Double, vertices: Int, jitter: Double) -> [Position] {
            var r = (0..<vertices).map { k -> Position in
                let a = 2 * Double.pi * Double(k) / Double(vertices)
                let rr = radius * (1 - jitter * random())
                return Position(x: center.x + rr * cos(a), y: center.y + rr * sin(a))
            }
            r.append(r[0])
            return r
        }
        var skipped = 0, simplified = 0
        for _ in 0..<3_000 {
            let c = Position(x: 2000 * random(), y: 2000 * random())
            let radius = 8 + 150 * random()
            let vertices = [4, 5, 8, 12, 24, 48][Int(random() * 6) % 6]
            let jitter = random() < 0.5 ? 0 : 0.4
            var interiors: [[Position]] = []
            if random() < 0.2 { interiors.append(ring(center: c, radius: radius * 0.3, vertices: 6, jitter: 0).reversed()) }
            let g = Geometry.polygon(Polygon(exterior: ring(center: c, radius: radius, vertices: vertices, jitter: jitter), interiors: interiors))
            guard let ours = TileCutter.simplifiedWithoutGEOS(g, tolerance: 16) else { continue }
            skipped += 1
            if ours != g { simplified += 1 }
            #expect(try g.simplifyPreservingTopology(tolerance: 16) == ours)
        }
        // Every outcome occurs in the sample, so the property is not checked vacuously.
        #expect(skipped > 1_000 && skipped < 2_900 && simplified > 300)
    }
}
