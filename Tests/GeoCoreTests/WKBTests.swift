import CGEOS
import Foundation
import Testing
@testable import GeoCore

/// Bytes from a hex string such as PostGIS prints (`0101000020...`).
func wkbBytes(hex: String) -> [UInt8] {
    var out: [UInt8] = []
    var high: UInt8?
    for c in hex.utf8 {
        let v = UInt8(Character(Unicode.Scalar(c)).hexDigitValue ?? 0)
        if let h = high { out.append(h << 4 | v); high = nil } else { high = v }
    }
    return out
}

/// WKB written by GEOS's own WKBWriter.
func geosWKB(_ g: Geometry, iso: Bool, byteOrder: WKBByteOrder = .littleEndian, srid: Int32? = nil) throws -> [UInt8] {
    let context = GEOSContext.current
    let native = try GEOSGeometry(g)
    let writer = try #require(GEOSWKBWriter_create_r(context.handle))
    defer { GEOSWKBWriter_destroy_r(context.handle, writer) }
    GEOSWKBWriter_setOutputDimension_r(context.handle, writer, g.anyZ ? 3 : 2)
    GEOSWKBWriter_setFlavor_r(context.handle, writer, Int32(iso ? GEOS_WKB_ISO.rawValue : GEOS_WKB_EXTENDED.rawValue))
    GEOSWKBWriter_setByteOrder_r(context.handle, writer, Int32(byteOrder == .littleEndian ? GEOS_WKB_NDR.rawValue : GEOS_WKB_XDR.rawValue))
    if let srid {
        GEOSSetSRID_r(context.handle, native.pointer, srid)
        GEOSWKBWriter_setIncludeSRID_r(context.handle, writer, 1)
    }
    var size = 0
    let raw = try #require(GEOSWKBWriter_write_r(context.handle, writer, native.pointer, &size))
    defer { GEOSFree_r(context.handle, raw) }
    return Array(UnsafeBufferPointer(start: raw, count: size))
}

/// The geometry GEOS's WKBReader makes of `wkb`.
func geosRead(_ wkb: [UInt8]) throws -> Geometry {
    let context = GEOSContext.current
    let reader = try #require(GEOSWKBReader_create_r(context.handle))
    defer { GEOSWKBReader_destroy_r(context.handle, reader) }
    let native = try #require(GEOSWKBReader_read_r(context.handle, reader, wkb, wkb.count))
    defer { GEOSGeom_destroy_r(context.handle, native) }
    return try context.makeGeometry(native)
}

@Suite struct WKBTests {
    @Test func emptyPointIsNaNCoordinates() throws {
        let empty = Geometry.point(Point(nil))
        let wkb = empty.wkb()
        #expect(wkb == [1, 1, 0, 0, 0] + [0, 0, 0, 0, 0, 0, 0xF8, 0x7F] + [0, 0, 0, 0, 0, 0, 0xF8, 0x7F])
        #expect(try Geometry(wkb: wkb) == empty)
        #expect(wkb == (try geosWKB(empty, iso: true)))
    }

    @Test func everyTypeRoundTripsInBothByteOrders() throws {
        for g in codecSamples {
            for order in [WKBByteOrder.littleEndian, .bigEndian] {
                #expect(try Geometry(wkb: g.wkb(byteOrder: order)) == g, "\(g.wkt())")
                let (back, srid) = try Geometry.decodeEWKB(g.ewkb(srid: 4490, byteOrder: order))
                #expect(back == g)
                #expect(srid == 4490)
                #expect(try Geometry(wkb: g.wkbData(byteOrder: order)) == g)
            }
        }
    }

    @Test func isoWKBMatchesGEOSByteForByte() throws {
        for g in codecSamples {
            for order in [WKBByteOrder.littleEndian, .bigEndian] {
                #expect(g.wkb(byteOrder: order) == (try geosWKB(g, iso: true, byteOrder: order)), "\(g.wkt())")
            }
        }
    }

    @Test func geosReadsWhatWeWrite() throws {
        for g in codecSamples {
            #expect(try geosRead(g.wkb()) == g, "\(g.wkt())")
            #expect(try geosRead(g.ewkb(srid: 4547)) == g, "\(g.wkt())")
            #expect(try geosRead(g.wkb(byteOrder: .bigEndian)) == g, "\(g.wkt())")
        }
    }

