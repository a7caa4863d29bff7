import CityModel
import ProcessRuntime

// The kernels', formats' and importers' errors a job may end on: each says why the analysis could
// not answer from the district's data, in text the caller may read (`JobFailure`).
extension ImportError: AnalysisFailure { public var failureMessage: String { description } }
