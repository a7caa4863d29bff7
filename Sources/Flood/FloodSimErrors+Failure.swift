import FloodSim
import ProcessRuntime
import SWMMFormat

// The flood kernels' and the SWMM reader's errors a flood run may end on (`JobFailure`): a job
// that ends on one failed, its text the caller's.
extension HydraulicsError: AnalysisFailure { public var failureMessage: String { description } }
extension SWMMInputError: AnalysisFailure { public var failureMessage: String { description } }
extension FloodInputError: AnalysisFailure { public var failureMessage: String { description } }
