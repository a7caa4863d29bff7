import CityModel
import Foundation
import GeoCore
import NetworkAnalysis
import ProcessRuntime
import TestSupport
import Testing
import TwinStore
@testable import Emergency
@testable import Scenarios

@Suite("Emergency resources read from the store")
struct EmergencyStoreTests {
    @Test("shelters with at least 800 places are exactly the features whose capacity is ≥ 800")
    func capacityFilter() async throws {
        let (store, district) = try await EmergencyDistrict.store()
        let found = try await EmergencyResource.load(layer: "shelters", from: store,
                                                     filter: ResourceFilter(minimumFreeCapacity: 800), by: .anonymous)
        let expected = district[layer: "shelters"].filter { ($0.properties["capacity"]?.doubleValue ?? 0) >= 800 }
            .compactMap { $0.id?.description }
        #expect(!expected.isEmpty)
        #expect(Set(found.map(\.id)) == Set(expected))
        #expect(found.allSatisfy { $0.freeCapacity == $0.capacity })
    }

    @Test("a category filter keeps only the asked classes; hospitals' capacity is their beds")
    func categoryFilter() async throws {
        let (store, district) = try await EmergencyDistrict.store()
        let urgent = try await EmergencyResource.load(layer: "shelters", from: store,
                                                      filter: ResourceFilter(categories: ["紧急"]), by: .anonymous)
        #expect(Set(urgent.map(\.id)) == Set(district[layer: "shelters"].filter { $0.properties["class"] == "紧急" }.compactMap { $0.id?.description }))
        let hospitals = try await EmergencyResource.load(layer: "hospitals", from: store, by: .anonymous)
        #expect(hospitals.map(\.capacity) == district[layer: "hospitals"].map { $0.properties["beds"]?.doubleValue })
    }

    @Test("filtering on a status the layer does not have, or reading a hidden layer, names the field")
    func badFilter() async throws {
        let (store, _) = try await EmergencyDistrict.store()
        await #expect(throws: ScenarioError.self) {
            _ = try await EmergencyResource.load(layer: "shelters", from: store, filter: ResourceFilter(status: "open"), by: .anonymous)
        }
        do {
            _ = try await EmergencyResource.load(layer: "shelters", from: store, filter: ResourceFilter(status: "open"), by: .anonymous)
        } catch let e as ScenarioError {
            #expect(e.field == "status")
        }
        do {
            _ = try await EmergencyResource.load(layer: "fire_stations", from: store, by: .anonymous)
            Issue.record("anonymous callers must not read the shared fire_stations layer")
        } catch let e as ScenarioError {
            #expect(e.code == .missingLayer && e.field == "layer")
        }
    }

    @Test("population: the owner reads residents; another department gets the household estimate")
    func population() async throws {
        let (store, district) = try await EmergencyDistrict.store()
        let residents = try await HouseholdPopulation.load(from: store, by: .admin)
        #expect(residents.source == .residents)
        let expected = district[layer: "population_by_address"].reduce(0.0) { $0 + ($1.properties["residents"]?.doubleValue ?? 0) }
        #expect(residents.total == expected)
        let estimate = try await HouseholdPopulation.load(from: store, by: EmergencyDistrict.emergencyBureau)
        #expect(estimate.source == .householdEstimate(personsPerHousehold: HouseholdPopulation.censusPersonsPerHousehold))
        let households = district[layer: "addresses"].filter { $0.properties["level"] == "户室" && $0.properties["status"] == "在用" }.count
        #expect(abs(estimate.total - Double(households) * HouseholdPopulation.censusPersonsPerHousehold) < 1e-6)
    }
}
