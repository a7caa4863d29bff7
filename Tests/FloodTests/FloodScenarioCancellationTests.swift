import Flood
import FloodSim
import Foundation
import Scenarios
import Testing
import TwinStore

/// A flood scenario whose task is cancelled (a dismissed `flood-scenario` job) stops during the
/// simulation and writes no result layer and no raster. Uses the sample district store of
/// `FloodScenarioDistrictTests` (read only here).
@Suite("Flood scenario cancellation")
struct FloodScenarioCancellationTests {
    /// The phases a run reported, in order.
    final class PhaseLog: @unchecked Sendable {
        private let lock = NSLock()
        private var phases: [String] = []
        func append(_ phase: String) { lock.lock(); phases.append(phase); lock.unlock() }
        var all: [String] { lock.lock(); defer { lock.unlock() }; return phases }
    }

    @Test("a run cancelled while simulating throws CancellationError and writes nothing")
    func cancelledWhileSimulating() async throws {
        let (store, dir) = try await FloodScenarioDistrictTests.districtStore()
        var scenario = try FloodScenario.load(contentsOf: FloodScenarioDistrictTests.scenarios.appendingPathComponent("p50-waterlogging.json"))
        scenario.id = "cancelled-run"
        let log = PhaseLog()
        let run = Task {
            try await FloodScenarioRun.run(scenario, store: store, caller: .admin, options: FloodScenarioDistrictTests.options(dir)) { p in
                log.append(p.stage)
                // The first report of the simulation dismisses the job.
                if p.stage == "simulating" { withUnsafeCurrentTask { $0?.cancel() } }
            }
        }
        await #expect(throws: CancellationError.self) { try await run.value }
        #expect(log.all.filter { $0 == "simulating" }.count == 1, "the run went on after cancellation: \(log.all)")
        #expect(!log.all.contains("writing results"))
        for kind in ["depth", "roads", "buildings", "cutoff"] {
            #expect(try await store.layerDefinition("\(scenario.layerStem)_\(kind)", for: .admin) == nil)
        }
        let raster = try #require(ResultRasters.beside(storeDirectory: dir).file(layer: scenario.layerStem + "_depth", name: scenario.maxDepthRasterName))
        #expect(!FileManager.default.fileExists(atPath: raster.path))
    }
}
