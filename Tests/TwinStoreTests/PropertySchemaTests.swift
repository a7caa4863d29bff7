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
