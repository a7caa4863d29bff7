import Foundation
import GeoCore
import TestSupport
import Testing
@testable import TwinStore

/// A layer created or changed by another process on the same store (`citytwin import`, a
/// worker writing result layers, a second server) is seen by a store opened before it: its
/// definition, the layer list, its features and its change events — the same on both backends.
@Suite("Layers created by another process", .dropsTestSchemas)
struct CatalogueFollowTests {
    /// Two stores on the same data (one SQLite file, or one PostgreSQL schema), each with its
    /// own definition cache, as two processes have.
    func pair(_ backend: StoreBackend) async throws -> (serving: any FeatureStore, other: any FeatureStore) {
        switch backend {
        case .spatiaLite:
            let dir = try TemporaryDirectory.forTestCase("twinstore")
            let serving = try dir.openStore("city.sqlite")
            for def in Fixtures.allLayers { try await serving.createLayer(def) }
            return (serving, try dir.openStore("city.sqlite"))
        case .postGIS:
            let serving = try await backend.makeStore()
            let pg = try #require(serving as? PostGISStore)
            return (serving, try await TestDatabase.shared.pool().store(inSchema: pg.schema, auditKey: .key(StoreBackend.auditKey)))
        }
    }

    static var results: LayerDefinition {
        get throws {
            try Fixtures.definition(Fixtures.sheltersJSON.replacingOccurrences(of: #""id": "shelters""#, with: #""id": "flood_results_run7""#))
        }
    }

    @Test("a layer another process creates is found by definition, in the layer list, by query and in the change feed", arguments: StoreBackend.available)
    func createdElsewhere(_ backend: StoreBackend) async throws {
        let (serving, other) = try await pair(backend)
        let before = try await serving.latestChange()
        #expect(try await serving.layerDefinition("flood_results_run7", for: .admin) == nil)

        try await other.createLayer(try Self.results)
        try await other.insert(layer: "flood_results_run7", features: [Fixtures.shelter("r1", 114.35, 30.55, name: "积水点")], by: Fixtures.emergency, at: nil)

        #expect(try await serving.layerDefinition("flood_results_run7", for: .anonymous)?.id == "flood_results_run7")
        #expect(try await serving.layers(for: .anonymous).map(\.definition.id).contains("flood_results_run7"))
        let page = try await serving.query(layer: "flood_results_run7", FeatureQuery(limit: 10), by: .anonymous)
        #expect(Fixtures.ids(page.features) == ["r1"])
        let events = try await serving.changes(since: before, limit: 100, by: .admin)
        #expect(events.map(\.layer) == ["flood_results_run7"] && events.first?.envelopeAfter != nil)
    }

    @Test("the change feed alone brings a new layer in: its events are not dropped as of an unknown layer", arguments: StoreBackend.available)
    func feedFirst(_ backend: StoreBackend) async throws {
        let (serving, other) = try await pair(backend)
        let before = try await serving.latestChange()
        try await other.createLayer(try Self.results)
        try await other.insert(layer: "flood_results_run7", features: [Fixtures.shelter("r1", 114.35, 30.55, name: "积水点")], by: Fixtures.emergency, at: nil)
        // The first thing the serving store hears of the layer is its change event.
        let events = try await serving.changes(since: before, limit: 100, by: .anonymous)
        #expect(events.map(\.featureID) == ["r1"])
        #expect(try await serving.feature(layer: "flood_results_run7", id: "r1", by: .anonymous) != nil)
    }

    @Test("a definition another process changes (sharing class) reaches the layer list", arguments: StoreBackend.available)
    func changedElsewhere(_ backend: StoreBackend) async throws {
        let (serving, other) = try await pair(backend)
        #expect(try await serving.layerDefinition("shelters", for: .anonymous) != nil)
        let closed = try Fixtures.definition(Fixtures.sheltersJSON.replacingOccurrences(of: #""type": "open""#, with: #""type": "shared""#))
        try await other.createLayer(closed)
        #expect(!(try await serving.layers(for: .anonymous).map(\.definition.id).contains("shelters")))
        #expect(try await serving.layerDefinition("shelters", for: .anonymous) == nil, "the public no longer reads it")
    }
}
