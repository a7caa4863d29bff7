/// A problem in an EPANET 2 input file (`.inp`): where it is (physical line counted from 1,
/// section, field) and why it was rejected. The reader never traps on bad input; it throws this,
/// and never quotes more of the file than the field's own token.
public struct EPANETInputError: Error, Sendable, Equatable, CustomStringConvertible {
    public var line: Int?
    /// The section (`PIPES`, `JUNCTIONS`, …) without brackets.
    public var section: String?
    /// The field, in EPANET's column names (`Length`, `Node1`, `Elevation`, …).
    public var field: String?
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
