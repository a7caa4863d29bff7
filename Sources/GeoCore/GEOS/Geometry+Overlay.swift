import CGEOS

// Set-theoretic overlays (GEOS OverlayNG). Without `gridSize` GEOS works in full floating
// precision; with it, every result vertex is snapped to a grid of that cell size (CRS units:
// metres in EPSG:4547, degrees in EPSG:4490), which makes overlays of nearly-coincident edges
// (parcels sharing a surveyed boundary) robust.

extension Geometry {
    /// The points shared by this geometry and `other`.
    /// - Parameter gridSize: snap result vertices to this precision grid (CRS units); `nil` for none.
    public func intersection(_ other: Geometry, gridSize: Double? = nil) throws -> Geometry {
        try overlay(other, "intersection", gridSize, GEOSIntersection_r, GEOSIntersectionPrec_r)
    }

    /// The points in either geometry.
    /// - Parameter gridSize: snap result vertices to this precision grid (CRS units); `nil` for none.
    public func union(_ other: Geometry, gridSize: Double? = nil) throws -> Geometry {
        try overlay(other, "union", gridSize, GEOSUnion_r, GEOSUnionPrec_r)
    }

    /// The points of this geometry not in `other`.
    /// - Parameter gridSize: snap result vertices to this precision grid (CRS units); `nil` for none.
    public func difference(_ other: Geometry, gridSize: Double? = nil) throws -> Geometry {
        try overlay(other, "difference", gridSize, GEOSDifference_r, GEOSDifferencePrec_r)
    }

    /// The points in exactly one of the two geometries.
    /// - Parameter gridSize: snap result vertices to this precision grid (CRS units); `nil` for none.
    public func symmetricDifference(_ other: Geometry, gridSize: Double? = nil) throws -> Geometry {
        try overlay(other, "symmetric difference", gridSize, GEOSSymDifference_r, GEOSSymDifferencePrec_r)
    }

    /// The union of all parts of this geometry with each other (dissolving a multipolygon of
    /// adjacent blocks into one district, merging overlapping lines).
    /// - Parameter gridSize: snap result vertices to this precision grid (CRS units); `nil` for none.
    public func unaryUnion(gridSize: Double? = nil) throws -> Geometry {
        guard let gridSize else { return try geosUnary("unary union", GEOSUnaryUnion_r) }
        try requireGridSize(gridSize)
        return try geosUnary("unary union") { GEOSUnaryUnionPrec_r($0, $1, gridSize) }
    }

    private func overlay(_ other: Geometry, _ name: String, _ gridSize: Double?,
                         _ floating: GEOSBinaryConstructor,
                         _ snapped: (GEOSContextHandle_t, OpaquePointer, OpaquePointer, Double) -> OpaquePointer?) throws -> Geometry {
        guard let gridSize else { return try geosBinary(other, name, floating) }
        try requireGridSize(gridSize)
        return try geosBinary(other, name) { snapped($0, $1, $2, gridSize) }
    }

    private func requireGridSize(_ gridSize: Double) throws {
        guard gridSize.isFinite, gridSize >= 0 else {
            throw GeometryError(.invalidArgument, "gridSize must be a finite number >= 0, got \(gridSize)", position: "gridSize")
        }
    }
}
