import Foundation
import GeoCore

/// One group of a sandbox answer: an administrative division, a grid cell, or the whole selection.
public struct SandboxGroup: Sendable, Hashable {
    /// The division's code, the cell's `column_row` (in cellSize units of the metric CRS), or `all`.
    public var key: String
    /// The division's name.
    public var name: String?
    /// The division's or cell's outline (EPSG:4490 degrees); nil for the whole selection.
    public var geometry: Geometry?
    /// Features in the group; nil when suppressed.
    public var count: Int?
    /// Measure name (`sum(residents)`) → value; nil values when suppressed or without numbers.
    public var values: [String: Double?]
    /// Whether nothing of the group is given (fewer than k features, or the disclosure control's
    /// further rules: `suppressedBecause`).
    public var suppressed: Bool
    /// Why the group is suppressed, in words; nil when it is not.
    public var suppressedBecause: String?
}

/// What the sandbox answers: aggregates only, never a row.
public struct SandboxAnswer: Sendable, Hashable {
    public var collection: String
    /// Groups with fewer features than this are suppressed.
    public var k: Int
    public var request: AggregateRequest
    /// The groups that hold features, in key order (empty groups are left out).
    public var groups: [SandboxGroup]
    /// The whole selection.
    public var total: SandboxGroup
    /// Groups suppressed.
    public var suppressedGroups: Int { groups.filter(\.suppressed).count }
}