    @Test func weReadWhatGEOSWrites() throws {
        for g in codecSamples {
            #expect(try Geometry(wkb: geosWKB(g, iso: true)) == g, "\(g.wkt())")
            #expect(try Geometry(wkb: geosWKB(g, iso: false, byteOrder: .bigEndian)) == g, "\(g.wkt())")
            let (back, srid) = try Geometry.decodeEWKB(geosWKB(g, iso: false, srid: 4490))
            #expect(back == g)
            #expect(srid == 4490)
        }
    }

    @Test func extendedWKBIsWhatPostGISWrites() throws {
        // SELECT ST_AsEWKB('SRID=4490;POINT Z (1 2 3)'::geometry)
        let expected = wkbBytes(hex: "01010000A08A110000000000000000F03F00000000000000400000000000000840")
        #expect(Geometry.point(x: 1, y: 2, z: 3).ewkb(srid: 4490) == expected)
        #expect(try Geometry.decodeEWKB(expected) == (.point(x: 1, y: 2, z: 3), 4490))
        // ISO Z code 1001 for the same point.
        #expect(Geometry.point(x: 1, y: 2, z: 3).wkb() == wkbBytes(hex: "01E9030000000000000000F03F00000000000000400000000000000840"))
        #expect(Geometry.point(x: 1, y: 2).ewkb(srid: nil) == Geometry.point(x: 1, y: 2).wkb())
    }

    @Test func errorsNameTheByte() {
        expectGeometryError(.parse, "truncated: needed 1 bytes at byte 0", at: "byte 0") { _ = try Geometry(wkb: [UInt8]()) }
        expectGeometryError(.parse, "bad byte order marker 0x2", at: "byte 0") { _ = try Geometry(wkb: [2, 1, 0, 0, 0]) }
        expectGeometryError(.parse, "unknown geometry type code 8", at: "byte 1") { _ = try Geometry(wkb: [1, 8, 0, 0, 0]) }
        expectGeometryError(.parse, "M coordinates are not supported") { _ = try Geometry(wkb: [1, 0xD1, 0x07, 0, 0]) }
        expectGeometryError(.parse, "M coordinates are not supported") { _ = try Geometry(wkb: [1, 1, 0, 0, 0x40]) }
        expectGeometryError(.parse, "truncated: needed 16 bytes at byte 5", at: "byte 5") {
            _ = try Geometry(wkb: [1, 1, 0, 0, 0, 0, 0])
        }
        expectGeometryError(.parse, "unexpected bytes after the geometry", at: "byte 21") {
            _ = try Geometry(wkb: Geometry.point(x: 1, y: 2).wkb() + [0])
        }
        expectGeometryError(.parse, "MultiPoint member is a LineString") {
            _ = try Geometry(wkb: [1, 4, 0, 0, 0, 1, 0, 0, 0] + Geometry.lineString([.init(0, 0), .init(1, 1)]).wkb())
        }
    }

    @Test func countsLargerThanTheInputAreRejectedBeforeAllocating() {
        // A line string claiming 2^31 positions, followed by one position.
        let header: [UInt8] = [1, 2, 0, 0, 0, 0, 0, 0, 0x80] + [UInt8](repeating: 0, count: 16)
        expectGeometryError(.parse, "position count 2147483648 needs at least 34359738368 bytes but only 16 remain", at: "byte 5") {
            _ = try Geometry(wkb: header)
        }
        expectGeometryError(.parse, "geometry count 4294967295") {
            _ = try Geometry(wkb: [0, 0, 0, 0, 7, 0xFF, 0xFF, 0xFF, 0xFF])
        }
    }

    @Test func nonFiniteAndInvalidShapesAreRejected() {
        let infinite = Geometry.lineString([.init(0, 0), .init(.infinity, 1)]).wkb()
        expectGeometryError(.invalidGeometry, "coordinate 1 is not finite", at: "byte 25") { _ = try Geometry(wkb: infinite) }
        let halfEmpty = Geometry.point(x: .nan, y: 1).wkb()
        expectGeometryError(.invalidGeometry, "not finite") { _ = try Geometry(wkb: halfEmpty) }
        let open = Geometry.polygon([.init(0, 0), .init(1, 0), .init(1, 1), .init(0, 1)]).wkb()
        expectGeometryError(.invalidGeometry, "exterior ring is not closed", at: "byte 9") { _ = try Geometry(wkb: open) }
        let single = Geometry.lineString([.init(0, 0)]).wkb()
        expectGeometryError(.invalidGeometry, "line string has 1 position") { _ = try Geometry(wkb: single) }
    }
}
