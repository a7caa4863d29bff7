import Foundation
import GeoCore
import GRDB
import Testing
@testable import TwinStore

/// The filter depth limit (issue 78 §15): the SQL of every filter shape at the limit runs on both
/// backends and answers as the filter's flat equivalent; deeper is refused naming the limit; a
/// failed statement's error carries its shape, never its text.
@Suite("Filter depth: the limit, and the SQL at it on SQLite and PostgreSQL", .dropsTestSchemas)
struct FilterDepthTests {
    /// `capacity >= 300` under `n` NOTs.
    static func nots(_ n: Int) -> FilterExpression {
        var e: FilterExpression = .comparison(.greaterOrEqual, "capacity", .literal(300))
        for _ in 0..<n { e = .not(e) }
        return e
    }

    /// `leaf` under `levels` of AND (with a tautology) and OR (with a contradiction), alternating,
    /// the nested operand on the right (as `a AND (b OR (c …))` parses) or, with `left`, first.
    static func alternation(_ levels: Int, around leaf: FilterExpression, left: Bool = false) -> FilterExpression {
        var e = leaf
        for i in 0..<levels {
            let tautology: FilterExpression = .comparison(.notEqual, "name", .literal("nope"))
            let contradiction: FilterExpression = .comparison(.equal, "name", .literal("nope"))
            if i % 2 == 0 {
                e = .and(left ? [e, tautology] : [tautology, e])
            } else {
                e = .or(left ? [e, contradiction] : [contradiction, e])
            }
        }
        return e
    }

    /// Ten shelters, capacities 0…900 by 100.
    static func seeded(_ backend: StoreBackend) async throws -> any FeatureStore {
        let store = try await backend.makeStore()
        try await store.insert(layer: "shelters", features: (0..<10).map {
            Fixtures.shelter("s\($0)", 114.30 + Double($0) * 0.01, 30.50, name: "避难所\($0)", capacity: Int64($0 * 100))
        }, by: Fixtures.emergency, at: Fixtures.t0)
        return store
    }

    static func ids(_ store: any FeatureStore, _ filter: FilterExpression) async throws -> [String] {
        try await store.query(layer: "shelters", FeatureQuery(filter: filter, limit: 100), by: .admin).features
            .compactMap { $0.id?.description }.sorted()
    }

    @Test("every shape 32 levels deep runs and answers as its flat equivalent", arguments: StoreBackend.available)
    func atTheLimit(_ backend: StoreBackend) async throws {
        let store = try await Self.seeded(backend)
        let flat: FilterExpression = .comparison(.greaterOrEqual, "capacity", .literal(300))
        let expected = try await Self.ids(store, flat)
        #expect(expected == ["s3", "s4", "s5", "s6", "s7", "s8", "s9"])
        let below = try await Self.ids(store, .not(flat))
        let box: FilterExpression = .spatial(.intersects, Fixtures.square(114.295, 30.49, 114.395, 30.51))
        var arithmetic: ScalarExpression = "capacity"
        for i in 0..<16 { arithmetic = i % 2 == 0 ? .arithmetic(.subtract, .literal(1), arithmetic) : .arithmetic(.divide, .literal(1), arithmetic) }
        var added: ScalarExpression = "capacity"
        for _ in 0..<16 { added = .arithmetic(.add, .literal(0), added) }
        let cases: [(String, FilterExpression, [String])] = [
            ("31 NOTs", Self.nots(31), below),
            ("30 NOTs", Self.nots(30), expected),
            ("AND/OR right-nested", Self.alternation(31, around: flat), expected),
            ("AND/OR left-nested", Self.alternation(31, around: flat, left: true), expected),
            ("NOT over AND/OR", .not(Self.alternation(29, around: .not(flat))), expected),
            ("a spatial predicate at the bottom", Self.alternation(31, around: box), (0..<10).map { "s\($0)" }),
            // s0 (capacity 0) divides by zero on the way: NULL, as in both backends' division.
            ("arithmetic 16 deep in 15 levels", Self.alternation(15, around: .comparison(.notEqual, arithmetic, .literal(0))), (1..<10).map { "s\($0)" }),
            ("16 additions in 15 levels", Self.alternation(15, around: .comparison(.greaterOrEqual, added, .literal(300))), expected),
        ]
        for (name, filter, answer) in cases {
            #expect(filter.depth == FilterExpression.maximumDepth || name == "30 NOTs", "\(name): depth \(filter.depth)")
            #expect(try await Self.ids(store, filter) == answer, "\(name)")
        }
    }

    @Test("a filter deeper than 32 levels, or with arithmetic deeper than 16, is refused naming the limit", arguments: StoreBackend.available)
    func pastTheLimit(_ backend: StoreBackend) async throws {
        let store = try await Self.seeded(backend)
        for filter in [Self.nots(32), Self.nots(43), Self.alternation(32, around: .constant(true))] {
            let e = try await #require(throws: StoreError.self) { try await Self.ids(store, filter) }
            #expect(e.code == .invalidQuery && e.message.contains("at most 32"), "\(e)")
        }
        var arithmetic: ScalarExpression = "capacity"
        for _ in 0..<17 { arithmetic = .arithmetic(.divide, .literal(1), arithmetic) }
        let e = try await #require(throws: StoreError.self) { try await Self.ids(store, .comparison(.notEqual, arithmetic, .literal(0))) }
        #expect(e.message.contains("at most 16"), "\(e)")
        // The parsers say so first, as a CQLError naming the limit.
        let text = String(repeating: "NOT (", count: 43) + "capacity >= 300" + String(repeating: ")", count: 43)
        let parse = try #require(throws: CQLError.self) { try CQL2.parseText(text, queryables: nil) }
        #expect(parse.message.contains("at most 32"))
        #expect(try CQL2.parseText(String(repeating: "NOT (", count: 31) + "a = 1" + String(repeating: ")", count: 31), queryables: nil).depth == 32)
        let sta = try #require(throws: SensingFilterError.self) {
            try SensingFilter.parse(String(repeating: "not (", count: 33) + "result gt 1" + String(repeating: ")", count: 33))
        }
        #expect(sta.message.contains("32"))
    }

    @Test("a failed SQLite statement's error names its shape (a hash), never its text")
    func failedStatementShape() throws {
        let error = DatabaseError(resultCode: .SQLITE_ERROR, message: "parser stack overflow",
                                  sql: "SELECT f.fid FROM f_secret AS f WHERE json_extract(f.props, '$.name') = 'x'")
        let text = SpatiaLiteStore.failure(error)
        #expect(text.hasPrefix("SQLite error 1: parser stack overflow (statement "), "\(text)")
        #expect(!text.contains("SELECT") && !text.contains("f_secret") && !text.contains("json_extract"), "\(text)")
    }
}
