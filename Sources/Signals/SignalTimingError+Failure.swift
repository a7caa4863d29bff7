import ProcessRuntime
import SignalSim

// The signal kernels' input errors name the input at fault (`JobFailure`, the HTTP mapping).
extension SignalTimingError: InputFailure {
    public var failedInput: String { field }
    public var failureReason: String { reason }
}
