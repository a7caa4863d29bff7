import Foundation

/// The byte order of WKB numbers (the first byte of every WKB geometry says which).
public enum WKBByteOrder: Sendable {
    /// NDR, marker 1: what x86 and ARM use, and what PostGIS writes.
    case littleEndian
    /// XDR, marker 0.
    case bigEndian
}

extension Geometry {
    /// ISO Well-Known Binary. When any position has a height the geometry is written with Z type
    /// codes (1001...1007) and a missing height as NaN; the empty point is written with NaN
    /// coordinates, as GEOS and PostGIS do.
    public func wkb(byteOrder: WKBByteOrder = .littleEndian) -> [UInt8] {
        WKBWriter.bytes(self, byteOrder: byteOrder, flavor: .iso, srid: nil)
    }

    /// ISO WKB as `Data`; see `wkb(byteOrder:)`.
    public func wkbData(byteOrder: WKBByteOrder = .littleEndian) -> Data {
        Data(wkb(byteOrder: byteOrder))
    }

    /// PostGIS Extended WKB: Z marked by the `0x80000000` flag on every type code, and when
    /// `srid` (an EPSG code) is given, the `0x20000000` flag and the SRID after the top-level type.
    public func ewkb(srid: Int32?, byteOrder: WKBByteOrder = .littleEndian) -> [UInt8] {
        WKBWriter.bytes(self, byteOrder: byteOrder, flavor: .extended, srid: srid)
    }

    /// PostGIS EWKB as `Data`; see `ewkb(srid:byteOrder:)`.
    public func ewkbData(srid: Int32?, byteOrder: WKBByteOrder = .littleEndian) -> Data {
        Data(ewkb(srid: srid, byteOrder: byteOrder))
    }

    /// Whether any position has a height (stops at the first one).
    var anyZ: Bool {
        switch self {
        case .point(let p): return p.position?.z != nil
        case .lineString(let l): return l.positions.contains { $0.z != nil }
        case .polygon(let p): return p.exterior.contains { $0.z != nil } || p.interiors.contains { $0.contains { $0.z != nil } }
        case .multiPoint(let m): return m.points.contains { $0.position?.z != nil }
        case .multiLineString(let m): return m.lineStrings.contains { $0.positions.contains { $0.z != nil } }
        case .multiPolygon(let m): return m.polygons.contains { Geometry.polygon($0).anyZ }
        case .geometryCollection(let c): return c.geometries.contains { $0.anyZ }
        }
    }
}

/// Writes WKB into a buffer sized exactly in a first pass, with plain (unaligned) stores.
struct WKBWriter {
    enum Flavor { case iso, extended }

    let hasZ: Bool
    let bigEndian: Bool
    let flavor: Flavor
    var out: UnsafeMutableRawPointer
    var offset = 0

    static func bytes(_ g: Geometry, byteOrder: WKBByteOrder, flavor: Flavor, srid: Int32?) -> [UInt8] {
        let hasZ = g.anyZ
        let size = byteSize(g, dims: hasZ ? 3 : 2) + (srid != nil && flavor == .extended ? 4 : 0)
        return [UInt8](unsafeUninitializedCapacity: size) { buffer, initialized in
            var w = WKBWriter(hasZ: hasZ, bigEndian: byteOrder == .bigEndian, flavor: flavor,
                              out: UnsafeMutableRawPointer(buffer.baseAddress.unsafelyUnwrapped))
            w.write(g, srid: flavor == .extended ? srid : nil)
            assert(w.offset == size)
            initialized = size
        }
    }

    static func byteSize(_ g: Geometry, dims: Int) -> Int {
        let position = 8 * dims
        switch g {
        case .point: return 5 + position
        case .lineString(let l): return 9 + l.positions.count * position
        case .polygon(let p): return polygonSize(p, position: position)
        case .multiPoint(let m): return 9 + m.points.count * (5 + position)
        case .multiLineString(let m): return m.lineStrings.reduce(9) { $0 + 9 + $1.positions.count * position }
        case .multiPolygon(let m): return m.polygons.reduce(9) { $0 + polygonSize($1, position: position) }
        case .geometryCollection(let c): return c.geometries.reduce(9) { $0 + byteSize($1, dims: dims) }
        }
    }

