import CityModel
import FloodSim
import NetworkAnalysis
import ProcessRuntime
import SWMMFormat

// The kernels', formats' and importers' errors a job may end on: each says why the analysis could
// not answer from the district's data, in text the caller may read (`JobFailure`).
extension HydraulicsError: AnalysisFailure { public var failureMessage: String { description } }
extension SWMMInputError: AnalysisFailure { public var failureMessage: String { description } }
extension FloodInputError: AnalysisFailure { public var failureMessage: String { description } }
extension RoadNetworkError: AnalysisFailure { public var failureMessage: String { description } }
extension ImportError: AnalysisFailure { public var failureMessage: String { description } }
