import ParkingSim
import ProcessRuntime

/// The parking kernels' input errors name the input at fault: a job or an answer that ends on one
/// is refused naming it.
extension ParkingError: InputFailure {
    public var failedInput: String { field }
    public var failureReason: String { reason }
}
