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

@Suite("Nearest resources and service areas on the district's roads")
struct EmergencyNearestTests {
    /// An incident near the district centre (邾城, 114.80°E 30.84°N).
    static let incident = Position(x: 114.801, y: 30.842)

    @Test("the three nearest shelters for 800 people are sorted by time, each time equals a direct route, none faster is left out")
    func nearestShelters() async throws {
        let (store, _) = try await EmergencyDistrict.store()
        let roads = try await EmergencyRoadGraphs.shared.graph(for: store, profile: .driving, by: .anonymous)
        let shelters = try await EmergencyResource.load(layer: "shelters", from: store,
                                                        filter: ResourceFilter(minimumFreeCapacity: 800), by: .anonymous)
        let found = try NearestResources.find(from: Self.incident, among: shelters, count: 3, roads: roads)
        #expect(found.count == 3)
        #expect(zip(found, found.dropFirst()).allSatisfy { $0.seconds <= $1.seconds })
        let origin = try roads.access(lonLat: Self.incident, field: "incident")
        var all: [Double] = []
        for s in shelters {
            let target = try #require(roads.graph.access(to: try roads.metric(s.position)))
            let direct = try #require(roads.graph.route(from: origin, to: target))
            all.append(direct.seconds)
            if let hit = found.first(where: { $0.resource.id == s.id }) {
                #expect(abs(hit.seconds - direct.seconds) < 1e-6)
                #expect(abs(hit.metres - direct.metres) < 1e-3)
            }
        }
        all.sort()
        #expect(abs(found[2].seconds - all[2]) < 1e-6)
        // Route geometry runs in lon/lat from the incident's road position.
        let first = try #require(found.first?.route.positions.first)
        let snapped = try roads.storage(origin.positions.map(\.point))
        #expect(snapped.contains { abs(first.x - $0.x) < 1e-7 && abs(first.y - $0.y) < 1e-7 })
        #expect(found.allSatisfy { ($0.resource.freeCapacity ?? 0) >= 800 })
    }

    @Test("no candidates give no result; a count of 0 or an incident outside lon/lat range names the field")
    func badInputs() async throws {
        let (store, _) = try await EmergencyDistrict.store()
        let roads = try await EmergencyRoadGraphs.shared.graph(for: store, profile: .walking, by: .anonymous)
        #expect(try NearestResources.find(from: Self.incident, among: [], count: 3, roads: roads).isEmpty)
        #expect(throws: ScenarioError(.invalidArgument, "must be ≥ 1, got 0", field: "count")) {
            _ = try NearestResources.find(from: Self.incident, among: [], count: 0, roads: roads)
        }
        do {
            _ = try NearestResources.find(from: Position(x: 530_000, y: 3_400_000), among: [], count: 1, roads: roads)
            Issue.record("metres are not lon/lat")
        } catch let e as ScenarioError {
            #expect(e.field == "incident")
        }
    }

    @Test("isochrones grow with the break and hold every intersection reached within it")
    func isochrones() async throws {
        let (store, _) = try await EmergencyDistrict.store()
        let roads = try await EmergencyRoadGraphs.shared.graph(for: store, profile: .driving, by: .anonymous)
        let areas = try ServiceAreaIsochrones.compute(from: Self.incident, minutes: [5, 2], roads: roads)
        #expect(areas.map(\.minutes) == [2, 5])
        #expect(areas[0].reachedMetres < areas[1].reachedMetres)
        let origin = try roads.snap(lonLat: Self.incident, field: "origin")
        let nodes = roads.graph.network.nodes
        let lonLat = try roads.storage(nodes)
        for area in areas {
            let prepared = try PreparedGeometry(area.area)
            var reached = 0
            for (i, node) in nodes.enumerated() {
                guard let target = roads.graph.snap(node),
                      let t = roads.graph.travelTime(from: origin, to: target), t <= area.minutes * 60 else { continue }
                reached += 1
                #expect(try prepared.intersects(x: lonLat[i].x, y: lonLat[i].y), "node \(i) at \(t) s")
            }
            #expect(reached > 0)
        }
        #expect(throws: ScenarioError.self) { _ = try ServiceAreaIsochrones.compute(from: Self.incident, minutes: [-1], roads: roads) }
    }
}
