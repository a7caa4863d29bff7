import GeoCore

/// Cuts features' geometries for one tile, the way the reference pipeline says
/// (tiles-and-crs.md §1): project lon/lat into tile units, generalize for the zoom, clip to
/// the tile plus buffer (GEOS clip by rectangle), snap to the integer grid, drop degenerate
/// parts, repair with GEOS make-valid when snapping broke validity, and only then orient the
/// rings for MVT (exterior positive area in y-down tile space, holes negative).
///
/// A cutter is used for one layer of one tile: it remembers which point cells are taken so
/// points thin out across features at low zoom.
public struct TileCutter {
    public let frame: TileFrame
    public let generalization: TileGeneralization
    private var takenPointCells: Set<Int64> = []

    public init(frame: TileFrame, generalization: TileGeneralization) {
        self.frame = frame
        self.generalization = generalization
    }

    /// The geometry in tile units ready to encode, or `nil` when nothing of it is left in
    /// the tile (outside, collapsed, too small, or thinned out). Collections keep their
    /// highest-dimension parts (MVT features have one type). Heights are dropped.
    /// - Throws: `GeometryError` from PROJ or GEOS (not for ordinary degenerate input).
    public mutating func cut(_ lonLat: Geometry) throws -> Geometry? {
        guard !lonLat.isEmpty else { return nil }
        let g = try frame.toTileSpace(lonLat)
        let clip = frame.clipRectangle
        guard let envelope = g.envelope, envelope.intersects(clip) else { return nil }
        let inside = clip.contains(envelope)
        switch g {
        case .point, .multiPoint:
            return cutPoints(g)
        case .lineString, .multiLineString:
            return try cutLines(g, inside: inside)
        case .polygon, .multiPolygon:
            return try cutPolygons(g, inside: inside)
        case .geometryCollection(let c):
            let flat = Self.flatten(c.geometries)
            let polygons = flat.compactMap { if case .polygon(let p) = $0 { p } else { nil } }
            if !polygons.isEmpty { return try cutPolygons(.multiPolygon(MultiPolygon(polygons)), inside: inside) }
            let lines = flat.compactMap { if case .lineString(let l) = $0 { l } else { nil } }
            if !lines.isEmpty { return try cutLines(.multiLineString(MultiLineString(lines)), inside: inside) }
            let points = flat.compactMap { if case .point(let p) = $0 { p } else { nil } }
            return cutPoints(.multiPoint(MultiPoint(points)))
        }
    }

    // MARK: - Points

    private mutating func cutPoints(_ g: Geometry) -> Geometry? {
        let clip = frame.clipRectangle
        let cell = generalization.pointCellSize
        var kept: [Position] = []
        var seen: Set<Position> = []
        g.forEachPosition { p in
            guard clip.contains(p) else { return }
            let q = Position(x: p.x.rounded(), y: p.y.rounded())
            guard seen.insert(q).inserted else { return }
            if cell > 0 {
                let key = Int64((q.x / cell).rounded(.down)) &* 1_000_003 &+ Int64((q.y / cell).rounded(.down))
                guard takenPointCells.insert(key).inserted else { return }
            }
            kept.append(q)
        }
        switch kept.count {
        case 0: return nil
        case 1: return .point(Point(kept[0]))
        default: return .multiPoint(MultiPoint(kept.map { Point($0) }))
        }
    }

    // MARK: - Lines

    private func cutLines(_ g: Geometry, inside: Bool) throws -> Geometry? {
        var work = g
        if generalization.simplifyTolerance > 0 { work = try work.simplify(tolerance: generalization.simplifyTolerance) }
        if !inside { work = try work.clipped(to: frame.clipRectangle) }
        let lines = Self.flatten([work]).compactMap { part -> LineString? in
            guard case .lineString(let l) = part else { return nil }
            let snapped = Self.snap(l.positions)
            return snapped.count >= 2 ? LineString(snapped) : nil
        }
        switch lines.count {
        case 0: return nil
        case 1: return .lineString(lines[0])
        default: return .multiLineString(MultiLineString(lines))
        }
    }

    // MARK: - Polygons

