import GeoCore

/// A terrain tile's triangles (`TerrainPyramid`) in a `LocalFrame`: one vertex per DEM node at its
/// height (ellipsoidal metres, as the buildings stand on it), smooth normals, and a skirt hanging
/// `skirtDepth` metres down from each of the tile's four edges, so where a tile meets a neighbour
/// drawn at another level the gap between their edges (at most the sum of their errors) is closed.
///
/// Feature ids tell the parts apart: 0 the surface (its vertices are DEM nodes), 1 the skirts.
public struct TerrainMesher: Sendable {
    public let pyramid: TerrainPyramid
    public let frame: LocalFrame
    /// The DEM's CRS (the city's metric zone).
    public let crs: CoordinateReferenceSystem
    public let skirtDepth: Double

    /// The feature ids of the surface and the skirts.
    public static let surface: UInt32 = 0, skirt: UInt32 = 1

    /// The mesh of `tile` (empty when every quad has a no-data corner).
    /// - Throws: `GeometryError` when PROJ cannot place a node.
    public func mesh(_ tile: TerrainPyramid.TileID) throws -> TileMesh {
        let (columns, rows) = pyramid.nodes(of: tile)
        let grid = pyramid.grid
        // Nodes with data, placed in the frame.
        var index: [SIMD2<Int>: Int] = [:]
        var geodetic: [Position] = []
        for r in rows {
            for c in columns {
                guard let h = pyramid.height(column: c, row: r) else { continue }
                index[SIMD2(c, r)] = geodetic.count
                let p = grid.cellCenter(column: c, row: r)
                geodetic.append(Position(x: p.x, y: p.y, z: h))
            }
        }
        var xy = geodetic.map(\.xy)
        try CoordinateTransformer.shared(from: crs, to: .cgcs2000).transform(&xy)
        let surface = try frame.local(zip(xy, geodetic).map { Position(x: $0.x, y: $0.y, z: $1.z) })
        let bottom = try frame.local(zip(xy, geodetic).map { Position(x: $0.x, y: $0.y, z: ($1.z ?? 0) - skirtDepth) })

        var mesh = TileMesh()
        var normals = [SIMD3<Double>](repeating: .zero, count: surface.count)
        var triangles: [Int] = []
        func add(_ a: Int, _ b: Int, _ c: Int) {
            triangles += [a, b, c]
            let n = faceNormal(surface[a], surface[b], surface[c])
            for i in [a, b, c] { normals[i] += n }
        }
        for y in rows.indices.dropLast() {
            for x in columns.indices.dropLast() {
                guard let nw = index[SIMD2(columns[x], rows[y])], let ne = index[SIMD2(columns[x + 1], rows[y])],
                      let sw = index[SIMD2(columns[x], rows[y + 1])], let se = index[SIMD2(columns[x + 1], rows[y + 1])] else { continue }
                add(nw, sw, se)
                add(nw, se, ne)
            }
        }
        guard !triangles.isEmpty else { return mesh }
        // Only the nodes a triangle uses become vertices.
        var used = [Int](repeating: -1, count: surface.count)
        for i in triangles where used[i] < 0 {
            used[i] = mesh.positions.count
            let n = normals[i], length = (n * n).sum().squareRoot()
            mesh.positions.append(SIMD3<Float>(surface[i]))
            mesh.normals.append(SIMD3<Float>(length > 0 ? n / length : SIMD3(0, 0, 1)))
            mesh.featureIDs.append(Self.surface)
        }
        mesh.indices = triangles.map { UInt32(used[$0]) }
        // Skirts: along each edge, a wall from every drawn edge segment down by `skirtDepth`,
        // turned to face away from the tile's centre.
        let centre = surface.reduce(SIMD3<Double>.zero, +) / Double(surface.count)
        let edges: [[SIMD2<Int>]] = [columns.map { SIMD2($0, rows[0]) }, columns.map { SIMD2($0, rows[rows.count - 1]) },
                                     rows.map { SIMD2(columns[0], $0) }, rows.map { SIMD2(columns[columns.count - 1], $0) }]
        for edge in edges {
            for k in edge.indices.dropLast() {
                guard let a = index[edge[k]], let b = index[edge[k + 1]], used[a] >= 0, used[b] >= 0 else { continue }
                var quad = [surface[a], surface[b], bottom[b], bottom[a]]
                let outward = (quad[0] + quad[1]) / 2 - centre
                if (faceNormal(quad[0], quad[1], quad[2]) * SIMD3(outward.x, outward.y, 0)).sum() < 0 { quad.reverse() }
                mesh.addFace(quad, normal: faceNormal(quad[0], quad[1], quad[2]), triangles: [0, 1, 2, 0, 2, 3], feature: Self.skirt)
            }
        }
        return mesh
    }
}
