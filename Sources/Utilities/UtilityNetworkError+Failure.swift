import NetworkAnalysis
import ProcessRuntime

// A utility network the kernel cannot trace or isolate (`JobFailure`): a job that ends on it failed, its text the caller's.
extension UtilityNetworkError: AnalysisFailure { public var failureMessage: String { description } }
