/// Where a point lies relative to an area.
public enum PointLocation: Sendable {
    case interior, boundary, exterior
}

/// Point-in-polygon for many points against one polygonal geometry, by ray crossing over an
/// index of the rings' edges in horizontal bands (the method of GEOS's
/// IndexedPointInAreaLocator, with the same vertex and horizontal-edge conventions and an exact
/// orientation test). Built in O(n); each query visits only the edges whose y-range spans the
/// point, found through its band.
///
/// Exists because Debian's GEOS 3.11 has no `GEOSPreparedContainsXY`: its prepared predicates
/// need a GEOS point allocated per test and take the general predicate path. For polygonal
/// geometries `PreparedGeometry`'s point fast paths answer from this locator instead; the
/// differential tests hold it to GEOS's own answers.
struct IndexedPointInArea: Sendable {
    private var x1: [Double] = [], y1: [Double] = [], x2: [Double] = [], y2: [Double] = []
    private var bandStart: [Int32] = []
    private var bandEdges: [Int32] = []
    private let minY: Double
    private let bandHeight: Double
    private let bandCount: Int

    /// `nil` for geometries that are not polygons or multipolygons, or are empty.
    init?(_ geometry: Geometry) {
        var rings: [[Position]] = []
        switch geometry {
        case .polygon(let p): rings = p.rings
        case .multiPolygon(let m): rings = m.polygons.flatMap(\.rings)
        default: return nil
        }
        for ring in rings where ring.count >= 2 {
            for i in 1..<ring.count {
                x1.append(ring[i - 1].x); y1.append(ring[i - 1].y)
                x2.append(ring[i].x); y2.append(ring[i].y)
            }
        }
        guard let env = geometry.envelope, !x1.isEmpty else { return nil }
        minY = env.minY
        bandCount = max(1, min(x1.count / 2, 1 << 14))
        bandHeight = env.height > 0 ? env.height / Double(bandCount) : 1
        // Counting sort of edges into every band their y-range touches (CSR layout).
        var counts = [Int32](repeating: 0, count: bandCount + 1)
        func bands(_ e: Int) -> ClosedRange<Int> {
            let lo = band(of: min(y1[e], y2[e])), hi = band(of: max(y1[e], y2[e]))
            return lo...hi
        }
        for e in x1.indices { for b in bands(e) { counts[b + 1] += 1 } }
        for b in 0..<bandCount { counts[b + 1] += counts[b] }
        bandStart = counts
        bandEdges = [Int32](repeating: 0, count: Int(counts[bandCount]))
        var fill = counts
        for e in x1.indices {
            for b in bands(e) {
                bandEdges[Int(fill[b])] = Int32(e)
                fill[b] += 1
            }
        }
    }

    @inline(__always)
    private func band(of y: Double) -> Int {
        let b = Int(((y - minY) / bandHeight).rounded(.down))
        return Swift.min(Swift.max(b, 0), bandCount - 1)
    }

    /// The location of (x, y); finite inputs only.
    func locate(_ x: Double, _ y: Double) -> PointLocation {
        var crossings = 0
        let b = band(of: y)
        for k in Int(bandStart[b])..<Int(bandStart[b + 1]) {
            let e = Int(bandEdges[k])
            let ax = x1[e], ay = y1[e], bx = x2[e], by = y2[e]
            if ax < x && bx < x { continue }                       // strictly left of the point
            if x == bx && y == by { return .boundary }             // on the edge's end vertex
            if ay == y && by == y {                                 // horizontal edge at the point's y
                if x >= Swift.min(ax, bx) && x <= Swift.max(ax, bx) { return .boundary }
                continue
            }
            // Upward edges include their start and exclude their end; downward the reverse.
            if (ay > y && by <= y) || (by > y && ay <= y) {
                var side = Orientation.of(ax, ay, bx, by, x, y)
                if side == .collinear { return .boundary }
                if by < ay { side = side == .left ? .right : .left }
                if side == .left { crossings += 1 }
            }
        }
        return crossings % 2 == 1 ? .interior : .exterior
    }
}
