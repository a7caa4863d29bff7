import Foundation
import GeoCore

/// One node of a parsed CQL2 expression, before it is checked and compiled: what both
/// encodings (cql2-text and cql2-json) parse into, so that one compiler gives them one meaning.
struct CQL2Node: Sendable {
    indirect enum Kind: Sendable {
        case property(String)
        case string(String)
        /// A number, canonical: `.integer` when integral and within Int64, else `.number`.
        case number(JSONValue)
        case boolean(Bool)
        /// `DATE('2024-05-01')`, the text as written.
        case date(String)
        /// `TIMESTAMP('2024-05-01T08:00:00Z')`, the text as written.
        case timestamp(String)
        /// `INTERVAL(start, end)`; each end a date, timestamp, property or `'..'` (`.string("..")`).
        case interval(CQL2Node, CQL2Node)
        /// A geometry literal (WKT or GeoJSON), in the filter CRS's axis order and units.
        case geometry(Geometry)
        /// `BBOX(...)` / `{"bbox": [...]}`: 4 or 6 numbers.
        case bbox([Double])
        /// A list: the right side of `IN`, or an array literal.
        case list([CQL2Node])
        /// An operator or function with its arguments; `name` lower-cased (`and`, `=`, `like`,
        /// `s_intersects`, `casei`, `+`, ...), except unknown functions, kept as written.
        case op(String, [CQL2Node])
    }

    var kind: Kind
    /// Where the node starts: `"offset 12"` or a JSON path.
    var position: String
    /// How the node appears in the input, for messages.
    var token: String
    /// Levels in the tree below and including this node (a literal is 1), so that long operator
    /// chains such as `x + 1 + 1 + ...` are bounded like parentheses are.
    var height: Int

    init(_ kind: Kind, at position: String, token: String) {
        self.kind = kind
        self.position = position
        self.token = token
        switch kind {
        case .interval(let a, let b): height = 1 + max(a.height, b.height)
        case .list(let xs), .op(_, let xs): height = 1 + (xs.lazy.map(\.height).max() ?? 0)
        default: height = 1
        }
    }
}

/// Shared by both parsers.
enum CQL2Syntax {
    /// Deepest nesting of parentheses, operators and JSON containers accepted; deeper input is
    /// a `CQLError`, not a stack overflow.
    static let maximumNesting = 128

    /// The canonical literal for a number: integral values within Int64 become `.integer`, so
    /// `1`, `1.0` and `1e0` compare equal in either encoding.
    static func number(_ d: Double) -> JSONValue {
        if d.rounded() == d, abs(d) < 9.2e18 { return .integer(Int64(d)) }
        return .number(d)
    }

    /// Operator names recognised in either encoding, lower-cased.
    static let comparisonOperators: [String: ComparisonOperator] = [
        "=": .equal, "<>": .notEqual, "<": .less, "<=": .lessOrEqual, ">": .greater, ">=": .greaterOrEqual,
    ]
    static let arithmeticOperators: [String: ArithmeticOperator] = [
        "+": .add, "-": .subtract, "*": .multiply, "/": .divide,
    ]
    static let spatialFunctions: [String: SpatialPredicate] = [
        "s_intersects": .intersects, "s_contains": .contains, "s_within": .within, "s_disjoint": .disjoint,
        "s_equals": .equals, "s_touches": .touches, "s_overlaps": .overlaps, "s_crosses": .crosses,
    ]
    static let temporalFunctions: Set<String> = [
        "t_after", "t_before", "t_contains", "t_disjoint", "t_during", "t_equals", "t_finishedby",
        "t_finishes", "t_intersects", "t_meets", "t_metby", "t_overlappedby", "t_overlaps",
        "t_startedby", "t_starts",
    ]
    static let arrayFunctions: Set<String> = ["a_equals", "a_contains", "a_containedby", "a_overlaps"]
    /// Functions that are part of CQL2 (as opposed to custom functions a server may offer).
    static var standardFunctions: Set<String> {
        Set(spatialFunctions.keys).union(temporalFunctions).union(arrayFunctions).union(["casei", "accenti"])
    }
}
