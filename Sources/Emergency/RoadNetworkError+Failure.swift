import NetworkAnalysis
import ProcessRuntime

// A road network the routing kernel cannot answer over (`JobFailure`): a job that ends on it failed, its text the caller's.
extension RoadNetworkError: AnalysisFailure { public var failureMessage: String { description } }
