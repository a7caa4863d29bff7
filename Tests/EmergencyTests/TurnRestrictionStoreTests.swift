import CityModel
import Foundation
import GeoCore
import NetworkAnalysis
import TestSupport
import Testing
import TwinStore
@testable import Emergency
@testable import Scenarios

@Suite("Turn restrictions read from a store", .temporaryDirectories)
struct TurnRestrictionStoreTests {
    /// A SpatiaLite store with the sample district's roads, intersections and turn restrictions.
    private func districtStore() async throws -> (SpatiaLiteStore, SampleDistrict) {
        let layers = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
            .appendingPathComponent("../../Layers", isDirectory: true).standardizedFileURL
        let store = try TemporaryDirectory.forTestCase("turns").openStore()
        let catalog = try LayerCatalog.load(directory: layers)
        let district = try SampleDistrict.generate()
        for id in ["roads", "intersections", "turn_restrictions"] {
            try await store.createLayer(try #require(catalog[id]))
            try await store.insert(layer: id, features: district[layer: id], by: .admin, at: nil)
        }
        return (store, district)
    }

    /// The middle of a road feature's line, in the graph's metres.
    private func middle(of roadID: String, _ district: SampleDistrict, _ graph: StoreRoadGraph) throws -> Position {
        let roads = district[layer: "roads"]
        let index = try #require(roads.firstIndex { $0.id == .string(roadID) })
        let line = graph.graph.network.lines[index].coordinates
        let a = try #require(line.first), b = try #require(line.last)
        return Position(x: (a.x + b.x) / 2, y: (a.y + b.y) / 2)
    }

    @Test("every district restriction resolves; a banned left turn makes driving detour and leaves walking alone")
    func bannedLeftTurn() async throws {
        let (store, district) = try await districtStore()
        let driving = try await StoreRoadGraph.load(from: store, profile: .driving)
        let walking = try await StoreRoadGraph.load(from: store, profile: .walking)
        let restrictions = district[layer: "turn_restrictions"]
        #expect(!restrictions.isEmpty)
        #expect(driving.unresolvedRestrictions.isEmpty, "\(driving.unresolvedRestrictions)")
        #expect(driving.graph.restrictions.count == restrictions.count)

        let banned = try #require(restrictions.first { $0.properties["kind"] == .string("no_left_turn") })
        guard case .string(let from)? = banned.properties["from_road"], case .string(let to)? = banned.properties["to_road"] else {
            Issue.record("restriction without roads: \(banned)")
            return
        }
        let a = try middle(of: from, district, driving), b = try middle(of: to, district, driving)
        let plain = try RoadGraph(network: driving.graph.network, profile: .driving)
        let free = try #require(try plain.route(from: a, to: b))
        let detour = try #require(try driving.graph.route(from: a, to: b))
        #expect(detour.seconds > free.seconds + 1, "the banned turn was taken: \(detour.seconds) s vs \(free.seconds) s")
        let walkFree = try #require(try RoadGraph(network: walking.graph.network, profile: .walking).route(from: a, to: b))
        let walk = try #require(try walking.graph.route(from: a, to: b))
        #expect(abs(walk.seconds - walkFree.seconds) < 1e-9, "walking must ignore turn restrictions")
    }

    @Test("a restriction naming an unknown road is listed as unresolved, not fatal")
    func unknownRoad() async throws {
        let (store, _) = try await districtStore()
        let bad = Feature(id: .string("TR-BAD"), geometry: .point(Point(Position(x: 114.8, y: 30.84))),
                          properties: ["from_road": .string("RD-NOPE"), "to_road": .string("RD-NOPE2"),
                                       "kind": .string("no_left_turn"), "valid_from": .string("2024-01-01")])
        try await store.insert(layer: "turn_restrictions", features: [bad], by: .admin, at: nil)
        let driving = try await StoreRoadGraph.load(from: store, profile: .driving)
        #expect(driving.unresolvedRestrictions.contains { $0.restriction.id == "TR-BAD" })
        #expect(driving.graph.network.pieces.count > 0)
    }
}
