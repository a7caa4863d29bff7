import Foundation
import GeoCore
import Testing
import TwinStore

/// The SensorThings `$filter` language: precedence, operators, functions, literals, and
/// malformed filters refused with the character position.
@Suite("SensorThings $filter")
struct SensingFilterTests {
    static let now: Int64 = 1_767_225_600_000_000  // 2026-01-01T00:00:00Z

    /// An observation-like entity.
    static let entity: [String: JSONValue] = [
        "result": 27.8, "name": "Gauge Zhucheng 1", "phenomenonTime": "2026-05-01T08:30:00Z",
        "properties": ["level": 3, "river": "举水"],
        "location": ["type": "Point", "coordinates": [114.80, 30.84]],
    ]

    func matches(_ text: String, _ entity: [String: JSONValue] = entity) throws -> Bool {
        let f = try SensingFilter.parse(text)
        return try SensingFilterEvaluator.matches(f, now: Self.now) { path in
            if path == ["id"] { return .number(7) }
            var v = entity[path[0]]
            for p in path.dropFirst() { v = v?.objectValue?[p] }
            return SensingFilterEvaluator.value(v)
        }
    }

    @Test("comparison, logical and arithmetic operators with OData precedence", arguments: [
        ("result gt 27", true), ("result gt 27 and result lt 28", true), ("result lt 27 or id eq 7", true),
        ("not (result gt 27)", false), ("result sub 0.8 eq 27", true), ("result mul 2 ge 55.6", true),
        ("id mod 4 eq 3", true), ("result add 1 gt 28 and not (id ne 7)", true),
        ("properties/level eq 3", true), ("properties/missing eq null", true), ("properties/missing gt 1", false),
        ("result eq 1 or result eq 2 and result eq 27.8", false), ("-result lt -27", true), ("id div 2 eq 3.5", true),
    ])
    func operators(_ text: String, _ expected: Bool) throws {
        #expect(try matches(text) == expected, "\(text)")
    }

    @Test("string functions", arguments: [
        ("substringof('Zhucheng', name)", true), ("startswith(name, 'Gauge')", true), ("endswith(name, ' 1')", true),
        ("contains(name, 'cheng')", true), ("length(name) eq 16", true), ("tolower(name) eq 'gauge zhucheng 1'", true),
        ("toupper(name) eq 'GAUGE ZHUCHENG 1'", true), ("indexof(name, 'Zhu') eq 6", true), ("substring(name, 6, 8) eq 'Zhucheng'", true),
        ("concat(properties/river, 'X') eq '举水X'", true), ("trim('  a ') eq 'a'", true), ("name eq 'it''s'", false),
        // Indexes beyond any Int are past the end (the fuzzer's crash of 2026-11-24), not a trap.
        ("substring(name, 6) eq 'Zhucheng 1'", true), ("substring(name, 2555555555555555555555555555) eq ''", true),
        ("substring(name, 6, 2555555555555555555555555555) eq 'Zhucheng 1'", true),
    ])
    func strings(_ text: String, _ expected: Bool) throws {
        #expect(try matches(text) == expected, "\(text)")
    }

    @Test("date-time literals and temporal functions", arguments: [
        ("phenomenonTime gt 2026-05-01T08:00:00Z", true), ("phenomenonTime lt 2026-05-01T08:00:00+08:00", false),
        ("year(phenomenonTime) eq 2026", true), ("month(phenomenonTime) eq 5", true), ("day(phenomenonTime) eq 1", true),
        ("hour(phenomenonTime) eq 8", true), ("minute(phenomenonTime) eq 30", true), ("second(phenomenonTime) eq 0", true),
        ("phenomenonTime lt now()", false), ("date(phenomenonTime) eq 2026-05-01", true), ("phenomenonTime ge mindatetime()", true),
    ])
    func temporal(_ text: String, _ expected: Bool) throws {
        #expect(try matches(text) == expected, "\(text)")
    }

    @Test("geography literals with GEOS predicates and distance", arguments: [
        ("st_intersects(location, geography'POLYGON ((114.7 30.8, 114.9 30.8, 114.9 30.9, 114.7 30.9, 114.7 30.8))')", true),
        ("st_within(location, geography'POLYGON ((114.7 30.8, 114.9 30.8, 114.9 30.9, 114.7 30.9, 114.7 30.8))')", true),
        ("st_within(location, geography'POLYGON ((100 30, 101 30, 101 31, 100 31, 100 30))')", false),
        ("geo.distance(location, geography'POINT (114.80 30.85)') lt 0.02", true),
        ("geo.intersects(location, geography'POINT (114.80 30.84)')", true),
        ("st_disjoint(location, geography'POINT (1 1)')", true),
    ])
    func spatial(_ text: String, _ expected: Bool) throws {
        #expect(try matches(text) == expected, "\(text)")
    }

    @Test("malformed filters name the character where they go wrong", arguments: [
        ("result gt", 9), ("result gt 3 and", 15), ("(result gt 3", 12), ("result gx 3", 7), ("name eq 'open", 8),
        ("foo(1)", 0), ("length(name, 2) eq 1", 0), ("result gt 2026-13-45T00:00:00Z", 10), ("result # 3", 7),
        ("st_within(location, geography'POINT (1')", 20), ("", 0), ("and", 0),
    ])
    func malformed(_ text: String, _ offset: Int) throws {
        let error = try #require(throws: SensingFilterError.self) { _ = try SensingFilter.parse(text) }
        #expect(error.offset == offset, "\(text): \(error)")
    }

    @Test("deep nesting is refused, not a stack overflow")
    func nesting() throws {
        let text = String(repeating: "(", count: 5_000) + "1" + String(repeating: ")", count: 5_000)
        #expect(throws: SensingFilterError.self) { _ = try SensingFilter.parse(text) }
    }
}
