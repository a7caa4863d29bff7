import CityModel
import ProcessRuntime
import SignalSim

// The kernels', formats' and importers' errors a job may end on: each says why the analysis could
// not answer from the district's data, in text the caller may read (`JobFailure`).
extension ImportError: AnalysisFailure { public var failureMessage: String { description } }

// The signal kernels' input errors name the input at fault (`JobFailure`, the HTTP mapping).
extension SignalTimingError: InputFailure {
    public var failedInput: String { field }
    public var failureReason: String { reason }
}
