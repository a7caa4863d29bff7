import Foundation

extension Geometry {
    /// Reads Well-Known Binary: ISO WKB (2D codes 1...7, Z codes 1001...1007) and PostGIS EWKB
    /// (the `0x80000000` Z flag, the `0x20000000` SRID flag, whose SRID is dropped here; use
    /// `decodeEWKB` to keep it). Either byte order, per geometry. A point whose coordinates are
    /// all NaN is the empty point, as GEOS and PostGIS write it; a NaN height means "no height".
    ///
    /// - Throws: `GeometryError(.parse)` with `position: "byte K"` for truncated input
    ///   (`"truncated: needed N bytes at byte K"`), a bad byte-order marker, an unknown type code,
    ///   M coordinates, counts larger than the bytes left, nesting deeper than 64 collections or
    ///   trailing bytes; `GeometryError(.invalidGeometry)` for unclosed or short rings, one-position
    ///   line strings and non-finite coordinates.
    public init(wkb: some Collection<UInt8>) throws {
        self = try Geometry.decodeEWKB(wkb).geometry
    }

    /// Reads WKB from `Data`; see `init(wkb:)`.
    public init(wkb: Data) throws {
        self = try Geometry.decodeEWKB(wkb).geometry
    }

    /// Reads PostGIS EWKB (or plain ISO WKB), returning the geometry and the SRID (an EPSG code)
    /// when the SRID flag is set.
    public static func decodeEWKB(_ bytes: some Collection<UInt8>) throws -> (geometry: Geometry, srid: Int32?) {
        if let result = try bytes.withContiguousStorageIfAvailable({ try decodeEWKB(UnsafeRawBufferPointer($0)) }) {
            return result
        }
        return try Array(bytes).withUnsafeBytes { try decodeEWKB($0) }
    }

    /// Reads PostGIS EWKB from `Data`; see `decodeEWKB(_:)`.
    public static func decodeEWKB(_ data: Data) throws -> (geometry: Geometry, srid: Int32?) {
        try data.withUnsafeBytes { try decodeEWKB($0) }
    }

    static func decodeEWKB(_ buffer: UnsafeRawBufferPointer) throws -> (geometry: Geometry, srid: Int32?) {
        var reader = WKBReader(buffer)
        let geometry = try reader.geometry(depth: 0)
        if reader.offset != buffer.count {
            throw GeometryError(.parse, "\(buffer.count - reader.offset) unexpected bytes after the geometry",
                                position: "byte \(reader.offset)")
        }
        return (geometry, reader.srid)
    }
}

/// Reads WKB straight from raw memory with unaligned loads. Every count is checked against
/// the bytes that remain before anything is allocated for it.
struct WKBReader {
    let base: UnsafeRawPointer?
    let count: Int
    var offset = 0
    var srid: Int32?

    init(_ buffer: UnsafeRawBufferPointer) {
        base = buffer.baseAddress
        count = buffer.count
    }

    @inline(__always)
    var remaining: Int { count - offset }

    @inline(__always)
    func need(_ bytes: Int) throws {
        if count - offset < bytes {
            throw GeometryError(.parse, "truncated: needed \(bytes) bytes at byte \(offset)", position: "byte \(offset)")
        }
    }

    @inline(__always)
    mutating func uint32(bigEndian: Bool) throws -> UInt32 {
        try need(4)
        let raw = base.unsafelyUnwrapped.loadUnaligned(fromByteOffset: offset, as: UInt32.self)
        offset += 4
        return bigEndian ? UInt32(bigEndian: raw) : UInt32(littleEndian: raw)
    }

    @inline(__always)
    func double(at byteOffset: Int, bigEndian: Bool) -> Double {
        let raw = base.unsafelyUnwrapped.loadUnaligned(fromByteOffset: byteOffset, as: UInt64.self)
        return Double(bitPattern: bigEndian ? UInt64(bigEndian: raw) : UInt64(littleEndian: raw))
    }

