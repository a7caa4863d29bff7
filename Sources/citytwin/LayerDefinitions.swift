import CityModel
import Foundation
import TwinStore

/// The layer definitions a command writing layers works with.
enum LayerDefinitions {
    /// The store's definitions, plus those of the `targets` that only `directory` (`--layers`) has,
    /// created now in the store so the command can write into them. Other definitions of the
    /// directory are left alone.
    static func catalog(_ store: any FeatureStore, creating targets: [String], from directory: URL) async throws -> LayerCatalog {
        var definitions = try await store.layers(for: .admin).map(\.definition)
        let missing = Set(targets).subtracting(definitions.map(\.id))
        if !missing.isEmpty, FileManager.default.fileExists(atPath: directory.path) {
            for d in try LayerCatalog.load(directory: directory).definitions where missing.contains(d.id) {
                try await store.createLayer(d)
                definitions.append(d)
            }
        }
        return LayerCatalog(definitions)
    }
}
