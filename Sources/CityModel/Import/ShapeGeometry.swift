import Foundation
import GeoCore

/// Decodes one `.shp` record's content (ESRI Shapefile Technical Description, 1998): Null,
/// Point, PolyLine, Polygon, MultiPoint and their Z and M variants (M values are dropped).
///
/// Polygon rings come as a flat list: clockwise rings are exteriors, counter-clockwise rings are
/// holes of the exterior that contains them. Output rings follow RFC 7946 (exteriors
/// counter-clockwise, holes clockwise), as the GeoJSON codec writes them.
enum ShapeGeometry {
    /// The geometry of a record, `nil` for a Null shape.
    static func decode(_ r: BinaryRecord, at start: Int, length: Int) throws(BinaryRecord.Truncated) -> Geometry? {
        let type = try r.int32LE(start)
        switch type {
        case 0: return nil
        case 1, 11, 21:
            let x = try r.doubleLE(start + 4), y = try r.doubleLE(start + 12)
            let z: Double? = type == 11 ? try r.doubleLE(start + 20) : nil
            return .point(x: x, y: y, z: z)
        case 8, 18, 28:
            let n = Int(try r.int32LE(start + 36))
            guard n >= 0, n <= length / 16 else { throw BinaryRecord.Truncated(offset: start + 36, needed: n * 16) }
            let zs = type == 18 ? try heights(r, at: start + 40 + 16 * n + 16, count: n) : nil
            var points: [Point] = []
            points.reserveCapacity(n)
            for i in 0..<n {
                points.append(Point(x: try r.doubleLE(start + 40 + 16 * i), y: try r.doubleLE(start + 48 + 16 * i), z: zs?[i]))
            }
            return .multiPoint(MultiPoint(points))
        case 3, 13, 23, 5, 15, 25:
            let parts = Int(try r.int32LE(start + 36)), n = Int(try r.int32LE(start + 40))
            guard parts >= 0, n >= 0, parts <= length / 4, n <= length / 16 else {
                throw BinaryRecord.Truncated(offset: start + 36, needed: n * 16)
            }
            let pointsAt = start + 44 + 4 * parts
            let zs = (type == 13 || type == 15) ? try heights(r, at: pointsAt + 16 * n + 16, count: n) : nil
            var starts: [Int] = []
            for p in 0..<parts { starts.append(Int(try r.int32LE(start + 44 + 4 * p))) }
            var lines: [[Position]] = []
            for p in 0..<parts {
                let from = starts[p], to = p + 1 < parts ? starts[p + 1] : n
                guard from >= 0, from <= to, to <= n else { throw BinaryRecord.Truncated(offset: start + 44 + 4 * p, needed: 4) }
                var ring: [Position] = []
                ring.reserveCapacity(to - from)
                for i in from..<to {
                    ring.append(Position(x: try r.doubleLE(pointsAt + 16 * i), y: try r.doubleLE(pointsAt + 16 * i + 8), z: zs?[i]))
                }
                lines.append(ring)
            }
            if type == 3 || type == 13 || type == 23 {
                return lines.count == 1 ? .lineString(lines[0]) : .multiLineString(MultiLineString(lines.map(LineString.init)))
            }
            return polygon(rings: lines)
        default:
            throw BinaryRecord.Truncated(offset: start, needed: -Int(type))   // unknown type: reported by the caller
        }
    }

    private static func heights(_ r: BinaryRecord, at offset: Int, count: Int) throws(BinaryRecord.Truncated) -> [Double] {
        var zs: [Double] = []
        zs.reserveCapacity(count)
        for i in 0..<count { zs.append(try r.doubleLE(offset + 8 * i)) }
        return zs
    }

    /// Twice the signed area (positive counter-clockwise) of a closed ring.
    static func signedArea(_ ring: [Position]) -> Double {
        guard ring.count > 2 else { return 0 }
        var s = 0.0
        for i in 0..<(ring.count - 1) { s += ring[i].x * ring[i + 1].y - ring[i + 1].x * ring[i].y }
        return s
    }

    /// Whether `p` lies inside `ring` (even-odd rule).
    static func contains(_ ring: [Position], _ p: Position) -> Bool {
        var inside = false
        var j = ring.count - 1
        for i in 0..<ring.count {
            let a = ring[i], b = ring[j]
            if (a.y > p.y) != (b.y > p.y), p.x < (b.x - a.x) * (p.y - a.y) / (b.y - a.y) + a.x { inside.toggle() }
            j = i
        }
        return inside
    }

    /// Groups rings into polygons: clockwise rings start polygons, counter-clockwise rings become
    /// holes of the first exterior containing them (or exteriors themselves when none does).
    static func polygon(rings: [[Position]]) -> Geometry {
        var exteriors: [[Position]] = []
        var holes: [[[Position]]] = []
        var orphans: [[Position]] = []
        for ring in rings {
            if signedArea(ring) <= 0 {
                exteriors.append(Array(ring.reversed()))      // clockwise in the file → CCW
                holes.append([])
            } else {
                orphans.append(ring)
            }
        }
        for hole in orphans {
            if let probe = hole.first, let k = exteriors.firstIndex(where: { contains($0, probe) }) {
                holes[k].append(Array(hole.reversed()))       // CCW in the file → CW
            } else {
                exteriors.append(hole)                         // a lone CCW ring: already an RFC 7946 exterior
                holes.append([])
            }
        }
        let polygons = zip(exteriors, holes).map { Polygon(exterior: $0, interiors: $1) }
        return polygons.count == 1 ? .polygon(polygons[0]) : .multiPolygon(MultiPolygon(polygons))
    }
}
