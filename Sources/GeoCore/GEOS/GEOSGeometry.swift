import CGEOS

/// A GEOS geometry this side owns, destroyed when the last reference goes.
///
/// Geometries do not belong to a context (only error reporting does), so one created on one
/// thread may be read on another, but never used from two threads at once: not `Sendable`.
public final class GEOSGeometry {
    public let pointer: OpaquePointer

    /// Takes ownership of `pointer`.
    init(owning pointer: OpaquePointer) { self.pointer = pointer }

    deinit { GEOSGeom_destroy_r(GEOSContext.current.handle, pointer) }

    /// Converts a CityTwin geometry to GEOS.
    public convenience init(_ geometry: Geometry, context: GEOSContext = .current) throws {
        self.init(owning: try context.makeGEOS(geometry))
    }

    /// Converts back to a plain value.
    public func geometry(context: GEOSContext = .current) throws -> Geometry {
        try context.makeGeometry(pointer)
    }
}

extension GEOSContext {
    /// Builds a GEOS geometry the caller owns. Rings must be closed with at least four
    /// positions, line strings need two or more: GEOS's own message says which rule broke.
    func makeGEOS(_ geometry: Geometry) throws -> OpaquePointer {
        switch geometry {
        case .point(let p):
            guard let q = p.position else { return try check(GEOSGeom_createEmptyPoint_r(handle), "empty point") }
            let seq = try makeSequence([q])
            return try check(GEOSGeom_createPoint_r(handle, seq), "point")
        case .lineString(let l):
            if l.positions.isEmpty { return try check(GEOSGeom_createEmptyLineString_r(handle), "empty line string") }
            let seq = try makeSequence(l.positions)
            return try check(GEOSGeom_createLineString_r(handle, seq), "line string")
        case .polygon(let p):
            return try makePolygon(p)
        case .multiPoint(let m):
            return try makeCollection(GEOS_MULTIPOINT, m.points.map { .point($0) })
        case .multiLineString(let m):
            return try makeCollection(GEOS_MULTILINESTRING, m.lineStrings.map { .lineString($0) })
        case .multiPolygon(let m):
            return try makeCollection(GEOS_MULTIPOLYGON, m.polygons.map { .polygon($0) })
        case .geometryCollection(let c):
            return try makeCollection(GEOS_GEOMETRYCOLLECTION, c.geometries)
        }
    }

    private func makeSequence(_ positions: [Position]) throws -> OpaquePointer {
        let hasZ = positions.contains { $0.z != nil }
        let dims = hasZ ? 3 : 2
        // Interleaved x,y[,z] in scratch memory (on the stack for ordinary rings), copied by GEOS.
        return try withUnsafeTemporaryAllocation(of: Double.self, capacity: positions.count * dims) { buffer in
            var k = 0
            for p in positions {
                guard p.isFinite else {
                    throw GeometryError(.invalidGeometry,
                        "coordinate is not finite: (\(p.x), \(p.y)\(p.z.map { ", \($0)" } ?? ""))")
                }
                buffer[k] = p.x
                buffer[k + 1] = p.y
                if hasZ { buffer[k + 2] = p.z ?? .nan }
                k += dims
            }
            return try check(GEOSCoordSeq_copyFromBuffer_r(handle, buffer.baseAddress, UInt32(positions.count),
                                                            hasZ ? 1 : 0, 0), "coordinate sequence")
        }
    }

    private func makeRing(_ ring: [Position]) throws -> OpaquePointer {
        let seq = try makeSequence(ring)
        return try check(GEOSGeom_createLinearRing_r(handle, seq), "linear ring")
    }

    private func makePolygon(_ p: Polygon) throws -> OpaquePointer {
        if p.exterior.isEmpty {
            guard p.interiors.isEmpty else { throw GeometryError(.invalidGeometry, "polygon has holes but no exterior ring") }
            return try check(GEOSGeom_createEmptyPolygon_r(handle), "empty polygon")
        }
        let shell = try makeRing(p.exterior)
        var holes = [OpaquePointer?]()
        holes.reserveCapacity(p.interiors.count)
        do {
            for h in p.interiors { holes.append(try makeRing(h)) }
        } catch {
            GEOSGeom_destroy_r(handle, shell)
            for h in holes { GEOSGeom_destroy_r(handle, h) }
            throw error
        }
        // GEOSGeom_createPolygon_r takes ownership of the shell and holes (not of the array).
        return try holes.withUnsafeMutableBufferPointer {
            try check(GEOSGeom_createPolygon_r(handle, shell, $0.baseAddress, UInt32(p.interiors.count)), "polygon")
        }
    }

