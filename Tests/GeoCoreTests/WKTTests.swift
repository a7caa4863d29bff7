import CGEOS
import Foundation
import Testing
@testable import GeoCore

/// Expects `body` to throw a `GeometryError` with `code` whose message contains `words` and,
/// when given, whose position is `position`.
func expectGeometryError(_ code: GeometryError.Code, _ words: String, at position: String? = nil,
                         sourceLocation: SourceLocation = #_sourceLocation, _ body: () throws -> Void) {
    do {
        try body()
        Issue.record("expected a GeometryError(\(code)) containing \"\(words)\"", sourceLocation: sourceLocation)
    } catch let e as GeometryError {
        #expect(e.code == code, "\(e)", sourceLocation: sourceLocation)
        #expect(e.message.contains(words), "\(e)", sourceLocation: sourceLocation)
        if let position { #expect(e.position == position, "\(e)", sourceLocation: sourceLocation) }
    } catch {
        Issue.record("expected a GeometryError but got \(error)", sourceLocation: sourceLocation)
    }
}

/// A closed square ring from (x, y) with side `size`, counter-clockwise.
func squareRing(_ x: Double, _ y: Double, _ size: Double, z: Double? = nil) -> [Position] {
    [.init(x, y, z), .init(x + size, y, z), .init(x + size, y + size, z), .init(x, y + size, z), .init(x, y, z)]
}

/// One geometry of every type, empty ones first, with and without heights.
let codecSamples: [Geometry] = [
    .point(Point(nil)),
    .lineString([]),
    .polygon(Polygon(exterior: [])),
    .multiPoint(MultiPoint([])),
    .multiLineString(MultiLineString([])),
    .multiPolygon(MultiPolygon([])),
    .geometryCollection(GeometryCollection([])),
    .point(x: 114.305_123_456_789_01, y: 30.592_8),
    .point(x: 114.3, y: 30.6, z: 21.5),
    .lineString([.init(114.1, 30.5), .init(114.2, 30.55), .init(114.25, 30.6)]),
    .lineString([.init(0, 0, 2), .init(1, 1, 3)]),
    .polygon(squareRing(0, 0, 10), holes: [[.init(2, 2), .init(2, 4), .init(4, 4), .init(4, 2), .init(2, 2)]]),
    .polygon(squareRing(500_000, 3_380_000, 25.5, z: 12)),
    .multiPoint(MultiPoint([Point(x: 1, y: 2), Point(x: -3.25, y: 4e-7)])),
    .multiLineString(MultiLineString([LineString([.init(0, 0), .init(1, 1)]), LineString([.init(2, 2), .init(3, 1)])])),
    .multiPolygon(MultiPolygon([Polygon(exterior: squareRing(0, 0, 1)), Polygon(exterior: squareRing(5, 5, 2))])),
    .geometryCollection(GeometryCollection([
        .point(x: 1, y: 1), .polygon(squareRing(0, 0, 3)),
        .geometryCollection(GeometryCollection([.lineString([.init(0, 0), .init(9, 9)])])),
    ])),
]

@Suite struct WKTTests {
    @Test func emptyGeometriesOfEveryType() throws {
        for keyword in ["POINT", "LINESTRING", "POLYGON", "MULTIPOINT", "MULTILINESTRING", "MULTIPOLYGON", "GEOMETRYCOLLECTION"] {
            let g = try Geometry(wkt: "\(keyword) EMPTY")
            #expect(g.isEmpty)
            #expect(g.type.wktKeyword == keyword)
            #expect(g.wkt() == "\(keyword) EMPTY")
        }
        #expect(try Geometry(wkt: "MULTIPOINT (EMPTY, 1 2)") == .multiPoint(MultiPoint([Point(nil), Point(x: 1, y: 2)])))
        #expect(try Geometry(wkt: "GEOMETRYCOLLECTION (POINT EMPTY, POLYGON EMPTY)")
            == .geometryCollection(GeometryCollection([.point(Point(nil)), .polygon(Polygon(exterior: []))])))
    }

    @Test func everyTypeRoundTrips() throws {
        for g in codecSamples {
            let text = g.wkt()
            #expect(try Geometry(wkt: text) == g, "\(text)")
        }
    }

    @Test func writesTheFormsUsersExpect() {
        #expect(Geometry.point(x: 114.3, y: 30.6).wkt() == "POINT (114.3 30.6)")
        #expect(Geometry.point(x: 1, y: 2, z: 3).wkt() == "POINT Z (1 2 3)")
        #expect(Geometry.point(x: 0.00001, y: -1e-7).wkt() == "POINT (0.00001 -0.0000001)")
        #expect(Geometry.point(x: 1e16, y: 123_456_789_012.5).wkt() == "POINT (10000000000000000 123456789012.5)")
        #expect(Geometry.point(x: 1e300, y: 5e-324).wkt() == "POINT (1e+300 5e-324)")
        #expect(Geometry.multiPoint(MultiPoint([Point(x: 1, y: 2), Point(nil)])).wkt() == "MULTIPOINT ((1 2), EMPTY)")
        #expect(Geometry.polygon(squareRing(0, 0, 1)).wkt() == "POLYGON ((0 0, 1 0, 1 1, 0 1, 0 0))")
        #expect(codecSamples.last!.wkt()
            == "GEOMETRYCOLLECTION (POINT (1 1), POLYGON ((0 0, 3 0, 3 3, 0 3, 0 0)), GEOMETRYCOLLECTION (LINESTRING (0 0, 9 9)))")
    }

    @Test func precisionRoundsAndDropsTrailingZeros() {
        let g = Geometry.lineString([.init(114.305_123_456, 30.5), .init(-0.000_04, 2.999_999_9)])
        #expect(g.wkt(precision: 3) == "LINESTRING (114.305 30.5, 0 3)")
        #expect(g.wkt(precision: 0) == "LINESTRING (114 31, 0 3)")
        #expect(Geometry.point(x: -1.25, y: 0.125).wkt(precision: 2) == "POINT (-1.25 0.13)")
    }

    @Test func shortestTextReadsBackExactly() throws {
        var generator = SystemRandomNumberGenerator()
        for _ in 0..<2000 {
            let x = Double.random(in: -180...180, using: &generator)
            let y = Double(bitPattern: UInt64.random(in: 0x3000_0000_0000_0000...0x4700_0000_0000_0000, using: &generator))
            let g = Geometry.point(x: x, y: y)
            #expect(try Geometry(wkt: g.wkt()) == g)
        }
    }

    @Test func shortestTextMatchesSwiftsOwnDigits() {
        var generator = SystemRandomNumberGenerator()
        for decimals in 0...17 {
            for _ in 0..<300 {
                let raw = Double.random(in: -1_000_000...1_000_000, using: &generator)
                let scale = pow(10.0, Double(decimals))
                let value = decimals == 17 ? raw : (raw * scale).rounded() / scale
                var expected = value.description
                guard !expected.contains("e") else { continue }
                if expected.hasSuffix(".0") { expected.removeLast(2) }
                if expected == "-0" { expected = "0" }
                #expect(NumberText.text(value) == expected)
            }
        }
        #expect(NumberText.text(0.1 + 0.2) == "0.30000000000000004")
        #expect(NumberText.text(114.305_123_4) == "114.3051234")
        #expect(NumberText.text(-0.0) == "0")
    }

    @Test func readsLenientSpellings() throws {
        let expected = Geometry.multiPoint(MultiPoint([Point(x: 1, y: 2), Point(x: 3, y: 4)]))
        #expect(try Geometry(wkt: "MULTIPOINT ((1 2), (3 4))") == expected)
        #expect(try Geometry(wkt: "MULTIPOINT (1 2, 3 4)") == expected)
        #expect(try Geometry(wkt: "multipoint(1 2,3 4)") == expected)
        #expect(try Geometry(wkt: "  MultiPoint\n(\t(1 2) ,( 3 4 ) )  ") == expected)
        #expect(try Geometry(wkt: "POINT (+1.5 .5)") == .point(x: 1.5, y: 0.5))
        #expect(try Geometry(wkt: "POINT (1E3 -2.5e-2)") == .point(x: 1000, y: -0.025))
        #expect(try Geometry(wkt: "POINT Z (1 2 3)") == .point(x: 1, y: 2, z: 3))
        #expect(try Geometry(wkt: "POINTZ(1 2 3)") == .point(x: 1, y: 2, z: 3))
        #expect(try Geometry(wkt: "POINT (1 2 3)") == .point(x: 1, y: 2, z: 3))
        #expect(try Geometry(wkt: "LINESTRING Z EMPTY") == .lineString([]))
    }

    @Test func extendedWKTCarriesTheSRID() throws {
        let (g, srid) = try Geometry.parseEWKT("SRID=4490;POINT (114.3 30.6)")
        #expect(srid == 4490)
        #expect(g == .point(x: 114.3, y: 30.6))
        #expect(try Geometry.parseEWKT("POINT (1 2)").srid == nil)
        #expect(g.ewkt(srid: 4547) == "SRID=4547;POINT (114.3 30.6)")
        #expect(try Geometry(wkt: "srid=4490; POINT (1 2)") == .point(x: 1, y: 2))
    }

    @Test func errorsSayWhereAndWhatWasExpected() {
        expectGeometryError(.parse, "expected ',' or ')' but found 'x'", at: "offset 21") {
            _ = try Geometry(wkt: "LINESTRING (0 0, 1 1 x)")
        }
        expectGeometryError(.parse, "expected a number but found ')'", at: "offset 9") {
            _ = try Geometry(wkt: "POINT (1 )")
        }
        expectGeometryError(.parse, "expected ')' but found end of input", at: "offset 11") {
            _ = try Geometry(wkt: "POINT (1 2 ")
        }
        expectGeometryError(.parse, "expected a geometry keyword", at: "offset 0") { _ = try Geometry(wkt: "PIONT (1 2)") }
        expectGeometryError(.parse, "expected end of input but found 'P'", at: "offset 12") {
            _ = try Geometry(wkt: "POINT (1 2) POINT (3 4)")
        }
        expectGeometryError(.parse, "expected a geometry keyword but found end of input") { _ = try Geometry(wkt: "") }
        // Offsets count characters, not UTF-8 bytes.
        expectGeometryError(.parse, "found 'é'", at: "offset 9") { _ = try Geometry(wkt: "POINT (1 é)") }
        expectGeometryError(.parse, "expected a z coordinate") { _ = try Geometry(wkt: "POINT Z (1 2)") }
    }

    @Test func mCoordinatesAreRejected() {
        for text in ["POINT M (1 2 3)", "POINT ZM (1 2 3 4)", "POINTM (1 2 3)", "POINT (1 2 3 4)", "LINESTRING M EMPTY"] {
            expectGeometryError(.parse, "M coordinates are not supported") { _ = try Geometry(wkt: text) }
        }
    }

    @Test func nonFiniteCoordinatesAreRejected() {
        for text in ["POINT (NaN 1)", "POINT (1 inf)", "POINT (-Infinity 1)", "POINT (1e999 0)", "LINESTRING (0 0, 1 nan)"] {
            expectGeometryError(.invalidGeometry, "not finite") { _ = try Geometry(wkt: text) }
        }
    }

    @Test func ringsAndLineStringsFollowTheRules() {
        expectGeometryError(.invalidGeometry, "exterior ring is not closed", at: "offset 9") {
            _ = try Geometry(wkt: "POLYGON ((0 0, 1 0, 1 1, 0 1))")
        }
        expectGeometryError(.invalidGeometry, "interior ring 1 has 3 positions; a ring needs at least 4") {
            _ = try Geometry(wkt: "POLYGON ((0 0, 9 0, 9 9, 0 0), (1 1, 2 1, 1 1))")
        }
        expectGeometryError(.invalidGeometry, "line string has 1 position") { _ = try Geometry(wkt: "LINESTRING (1 1)") }
        expectGeometryError(.invalidGeometry, "line string has 1 position") {
            _ = try Geometry(wkt: "MULTILINESTRING ((0 0, 1 1), (1 1))")
        }
    }

    @Test func parsesLikeGEOSWKTReader() throws {
        let samples = [
            "POINT (114.305 30.593)", "POINT Z (1 2 3)", "POINT EMPTY", "LINESTRING (0 0, 1 1, 2 0.5)",
            "LINESTRING EMPTY", "POLYGON ((0 0, 10 0, 10 10, 0 10, 0 0), (2 2, 2 4, 4 4, 4 2, 2 2))",
            "MULTIPOINT ((1 2), (3 4))", "MULTIPOINT (1 2, 3 4)", "MULTILINESTRING ((0 0, 1 1), (2 2, 3 3))",
            "MULTIPOLYGON (((0 0, 1 0, 1 1, 0 0)), ((5 5, 6 5, 6 6, 5 5)))",
            "GEOMETRYCOLLECTION (POINT (1 1), LINESTRING (0 0, 1 1), GEOMETRYCOLLECTION (POINT (2 2)))",
            "GEOMETRYCOLLECTION EMPTY", "polygon z ((0 0 1, 1 0 1, 1 1 1, 0 0 1))", "POINT (1e-7 -12345.678901234)",
        ]
        let context = GEOSContext.current
        let reader = try #require(GEOSWKTReader_create_r(context.handle))
        defer { GEOSWKTReader_destroy_r(context.handle, reader) }
        for text in samples {
            let native = try #require(GEOSWKTReader_read_r(context.handle, reader, text), "GEOS rejected \(text)")
            defer { GEOSGeom_destroy_r(context.handle, native) }
            #expect(try context.makeGeometry(native) == Geometry(wkt: text), "\(text)")
        }
    }
}
