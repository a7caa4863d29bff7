import Foundation
import GeoCore
import Testing
@testable import TwinStore

/// The CQL2 standard's examples (OGC 21-065 Annex B, adapted to a city's layers), each written in
/// both encodings: cql2-text and cql2-json must compile to the same `FilterExpression`, and to the
/// one this test expects.
@Suite("CQL2 text and JSON read to the same filter")
struct CQL2EncodingTests {
    struct Example: Sendable, CustomTestStringConvertible {
        var text: String
        var json: String
        var expected: FilterExpression
        var testDescription: String { text }
    }

    static let hankou = Geometry.point(Point(x: 114.3055, y: 30.5928))
    static let box = Geometry.polygon(Polygon(exterior: [
        Position(x: 114.2, y: 30.5), Position(x: 114.4, y: 30.5), Position(x: 114.4, y: 30.7),
        Position(x: 114.2, y: 30.7), Position(x: 114.2, y: 30.5),
    ]))
    static func instant(_ s: String) -> Date { RFC3339.dateTime(s) ?? .distantPast }

    static let examples: [Example] = [
        Example(text: "city = 'Wuhan'", json: #"{"op":"=","args":[{"property":"city"},"Wuhan"]}"#,
                expected: .comparison(.equal, "city", .literal("Wuhan"))),
        Example(text: "floors >= 5", json: #"{"op":">=","args":[{"property":"floors"},5]}"#,
                expected: .comparison(.greaterOrEqual, "floors", .literal(5))),
        Example(text: "floors >= 5.0", json: #"{"op":">=","args":[{"property":"floors"},5]}"#,
                expected: .comparison(.greaterOrEqual, "floors", .literal(5))),
        Example(text: "balance - 150.0 > 0", json: #"{"op":">","args":[{"op":"-","args":[{"property":"balance"},150.0]},0]}"#,
                expected: .comparison(.greater, .arithmetic(.subtract, "balance", .literal(150)), .literal(0))),
        Example(text: "height > 2.5", json: #"{"op":">","args":[{"property":"height"},2.5]}"#,
                expected: .comparison(.greater, "height", .literal(2.5))),
        Example(text: "name = 'it''s'", json: #"{"op":"=","args":[{"property":"name"},"it's"]}"#,
                expected: .comparison(.equal, "name", .literal("it's"))),
        Example(text: "updated >= DATE('1970-01-01')", json: #"{"op":">=","args":[{"property":"updated"},{"date":"1970-01-01"}]}"#,
                expected: .comparison(.greaterOrEqual, "updated", .literal("1970-01-01"))),
        Example(text: "updated > TIMESTAMP('2012-08-10T05:30:00Z')",
                json: #"{"op":">","args":[{"property":"updated"},{"timestamp":"2012-08-10T05:30:00Z"}]}"#,
                expected: .comparison(.greater, "updated", .literal(.string(RFC3339.format(instant("2012-08-10T05:30:00Z")))))),
        Example(text: "geometry IS NOT NULL", json: #"{"op":"not","args":[{"op":"isNull","args":[{"property":"geometry"}]}]}"#,
                expected: .not(.isNull("geometry"))),
        Example(text: "name LIKE 'Hankou%'", json: #"{"op":"like","args":[{"property":"name"},"Hankou%"]}"#,
                expected: .like("name", pattern: "Hankou%", caseInsensitive: false)),
        Example(text: "name NOT LIKE '%站'", json: #"{"op":"not","args":[{"op":"like","args":[{"property":"name"},"%站"]}]}"#,
                expected: .not(.like("name", pattern: "%站", caseInsensitive: false))),
        Example(text: "depth BETWEEN 100.0 AND 150.0", json: #"{"op":"between","args":[{"property":"depth"},100.0,150.0]}"#,
                expected: .between("depth", low: .literal(100), high: .literal(150))),
        Example(text: "cityName IN ('Wuhan', 'Yichang', 'Xiangyang')",
                json: #"{"op":"in","args":[{"property":"cityName"},["Wuhan","Yichang","Xiangyang"]]}"#,
                expected: .in("cityName", [.literal("Wuhan"), .literal("Yichang"), .literal("Xiangyang")])),
        Example(text: "category NOT IN (1, 2, 3)", json: #"{"op":"not","args":[{"op":"in","args":[{"property":"category"},[1,2,3]]}]}"#,
                expected: .not(.in("category", [.literal(1), .literal(2), .literal(3)]))),
        Example(text: "CASEI(name) = CASEI('hankou')",
                json: #"{"op":"=","args":[{"op":"casei","args":[{"property":"name"}]},{"op":"casei","args":["hankou"]}]}"#,
                expected: .like("name", pattern: "hankou", caseInsensitive: true)),
        Example(text: "CASEI(name) LIKE CASEI('wu%')",
                json: #"{"op":"like","args":[{"op":"casei","args":[{"property":"name"}]},{"op":"casei","args":["wu%"]}]}"#,
                expected: .like("name", pattern: "wu%", caseInsensitive: true)),
        Example(text: "CASEI(name) <> CASEI('50%_off')",
                json: #"{"op":"<>","args":[{"op":"casei","args":[{"property":"name"}]},{"op":"casei","args":["50%_off"]}]}"#,
                expected: .not(.like("name", pattern: "50\\%\\_off", caseInsensitive: true))),
        Example(text: "S_INTERSECTS(geometry, POINT(114.3055 30.5928))",
                json: #"{"op":"s_intersects","args":[{"property":"geometry"},{"type":"Point","coordinates":[114.3055,30.5928]}]}"#,
                expected: .spatial(.intersects, hankou)),
        Example(text: "S_INTERSECTS(geometry, BBOX(114.2, 30.5, 114.4, 30.7))",
                json: #"{"op":"s_intersects","args":[{"property":"geometry"},{"bbox":[114.2,30.5,114.4,30.7]}]}"#,
                expected: .spatial(.intersects, box)),
        Example(text: "S_WITHIN(geometry, POLYGON((114.2 30.5, 114.4 30.5, 114.4 30.7, 114.2 30.7, 114.2 30.5)))",
                json: #"{"op":"s_within","args":[{"property":"geometry"},{"type":"Polygon","coordinates":[[[114.2,30.5],[114.4,30.5],[114.4,30.7],[114.2,30.7],[114.2,30.5]]]}]}"#,
                expected: .spatial(.within, box)),
        Example(text: "S_CONTAINS(POINT(114.3055 30.5928), geometry)",
                json: #"{"op":"s_contains","args":[{"type":"Point","coordinates":[114.3055,30.5928]},{"property":"geometry"}]}"#,
                expected: .spatial(.within, hankou)),
        Example(text: "S_CROSSES(geometry, LINESTRING(114 30, 115 31))",
                json: #"{"op":"s_crosses","args":[{"property":"geometry"},{"type":"LineString","coordinates":[[114,30],[115,31]]}]}"#,
                expected: .spatial(.crosses, .lineString(LineString([Position(x: 114, y: 30), Position(x: 115, y: 31)])))),
        Example(text: "T_AFTER(built, TIMESTAMP('2020-01-01T00:00:00Z'))",
                json: #"{"op":"t_after","args":[{"property":"built"},{"timestamp":"2020-01-01T00:00:00Z"}]}"#,
                expected: .temporal(.after, property: "built", .instant(instant("2020-01-01T00:00:00Z")))),
        Example(text: "T_BEFORE(built, DATE('2020-01-01'))",
                json: #"{"op":"t_before","args":[{"property":"built"},{"date":"2020-01-01"}]}"#,
                expected: .temporal(.before, property: "built", .instant(instant("2020-01-01T00:00:00Z")))),
        Example(text: "T_INTERSECTS(built, INTERVAL('2020-01-01', '..'))",
                json: #"{"op":"t_intersects","args":[{"property":"built"},{"interval":["2020-01-01",".."]}]}"#,
                expected: .temporal(.during, property: "built", .interval(start: instant("2020-01-01T00:00:00Z"), end: nil))),
        Example(text: "T_DURING(built, INTERVAL('2020-01-01T00:00:00Z', '2021-01-01T00:00:00Z'))",
                json: #"{"op":"t_during","args":[{"property":"built"},{"interval":["2020-01-01T00:00:00Z","2021-01-01T00:00:00Z"]}]}"#,
                expected: .and([.temporal(.after, property: "built", .instant(instant("2020-01-01T00:00:00Z"))),
                                .temporal(.before, property: "built", .instant(instant("2021-01-01T00:00:00Z")))])),
        Example(text: "T_DISJOINT(built, INTERVAL('..', '2000-01-01'))",
                json: #"{"op":"t_disjoint","args":[{"property":"built"},{"interval":["..","2000-01-01"]}]}"#,
                expected: .or([.temporal(.before, property: "built", .interval(start: nil, end: instant("2000-01-01T00:00:00Z"))),
                               .temporal(.after, property: "built", .interval(start: nil, end: instant("2000-01-01T00:00:00Z")))])),
        Example(text: "T_BEFORE(DATE('2020-01-01'), built)",
                json: #"{"op":"t_before","args":[{"date":"2020-01-01"},{"property":"built"}]}"#,
                expected: .temporal(.after, property: "built", .instant(instant("2020-01-01T00:00:00Z")))),
        Example(text: "floors > height", json: #"{"op":">","args":[{"property":"floors"},{"property":"height"}]}"#,
                expected: .comparison(.greater, "floors", "height")),
        Example(text: "\"建筑 名称\" = '汉口站'", json: #"{"op":"=","args":[{"property":"建筑 名称"},"汉口站"]}"#,
                expected: .comparison(.equal, "建筑 名称", .literal("汉口站"))),
        Example(text: "TRUE", json: "true", expected: .constant(true)),
        Example(text: "floors = 1 AND height = 2 AND name = 'x'",
                json: #"{"op":"and","args":[{"op":"and","args":[{"op":"=","args":[{"property":"floors"},1]},{"op":"=","args":[{"property":"height"},2]}]},{"op":"=","args":[{"property":"name"},"x"]}]}"#,
                expected: .and([.comparison(.equal, "floors", .literal(1)), .comparison(.equal, "height", .literal(2)),
                                .comparison(.equal, "name", .literal("x"))])),
        Example(text: "-floors < 3", json: #"{"op":"<","args":[{"op":"*","args":[-1,{"property":"floors"}]},3]}"#,
                expected: .comparison(.less, .arithmetic(.multiply, .literal(-1), "floors"), .literal(3))),
    ]

    @Test(arguments: examples)
    func bothEncodingsGiveTheExpectedFilter(_ e: Example) throws {
        let fromText = try CQL2.parseText(e.text, queryables: nil)
        let fromJSON = try CQL2.parseJSON(Data(e.json.utf8), queryables: nil)
        #expect(fromText == e.expected)
        #expect(fromJSON == e.expected)
    }

    @Test func keywordsAreCaseInsensitive() throws {
        let upper = try CQL2.parseText("NOT (floors BETWEEN 1 AND 3) OR name IS NULL AND S_INTERSECTS(geometry, POINT(1 2))", queryables: nil)
        let lower = try CQL2.parseText("not (floors between 1 and 3) or name is null and s_intersects(geometry, point(1 2))", queryables: nil)
        #expect(upper == lower)
    }
}
