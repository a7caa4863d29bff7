import Foundation
import Testing
import TwinStore
@testable import Scenarios

@Suite("timing scratch") struct EmergencyTimingTests {
    @Test func phases() async throws {
        let (store, _) = try await EmergencyDistrict.store()
        let clock = ContinuousClock()
        var t = clock.now
        func lap(_ s: String) { print("PHASE \(s): \(clock.now - t)"); t = clock.now }
        let pop = try await HouseholdPopulation.load(from: store, by: .admin); lap("population")
        let a = try await DemandPoint.addresses(from: store, population: pop, by: .admin); lap("addresses \(a.count)")
        let b = try await DemandPoint.buildings(from: store, population: pop, by: .admin); lap("buildings \(b.count)")
        let d = try await EmergencyRoadGraphs.shared.graph(for: store, profile: .driving, by: .admin); lap("graph")
        _ = try await EmergencyRoadGraphs.shared.graph(for: store, profile: .driving, by: .admin); lap("graph cached")
        let s = try await EmergencyResource.load(layer: "fire_stations", from: store, by: .admin)
        let c = try FacilityCoverage(facilities: s, demand: a, roads: d, standard: CoverageStandard(profile: .driving, limitSeconds: 120)); lap("coverage")
        _ = try c.suggestSites(count: 1, roads: d); lap("suggest")
    }
}
