import SWMMFormat

/// EPANET 2's `.inp`.
public enum EPANETInputFile: InputFileFormat {
    public static let name = "EPANET"
}

/// A problem in an EPANET 2 input file (`.inp`), in the one input-file error shape; fields in
/// EPANET's column names (`Length`, `Node1`, `Elevation`, …).
public typealias EPANETInputError = InputFileError<EPANETInputFile>