    private func cutPolygons(_ g: Geometry, inside: Bool) throws -> Geometry? {
        var work = g
        let tolerance = generalization.simplifyTolerance
        if tolerance > 0 {
            work = try Self.simplifiedWithoutGEOS(g, tolerance: tolerance) ?? work.simplifyPreservingTopology(tolerance: tolerance)
        }
        if !inside { work = try work.clipped(to: frame.clipRectangle) }
        var polygons = Self.flatten([work]).compactMap { part -> Polygon? in
            guard case .polygon(let p) = part else { return nil }
            return Self.snap(p)
        }
        guard !polygons.isEmpty else { return nil }
        var snapped: Geometry = polygons.count == 1 ? .polygon(polygons[0]) : .multiPolygon(MultiPolygon(polygons))
        if try !snapped.isValid {
            // Snapping made rings touch or cross: repair, then snap-round the repair onto the
            // integer grid (OverlayNG with grid size 1 returns valid integer output).
            snapped = try snapped.makeValid(method: .structure, keepCollapsed: false).unaryUnion(gridSize: 1)
            polygons = Self.flatten([snapped]).compactMap { part -> Polygon? in
                guard case .polygon(let p) = part else { return nil }
                return Self.snap(p)
            }
        }
        polygons = polygons.compactMap { p in
            let oriented = Self.orient(p)
            return Self.area(oriented) >= max(generalization.minimumPolygonArea, Double.leastNonzeroMagnitude) ? oriented : nil
        }
        switch polygons.count {
        case 0: return nil
        case 1: return .polygon(polygons[0])
        default: return .multiPolygon(MultiPolygon(polygons))
        }
    }

    /// Rounds a ring or line to integers and removes consecutive duplicates.
    static func snap(_ positions: [Position]) -> [Position] {
        var out: [Position] = []
        out.reserveCapacity(positions.count)
        for p in positions {
            let q = Position(x: p.x.rounded(), y: p.y.rounded())
            if out.last != q { out.append(q) }
        }
        return out
    }

    /// A snapped closed ring, or `nil` when fewer than 3 distinct vertices or no area remain.
    static func snapRing(_ ring: [Position]) -> [Position]? {
        var r = snap(ring)
        if r.count > 1, r.first == r.last { r.removeLast() }
        guard r.count >= 3, Polygon.doubledSignedArea(ofRing: r) != 0 else { return nil }
        r.append(r[0])
        return r
    }

    /// A snapped polygon: `nil` when its exterior collapses; collapsed holes are dropped.
    static func snap(_ p: Polygon) -> Polygon? {
        guard let exterior = snapRing(p.exterior) else { return nil }
        return Polygon(exterior: exterior, interiors: p.interiors.compactMap(snapRing))
    }

    /// The polygon with its exterior of positive and its holes of negative signed area in
    /// y-down tile units (MVT 2.1 §4.3.4.4), whatever the input's orientation.
    static func orient(_ p: Polygon) -> Polygon {
        func oriented(_ ring: [Position], positive: Bool) -> [Position] {
            (Polygon.doubledSignedArea(ofRing: ring) > 0) == positive ? ring : ring.reversed()
        }
        return Polygon(exterior: oriented(p.exterior, positive: true), interiors: p.interiors.map { oriented($0, positive: false) })
    }

    /// Area of a polygon in square tile units (exterior minus holes).
    static func area(_ p: Polygon) -> Double {
        (abs(Polygon.doubledSignedArea(ofRing: p.exterior)) - p.interiors.reduce(0) { $0 + abs(Polygon.doubledSignedArea(ofRing: $1)) }) / 2
    }

    /// Single parts (points, lines, polygons) of nested collections and multi-geometries.
    static func flatten(_ geometries: [Geometry]) -> [Geometry] {
        var out: [Geometry] = []
        for g in geometries {
            switch g {
            case .point, .lineString, .polygon: out.append(g)
            case .multiPoint(let m): out += m.points.map(Geometry.point)
            case .multiLineString(let m): out += m.lineStrings.map(Geometry.lineString)
            case .multiPolygon(let m): out += m.polygons.map(Geometry.polygon)
            case .geometryCollection(let c): out += flatten(c.geometries)
            }
        }
        return out
    }
}
