import GeoCore

/// The MVT geometry stream: `CommandInteger = id | count << 3` (MoveTo 1, LineTo 2,
/// ClosePath 7) followed by zigzag-encoded deltas from a cursor that starts at (0, 0) per
/// feature and carries across parts.
enum TileGeometryCommands {
    static let moveTo: UInt32 = 1, lineTo: UInt32 = 2, closePath: UInt32 = 7

    @inline(__always) static func command(_ id: UInt32, _ count: Int) -> UInt32 { id | UInt32(count) << 3 }
    @inline(__always) static func zigzag(_ v: Int32) -> UInt32 { UInt32(bitPattern: (v << 1) ^ (v >> 31)) }
    @inline(__always) static func unzigzag(_ z: UInt32) -> Int32 { Int32(bitPattern: z >> 1) ^ -Int32(bitPattern: z & 1) }

    /// The command stream of a tile-space geometry (coordinates rounded to integers). Lines
    /// with fewer than 2 distinct vertices and rings with fewer than 3 are left out; rings are
    /// written as given (orientation is the caller's job) without repeating the first vertex.
    static func encode(_ geometry: Geometry) -> [UInt32] {
        var out: [UInt32] = []
        var cx: Int32 = 0, cy: Int32 = 0
        func coordinate(_ p: Position) -> (Int32, Int32) {
            (Int32(clamping: Int64(p.x.rounded())), Int32(clamping: Int64(p.y.rounded())))
        }
        /// Appends one MoveTo + LineTo (+ ClosePath) part, skipping zero-length steps.
        func part(_ positions: [Position], ring: Bool) {
            var pts: [(Int32, Int32)] = []
            pts.reserveCapacity(positions.count)
            for p in positions {
                let c = coordinate(p)
                if let last = pts.last, last == c { continue }
                pts.append(c)
            }
            if ring, pts.count > 1, pts.first! == pts.last! { pts.removeLast() }
            guard pts.count >= (ring ? 3 : 2) else { return }
            out.append(command(moveTo, 1))
            out.append(zigzag(pts[0].0 &- cx)); out.append(zigzag(pts[0].1 &- cy))
            cx = pts[0].0; cy = pts[0].1
            out.append(command(lineTo, pts.count - 1))
            for p in pts.dropFirst() {
                out.append(zigzag(p.0 &- cx)); out.append(zigzag(p.1 &- cy))
                cx = p.0; cy = p.1
            }
            if ring { out.append(command(closePath, 1)) }
        }
        func points(_ list: [Position]) {
            guard !list.isEmpty else { return }
            out.append(command(moveTo, list.count))
            for p in list {
                let c = coordinate(p)
                out.append(zigzag(c.0 &- cx)); out.append(zigzag(c.1 &- cy))
                cx = c.0; cy = c.1
            }
        }
        func polygon(_ p: Polygon) {
            let before = out.count
            part(p.exterior, ring: true)
            guard out.count > before else { return }   // no exterior: drop the holes too
            for hole in p.interiors { part(hole, ring: true) }
        }
        switch geometry {
        case .point(let p): points(p.position.map { [$0] } ?? [])
        case .multiPoint(let m): points(m.points.compactMap(\.position))
        case .lineString(let l): part(l.positions, ring: false)
        case .multiLineString(let m): for l in m.lineStrings { part(l.positions, ring: false) }
        case .polygon(let p): polygon(p)
        case .multiPolygon(let m): for p in m.polygons { polygon(p) }
        case .geometryCollection: break
        }
        return out
    }


    /// The geometry of a command stream; polygon rings are grouped by orientation (a positive
    /// ring starts a polygon, negative rings are its holes). Rings come back closed.
    /// - Throws: `TileError.malformedTile` naming `context` and the command index.
    static func decode(_ stream: [UInt32], type: TileGeometryType, context: String) throws -> Geometry {
        var cx: Int32 = 0, cy: Int32 = 0
        var parts: [[Position]] = []
        var i = 0
        func fail(_ reason: String) -> TileError { TileError(.malformedTile, "\(context): \(reason) at command \(i)") }
        while i < stream.count {
            let id = stream[i] & 7, count = Int(stream[i] >> 3)
            i += 1
            switch id {
            case moveTo, lineTo:
                guard count > 0 else { throw fail("command with count 0") }
                guard stream.count - i >= 2 * count else { throw fail("command runs past the end of the geometry") }
                if id == lineTo, parts.isEmpty { throw fail("LineTo before MoveTo") }
                for k in 0..<count {
                    cx = cx &+ unzigzag(stream[i]); cy = cy &+ unzigzag(stream[i + 1])
                    i += 2
                    let p = Position(x: Double(cx), y: Double(cy))
                    if id == moveTo && (type != .point || (k == 0 && parts.isEmpty)) {
                        parts.append([p])
                    } else {
                        parts[parts.count - 1].append(p)
                    }
                }
            case closePath:
                guard type == .polygon, let first = parts.last?.first else { throw fail("ClosePath outside a polygon ring") }
                parts[parts.count - 1].append(first)
            default:
                throw fail("unknown command \(id)")
            }
        }
        switch type {
        case .unknown:
            return .geometryCollection(GeometryCollection([]))
        case .point:
            let all = parts.flatMap { $0 }
            return all.count == 1 ? .point(Point(all[0])) : .multiPoint(MultiPoint(all.map { Point($0) }))
        case .lineString:
            for p in parts where p.count < 2 { _ = p; throw fail("line with fewer than 2 vertices") }
            return parts.count == 1 ? .lineString(LineString(parts[0])) : .multiLineString(MultiLineString(parts.map(LineString.init)))
        case .polygon:
            var polygons: [Polygon] = []
            for ring in parts {
                guard ring.count >= 4, ring.first == ring.last else { throw fail("polygon ring without ClosePath or with fewer than 3 vertices") }
                let area = Polygon.doubledSignedArea(ofRing: ring)
                if area > 0 || polygons.isEmpty {
                    polygons.append(Polygon(exterior: ring))
                } else if area < 0 {
                    polygons[polygons.count - 1].interiors.append(ring)
                }
            }
            return polygons.count == 1 ? .polygon(polygons[0]) : .multiPolygon(MultiPolygon(polygons))
        }
    }
}
