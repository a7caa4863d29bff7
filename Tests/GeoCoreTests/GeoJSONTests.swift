import Foundation
import Testing
@testable import GeoCore

func decodeGeoJSON(_ text: String) throws -> GeoJSONObject { try GeoJSON.decode(Data(text.utf8)) }
func utf8Text(_ data: Data) -> String { String(decoding: data, as: UTF8.self) }

@Suite struct GeoJSONTests {
    @Test func emptyGeometriesRoundTrip() throws {
        #expect(try decodeGeoJSON(#"{"type":"Point","coordinates":[]}"#) == .geometry(.point(Point(nil))))
        #expect(try decodeGeoJSON(#"{"type":"GeometryCollection","geometries":[]}"#) == .geometry(.geometryCollection(GeometryCollection([]))))
        for g in codecSamples {
            #expect(try GeoJSON.decode(GeoJSON.encode(g, options: .init(rightHandRule: false))) == .geometry(g), "\(g.wkt())")
        }
    }

    @Test func readsFeaturesAndCollections() throws {
        let json = #"""
        {"type": "FeatureCollection", "bbox": [0, 0, 1, 1], "crs": {"type": "name"}, "features": [
          {"type": "Feature", "id": "hydrant-7", "geometry": {"type": "Point", "coordinates": [114.3, 30.6, 21.5]},
           "properties": {"name": "消防栓 \"7\"\n", "pressure_kpa": 350, "ok": true, "note": null, "code": 420106001001,
                          "depths": [1.5, 2], "owner": {"dept": "水务局"}}, "foreign": {"kept": false}},
          {"geometry": null, "type": "Feature", "id": 42, "properties": null},
          {"type": "Feature", "id": 1.5, "geometry": {"coordinates": [[0, 0], [1, 1]], "type": "LineString"}}
        ]}
        """#
        guard case .featureCollection(let c) = try decodeGeoJSON(json) else { Issue.record("not a collection"); return }
        #expect(c.features.count == 3)
        let hydrant = c.features[0]
        #expect(hydrant.id == .string("hydrant-7"))
        #expect(hydrant.geometry == .point(x: 114.3, y: 30.6, z: 21.5))
        #expect(hydrant.properties == [
            "name": "消防栓 \"7\"\n", "pressure_kpa": 350, "ok": true, "note": nil, "code": .integer(420_106_001_001),
            "depths": [1.5, 2], "owner": ["dept": "水务局"],
        ])
        #expect(c.features[1] == Feature(id: .integer(42), geometry: nil))
        #expect(c.features[2].id == .string("1.5"))
        #expect(c.features[2].geometry == .lineString([.init(0, 0), .init(1, 1)]))
        // And back: encoding then decoding gives the same features (foreign members dropped).
        #expect(try GeoJSON.decode(GeoJSON.encode(c)) == .featureCollection(c))
    }

    @Test func writesCompactDeterministicJSON() {
        let f = Feature(id: .integer(7), geometry: .point(x: 114.3, y: 30.6),
                        properties: ["b": 2, "a": "x\u{1}\t", "c": .number(0.1)])
        #expect(utf8Text(GeoJSON.encode(f)) == #"{"type":"Feature","id":7,"geometry":{"type":"Point","coordinates":[114.3,30.6]},"properties":{"a":"x\u0001\t","b":2,"c":0.1}}"#)
        #expect(utf8Text(GeoJSON.encode(.geometryCollection(GeometryCollection([])))) == #"{"type":"GeometryCollection","geometries":[]}"#)
        #expect(utf8Text(GeoJSON.encode(FeatureCollection([]))) == #"{"type":"FeatureCollection","features":[]}"#)
    }

    /// Found by `fuzz-geojson` (Fuzz/corpus/geojson/whole_number_above_1e15.json): a whole
    /// number of 10¹⁵ or more was written as bare digits and read back as an integer.
    @Test func wholeNumbersStayNumbersAtAnySize() throws {
        for d in [7.0, 1.0e15, 7_011_111_111_111_111.0, -9.0e17, 1.0e300] {
            let f = Feature(id: nil, geometry: nil, properties: ["v": .number(d)])
            #expect(try GeoJSON.decode(GeoJSON.encode(f)) == .feature(f), "\(d)")
        }
    }

    @Test func precisionRoundsCoordinates() {
        let g = Geometry.lineString([.init(114.305_123_456, 30.5), .init(1e-9, 2.000_04)])
        #expect(utf8Text(GeoJSON.encode(g, options: .init(precision: 4))) == #"{"type":"LineString","coordinates":[[114.3051,30.5],[0,2]]}"#)
    }

    @Test func polygonsFollowTheRightHandRule() throws {
        let clockwise = Array(squareRing(0, 0, 10).reversed())
        let counterClockwiseHole: [Position] = [.init(2, 2), .init(4, 2), .init(4, 4), .init(2, 4), .init(2, 2)]
        let g = Geometry.polygon(clockwise, holes: [counterClockwiseHole])
        guard case .geometry(.polygon(let p)) = try GeoJSON.decode(GeoJSON.encode(g)) else { Issue.record("not a polygon"); return }
        #expect(p.exterior == squareRing(0, 0, 10))
        #expect(p.interiors == [Array(counterClockwiseHole.reversed())])
        #expect(Polygon.doubledSignedArea(ofRing: p.exterior) > 0)
        #expect(Polygon.doubledSignedArea(ofRing: p.interiors[0]) < 0)
        // Reading keeps whatever winding the input has.
        #expect(try GeoJSON.decode(GeoJSON.encode(g, options: .init(rightHandRule: false))) == .geometry(g))
        let multi = Geometry.multiPolygon(MultiPolygon([Polygon(exterior: clockwise)]))
        #expect(try GeoJSON.decode(GeoJSON.encode(multi)) == .geometry(.multiPolygon(MultiPolygon([Polygon(exterior: squareRing(0, 0, 10))]))))
    }

    @Test func errorsNameTheJSONPath() {
        let ring = "[[0,0],[1,0],[1,1],[0,0]]"
        func collection(_ geometry: String) -> String {
            #"{"type":"FeatureCollection","features":[{"type":"Feature","geometry":{"type":"Point","coordinates":[0,0]},"properties":{}},"#
                + #"{"type":"Feature","properties":{},"geometry":"# + geometry + "}]}"
        }
        expectGeometryError(.parse, "position needs 2 or 3 numbers", at: "$.features[1].geometry.coordinates[0][2]") {
            _ = try decodeGeoJSON(collection(#"{"type":"Polygon","coordinates":[[[0,0],[1,0],[1],[0,0]]]}"#))
        }
        expectGeometryError(.invalidGeometry, "exterior ring is not closed", at: "$.features[1].geometry.coordinates[0]") {
            _ = try decodeGeoJSON(collection(#"{"type":"Polygon","coordinates":[[[0,0],[1,0],[1,1],[0,1]]]}"#))
        }
        expectGeometryError(.parse, "unknown geometry type 'Polygn'", at: "$.features[1].geometry.type") {
            _ = try decodeGeoJSON(collection(#"{"type":"Polygn","coordinates":[\#(ring)]}"#))
        }
        expectGeometryError(.parse, "coordinates must be an array", at: "$.features[1].geometry.coordinates") {
            _ = try decodeGeoJSON(collection(#"{"coordinates":"0 0","type":"Point"}"#))
        }
        expectGeometryError(.parse, "missing member 'coordinates'", at: "$.features[1].geometry") {
            _ = try decodeGeoJSON(collection(#"{"type":"Point"}"#))
        }
        expectGeometryError(.parse, "position needs 2 or 3 numbers; found more", at: "$.coordinates") {
            _ = try decodeGeoJSON(#"{"type":"Point","coordinates":[1,2,3,4]}"#)
        }
        expectGeometryError(.parse, "invalid JSON: expected ',' or '}' but found ']' at byte 35", at: "$") {
            _ = try decodeGeoJSON(#"{"type":"Point","coordinates":[1,2]]"#)
        }
        expectGeometryError(.parse, "properties must be an object or null", at: "$.properties") {
            _ = try decodeGeoJSON(#"{"type":"Feature","geometry":null,"properties":[1]}"#)
        }
        expectGeometryError(.parse, "missing member 'type'", at: "$") { _ = try decodeGeoJSON(#"{"coordinates":[1,2]}"#) }
        expectGeometryError(.parse, "expected a GeoJSON object but found an array") { _ = try decodeGeoJSON("[]") }
        expectGeometryError(.parse, "geometry must be a geometry object or null", at: "$.geometry") {
            _ = try decodeGeoJSON(#"{"type":"Feature","geometry":{"type":"Feature","geometry":null}}"#)
        }
    }

    @Test func nonFiniteNumbersAreRejected() {
        expectGeometryError(.invalidGeometry, "not finite", at: "$.coordinates") { _ = try decodeGeoJSON(#"{"type":"Point","coordinates":[NaN,1]}"#) }
        expectGeometryError(.invalidGeometry, "not finite", at: "$.coordinates[1]") {
            _ = try decodeGeoJSON(#"{"type":"LineString","coordinates":[[0,0],[1,-Infinity]]}"#)
        }
        expectGeometryError(.invalidGeometry, "not finite") { _ = try decodeGeoJSON(#"{"type":"Point","coordinates":[1e400,1]}"#) }
        expectGeometryError(.invalidGeometry, "NaN and Infinity are not JSON numbers", at: "$.properties") {
            _ = try decodeGeoJSON(#"{"type":"Feature","geometry":null,"properties":{"depth":NaN}}"#)
        }
    }

    @Test func textSequencesAndNewlineDelimitedFeatures() throws {
        let features = [
            Feature(id: .integer(1), geometry: .point(x: 1, y: 2), properties: ["kind": "valve"]),
            Feature(id: .string("b"), geometry: nil),
        ]
        let sequence = GeoJSON.encodeSequence(features)
        #expect(sequence.first == 0x1E)
        #expect(try GeoJSON.decodeSequence(sequence) == features)
        let lines = features.map { utf8Text(GeoJSON.encode($0)) }.joined(separator: "\n") + "\n\n"
        #expect(try GeoJSON.decodeSequence(Data(lines.utf8)) == features)
        let broken = utf8Text(GeoJSON.encode(features[0])) + "\n" + #"{"type":"Feature","geometry":{"type":"Point","coordinates":[1]}}"#
        expectGeometryError(.parse, "position needs 2 or 3 numbers", at: "record 2: $.geometry.coordinates") {
            _ = try GeoJSON.decodeSequence(Data(broken.utf8))
        }
    }

    @Test func codableUsesTheSameRulesAndPaths() throws {
        struct Asset: Codable, Equatable {
            var name: String
            var footprint: Geometry
            var feature: Feature
        }
        let asset = Asset(name: "pump station", footprint: .polygon(squareRing(0, 0, 5)),
                          feature: Feature(id: .string("p1"), geometry: .point(x: 1, y: 2), properties: ["kw": 55.5]))
        let data = try JSONEncoder().encode(asset)
        #expect(try JSONDecoder().decode(Asset.self, from: data) == asset)
        let collection = FeatureCollection([asset.feature])
        #expect(try JSONDecoder().decode(FeatureCollection.self, from: JSONEncoder().encode(collection)) == collection)
        #expect(try JSONDecoder().decode(FeatureID.self, from: Data("12".utf8)) == .integer(12))

        let bad = Data(#"{"name":"x","feature":{"type":"Feature","geometry":null},"footprint":{"type":"Polygon","coordinates":[[[0,0],[1,0],[0,0]]]}}"#.utf8)
        expectGeometryError(.invalidGeometry, "exterior ring has 3 positions", at: "$.footprint.coordinates[0]") {
            _ = try JSONDecoder().decode(Asset.self, from: bad)
        }
    }
}