    private func makeCollection(_ type: GEOSGeomTypes, _ parts: [Geometry]) throws -> OpaquePointer {
        var members = [OpaquePointer?]()
        members.reserveCapacity(parts.count)
        do {
            for g in parts { members.append(try makeGEOS(g)) }
        } catch {
            for m in members { GEOSGeom_destroy_r(handle, m) }
            throw error
        }
        return try members.withUnsafeMutableBufferPointer {
            try check(GEOSGeom_createCollection_r(handle, Int32(type.rawValue), $0.baseAddress, UInt32(parts.count)), "collection")
        }
    }

    /// Reads a GEOS geometry (not taking ownership) into a plain value.
    func makeGeometry(_ g: OpaquePointer) throws -> Geometry {
        let typeId = GEOSGeomTypes(UInt32(try checkCount(GEOSGeomTypeId_r(handle, g), "geometry type")))
        switch typeId {
        case GEOS_POINT:
            if try checkBool(GEOSisEmpty_r(handle, g), "isEmpty") { return .point(Point(nil)) }
            return .point(Point(try positions(of: g).first))
        case GEOS_LINESTRING, GEOS_LINEARRING:
            return .lineString(LineString(try positions(of: g)))
        case GEOS_POLYGON:
            return .polygon(try polygon(g))
        case GEOS_MULTIPOINT, GEOS_MULTILINESTRING, GEOS_MULTIPOLYGON, GEOS_GEOMETRYCOLLECTION:
            let n = try checkCount(GEOSGetNumGeometries_r(handle, g), "number of geometries")
            var parts = [Geometry]()
            parts.reserveCapacity(n)
            for i in 0..<n {
                let part = try check(GEOSGetGeometryN_r(handle, g, Int32(i)), "geometry \(i)")
                parts.append(try makeGeometry(part))
            }
            switch typeId {
            case GEOS_MULTIPOINT:
                return .multiPoint(MultiPoint(parts.compactMap { if case .point(let p) = $0 { p } else { nil } }))
            case GEOS_MULTILINESTRING:
                return .multiLineString(MultiLineString(parts.compactMap { if case .lineString(let l) = $0 { l } else { nil } }))
            case GEOS_MULTIPOLYGON:
                return .multiPolygon(MultiPolygon(parts.compactMap { if case .polygon(let p) = $0 { p } else { nil } }))
            default:
                return .geometryCollection(GeometryCollection(parts))
            }
        default:
            throw GeometryError(.geos, "unsupported GEOS geometry type \(typeId)")
        }
    }

    private func polygon(_ g: OpaquePointer) throws -> Polygon {
        if try checkBool(GEOSisEmpty_r(handle, g), "isEmpty") { return Polygon(exterior: []) }
        let shell = try check(GEOSGetExteriorRing_r(handle, g), "exterior ring")
        let n = try checkCount(GEOSGetNumInteriorRings_r(handle, g), "number of interior rings")
        var holes = [[Position]]()
        holes.reserveCapacity(n)
        for i in 0..<n {
            holes.append(try positions(of: try check(GEOSGetInteriorRingN_r(handle, g, Int32(i)), "interior ring \(i)")))
        }
        return Polygon(exterior: try positions(of: shell), interiors: holes)
    }

    /// The positions of a point, line string or linear ring.
    func positions(of g: OpaquePointer) throws -> [Position] {
        let seq = try check(GEOSGeom_getCoordSeq_r(handle, g), "coordinate sequence")
        var size: UInt32 = 0
        try checkStatus(GEOSCoordSeq_getSize_r(handle, seq, &size), "sequence size")
        if size == 0 { return [] }
        let hasZ = try checkBool(GEOSHasZ_r(handle, g), "hasZ")
        let dims = hasZ ? 3 : 2
        let n = Int(size)
        return try withUnsafeTemporaryAllocation(of: Double.self, capacity: n * dims) { buffer in
            try checkStatus(GEOSCoordSeq_copyToBuffer_r(handle, seq, buffer.baseAddress, hasZ ? 1 : 0, 0),
                            "copy coordinates")
            return [Position](unsafeUninitializedCapacity: n) { out, initialized in
                var k = 0
                for i in 0..<n {
                    let z: Double? = hasZ && !buffer[k + 2].isNaN ? buffer[k + 2] : nil
                    (out.baseAddress! + i).initialize(to: Position(x: buffer[k], y: buffer[k + 1], z: z))
                    k += dims
                }
                initialized = n
            }
        }
    }
}
