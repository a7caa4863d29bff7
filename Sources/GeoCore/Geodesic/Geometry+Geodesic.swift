import CPROJ

/// Geodesic measures: lengths and areas on the ellipsoid for longitude/latitude geometries
/// (EPSG:4490 storage coordinates), with Karney's algorithms from PROJ's `geodesic.h`.
/// Named "geodesic" so callers say which metric they mean; planar measures (in the units of a
/// projected CRS such as EPSG:4547) are a different operation.
extension Geometry {
    /// The geodesic length in metres: the sum of the geodesic lengths of every segment of every
    /// line; for polygons the perimeter of all rings (exterior and holes); 0 for points.
    /// - Throws: `GeometryError` `.invalidArgument` naming the first position (index in storage
    ///   order) that is not a finite longitude/latitude.
    public func geodesicLength(ellipsoid: Ellipsoid = .cgcs2000) throws -> Double {
        var total = 0.0
        var index = 0
        try withUnsafePointer(to: ellipsoid.geodesic) { g in
            func path(_ positions: [Position]) throws {
                guard var previous = positions.first else { return }
                try previous.checkGeographic(index: index)
                index += 1
                for p in positions.dropFirst() {
                    try p.checkGeographic(index: index)
                    index += 1
                    var s = 0.0
                    geod_inverse(g, previous.y, previous.x, p.y, p.x, &s, nil, nil)
                    total += s
                    previous = p
                }
            }
            func visit(_ geometry: Geometry) throws {
                switch geometry {
                case .point(let p):
                    if let q = p.position { try q.checkGeographic(index: index); index += 1 }
                case .multiPoint(let m):
                    for p in m.points { if let q = p.position { try q.checkGeographic(index: index); index += 1 } }
                case .lineString(let l): try path(l.positions)
                case .multiLineString(let m): for l in m.lineStrings { try path(l.positions) }
                case .polygon(let p): for r in p.rings { try path(r) }
                case .multiPolygon(let m): for p in m.polygons { for r in p.rings { try path(r) } }
                case .geometryCollection(let c): for child in c.geometries { try visit(child) }
                }
            }
            try visit(self)
        }
        return total
    }

    /// The geodesic area in square metres: for each polygon the exterior ring's area minus its
    /// holes' (each ring taken unsigned, whatever its orientation), summed over multipolygons
    /// and collections; 0 for points and lines.
    /// - Throws: `GeometryError` `.invalidArgument` naming the first position (index in storage
    ///   order) that is not a finite longitude/latitude.
    public func geodesicArea(ellipsoid: Ellipsoid = .cgcs2000) throws -> Double {
        var index = 0
        return try withUnsafePointer(to: ellipsoid.geodesic) { g in
            func ring(_ positions: [Position]) throws -> Double {
                var polygon = geod_polygon()
                geod_polygon_init(&polygon, 0)
                // The closing position repeats the first; geod_polygon closes rings itself.
                let count = positions.count > 1 && positions.first == positions.last ? positions.count - 1 : positions.count
                for (k, p) in positions.enumerated() {
                    try p.checkGeographic(index: index)
                    index += 1
                    if k < count { geod_polygon_addpoint(g, &polygon, p.y, p.x) }
                }
                guard count >= 3 else { return 0 }
                var area = 0.0
                geod_polygon_compute(g, &polygon, 0, 1, &area, nil)
                return abs(area)
            }
            func polygon(_ p: Polygon) throws -> Double {
                guard !p.exterior.isEmpty else { return 0 }
                var a = try ring(p.exterior)
                for hole in p.interiors { a -= try ring(hole) }
                return a
            }
            func visit(_ geometry: Geometry) throws -> Double {
                switch geometry {
                case .point, .multiPoint, .lineString, .multiLineString:
                    var bad: (any Error)?
                    geometry.forEachPosition { q in
                        if bad == nil { do { try q.checkGeographic(index: index) } catch { bad = error } }
                        index += 1
                    }
                    if let bad { throw bad }
                    return 0
                case .polygon(let p): return try polygon(p)
                case .multiPolygon(let m): return try m.polygons.reduce(0) { $0 + (try polygon($1)) }
                case .geometryCollection(let c): return try c.geometries.reduce(0) { $0 + (try visit($1)) }
                }
            }
            return try visit(self)
        }
    }
}
