import Foundation
import Testing
@testable import GeoCore

/// Hostile and broken input for all three codecs: every case must end in a thrown
/// `GeometryError`, never a crash, a hang or a stack overflow.
@Suite struct MalformedInputTests {
    /// A closed ring of a million positions around Wuhan, built once for the whole suite.
    static let millionVertexRing: [Position] = {
        let n = 1_000_000
        var ring = [Position]()
        ring.reserveCapacity(n + 1)
        for k in 0..<n {
            let angle = Double(k) / Double(n) * 2 * Double.pi
            // Rounded to 1e-7 degrees (about 1 cm), as surveyed coordinates are.
            ring.append(Position(((114.3 + 0.1 * cos(angle)) * 1e7).rounded() / 1e7,
                                 ((30.6 + 0.1 * sin(angle)) * 1e7).rounded() / 1e7))
        }
        ring.append(ring[0])
        return ring
    }()

    @Test func emptyInputIsAnError() {
        expectGeometryError(.parse, "expected a geometry keyword") { _ = try Geometry(wkt: "   ") }
        expectGeometryError(.parse, "truncated") { _ = try Geometry(wkb: Data()) }
        expectGeometryError(.parse, "expected a GeoJSON object but found end of input") { _ = try GeoJSON.decode(Data()) }
    }

