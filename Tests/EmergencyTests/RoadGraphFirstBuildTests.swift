import Foundation
import GeoCore
import TestSupport
import Testing
import TwinStore
@testable import Emergency

/// Issue 57: a city's first road graph takes tens of seconds to build; work with an answer without
/// it (the parking signs' order) asks for it without waiting, and every caller shares one build.
@Suite("Road graphs: the first build shared, asked for without waiting", .temporaryDirectories)
struct RoadGraphFirstBuildTests {
    @Test("without patience the first ask starts the build and answers nil; the build then serves every caller")
    func askedWithoutWaiting() async throws {
        let store = try TemporaryDirectory.forTestCase("first-build").openStore()
        try await EmergencyProcessTests.fill(store)
        let graphs = EmergencyRoadGraphs()
        #expect(try await graphs.graphIfBuilt(for: store, profile: .driving, by: .admin, patience: .zero) == nil)
        // A caller that needs the graph waits for the build under way (not a second one) and gets it.
        let waited = try await graphs.graph(for: store, profile: .driving, by: .admin)
        let asked = try #require(try await graphs.graphIfBuilt(for: store, profile: .driving, by: .admin, patience: .zero))
        #expect(asked.builtAt == waited.builtAt)
        #expect(asked.graph.hierarchy.nodeCount == waited.graph.hierarchy.nodeCount && waited.graph.hierarchy.nodeCount > 0)
    }

    @Test("with patience a small city's graph is built within the wait")
    func builtWithinPatience() async throws {
        let store = try TemporaryDirectory.forTestCase("first-build-patient").openStore()
        try await EmergencyProcessTests.fill(store)
        let graphs = EmergencyRoadGraphs()
        let graph = try #require(try await graphs.graphIfBuilt(for: store, profile: .walking, by: .admin, patience: .seconds(30)))
        #expect(graph.graph.hierarchy.nodeCount > 0)
    }

    @Test("a build that fails gives its error to the caller that waits, and is tried again on the next ask")
    func failedBuild() async throws {
        let store = try TemporaryDirectory.forTestCase("first-build-none").openStore()
        let graphs = EmergencyRoadGraphs()
        await #expect(throws: (any Error).self) { try await graphs.graphIfBuilt(for: store, profile: .driving, by: .admin, patience: .seconds(30)) }
        await #expect(throws: (any Error).self) { try await graphs.graph(for: store, profile: .driving, by: .admin) }
    }
}
