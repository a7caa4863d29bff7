import CGEOS

// GEOS functions grouped by C signature, as shapely does: each public operation in the
// `Geometry+*.swift` files is one line naming its GEOS function and one of these shapes.
// Every shape converts its inputs on this thread's context, checks the sentinel through
// `GEOSContext`'s `check` family, and destroys every GEOS object it created (`defer`).

/// `GEOSGeometry* f(handle, const GEOSGeometry*)`: convex hull, boundary, centroid, ...
typealias GEOSUnaryConstructor = (GEOSContextHandle_t, OpaquePointer) -> OpaquePointer?
/// `GEOSGeometry* f(handle, const GEOSGeometry*, const GEOSGeometry*)`: the overlays.
typealias GEOSBinaryConstructor = (GEOSContextHandle_t, OpaquePointer, OpaquePointer) -> OpaquePointer?
/// `char f(handle, const GEOSGeometry*, const GEOSGeometry*)`: the DE-9IM predicates.
typealias GEOSBinaryPredicate = (GEOSContextHandle_t, OpaquePointer, OpaquePointer) -> CChar
/// `int f(handle, const GEOSGeometry*, double*)`: area, length (0 on exception).
typealias GEOSUnaryMeasure = (GEOSContextHandle_t, OpaquePointer, UnsafeMutablePointer<Double>) -> Int32
/// `int f(handle, const GEOSGeometry*, const GEOSGeometry*, double*)`: distances (0 on exception).
typealias GEOSBinaryMeasure = (GEOSContextHandle_t, OpaquePointer, OpaquePointer, UnsafeMutablePointer<Double>) -> Int32

extension GEOSContext {
    /// Runs `body` on a temporary GEOS copy of `geometry`, destroyed afterwards.
    @inline(__always)
    func withGEOS<R>(_ geometry: Geometry, _ body: (OpaquePointer) throws -> R) throws -> R {
        let g = try makeGEOS(geometry)
        defer { GEOSGeom_destroy_r(handle, g) }
        return try body(g)
    }

    /// Takes ownership of a geometry GEOS returned: NULL is failure; otherwise it is read into
    /// a plain value and destroyed.
    @inline(__always)
    func takeGeometry(_ result: OpaquePointer?, _ operation: @autoclosure () -> String) throws -> Geometry {
        let g = try check(result, operation())
        defer { GEOSGeom_destroy_r(handle, g) }
        return try makeGeometry(g)
    }

    /// Takes ownership of a coordinate sequence GEOS returned (NULL is failure), reads and destroys it.
    func takeSequence(_ result: OpaquePointer?, _ operation: @autoclosure () -> String) throws -> [Position] {
        let seq = try check(result, operation())
        defer { GEOSCoordSeq_destroy_r(handle, seq) }
        var size: UInt32 = 0
        try checkStatus(GEOSCoordSeq_getSize_r(handle, seq, &size), operation())
        var dims: UInt32 = 0
        try checkStatus(GEOSCoordSeq_getDimensions_r(handle, seq, &dims), operation())
        var out = [Position]()
        out.reserveCapacity(Int(size))
        for i in 0..<size {
            var x = 0.0, y = 0.0, z = Double.nan
            if dims >= 3 {
                try checkStatus(GEOSCoordSeq_getXYZ_r(handle, seq, i, &x, &y, &z), operation())
            } else {
                try checkStatus(GEOSCoordSeq_getXY_r(handle, seq, i, &x, &y), operation())
            }
            out.append(Position(x: x, y: y, z: z.isNaN ? nil : z))
        }
        return out
    }

    /// A `double` result where -1 means exception (GEOSProject_r): every valid result is >= 0.
    @inline(__always)
    func checkNonNegative(_ value: Double, _ operation: @autoclosure () -> String) throws -> Double {
        if value == -1 { throw error(operation()) }
        return value
    }
}

extension Geometry {
    /// A new geometry from this one.
    @inline(__always)
    func geosUnary(_ operation: @autoclosure () -> String, _ f: GEOSUnaryConstructor) throws -> Geometry {
        let ctx = GEOSContext.current
        return try ctx.withGEOS(self) { a in try ctx.takeGeometry(f(ctx.handle, a), operation()) }
    }

    /// A new geometry from this one and `other`.
    @inline(__always)
    func geosBinary(_ other: Geometry, _ operation: @autoclosure () -> String, _ f: GEOSBinaryConstructor) throws -> Geometry {
        let ctx = GEOSContext.current
        return try ctx.withGEOS(self) { a in
            try ctx.withGEOS(other) { b in try ctx.takeGeometry(f(ctx.handle, a, b), operation()) }
        }
    }

    /// A predicate of this geometry and `other`.
    @inline(__always)
    func geosPredicate(_ other: Geometry, _ operation: @autoclosure () -> String, _ f: GEOSBinaryPredicate) throws -> Bool {
        let ctx = GEOSContext.current
        return try ctx.withGEOS(self) { a in
            try ctx.withGEOS(other) { b in try ctx.checkBool(f(ctx.handle, a, b), operation()) }
        }
    }

    /// A number measured on this geometry alone.
    @inline(__always)
    func geosMeasure(_ operation: @autoclosure () -> String, _ f: GEOSUnaryMeasure) throws -> Double {
        let ctx = GEOSContext.current
        return try ctx.withGEOS(self) { a in
            var value = 0.0
            try ctx.checkStatus(f(ctx.handle, a, &value), operation())
            return value
        }
    }

    /// A number measured between this geometry and `other`.
    @inline(__always)
    func geosMeasure(_ other: Geometry, _ operation: @autoclosure () -> String, _ f: GEOSBinaryMeasure) throws -> Double {
        let ctx = GEOSContext.current
        return try ctx.withGEOS(self) { a in
            try ctx.withGEOS(other) { b in
                var value = 0.0
                try ctx.checkStatus(f(ctx.handle, a, b, &value), operation())
                return value
            }
        }
    }
}

/// Throws `invalidArgument` unless `value` is a finite number; `name` is the parameter's name.
@inline(__always)
func requireFiniteArgument(_ value: Double, _ name: String) throws {
    guard value.isFinite else {
        throw GeometryError(.invalidArgument, "\(name) must be a finite number, got \(value)", position: name)
    }
}
