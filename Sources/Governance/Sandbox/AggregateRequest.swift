import Foundation
import GeoCore
import TwinStore

/// An approved aggregate query of the sandbox (数据可用不可见), the body of
/// `POST /collections/{id}/aggregate`:
///
/// ```json
/// {"aggregates": [{"op": "count"}, {"op": "sum", "property": "residents"}, {"op": "mean", "property": "elderly"}],
///  "groupBy": "grid", "cellSize": 500,
///  "filter": "residents >= 3"}
/// ```
///
/// - `aggregates`: `count`, and `sum`, `mean`, `min`, `max` of a numeric property (at least one);
/// - `groupBy`: `none` (default), `admin-division` (the divisions of `admin_divisions`, at the
///   finest `level` unless `level` names one) or `grid` (square cells of `cellSize` metres,
///   50…10,000, in the city's metric CRS);
/// - `filter`: an optional CQL2 text filter on the layer's attributes and geometry.
public struct AggregateRequest: Sendable, Hashable {
    public enum Statistic: String, Sendable, Hashable, CaseIterable {
        case count, sum, mean, min, max
    }

    /// One statistic: `count`, or another over `property`.
    public struct Measure: Sendable, Hashable {
        public var statistic: Statistic
        public var property: String?

        public init(_ statistic: Statistic, _ property: String? = nil) {
            self.statistic = statistic
            self.property = property
        }

        /// The name of the measure in an answer: `count`, `sum(residents)`.
        public var name: String { property.map { "\(statistic.rawValue)(\($0))" } ?? statistic.rawValue }
    }

    public enum Grouping: Sendable, Hashable {
        case none
        /// By administrative division, at `level` (nil: the finest level the divisions hold).
        case adminDivision(level: String?)
        /// By square cells of this many metres in the city's metric CRS.
        case grid(cellSize: Double)
    }

    public var measures: [Measure]
    public var grouping: Grouping
    /// CQL2 text.
    public var filter: String?

    /// The grid cell sizes (m) the sandbox accepts.
    public static let cellSizes: ClosedRange<Double> = 50...10_000

    public init(measures: [Measure], grouping: Grouping = .none, filter: String? = nil) {
        self.measures = measures
        self.grouping = grouping
        self.filter = filter
    }

    /// Reads a request body; errors are `invalidQuery` naming the member (`$.aggregates[1].property`).
    public init(json: JSONValue) throws {
        func fail(_ field: String, _ why: String) -> StoreError { StoreError(.invalidQuery, why, field: field) }
        guard let o = json.objectValue else { throw fail("$", "the body must be a JSON object") }
        let known: Set<String> = ["aggregates", "groupBy", "cellSize", "level", "filter"]
        if let extra = o.keys.sorted().first(where: { !known.contains($0) }) {
            throw fail("$.\(extra)", "unknown member; the body takes \(known.sorted().joined(separator: ", "))")
        }
        guard let list = o["aggregates"]?.arrayValue, !list.isEmpty else {
            throw fail("$.aggregates", "must list at least one aggregate, e.g. [{\"op\": \"count\"}]")
        }
        measures = try list.enumerated().map { i, item in
            let at = "$.aggregates[\(i)]"
            guard let m = item.objectValue, let op = m["op"]?.stringValue else { throw fail(at, "must be an object with \"op\"") }
            guard let s = Statistic(rawValue: op) else {
                throw fail(at + ".op", "'\(op)' is not one of \(Statistic.allCases.map(\.rawValue).joined(separator: ", "))")
            }
            let property = m["property"]?.stringValue
            if s != .count, property == nil { throw fail(at + ".property", "\(op) needs the numeric property it aggregates") }
            return Measure(s, property)
        }
        switch o["groupBy"]?.stringValue ?? (o["groupBy"] == nil ? "none" : "") {
        case "none": grouping = .none
        case "admin-division":
            grouping = .adminDivision(level: o["level"]?.stringValue)
        case "grid":
            guard let size = o["cellSize"]?.doubleValue, Self.cellSizes.contains(size) else {
                throw fail("$.cellSize", "a grid needs cellSize in metres, \(Int(Self.cellSizes.lowerBound))…\(Int(Self.cellSizes.upperBound))")
            }
            grouping = .grid(cellSize: size)
        default: throw fail("$.groupBy", "must be none, admin-division or grid")
        }
        if o["cellSize"] != nil, case .grid = grouping {} else if o["cellSize"] != nil {
            throw fail("$.cellSize", "applies to groupBy grid only")
        }
        switch o["filter"] {
        case nil, .null?: filter = nil
        case .string(let s)? where !s.trimmingCharacters(in: .whitespaces).isEmpty: filter = s
        default: throw fail("$.filter", "must be a non-empty CQL2 text filter")
        }
    }

    /// The request in words, for the audit log: `count, sum(residents) by grid 500 m where residents >= 3`.
    public var subject: String {
        var s = "sandbox: " + measures.map(\.name).joined(separator: ", ")
        switch grouping {
        case .none: break
        case .adminDivision(let level): s += " by admin division" + (level.map { " (\($0))" } ?? "")
        case .grid(let size): s += " by grid \(Int(size)) m"
        }
        if let filter { s += " where " + filter }
        return s
    }
}
