import Foundation

/// A problem in an EPA SWMM 5 input file (`.inp`): where it is (physical line counted from 1,
/// section, field) and why it was rejected. The reader never traps on bad input; it throws this.
public struct SWMMInputError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The physical line (1-based) of the offending text, when one line is to blame.
    public var line: Int?
    /// The section (`CONDUITS`, `JUNCTIONS`, …) without brackets.
    public var section: String?
    /// The field, in SWMM's column names (`Length`, `FromNode`, `Elevation`, …).
    public var field: String?
    /// What is wrong, in words.
    public var reason: String

    public init(line: Int?, section: String?, field: String?, reason: String) {
        self.line = line
        self.section = section
        self.field = field
        self.reason = reason
    }

    public var description: String {
        var parts: [String] = []
        if let line { parts.append("line \(line)") }
        if let section { parts.append("[\(section)]") }
        if let field { parts.append("field \(field)") }
        return (parts.isEmpty ? "" : parts.joined(separator: " ") + ": ") + reason
    }
}
