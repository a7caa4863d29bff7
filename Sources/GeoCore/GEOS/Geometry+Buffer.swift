import CGEOS

/// How `Geometry.buffer(distance:parameters:)` shapes the buffer's ends and corners.
public struct BufferParameters: Hashable, Sendable {
    /// The shape at the two ends of a buffered line.
    public enum CapStyle: Hashable, Sendable {
        /// A half circle around each end point.
        case round
        /// Cut square at the end point (a road corridor that stops at the junction).
        case flat
        /// A half square extending `distance` past the end point.
        case square
    }

    /// The shape at convex corners.
    public enum JoinStyle: Hashable, Sendable {
        /// A circular arc around the vertex.
        case round
        /// The offset edges extended until they meet, cut at `mitreLimit`.
        case mitre
        /// A straight cut across the corner.
        case bevel
    }

    /// Number of segments approximating a quarter circle (GEOS default 8). Higher is smoother.
    public var quadrantSegments: Int
    public var capStyle: CapStyle
    public var joinStyle: JoinStyle
    /// For `.mitre` joins: the largest ratio of mitre length to buffer distance before the
    /// corner is bevelled (GEOS default 5).
    public var mitreLimit: Double
    /// Buffer only one side of a line: left for a positive distance, right for a negative one.
    /// Ends are always flat; `capStyle` is ignored.
    public var singleSided: Bool

    public init(quadrantSegments: Int = 8, capStyle: CapStyle = .round, joinStyle: JoinStyle = .round,
                mitreLimit: Double = 5, singleSided: Bool = false) {
        self.quadrantSegments = quadrantSegments
        self.capStyle = capStyle
        self.joinStyle = joinStyle
        self.mitreLimit = mitreLimit
        self.singleSided = singleSided
    }
}

extension BufferParameters.CapStyle {
    var geos: Int32 {
        switch self {
        case .round: Int32(GEOSBUF_CAP_ROUND.rawValue)
        case .flat: Int32(GEOSBUF_CAP_FLAT.rawValue)
        case .square: Int32(GEOSBUF_CAP_SQUARE.rawValue)
        }
    }
}

extension BufferParameters.JoinStyle {
    var geos: Int32 {
        switch self {
        case .round: Int32(GEOSBUF_JOIN_ROUND.rawValue)
        case .mitre: Int32(GEOSBUF_JOIN_MITRE.rawValue)
        case .bevel: Int32(GEOSBUF_JOIN_BEVEL.rawValue)
        }
    }
}

extension BufferParameters {
    func validate() throws {
        guard quadrantSegments >= 1, quadrantSegments <= 10_000 else {
            throw GeometryError(.invalidArgument, "quadrantSegments must be in 1...10000, got \(quadrantSegments)",
                                position: "quadrantSegments")
        }
        guard mitreLimit.isFinite, mitreLimit > 0 else {
            throw GeometryError(.invalidArgument, "mitreLimit must be a finite number > 0, got \(mitreLimit)",
                                position: "mitreLimit")
        }
    }
}

extension Geometry {
    /// The area within `distance` of this geometry (a negative distance shrinks polygons).
    ///
    /// Distances are in CRS units: buffer in a projected CRS (EPSG:4547, metres) for metric
    /// corridors; in EPSG:4490 the distance would be degrees.
    /// - Parameters:
    ///   - distance: the buffer width, CRS units.
    ///   - parameters: arc resolution, cap and join styles, single-sidedness.
    public func buffer(distance: Double, parameters: BufferParameters = .init()) throws -> Geometry {
        try requireFiniteArgument(distance, "distance")
        try parameters.validate()
        let p = parameters
        if !p.singleSided {
            // No parameter object needed: the common case allocates nothing but the result.
            if p.capStyle == .round && p.joinStyle == .round {
                return try geosUnary("buffer") { GEOSBuffer_r($0, $1, distance, Int32(p.quadrantSegments)) }
            }
            return try geosUnary("buffer") {
                GEOSBufferWithStyle_r($0, $1, distance, Int32(p.quadrantSegments), p.capStyle.geos, p.joinStyle.geos, p.mitreLimit)
            }
        }
        let ctx = GEOSContext.current
        let params = try ctx.check(GEOSBufferParams_create_r(ctx.handle), "buffer parameters")
        defer { GEOSBufferParams_destroy_r(ctx.handle, params) }
        try ctx.checkStatus(GEOSBufferParams_setQuadrantSegments_r(ctx.handle, params, Int32(p.quadrantSegments)), "buffer quadrantSegments")
        try ctx.checkStatus(GEOSBufferParams_setEndCapStyle_r(ctx.handle, params, p.capStyle.geos), "buffer capStyle")
        try ctx.checkStatus(GEOSBufferParams_setJoinStyle_r(ctx.handle, params, p.joinStyle.geos), "buffer joinStyle")
        try ctx.checkStatus(GEOSBufferParams_setMitreLimit_r(ctx.handle, params, p.mitreLimit), "buffer mitreLimit")
        try ctx.checkStatus(GEOSBufferParams_setSingleSided_r(ctx.handle, params, 1), "buffer singleSided")
        return try geosUnary("buffer") { GEOSBufferWithParams_r($0, $1, params, distance) }
    }

    /// A line parallel to this line string at `distance` (CRS units): to the left for a positive
    /// distance, to the right for a negative one (a kerb line from a road centre line).
    /// - Parameters:
    ///   - distance: the offset, CRS units.
    ///   - quadrantSegments: segments per quarter circle at round joins.
    ///   - joinStyle: the shape at convex corners.
    ///   - mitreLimit: for `.mitre` joins, the ratio at which corners are bevelled.
    public func offsetCurve(distance: Double, quadrantSegments: Int = 8,
                            joinStyle: BufferParameters.JoinStyle = .round, mitreLimit: Double = 5) throws -> Geometry {
        try requireFiniteArgument(distance, "distance")
        try BufferParameters(quadrantSegments: quadrantSegments, joinStyle: joinStyle, mitreLimit: mitreLimit).validate()
        return try geosUnary("offset curve") {
            GEOSOffsetCurve_r($0, $1, distance, Int32(quadrantSegments), joinStyle.geos, mitreLimit)
        }
    }
}
