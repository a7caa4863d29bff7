/// One tile's triangles in a `LocalFrame` (x east, y north, z up, metres), flat-shaded: each
/// face has its own vertices and normal, and every vertex carries the index of the feature it
/// belongs to (its row in the tile's `PropertyTable`, EXT_mesh_features' feature id).
public struct TileMesh: Sendable, Equatable {
    public var positions: [SIMD3<Float>] = []
    public var normals: [SIMD3<Float>] = []
    public var featureIDs: [UInt32] = []
    /// Triangles, three vertex indices each, counter-clockwise seen from outside.
    public var indices: [UInt32] = []

    public init() {}

    public var isEmpty: Bool { indices.isEmpty }

    /// Adds a triangle fan or strip's vertices: `corners` with one `normal`, `triangles` as
    /// indices into `corners`.
    mutating func addFace(_ corners: [SIMD3<Double>], normal: SIMD3<Double>, triangles: [Int], feature: UInt32) {
        let base = UInt32(positions.count)
        let n = SIMD3<Float>(normal)
        for c in corners {
            positions.append(SIMD3<Float>(c))
            normals.append(n)
            featureIDs.append(feature)
        }
        indices.append(contentsOf: triangles.map { base + UInt32($0) })
    }

    /// The smallest and largest coordinate on each axis (`nil` for an empty mesh).
    public var bounds: (min: SIMD3<Float>, max: SIMD3<Float>)? {
        guard var lo = positions.first else { return nil }
        var hi = lo
        for p in positions {
            lo = pointwiseMin(lo, p)
            hi = pointwiseMax(hi, p)
        }
        return (lo, hi)
    }
}

/// The unit normal of the triangle (a, b, c), counter-clockwise; zero for a degenerate one.
func faceNormal(_ a: SIMD3<Double>, _ b: SIMD3<Double>, _ c: SIMD3<Double>) -> SIMD3<Double> {
    let u = b - a, v = c - a
    let n = SIMD3(u.y * v.z - u.z * v.y, u.z * v.x - u.x * v.z, u.x * v.y - u.y * v.x)
    let length = (n * n).sum().squareRoot()
    return length > 0 ? n / length : .zero
}
