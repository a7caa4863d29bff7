import Foundation

/// A problem in a line-oriented model input file (an EPA SWMM 5 or EPANET 2 `.inp`, a rain gauge
/// CSV): where it is (physical line counted from 1, section, field) and why it was rejected. The
/// readers never trap on bad input; they throw this, and never quote more of the file than the
/// field's own token. `SWMMInputError` and `EPANETInputError` are this one shape, told apart by
/// their format so a `catch` of one never takes the other.
public struct InputFileError<Format: InputFileFormat>: Error, Sendable, Equatable, CustomStringConvertible {
    /// The physical line (1-based) of the offending text, when one line is to blame.
    public var line: Int?
    /// The section (`CONDUITS`, `PIPES`, `JUNCTIONS`, …) without brackets.
    public var section: String?
    /// The field, in the format's own column names (`Length`, `FromNode`, `Node1`, `Elevation`, …).
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

/// A kind of line-oriented input file, named as messages name it (`SWMM`, `EPANET`).
public protocol InputFileFormat: Sendable {
    static var name: String { get }
}

/// EPA SWMM 5's `.inp` (and the rain gauge CSVs read beside it).
public enum SWMMInputFile: InputFileFormat {
    public static let name = "SWMM"
}

/// A problem in an EPA SWMM 5 input file; fields in SWMM's column names (`Length`, `FromNode`, …).
public typealias SWMMInputError = InputFileError<SWMMInputFile>
