import Foundation
import GeoCore
import Testing
@testable import TwinStore

/// Differential check against PyPI `cql2` 0.6.0 (Scripts/reference/make_cql2_fixtures.py wrote
/// Fixtures/cql2_reference.json): CityTwin accepts exactly the expressions the reference accepts,
/// except the documented differences below, and reads each accepted text to the same filter as
/// the reference's cql2-json for it.
@Suite("CQL2 agrees with the cql2 0.6.0 reference implementation")
struct CQL2ReferenceTests {
    struct Case: Sendable, CustomTestStringConvertible {
        var text: String
        var valid: Bool
        /// The reference's cql2-json, when it could parse the text.
        var json: Data?
        var testDescription: String { text.isEmpty ? "(empty)" : text }
    }

    /// Valid CQL2 (per the reference) that CityTwin rejects on purpose, with the reason.
    static let unsupported: [String: String] = [
        "ACCENTI(name) = ACCENTI('cafe')": "accent-insensitive comparison",
        "floors DIV 2 = 1": "FilterExpression has no integer division",
        "floors % 2 = 1": "FilterExpression has no modulo",
        "floors ^ 2 > 1": "FilterExpression has no power",
        "FOO(floors) = 1": "custom functions",
        "A_CONTAINS(tags, ('a', 'b'))": "array functions",
        "T_INTERSECTS(INTERVAL(built, demolished), INTERVAL('2020-01-01', '..'))": "intervals of properties",
        "floors != 1": "'!=' is not CQL2 (the reference accepts it as '<>')",
        "S_INTERSECTS(geometry, POINT(1))": "the reference reads POINT(1) as a custom function; it is bad WKT",
    ]

    /// Valid CQL2 that the reference rejects.
    static let acceptedBeyondReference: [String: String] = [
        "floors = .5": "the BNF allows a number to start with '.'",
    ]

    static let cases: [Case] = {
        // A missing or malformed fixture is a failure, never an empty (vacuously passing) suite.
        let url = Bundle.module.url(forResource: "Fixtures/cql2_reference", withExtension: "json")!
        let data = try! Data(contentsOf: url)
        let root = try! JSONSerialization.jsonObject(with: data) as! [String: Any]
        let cases = root["cases"] as! [[String: Any]]
        return cases.compactMap { c in
            guard let text = c["text"] as? String, let valid = c["valid"] as? Bool else { return nil }
            let json = c["json"].flatMap { try? JSONSerialization.data(withJSONObject: $0, options: [.fragmentsAllowed]) }
            return Case(text: text, valid: valid, json: json)
        }
    }()

    @Test func theFixtureIsPresentAndMixesValidAndInvalidExpressions() {
        #expect(Self.cases.count >= 150)
        #expect(Self.cases.filter(\.valid).count >= 100)
        #expect(Self.cases.filter { !$0.valid }.count >= 30)
    }

    @Test(arguments: cases)
    func acceptsWhatTheReferenceAccepts(_ c: Case) throws {
        let ours = Result { try CQL2.parseText(c.text, queryables: nil) }
        if let reason = Self.unsupported[c.text] {
            #expect(c.valid, "no longer a difference: \(reason)")
            #expect(throws: CQLError.self) { try ours.get() }
            return
        }
        if Self.acceptedBeyondReference[c.text] != nil {
            #expect(!c.valid)
            _ = try ours.get()
            return
        }
        guard c.valid else {
            #expect(throws: CQLError.self, "the reference rejects \(c.text)") { try ours.get() }
            return
        }
        let filter = try ours.get()
        let json = try #require(c.json)
        let fromJSON = try CQL2.parseJSON(json, queryables: nil)
        #expect(filter == fromJSON, "cql2-json: \(String(decoding: json, as: UTF8.self))")
    }
}