    @Test func unclosedRingsInEveryCodec() {
        let open: [Position] = [.init(0, 0), .init(4, 0), .init(4, 4), .init(0, 4)]
        expectGeometryError(.invalidGeometry, "exterior ring is not closed") { _ = try Geometry(wkt: "POLYGON ((0 0, 4 0, 4 4, 0 4))") }
        expectGeometryError(.invalidGeometry, "exterior ring is not closed") {
            _ = try Geometry(wkb: Geometry.multiPolygon(MultiPolygon([Polygon(exterior: open)])).wkb())
        }
        expectGeometryError(.invalidGeometry, "exterior ring is not closed", at: "$.coordinates[0][0]") {
            _ = try decodeGeoJSON(#"{"type":"MultiPolygon","coordinates":[[[[0,0],[4,0],[4,4],[0,4]]]]}"#)
        }
    }

    @Test func nonFiniteCoordinatesInEveryCodec() {
        expectGeometryError(.invalidGeometry, "not finite") { _ = try Geometry(wkt: "MULTIPOINT ((1 2), (nan 3))") }
        expectGeometryError(.invalidGeometry, "not finite") { _ = try Geometry(wkb: Geometry.point(x: 1, y: .infinity).wkb()) }
        expectGeometryError(.invalidGeometry, "not finite") {
            _ = try Geometry(wkb: Geometry.polygon(squareRing(0, 0, 1, z: -.infinity)).wkb())
        }
        expectGeometryError(.invalidGeometry, "not finite") { _ = try decodeGeoJSON(#"{"type":"MultiPoint","coordinates":[[1,Infinity]]}"#) }
    }

    @Test func wrongNestingDepth() {
        expectGeometryError(.parse, "expected a position (an array of 2 or 3 numbers) but found a number", at: "$.coordinates[0][0]") {
            _ = try decodeGeoJSON(#"{"type":"Polygon","coordinates":[[0,0],[1,0],[1,1],[0,0]]}"#)
        }
        expectGeometryError(.parse, "position needs 2 or 3 numbers; found an array", at: "$.coordinates[0]") {
            _ = try decodeGeoJSON(#"{"type":"LineString","coordinates":[[[0,0],[1,1]]]}"#)
        }
        expectGeometryError(.parse, "expected a position (an array of 2 or 3 numbers) but found a number", at: "$.coordinates[0][0]") {
            _ = try decodeGeoJSON(#"{"type":"MultiLineString","coordinates":[[0,0],[1,1]]}"#)
        }
        expectGeometryError(.parse, "expected '(' or EMPTY but found '0'") { _ = try Geometry(wkt: "POLYGON (0 0, 1 0, 1 1, 0 0)") }
        expectGeometryError(.parse, "expected a number but found '('") { _ = try Geometry(wkt: "LINESTRING ((0 0, 1 1))") }
    }

    @Test func everyTruncationOfValidWKBThrows() throws {
        let sample = Geometry.geometryCollection(GeometryCollection([
            .point(x: 1, y: 2, z: 3),
            .polygon(squareRing(0, 0, 10, z: 1), holes: [[.init(2, 2, 1), .init(2, 4, 1), .init(4, 4, 1), .init(2, 2, 1)]]),
            .multiLineString(MultiLineString([LineString([.init(0, 0, 0), .init(1, 1, 1)])])),
            .multiPoint(MultiPoint([Point(nil), Point(x: 5, y: 6, z: 7)])),
        ]))
        for wkb in [sample.wkb(), sample.wkb(byteOrder: .bigEndian), sample.ewkb(srid: 4490)] {
            #expect(try Geometry(wkb: wkb) == sample)
            for length in 0..<wkb.count {
                #expect(throws: GeometryError.self, "prefix of \(length) bytes") { _ = try Geometry(wkb: wkb[0..<length]) }
            }
        }
    }

    @Test func tenThousandNestedCollectionsAreAClearError() {
        let levels = 10_000
        let wkt = String(repeating: "GEOMETRYCOLLECTION(", count: levels) + "POINT(1 2)" + String(repeating: ")", count: levels)
        expectGeometryError(.parse, "nested deeper than 64 levels", at: "offset \(64 * 19)") { _ = try Geometry(wkt: wkt) }

        var wkb: [UInt8] = []
        for _ in 0..<levels { wkb += [1, 7, 0, 0, 0, 1, 0, 0, 0] }
        wkb += Geometry.point(x: 1, y: 2).wkb()
        expectGeometryError(.parse, "nested deeper than 64 levels", at: "byte \(64 * 9)") { _ = try Geometry(wkb: wkb) }

        let json = String(repeating: #"{"type":"GeometryCollection","geometries":["#, count: levels)
            + #"{"type":"Point","coordinates":[1,2]}"# + String(repeating: "]}", count: levels)
        expectGeometryError(.parse, "nested deeper than 64 levels") { _ = try decodeGeoJSON(json) }
        // Type after members: the deferred path must be bounded too.
        let late = String(repeating: #"{"geometries":["#, count: levels) + String(repeating: #"],"type":"GeometryCollection"}"#, count: levels)
        expectGeometryError(.parse, "nested deeper than") { _ = try decodeGeoJSON(late) }
        let arrays = #"{"type":"Feature","geometry":null,"properties":{"a":"# + String(repeating: "[", count: levels)
        expectGeometryError(.parse, "JSON nested deeper than 256 levels") { _ = try decodeGeoJSON(arrays) }
        let coordinates = #"{"type":"Point","coordinates":"# + String(repeating: "[", count: levels)
        expectGeometryError(.parse, "position needs 2 or 3 numbers; found an array") { _ = try decodeGeoJSON(coordinates) }
    }

    @Test func aMillionVertexRingRoundTripsInEveryCodec() throws {
        let polygon = Geometry.polygon(MalformedInputTests.millionVertexRing)
        #expect(try Geometry(wkb: polygon.wkb()) == polygon)
        #expect(try Geometry(wkt: polygon.wkt()) == polygon)
        #expect(try GeoJSON.decode(GeoJSON.encode(polygon, options: .init(rightHandRule: false))) == .geometry(polygon))
    }

    @Test func garbageNeverCrashes() {
        var generator = SystemRandomNumberGenerator()
        let seeds = [
            Array("POLYGON Z ((0 0 1, 1 0 1, 1 1 1, 0 0 1))".utf8),
            Array(#"{"type":"Feature","id":1,"geometry":{"type":"MultiPoint","coordinates":[[1,2],[3,4]]},"properties":{"a":[1,{"b":"\u00e9"}]}}"#.utf8),
            Geometry.multiPolygon(MultiPolygon([Polygon(exterior: squareRing(0, 0, 1))])).wkb(),
        ]
        for _ in 0..<3000 {
            var input = seeds.randomElement(using: &generator)!
            for _ in 0..<Int.random(in: 1...4, using: &generator) {
                let k = Int.random(in: 0..<input.count, using: &generator)
                switch Int.random(in: 0..<3, using: &generator) {
                case 0: input[k] = UInt8.random(in: 0...255, using: &generator)
                case 1: input.remove(at: k)
                default: input.insert(input[Int.random(in: 0..<input.count, using: &generator)], at: k)
                }
            }
            // Any outcome is fine except a crash or an error that is not a GeometryError.
            for parse in [
                { _ = try Geometry(wkt: String(decoding: input, as: UTF8.self)) },
                { _ = try Geometry(wkb: input) },
                { _ = try GeoJSON.decode(input) },
            ] as [() throws -> Void] {
                do { try parse() } catch is GeometryError {} catch { Issue.record("unexpected error \(error)") }
            }
        }
    }
}
