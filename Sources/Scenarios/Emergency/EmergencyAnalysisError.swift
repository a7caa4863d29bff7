/// What went wrong preparing an emergency analysis (nearest resources, service areas,
/// coverage, hazard overlay): a bad argument, named by the field it came from, or a layer
/// the analysis needs that is missing or unreadable for the caller.
public struct EmergencyAnalysisError: Error, Sendable, Equatable, CustomStringConvertible {
    public enum Code: String, Sendable {
        /// An argument is out of range or malformed.
        case invalidArgument = "invalid-argument"
        /// A layer the analysis reads is missing, hidden from the caller, or lacks a property.
        case missingLayer = "missing-layer"
        /// The road network has no road to snap a point to.
        case noRoads = "no-roads"
    }
    public var code: Code
    public var message: String
    /// The argument (process input) at fault, e.g. `origin`, `layer`, `minimumCapacity`.
    public var field: String?

    public init(_ code: Code, _ message: String, field: String? = nil) {
        self.code = code
        self.message = message
        self.field = field
    }

    public var description: String { "\(code.rawValue): \(message)" + (field.map { " (\($0))" } ?? "") }
}
