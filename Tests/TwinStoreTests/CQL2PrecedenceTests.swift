import Foundation
import Testing
@testable import TwinStore

/// Operator precedence in cql2-text: OR < AND < NOT < comparisons < `+ -` < `* /` < unary minus.
@Suite("CQL2 text binds operators by precedence")
struct CQL2PrecedenceTests {
    let a: FilterExpression = .comparison(.equal, "a", .literal(1))
    let b: FilterExpression = .comparison(.equal, "b", .literal(2))
    let c: FilterExpression = .comparison(.equal, "c", .literal(3))

    func parse(_ text: String) throws -> FilterExpression { try CQL2.parseText(text, queryables: nil) }

    @Test func andBindsTighterThanOr() throws {
        #expect(try parse("a = 1 OR b = 2 AND c = 3") == .or([a, .and([b, c])]))
        #expect(try parse("a = 1 AND b = 2 OR c = 3") == .or([.and([a, b]), c]))
        #expect(try parse("(a = 1 OR b = 2) AND c = 3") == .and([.or([a, b]), c]))
    }

    @Test func notBindsTighterThanAndButLooserThanComparison() throws {
        #expect(try parse("NOT a = 1 AND b = 2") == .and([.not(a), b]))
        #expect(try parse("NOT (a = 1 AND b = 2)") == .not(.and([a, b])))
        #expect(try parse("NOT NOT a = 1") == .not(.not(a)))
    }

    @Test func multiplicationBindsTighterThanAddition() throws {
        let x: ScalarExpression = "x"
        #expect(try parse("x + 2 * 3 > 4") == .comparison(.greater, .arithmetic(.add, x, .arithmetic(.multiply, .literal(2), .literal(3))), .literal(4)))
        #expect(try parse("(x + 2) * 3 > 4") == .comparison(.greater, .arithmetic(.multiply, .arithmetic(.add, x, .literal(2)), .literal(3)), .literal(4)))
        #expect(try parse("x * 2 + 3 > 4") == .comparison(.greater, .arithmetic(.add, .arithmetic(.multiply, x, .literal(2)), .literal(3)), .literal(4)))
    }

    @Test func arithmeticIsLeftAssociative() throws {
        let x: ScalarExpression = "x"
        #expect(try parse("x - 2 - 3 > 0") == .comparison(.greater, .arithmetic(.subtract, .arithmetic(.subtract, x, .literal(2)), .literal(3)), .literal(0)))
        #expect(try parse("x / 2 / 4 > 0") == .comparison(.greater, .arithmetic(.divide, .arithmetic(.divide, x, .literal(2)), .literal(4)), .literal(0)))
    }

    @Test func arithmeticBindsTighterThanComparisonOnBothSides() throws {
        #expect(try parse("x + 1 >= y * 2") == .comparison(.greaterOrEqual, .arithmetic(.add, "x", .literal(1)), .arithmetic(.multiply, "y", .literal(2))))
        #expect(try parse("x BETWEEN y - 1 AND y + 1") == .between("x", low: .arithmetic(.subtract, "y", .literal(1)), high: .arithmetic(.add, "y", .literal(1))))
    }

    @Test func aNegativeNumberIsALiteral() throws {
        #expect(try parse("x = -1") == .comparison(.equal, "x", .literal(-1)))
        #expect(try parse("x = - 2.5") == .comparison(.equal, "x", .literal(-2.5)))
        #expect(try parse("x - -1 > 0") == .comparison(.greater, .arithmetic(.subtract, "x", .literal(-1)), .literal(0)))
    }

    @Test func parenthesesAroundOperandsAndPredicatesAreBothAllowed() throws {
        #expect(try parse("(a) = 1") == a)
        #expect(try parse("((a = 1))") == a)
    }
}
