import GeoCore

extension TileMesh {
    /// A footprint extruded to a prism (CIM2's box model of a building): a flat roof at `top`,
    /// walls down to `base`, no floor (it stands on the terrain). Heights are ellipsoidal metres.
    ///
    /// The roof is the footprint's constrained Delaunay triangulation (GEOS, holes left open),
    /// done on the stored longitude/latitude so each triangle corner is found again by its exact
    /// coordinates; every corner is then placed in `frame` at its own height, so the roof follows
    /// the frame exactly even far from its origin.
    /// - Throws: `GeometryError` for a footprint GEOS cannot triangulate or PROJ cannot place.
    mutating func addExtrusion(_ footprint: Polygon, base: Double, top: Double, frame: LocalFrame, feature: UInt32) throws {
        let rings = footprint.rings.map { ring in ring.count > 1 && ring.first == ring.last ? Array(ring.dropLast()) : ring }
            .filter { $0.count >= 3 }
        guard !rings.isEmpty else { return }
        // Roof.
        var corners: [SIMD2<Double>: Int] = [:]
        var roofGeodetic: [Position] = []
        for ring in rings {
            for p in ring where corners[SIMD2(p.x, p.y)] == nil {
                corners[SIMD2(p.x, p.y)] = roofGeodetic.count
                roofGeodetic.append(Position(x: p.x, y: p.y, z: top))
            }
        }
        let roof = try frame.local(roofGeodetic)
        var roofTriangles: [Int] = []
        for triangle in try Geometry.polygon(Polygon(exterior: rings[0] + [rings[0][0]],
                                                     interiors: rings.dropFirst().map { $0 + [$0[0]] })).constrainedDelaunayTriangles() {
            let ids = triangle.prefix(3).compactMap { corners[SIMD2($0.x, $0.y)] }
            guard ids.count == 3 else { continue }
            let n = faceNormal(roof[ids[0]], roof[ids[1]], roof[ids[2]])
            roofTriangles += n.z >= 0 ? ids : [ids[0], ids[2], ids[1]]
        }
        addFace(roof, normal: SIMD3(0, 0, 1), triangles: roofTriangles, feature: feature)
        // Walls: each ring turned so the interior is on its left (exterior counter-clockwise,
        // holes clockwise, seen from above), so (a, b, b up) faces out.
        for (k, ring) in rings.enumerated() {
            let low = try frame.local(ring.map { Position(x: $0.x, y: $0.y, z: base) })
            let high = try frame.local(ring.map { Position(x: $0.x, y: $0.y, z: top) })
            let counterClockwise = signedArea(high) > 0
            let order = counterClockwise == (k == 0) ? Array(ring.indices) : Array(ring.indices.reversed())
            for (i, a) in order.enumerated() {
                let b = order[(i + 1) % order.count]
                let quad = [low[a], low[b], high[b], high[a]]
                addFace(quad, normal: faceNormal(quad[0], quad[1], quad[2]), triangles: [0, 1, 2, 0, 2, 3], feature: feature)
            }
        }
    }
}

/// Twice the signed area of a ring's plan (x, y): positive when counter-clockwise.
private func signedArea(_ ring: [SIMD3<Double>]) -> Double {
    var s = 0.0
    for i in ring.indices {
        let a = ring[i], b = ring[(i + 1) % ring.count]
        s += a.x * b.y - b.x * a.y
    }
    return s
}
