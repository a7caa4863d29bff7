import Foundation
import TwinStore

/// The backends the store suite runs against. Every `@Test(arguments: StoreBackend.available)`
/// runs once per backend, so SpatiaLite and PostGIS are held to the same behaviour.
/// (The PostGIS backend adds its case here when it lands, available when a test database is set.)
enum StoreBackend: String, CaseIterable, CustomStringConvertible, Sendable {
    case spatiaLite

    var description: String { rawValue }

    static var available: [StoreBackend] { allCases }

    /// A new, empty store with the fixture layers created.
    func makeStore(layers: [LayerDefinition] = Fixtures.allLayers) async throws -> any FeatureStore {
        let store: any FeatureStore
        switch self {
        case .spatiaLite:
            let dir = FileManager.default.temporaryDirectory
                .appendingPathComponent("twinstore-\(UUID().uuidString)", isDirectory: true)
            try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
            store = try SpatiaLiteStore(path: dir.appendingPathComponent("city.sqlite").path)
        }
        for def in layers { try await store.createLayer(def) }
        return store
    }
}
