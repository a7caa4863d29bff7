import CGEOS

extension Geometry {
    /// The polygon (or multipolygon) cut into triangles by GEOS's constrained Delaunay
    /// triangulation (GEOS 3.10, after JTS's `ConstrainedDelaunayTriangulator`): every ring edge
    /// is an edge of some triangle, holes stay empty, and every triangle vertex is an input
    /// vertex (no Steiner points), so a caller can find each corner again by its coordinates.
    /// Used to close extruded footprints (3D Tiles roofs and floors).
    /// - Returns: the triangles as closed four-position rings, in GEOS's order.
    /// - Throws: `GeometryError` `.invalidArgument` for a geometry without area; GEOS errors as usual.
    public func constrainedDelaunayTriangles() throws -> [[Position]] {
        switch self {
        case .polygon, .multiPolygon: break
        default:
            throw GeometryError(.invalidArgument, "only polygons are triangulated, not a \(type)")
        }
        let result = try geosUnary("constrained Delaunay triangulation", GEOSConstrainedDelaunayTriangulation_r)
        var triangles: [[Position]] = []
        func collect(_ g: Geometry) {
            switch g {
            case .polygon(let p): if p.exterior.count == 4 { triangles.append(p.exterior) }
            case .multiPolygon(let m): m.polygons.forEach { collect(.polygon($0)) }
            case .geometryCollection(let c): c.geometries.forEach(collect)
            default: break
            }
        }
        collect(result)
        return triangles
    }
}
