/// What went wrong preparing a scenario or an analysis (flood scenarios, nearest resources,
/// service areas, coverage, hazard overlay): a bad argument or scenario field, named by the
/// field it came from, or district data the run needs that is missing or unreadable for the caller.
public struct ScenarioError: Error, Sendable, Equatable, CustomStringConvertible {
    public enum Code: String, Sendable {
        /// An argument is out of range or malformed.
        case invalidArgument = "invalid-argument"
        /// A layer the analysis reads is missing, hidden from the caller, or lacks a property.
        case missingLayer = "missing-layer"
        /// The road network has no road to snap a point to.
        case noRoads = "no-roads"
        /// A point lies farther from every road than the maximum snap distance.
        case tooFarFromRoads = "too-far-from-roads"
        /// The scenario document is malformed or out of range.
        case invalidScenario = "invalid-scenario"
        /// The district's layers or DEM are missing or inconsistent.
        case invalidDistrict = "invalid-district"
        /// No scenario (`ScenarioCatalog`) has the id the field names.
        case noSuchScenario = "no-such-scenario"
        /// The scenario the field names has no finished run to read (or is running).
        case scenarioNotFinished = "scenario-not-finished"
        /// The scenario exists already (creating it again).
        case scenarioExists = "scenario-exists"
        /// A run's answer is outside what the model can answer (a water-balance term it cannot
        /// explain): refused, nothing written.
        case implausibleResult = "implausible-result"
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
