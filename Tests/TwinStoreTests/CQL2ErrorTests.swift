import Foundation
import GeoCore
import Testing
@testable import TwinStore

/// Every rejection names where it happened and what was found there.
@Suite("CQL2 errors say where and what")
struct CQL2ErrorTests {
    func textError(_ text: String) -> CQLError? {
        do {
            _ = try CQL2.parseText(text, queryables: nil)
            return nil
        } catch let e as CQLError {
            return e
        } catch {
            return nil
        }
    }

    @Test(arguments: [
        // (input, position, token, message fragment)
        ("", "offset 0", nil, "expected an expression at offset 0, found end of input"),
        ("floors =", "offset 8", nil, "found end of input"),
        ("(floors = 1 AND height = 2", "offset 26", nil, "expected ')'"),
        ("floors IN (1, 2 AND height = 1", "offset 16", "AND", "expected ')' or ',' in the IN list at offset 16, found 'AND'"),
        ("AND floors = 1", "offset 0", "AND", "expected an expression at offset 0, found 'AND'"),
        ("floors = 1)", "offset 10", ")", "unbalanced ')'"),
        ("floors = 1 height = 2", "offset 11", "height", "expected end of input"),
        ("floors BETWEEN 1 OR 2", "offset 17", "OR", "expected AND in BETWEEN"),
        ("name IS 1", "offset 8", "1", "expected NULL or NOT NULL after IS"),
        ("name NOT 1", "offset 9", "1", "expected LIKE, BETWEEN or IN after NOT"),
        ("name = 'abc", "offset 7", "'abc", "unterminated string"),
        ("\"name = 1", "offset 0", "\"name = 1", "unterminated quoted identifier"),
        ("floors = 1 # 2", "offset 11", "#", "unexpected character '#'"),
        ("floors = 1e999", "offset 9", "1e999", "out of range"),
        ("floors = 12abc", "offset 11", "a", "after number 12"),
        ("S_INTERSECTS(geometry, POINT(1))", "offset 30", "POINT(1)", "invalid geometry literal"),
        ("S_INTERSECTS(geometry, POINT(1 2)", "offset 33", nil, "expected ')'"),
        ("S_INTERSECTS(geometry, POINT 1 2)", "offset 29", "1", "expected '(' or EMPTY after POINT"),
        ("S_INTERSECTS(geometry, POLYGON((1 2, 3 4", "offset 23", "POLYGON", "unterminated POLYGON literal"),
        ("FOO(floors) = 1", "offset 0", "FOO", "unsupported function 'FOO'"),
        ("ACCENTI(name) = 'x'", "offset 0", "ACCENTI", "unsupported function 'ACCENTI'"),
        ("A_CONTAINS(tags, ('a', 'b'))", "offset 0", "A_CONTAINS", "array functions are not supported"),
        ("floors DIV 2 = 1", "offset 0", "DIV", "unsupported arithmetic operator 'DIV'"),
        ("floors", "offset 0", "floors", "expected a predicate, found property 'floors'"),
        ("floors + 1", "offset 0", "+", "expected a predicate, found the scalar expression '+'"),
        ("name LIKE 3", "offset 10", "3", "LIKE needs a text literal pattern"),
        ("S_INTERSECTS(geometry)", "offset 0", "S_INTERSECTS", "S_INTERSECTS takes 2 arguments, found 1"),
        ("built = DATE('2020-13-45')", "offset 8", "DATE('2020-13-45')", "not a valid RFC 3339 date"),
        ("T_AFTER(built, TIMESTAMP('yesterday'))", "offset 15", "TIMESTAMP('yesterday')", "not a valid RFC 3339 date-time"),
        ("T_DURING(built, INTERVAL('2021-01-01', '2020-01-01'))", "offset 16", "INTERVAL", "starts after it ends"),
        ("S_INTERSECTS(geometry, BBOX(3, 0, 1, 1))", "offset 23", "BBOX", "minimum exceeds maximum"),
        ("S_INTERSECTS(geometry, BBOX(1, 2, 3))", "offset 23", "BBOX", "BBOX takes 4 or 6 numbers, found 3"),
        ("S_INTERSECTS(geometry, other)", "offset 0", "S_INTERSECTS", "other forms are not supported"),
        ("floors = 1 AND OR height = 2", "offset 15", "OR", "expected an expression at offset 15, found 'OR'"),
    ] as [(String, String, String?, String)])
    func textErrorsNameTheirPosition(_ input: String, _ position: String, _ token: String?, _ fragment: String) throws {
        let e = try #require(textError(input), "\(input) was accepted")
        #expect(e.position == position, "\(e.message)")
        #expect(e.token == token, "\(e.message)")
        #expect(e.message.contains(fragment), "\(e.message)")
    }

