import Foundation
import GeoCore

extension TileCutter {
    /// GEOS 3.11's topology-preserving simplification (`simplifyPreservingTopology`) of a
    /// polygon, computed here where it is plain Douglas–Peucker, or `nil` when GEOS must decide.
    ///
    /// GEOS's `TaggedLineStringSimplifier` splits each ring at its furthest vertex and flattens a
    /// section only when (a) its furthest vertex lies within the tolerance of the chord, (b) the
    /// ring keeps at least 4 points even in the worst case, and (c) the chord crosses no other
    /// segment. Rings where (a) never holds come back unchanged, whatever their shape; for a
    /// single strictly convex ring (c) always holds, since a chord between vertices of a convex
    /// ring meets it only at its ends. Those two cases, most city parcels at street zooms, skip
    /// the GEOS round trip and its segment index; a distance or tie too close to call also goes
    /// to GEOS.
    static func simplifiedWithoutGEOS(_ g: Geometry, tolerance: Double) -> Geometry? {
        switch g {
        case .polygon(let p):
            if p.interiors.isEmpty, isStrictlyConvex(p.exterior) {
                return douglasPeucker(ring: p.exterior, tolerance: tolerance, flattening: true).map { .polygon(Polygon(exterior: $0)) }
            }
            return keepsEveryVertex(p, tolerance: tolerance) ? g : nil
        case .multiPolygon(let m):
            return m.polygons.allSatisfy { keepsEveryVertex($0, tolerance: tolerance) } ? g : nil
        default:
            return nil
        }
    }

    private static func keepsEveryVertex(_ p: Polygon, tolerance: Double) -> Bool {
        ([p.exterior] + p.interiors).allSatisfy { douglasPeucker(ring: $0, tolerance: tolerance, flattening: false) != nil }
    }

    /// The closed ring as GEOS's `TaggedLineStringSimplifier` leaves it when no chord can cross
    /// another segment; `nil` when a section would be flattened and `flattening` is off, or when
    /// a distance lies within a relative 1e-9 of the tolerance or of another vertex's.
    static func douglasPeucker(ring: [Position], tolerance: Double, flattening: Bool) -> [Position]? {
        guard ring.count >= 2 else { return ring }
        let minimumSize = 4  // GEOS keeps a LinearRing at 4 points or more
        var starts: [Int] = []  // first vertex of each result segment, in order
        var end = 0
        var resultSize: Int { starts.isEmpty ? 0 : starts.count + 1 }
        func simplify(_ i: Int, _ j: Int, depth: Int) -> Bool {
            let depth = depth + 1
            if i + 1 == j {
                starts.append(i); end = j
                return true
            }
            var furthest = i, distance = -1.0, runnerUp = -1.0
            for k in (i + 1)..<j {
                let d = segmentDistance(ring[k], ring[i], ring[j])
                if d > distance { runnerUp = distance; distance = d; furthest = k } else if d > runnerUp { runnerUp = d }
            }
            guard abs(distance - tolerance) > tolerance * 1e-9, distance - runnerUp > distance * 1e-9 else { return false }
            let allowed = !(resultSize < minimumSize && depth + 1 < minimumSize) && distance <= tolerance
            if allowed {
                guard flattening else { return false }
                starts.append(i); end = j
                return true
            }
            return simplify(i, furthest, depth: depth) && simplify(furthest, j, depth: depth)
        }
        guard simplify(0, ring.count - 1, depth: 0) else { return nil }
        return starts.map { ring[$0] } + [ring[end]]
    }

    /// Whether a closed ring turns the same way at every vertex, clearly (the sine of each turn
    /// above 1e-6), and only once around: a convex polygon with no collinear vertices.
    static func isStrictlyConvex(_ ring: [Position]) -> Bool {
        let n = ring.count - 1
        guard n >= 3, ring[0] == ring[n] else { return false }
        var direction = 0.0, turning = 0.0
        for k in 0..<n {
            let a = ring[k], b = ring[(k + 1) % n], c = ring[(k + 2) % n]
            let ux = b.x - a.x, uy = b.y - a.y, vx = c.x - b.x, vy = c.y - b.y
            let cross = ux * vy - uy * vx
            let lengths = (ux * ux + uy * uy).squareRoot() * (vx * vx + vy * vy).squareRoot()
            guard abs(cross) > 1e-6 * lengths, direction == 0 || (cross > 0) == (direction > 0) else { return false }
            direction = cross
            turning += atan2(cross, ux * vx + uy * vy)
        }
        return abs(turning) < 3 * Double.pi  // 2π once around; a star winds 4π or more
    }

    /// Distance from `p` to the segment `a`–`b`, computed as GEOS's `Distance::pointToSegment`.
    private static func segmentDistance(_ p: Position, _ a: Position, _ b: Position) -> Double {
        if a.x == b.x && a.y == b.y { return ((p.x - a.x) * (p.x - a.x) + (p.y - a.y) * (p.y - a.y)).squareRoot() }
        let dx = b.x - a.x, dy = b.y - a.y
        let length2 = dx * dx + dy * dy
        let r = ((p.x - a.x) * dx + (p.y - a.y) * dy) / length2
        if r <= 0 { return ((p.x - a.x) * (p.x - a.x) + (p.y - a.y) * (p.y - a.y)).squareRoot() }
        if r >= 1 { return ((p.x - b.x) * (p.x - b.x) + (p.y - b.y) * (p.y - b.y)).squareRoot() }
        let s = ((a.y - p.y) * dx - (a.x - p.x) * dy) / length2
        return abs(s) * length2.squareRoot()
    }
}
