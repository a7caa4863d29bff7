import FloodSim
import NetworkAnalysis
import Server
import Testing

/// The kernels' own errors reach the one HTTP mapping through the capability modules that declare
/// them (`AnalysisFailure`), as they did when the server named each kernel's type: a 422
/// analysis-failed problem with the kernel's text.
@Suite("Problem mapping of the kernels' errors")
struct AnalysisFailureMappingTests {
    @Test("routing, utility, hydraulics and flood-input errors are analysis-failed with their text")
    func kernelErrors() {
        let cases: [(any Error, String)] = [
            (RoadNetworkError("no open road within 500 m", field: "from"), "no open road within 500 m (from)"),
            (UtilityNetworkError("no source reaches the main"), "no source reaches the main"),
            (FloodInputError("the grid has no wet cell", field: "dem"), "the grid has no wet cell (dem)"),
            (HydraulicsError(.invalidValue, "a negative pipe length"), "invalidValue: a negative pipe length"),
        ]
        for (error, detail) in cases {
            let problem = Problem(mapping: error)
            #expect(problem.kind.slug == "analysis-failed", "\(type(of: error))")
            #expect(problem.kind.status.code == 422)
            #expect(problem.detail == detail)
        }
    }
}
