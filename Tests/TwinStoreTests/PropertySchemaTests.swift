import Foundation
import GeoCore
import Testing
@testable import TwinStore

@Suite("Feature properties against the layer's JSON Schema")
struct PropertySchemaTests {
    let schema: PropertySchema

    init() throws { schema = try Fixtures.shelters.schema }

    private func check(_ props: [String: JSONValue]) throws {
        try schema.validate(props, layer: "shelters", feature: "s1")
    }

    @Test func aValidFeaturePasses() throws {
        try check(["name": "东湖", "kind": "固定", "capacity": 120, "area_m2": 360.5, "phone": "13812345678",
                   "opened": "2020-02-29", "checked_at": "2024-05-01T08:30:00+08:00"])
    }

    @Test func anEmptyFeatureNamesTheFirstMissingRequiredField() {
        let e = #expect(throws: StoreError.self) { try check([:]) }
        #expect(e?.field == "name")
        #expect(e?.feature == "s1")
    }

    @Test(arguments: [
        ("capacity", JSONValue.string("many")),       // type
        ("capacity", JSONValue.number(1.5)),          // integer
        ("capacity", JSONValue.integer(-1)),          // minimum
        ("kind", JSONValue.string("临时")),             // enum
        ("name", JSONValue.string(String(repeating: "长", count: 41))), // maxLength
        ("phone", JSONValue.string("0271234567")),    // pattern
        ("opened", JSONValue.string("2023-02-29")),   // date that does not exist
        ("checked_at", JSONValue.string("2024-05-01 08:30")), // not RFC 3339
    ])
    func eachKeywordRejectsWithTheFieldName(field: String, value: JSONValue) {
        var props: [String: JSONValue] = ["name": "东湖", "kind": "固定"]
        props[field] = value
        let e = #expect(throws: StoreError.self) { try check(props) }
        #expect(e?.code == .invalidFeature)
        #expect(e?.field == field)
    }

    @Test func integralNumbersCountAsIntegersAndNullIsAllowedWhereTyped() throws {
        try check(["name": "a", "kind": "紧急", "capacity": 3.0])
        try check(["name": "a", "kind": "紧急", "capacity": nil])
    }

    @Test("arrays of objects are checked member by member, to any depth, and the error names the path")
    func nestedItemsAndMembersAreChecked() throws {
        let json: JSONValue = ["type": "object", "properties": [
            "lane_groups": ["type": "array", "items": [
                "type": "object", "required": ["id", "lanes"], "properties": [
                    "id": ["type": "string"],
                    "lanes": ["type": "integer", "minimum": 1],
                    "lane_width_m": ["type": "number", "minimum": 2.7, "maximum": 4.5],
                    "movements": ["type": "array", "items": ["type": "string", "enum": ["left", "through", "right"]]],
                ]]],
            "contact": ["type": ["object", "null"], "additionalProperties": false, "properties": ["phone": ["type": "string"]]],
            "destination": ["type": "array", "items": ["type": "number"], "minItems": 2, "maxItems": 2],
        ]]
        let nested = try PropertySchema(json: json, layer: "l")
        func check(_ props: [String: JSONValue]) throws { try nested.validate(props, layer: "l", feature: "f") }
        let good: JSONValue = ["id": "N", "lanes": 2, "lane_width_m": 3.25, "movements": ["through", "right"], "storage_m": 40]
        try check(["lane_groups": [good, ["id": "NL", "lanes": 1]], "contact": ["phone": "027"]])
        try check(["contact": nil])
        for (groups, field) in [
            ([good, ["id": "NL", "lanes": "one"]], "lane_groups[1].lanes"),
            ([good, ["id": "NL", "lanes": 0]], "lane_groups[1].lanes"),
            ([["id": "N", "lanes": 2, "lane_width_m": 6]], "lane_groups[0].lane_width_m"),
            ([["id": "N", "lanes": 2, "movements": ["through", "u-turn"]]], "lane_groups[0].movements[1]"),
            ([["lanes": 2]], "lane_groups[0].id"),
            ([JSONValue.string("N")], "lane_groups[0]"),
        ] as [([JSONValue], String)] {
            let e = #expect(throws: StoreError.self) { try check(["lane_groups": .array(groups)]) }
            #expect(e?.code == .invalidFeature && e?.field == field, "\(groups)")
            #expect(e?.message.contains("\"\(field)\"") == true)
        }
        let e = #expect(throws: StoreError.self) { try check(["contact": ["phone": "027", "fax": "027"]]) }
        #expect(e?.field == "contact.fax")
        try check(["destination": [114.3, 30.6]])
        for wrong: JSONValue in [[114.3], [114.3, 30.6, 0]] {
            let e = #expect(throws: StoreError.self) { try check(["destination": wrong]) }
            #expect(e?.field == "destination")
        }
        let bad: JSONValue = ["type": "object", "properties": ["xs": ["type": "array", "items": ["type": "string", "pattern": "(["]]]]
        let definition = #expect(throws: StoreError.self) { try PropertySchema(json: bad, layer: "l") }
        #expect(definition?.field == "schema.properties.xs.items.pattern")
    }

    @Test func aMalformedPatternIsADefinitionError() {
        let json: JSONValue = ["type": "object", "properties": ["x": ["type": "string", "pattern": "(["]]]
        let e = #expect(throws: StoreError.self) { try PropertySchema(json: json, layer: "l") }
        #expect(e?.field == "schema.properties.x.pattern")
    }

    @Test func rfc3339InstantsParseWithOffsets() throws {
        let a = try #require(RFC3339.dateTime("2024-05-01T08:30:00+08:00"))
        let b = try #require(RFC3339.dateTime("2024-05-01T00:30:00Z"))
        #expect(a == b)
        #expect(RFC3339.dateTime(RFC3339.format(a)) == a)
        #expect(RFC3339.dateTime("2024-13-01T00:00:00Z") == nil)
    }
}
