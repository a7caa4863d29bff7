import CGEOS

// Linear referencing on line strings: chainage along a road centre line or a pipe, in the CRS's
// units (metres in EPSG:4547). Distances are measured from the line's first position; a negative
// distance is measured back from the end, and distances beyond either end are clamped to it
// (the conventions of GEOS's LengthIndexedLine and shapely).

extension Geometry {
    /// The position `distance` (CRS units) along the line from its start (negative: back from
    /// its end), clamped to the line's ends.
    /// - Throws: when the geometry is not lineal or is empty.
    public func interpolate(distance: Double) throws -> Position {
        try requireFiniteArgument(distance, "distance")
        return try positionAlong(try geosUnary("interpolate") { GEOSInterpolate_r($0, $1, distance) }, "interpolate")
    }

    /// The position at `fraction` (0 start, 1 end, negative back from the end) of the line's
    /// length, clamped to the line's ends.
    /// - Throws: when the geometry is not lineal or is empty.
    public func interpolate(fraction: Double) throws -> Position {
        try requireFiniteArgument(fraction, "fraction")
        return try positionAlong(try geosUnary("interpolate") { GEOSInterpolateNormalized_r($0, $1, fraction) }, "interpolate")
    }

    /// The distance (CRS units) from the line's start to the point of the line nearest `point`:
    /// the chainage of a manhole or an address on a road.
    /// - Throws: when the geometry is not lineal or is empty.
    public func project(_ point: Position) throws -> Double {
        try requireFiniteArgument(point.x, "point.x")
        try requireFiniteArgument(point.y, "point.y")
        let ctx = GEOSContext.current
        return try ctx.withGEOS(self) { line in
            // GEOS fails without a message on an empty line: say why here.
            if GEOSisEmpty_r(ctx.handle, line) != 0 {
                throw GeometryError(.invalidArgument, "project: the line is empty, there is nothing to project onto")
            }
            let p = try ctx.check(GEOSGeom_createPointFromXY_r(ctx.handle, point.x, point.y), "point")
            defer { GEOSGeom_destroy_r(ctx.handle, p) }
            return try ctx.checkNonNegative(GEOSProject_r(ctx.handle, line, p), "project")
        }
    }

    /// `project(_:)` as a fraction (0...1) of the line's length.
    /// - Throws: when the geometry is not lineal or has no length.
    public func project(normalized point: Position) throws -> Double {
        let along = try project(point)
        let total = try length
        guard total > 0 else {
            throw GeometryError(.invalidArgument, "project(normalized:): the line has zero length, no fraction exists")
        }
        return along / total
    }

    /// The part of a line string between two distances along it (CRS units), computed in Swift
    /// (GEOS 3.11 has no substring): the stretch of a road between two chainages.
    ///
    /// Negative distances count back from the end; distances beyond the ends are clamped. When
    /// `start > end` the result runs backwards. Heights are interpolated linearly along segments
    /// whose both ends have a height.
    /// - Returns: a line string, or a point when the range collapses to one position.
    /// - Throws: `invalidArgument` unless the geometry is a line string with at least two positions.
    public func substring(from start: Double, to end: Double) throws -> Geometry {
        try requireFiniteArgument(start, "from")
        try requireFiniteArgument(end, "to")
        guard case .lineString(let line) = self else {
            throw GeometryError(.invalidArgument, "substring needs a LineString, got \(type.rawValue)")
        }
        let chainage = try LineChainage(line.positions)
        let s = chainage.clamp(start), e = chainage.clamp(end)
        if s == e { return .point(Point(chainage.position(at: s))) }
        let (lo, hi) = (min(s, e), max(s, e))
        // Vertices strictly inside the range (with a relative tolerance so a vertex at a range end
        // is not repeated next to its interpolated twin).
        let eps = chainage.length * 1e-12
        var out = [chainage.position(at: lo)]
        let positions = line.positions
        var i = chainage.segmentIndex(at: lo) + 1
        while i < positions.count, chainage.cumulative[i] < hi - eps {
            if chainage.cumulative[i] > lo + eps { out.append(positions[i]) }
            i += 1
        }
        out.append(chainage.position(at: hi))
        if s > e { out.reverse() }
        return .lineString(LineString(out))
    }

    private func positionAlong(_ g: Geometry, _ operation: String) throws -> Position {
        guard case .point(let p) = g, let q = p.position else {
            throw GeometryError(.invalidArgument, "\(operation): the line is empty, there is no position along it")
        }
        return q
    }
}

/// Cumulative planar distances along a line string's vertices.
struct LineChainage {
    let positions: [Position]
    /// `cumulative[i]` is the distance from the start to vertex `i`.
    let cumulative: [Double]
    var length: Double { cumulative[cumulative.count - 1] }

    init(_ positions: [Position]) throws {
        guard positions.count >= 2 else {
            throw GeometryError(.invalidArgument,
                                "a line string needs at least two positions for linear referencing, got \(positions.count)")
        }
        var cumulative = [Double]()
        cumulative.reserveCapacity(positions.count)
        var total = 0.0
        cumulative.append(0)
        for i in 1..<positions.count {
            let a = positions[i - 1], b = positions[i]
            guard b.isFinite else {
                throw GeometryError(.invalidGeometry, "coordinate is not finite", position: "positions[\(i)]")
            }
            total += ((b.x - a.x) * (b.x - a.x) + (b.y - a.y) * (b.y - a.y)).squareRoot()
            cumulative.append(total)
        }
        guard positions[0].isFinite else {
            throw GeometryError(.invalidGeometry, "coordinate is not finite", position: "positions[0]")
        }
        self.positions = positions
        self.cumulative = cumulative
    }

    /// A distance resolved against the line: negative counts back from the end, then clamped.
    func clamp(_ d: Double) -> Double {
        let r = d < 0 ? length + d : d
        return min(max(r, 0), length)
    }

    /// The index of the segment (`i` to `i + 1`) that holds distance `d` (0...length): the first
    /// segment whose end is at or beyond `d`.
    func segmentIndex(at d: Double) -> Int {
        var lo = 1, hi = cumulative.count - 1
        while lo < hi {
            let mid = (lo + hi) / 2
            if cumulative[mid] >= d { hi = mid } else { lo = mid + 1 }
        }
        return lo - 1
    }

    /// The position at distance `d` (0...length); exact at vertices.
    func position(at d: Double) -> Position {
        if d >= length { return positions[positions.count - 1] }
        let i = segmentIndex(at: d)
        let a = positions[i], b = positions[i + 1]
        let segment = cumulative[i + 1] - cumulative[i]
        guard segment > 0, d > cumulative[i] else { return a }
        if d >= cumulative[i + 1] { return b }
        let f = (d - cumulative[i]) / segment
        let z: Double? = if let za = a.z, let zb = b.z { za + f * (zb - za) } else { nil }
        return Position(x: a.x + f * (b.x - a.x), y: a.y + f * (b.y - a.y), z: z)
    }
}
