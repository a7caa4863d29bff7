extension Polygon {
    /// Twice the signed area of a ring by the shoelace formula, taken relative to its first
    /// position for numerical stability: positive when the ring runs counter-clockwise with y up
    /// (clockwise on a y-down screen, as an MVT exterior). The same with or without the closing
    /// position; 0 for fewer than three positions. Exact for integer coordinates (tile units)
    /// below 2²⁶.
    public static func doubledSignedArea(ofRing ring: [Position]) -> Double {
        guard let origin = ring.first, ring.count >= 3 else { return 0 }
        var sum = 0.0
        for k in 1..<(ring.count - 1) {
            let a = ring[k], b = ring[k + 1]
            sum += (a.x - origin.x) * (b.y - origin.y) - (b.x - origin.x) * (a.y - origin.y)
        }
        return sum
    }
}

extension Polygon {
    /// The polygon with RFC 7946 §3.1.6 ring orientation: exterior counter-clockwise, holes
    /// clockwise (in x/y order, y up).
    public var rightHandOriented: Polygon {
        var q = self
        if Polygon.doubledSignedArea(ofRing: q.exterior) < 0 { q.exterior.reverse() }
        for i in q.interiors.indices where Polygon.doubledSignedArea(ofRing: q.interiors[i]) > 0 { q.interiors[i].reverse() }
        return q
    }
}

extension Geometry {
    /// The geometry with every polygon oriented by the right-hand rule (`Polygon.rightHandOriented`);
    /// other geometries unchanged.
    public var rightHandOriented: Geometry {
        switch self {
        case .polygon(let p): .polygon(p.rightHandOriented)
        case .multiPolygon(let m): .multiPolygon(MultiPolygon(m.polygons.map(\.rightHandOriented)))
        case .geometryCollection(let c): .geometryCollection(GeometryCollection(c.geometries.map(\.rightHandOriented)))
        default: self
        }
    }
}