    @Test func offsetsCountCharactersNotBytes() throws {
        let e = try #require(textError("名称 = 'x' )"))
        #expect(e.position == "offset 9")
    }

    @Test(arguments: [
        (#"{"op":"=","args":[{"property":"a"}]"#, "byte 35", "expected ',' or '}'"),
        (#"{"op":"=","args":[{"property":"a"},1]} x"#, "byte 39", "expected end of input"),
        (#"{"op":"=","args":[{"property":"a"},null]}"#, "$.args[1]", "null is not a CQL2 value"),
        (#"{"op":"s_intersects","args":[{"property":"g"},{"type":"Point","coordinates":[1]}]}"#, "$.args[1].coordinates", "invalid GeoJSON geometry"),
        (#"{"op":"=","args":[{"prop":"a"},1]}"#, "$.args[0]", "found keys: prop"),
        (#"{"op":"between","args":[{"property":"a"},1]}"#, "$", "BETWEEN takes 3 arguments, found 2"),
        (#"{"op":"and","args":[{"op":"=","args":[{"property":"a"},1]}]}"#, "$", "AND takes at least 2 arguments"),
        (#"{"op":"=","args":[{"property":"a"},{"bbox":[1,"2",3,4]}]}"#, "$.args[1].bbox[1]", "\"bbox\" must be an array of numbers"),
        (#"{"op":"frobnicate","args":[]}"#, "$", "unsupported function 'frobnicate'"),
        (#"{"op":"t_after","args":[{"property":"t"},{"interval":["2020-01-01"]}]}"#, "$.args[1].interval", "array of two ends"),
        (#"{"op":"="}"#, "$", "has no \"args\""),
    ])
    func jsonErrorsNameTheirPath(_ json: String, _ position: String, _ fragment: String) throws {
        let e = try #require(throws: CQLError.self) { try CQL2.parseJSON(Data(json.utf8), queryables: nil) }
        #expect(e.position == position, "\(e.message)")
        #expect(e.message.contains(fragment), "\(e.message)")
    }

    @Test func deepNestingIsAnErrorNotACrash() throws {
        let deep = String(repeating: "(", count: 10_000) + "a = 1" + String(repeating: ")", count: 10_000)
        let e = try #require(textError(deep))
        #expect(e.message.contains("nested deeper than 128"))
        let nots = String(repeating: "NOT ", count: 10_000) + "a = 1"
        #expect(textError(nots)?.message.contains("nested deeper than 128") == true)
        let minus = "a = " + String(repeating: "-", count: 10_000) + "1"
        #expect(textError(minus)?.message.contains("nested deeper than 128") == true)
        let chain = "x" + String(repeating: " + 1", count: 10_000) + " > 0"
        #expect(textError(chain)?.message.contains("nested deeper than 128") == true)
        let json = String(repeating: #"{"op":"not","args":["#, count: 5_000) + "true" + String(repeating: "]}", count: 5_000)
        let je = try #require(throws: CQLError.self) { try CQL2.parseJSON(Data(json.utf8), queryables: nil) }
        #expect(je.message.contains("nested deeper than 128"))
    }

    /// The filter's own depth limit (`FilterExpression.maximumDepth`, 32: issue 78 §15) is below
    /// the parsers' nesting guard: 31 NOTs around a comparison are fine, 32 are refused naming it.
    @Test func thirtyTwoLevelsAreFineThirtyThreeAreNot() throws {
        let text = String(repeating: "NOT (", count: 31) + "a = 1" + String(repeating: ")", count: 31)
        var expected: FilterExpression = .comparison(.equal, "a", .literal(1))
        for _ in 0..<31 { expected = .not(expected) }
        #expect(try CQL2.parseText(text, queryables: nil) == expected)
        let deeper = "NOT (" + text + ")"
        #expect(textError(deeper)?.message.contains("nests 33 levels deep") == true)
        #expect(textError(deeper)?.message.contains("at most 32") == true)
    }
}