    /// A count field, checked so that `count * minimumSize` bytes can still follow.
    @inline(__always)
    mutating func count(bigEndian: Bool, minimumSize: Int, of what: String) throws -> Int {
        let at = offset
        let n = Int(try uint32(bigEndian: bigEndian))
        if n > remaining / minimumSize {
            throw GeometryError(.parse, "\(what) count \(n) needs at least \(n * minimumSize) bytes but only \(remaining) remain",
                                position: "byte \(at)")
        }
        return n
    }

    struct Header {
        var type: GeometryType
        var hasZ: Bool
        var bigEndian: Bool
        var start: Int
    }

    mutating func header() throws -> Header {
        let start = offset
        try need(1)
        let marker = base.unsafelyUnwrapped.load(fromByteOffset: offset, as: UInt8.self)
        guard marker <= 1 else {
            throw GeometryError(.parse, "bad byte order marker 0x\(String(marker, radix: 16, uppercase: true)) (expected 0 or 1)",
                                position: "byte \(offset)")
        }
        offset += 1
        let bigEndian = marker == 0
        let typeAt = offset
        let raw = try uint32(bigEndian: bigEndian)
        var hasZ = raw & 0x8000_0000 != 0
        let hasM = raw & 0x4000_0000 != 0
        let hasSRID = raw & 0x2000_0000 != 0
        var code = raw & 0x0FFF_FFFF
        func unknown() -> GeometryError {
            GeometryError(.parse, "unknown geometry type code \(raw)", position: "byte \(typeAt)")
        }
        func mNotSupported() -> GeometryError {
            GeometryError(.parse, "M coordinates are not supported (type code \(raw))", position: "byte \(typeAt)")
        }
        if hasM { throw mNotSupported() }
        switch code / 1000 {
        case 0: break
        case 1: hasZ = true
        case 2, 3: throw mNotSupported()
        default: throw unknown()
        }
        code %= 1000
        guard code >= 1, code <= 7 else { throw unknown() }
        let type = GeometryType.allCases[Int(code) - 1]
        if hasSRID {
            let value = Int32(bitPattern: try uint32(bigEndian: bigEndian))
            if start == 0 { srid = value }
        }
        return Header(type: type, hasZ: hasZ, bigEndian: bigEndian, start: start)
    }

    mutating func geometry(depth: Int) throws -> Geometry {
        let h = try header()
        return try body(h, depth: depth)
    }

    mutating func body(_ h: Header, depth: Int) throws -> Geometry {
        switch h.type {
        case .point:
            return .point(try point(h))
        case .lineString:
            return .lineString(try lineString(h))
        case .polygon:
            return .polygon(try polygon(h))
        case .multiPoint:
            let n = try count(bigEndian: h.bigEndian, minimumSize: 21, of: "point")
            var points: [Point] = []
            points.reserveCapacity(n)
            for _ in 0..<n {
                let m = try member(of: h, expecting: .point)
                points.append(try point(m))
            }
            return .multiPoint(MultiPoint(points))
        case .multiLineString:
            let n = try count(bigEndian: h.bigEndian, minimumSize: 9, of: "line string")
            var lines: [LineString] = []
            lines.reserveCapacity(n)
            for _ in 0..<n {
                let m = try member(of: h, expecting: .lineString)
                lines.append(try lineString(m))
            }
            return .multiLineString(MultiLineString(lines))
        case .multiPolygon:
            let n = try count(bigEndian: h.bigEndian, minimumSize: 9, of: "polygon")
            var polygons: [Polygon] = []
            polygons.reserveCapacity(n)
            for _ in 0..<n {
                let m = try member(of: h, expecting: .polygon)
                polygons.append(try polygon(m))
            }
            return .multiPolygon(MultiPolygon(polygons))
        case .geometryCollection:
            if depth >= ShapeRule.maximumCollectionDepth {
                throw GeometryError(.parse, ShapeRule.tooDeepMessage(), position: "byte \(h.start)")
            }
            let n = try count(bigEndian: h.bigEndian, minimumSize: 9, of: "geometry")
            var members: [Geometry] = []
            members.reserveCapacity(n)
            for _ in 0..<n { members.append(try geometry(depth: depth + 1)) }
            return .geometryCollection(GeometryCollection(members))
        }
    }