    static func polygonSize(_ p: Polygon, position: Int) -> Int {
        if p.exterior.isEmpty { return 9 }
        return p.interiors.reduce(13 + p.exterior.count * position) { $0 + 4 + $1.count * position }
    }

    @inline(__always)
    mutating func uint32(_ v: UInt32) {
        out.storeBytes(of: bigEndian ? v.bigEndian : v.littleEndian, toByteOffset: offset, as: UInt32.self)
        offset += 4
    }

    @inline(__always)
    mutating func double(_ v: Double) {
        let bits = v.bitPattern
        out.storeBytes(of: bigEndian ? bits.bigEndian : bits.littleEndian, toByteOffset: offset, as: UInt64.self)
        offset += 8
    }

    mutating func header(_ type: GeometryType, srid: Int32? = nil) {
        out.storeBytes(of: bigEndian ? 0 : 1, toByteOffset: offset, as: UInt8.self)
        offset += 1
        var code = type.wkbCode
        switch flavor {
        case .iso:
            if hasZ { code += 1000 }
        case .extended:
            if hasZ { code |= 0x8000_0000 }
            if srid != nil { code |= 0x2000_0000 }
        }
        uint32(code)
        if let srid { uint32(UInt32(bitPattern: srid)) }
    }

    @inline(__always)
    mutating func position(_ q: Position) {
        double(q.x)
        double(q.y)
        if hasZ { double(q.z ?? .nan) }
    }

    mutating func positions(_ list: [Position]) {
        uint32(UInt32(truncatingIfNeeded: list.count))
        if !bigEndian && !hasZ {
            // The common case: copy x, y pairs with no byte swapping.
            for q in list {
                out.storeBytes(of: q.x, toByteOffset: offset, as: Double.self)
                out.storeBytes(of: q.y, toByteOffset: offset + 8, as: Double.self)
                offset += 16
            }
            return
        }
        for q in list { position(q) }
    }

    mutating func point(_ p: Point) {
        header(.point)
        writeBody(.point(p))
    }

    mutating func polygon(_ p: Polygon) {
        header(.polygon)
        writeBody(.polygon(p))
    }

    /// A whole geometry; only the top level carries the SRID.
    mutating func write(_ g: Geometry, srid: Int32? = nil) {
        header(g.type, srid: srid)
        writeBody(g)
    }

    /// Everything after the header.
    mutating func writeBody(_ g: Geometry) {
        switch g {
        case .point(let p):
            if let q = p.position { position(q) } else {
                double(.nan)
                double(.nan)
                if hasZ { double(.nan) }
            }
        case .lineString(let l):
            positions(l.positions)
        case .polygon(let p):
            if p.exterior.isEmpty { uint32(0); return }
            uint32(UInt32(truncatingIfNeeded: 1 + p.interiors.count))
            positions(p.exterior)
            for hole in p.interiors { positions(hole) }
        case .multiPoint(let m):
            uint32(UInt32(truncatingIfNeeded: m.points.count))
            for p in m.points { point(p) }
        case .multiLineString(let m):
            uint32(UInt32(truncatingIfNeeded: m.lineStrings.count))
            for l in m.lineStrings {
                header(.lineString)
                positions(l.positions)
            }
        case .multiPolygon(let m):
            uint32(UInt32(truncatingIfNeeded: m.polygons.count))
            for p in m.polygons { polygon(p) }
        case .geometryCollection(let c):
            uint32(UInt32(truncatingIfNeeded: c.geometries.count))
            for member in c.geometries { write(member) }
        }
    }
}