    /// The header of a member of a multi-geometry, which must be of the member type.
    mutating func member(of parent: Header, expecting type: GeometryType) throws -> Header {
        let m = try header()
        guard m.type == type else {
            throw GeometryError(.parse, "\(parent.type.rawValue) member is a \(m.type.rawValue), expected a \(type.rawValue)",
                                position: "byte \(m.start)")
        }
        return m
    }

    mutating func point(_ h: Header) throws -> Point {
        let size = h.hasZ ? 24 : 16
        try need(size)
        let at = offset
        let x = double(at: offset, bigEndian: h.bigEndian)
        let y = double(at: offset + 8, bigEndian: h.bigEndian)
        let z = h.hasZ ? double(at: offset + 16, bigEndian: h.bigEndian) : .nan
        offset += size
        if x.isNaN && y.isNaN && (!h.hasZ || z.isNaN) { return Point(nil) }
        guard x.isFinite, y.isFinite, !z.isInfinite else {
            throw GeometryError(.invalidGeometry, "coordinate is not finite", position: "byte \(at)")
        }
        return Point(Position(x: x, y: y, z: z.isNaN ? nil : z))
    }

    /// A counted run of positions, bounds-checked once and decoded without per-position checks.
    mutating func positions(_ h: Header) throws -> [Position] {
        let stride = h.hasZ ? 24 : 16
        let n = try count(bigEndian: h.bigEndian, minimumSize: stride, of: "position")
        guard n > 0 else { return [] }
        let start = offset
        let big = h.bigEndian
        let hasZ = h.hasZ
        var finite = true
        let result = [Position](unsafeUninitializedCapacity: n) { buffer, initialized in
            var o = start
            for k in 0..<n {
                let x = double(at: o, bigEndian: big)
                let y = double(at: o + 8, bigEndian: big)
                var z: Double? = nil
                if hasZ {
                    let zz = double(at: o + 16, bigEndian: big)
                    if !zz.isNaN { z = zz }
                    if zz.isInfinite { finite = false }
                }
                if !(x.isFinite && y.isFinite) { finite = false }
                (buffer.baseAddress.unsafelyUnwrapped + k).initialize(to: Position(x: x, y: y, z: z))
                o += stride
            }
            initialized = n
        }
        offset = start + n * stride
        if !finite {
            var k = 0
            while k < n && result[k].isFinite { k += 1 }
            throw GeometryError(.invalidGeometry, "coordinate \(k) is not finite", position: "byte \(start + k * stride)")
        }
        return result
    }

    mutating func lineString(_ h: Header) throws -> LineString {
        let positions = try positions(h)
        if let problem = ShapeRule.lineStringProblem(count: positions.count) {
            throw GeometryError(.invalidGeometry, problem, position: "byte \(h.start)")
        }
        return LineString(positions)
    }

    mutating func polygon(_ h: Header) throws -> Polygon {
        let n = try count(bigEndian: h.bigEndian, minimumSize: 4, of: "ring")
        guard n > 0 else { return Polygon(exterior: []) }
        var rings: [[Position]] = []
        rings.reserveCapacity(n)
        for k in 0..<n {
            let at = offset
            let ring = try positions(h)
            if let problem = ShapeRule.ringProblem(ring, name: ShapeRule.ringName(k)) {
                throw GeometryError(.invalidGeometry, problem, position: "byte \(at)")
            }
            rings.append(ring)
        }
        let exterior = rings.removeFirst()
        return Polygon(exterior: exterior, interiors: rings)
    }
}
