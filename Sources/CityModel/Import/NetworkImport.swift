import Foundation
import GeoCore
import TwinStore

/// A source that fills several layers at once (a SWMM model, a pipeline survey): the records of
/// each layer, in the source CRS. Every layer is checked before any is written, then each is
/// inserted in its own transaction (`FeatureStore` has no multi-layer transaction).
public struct NetworkImport: Sendable {
    /// The file named in errors.
    public var file: String
    /// The CRS of every record's coordinates.
    public var crs: CoordinateReferenceSystem
    /// Records per layer id, in write order (nodes before links).
    public var layers: [(id: String, records: [SourceRecord])]

    public init(file: String, crs: CoordinateReferenceSystem, layers: [(id: String, records: [SourceRecord])]) {
        self.file = file
        self.crs = crs
        self.layers = layers
    }

    /// Only `layer` (all layers when `nil`).
    /// - Throws: `ImportError` `.unsupported` when this source does not fill `layer`.
    public func selecting(_ layer: String?) throws -> NetworkImport {
        guard let layer else { return self }
        guard let entry = layers.first(where: { $0.id == layer }) else {
            throw ImportError(.unsupported, file: file, field: layer,
                              "this file fills \(layers.map(\.id).joined(separator: ", ")), not \(layer)")
        }
        return NetworkImport(file: file, crs: crs, layers: [entry])
    }

    /// Records per layer.
    public func records(_ layer: String) -> [SourceRecord] {
        layers.first { $0.id == layer }?.records ?? []
    }

    /// Checks every layer's features (typed, validated, in EPSG:4490), writing nothing.
    public func checked(catalog: LayerCatalog) throws -> [(definition: LayerDefinition, features: [Feature])] {
        let transformer: CoordinateTransformer
        do { transformer = try CoordinateTransformer.shared(from: crs, to: .cgcs2000) } catch {
            throw ImportError(.crs, file: file, "cannot transform \(crs) to EPSG:4490: \(error)")
        }
        return try layers.map { entry in
            guard let definition = catalog[entry.id] else {
                throw ImportError(.unsupported, file: file, field: entry.id, "the store has no layer \(entry.id)")
            }
            let features = try entry.records.map { try LayerImport.check($0, layer: definition, transformer: transformer, file: file) }
            return (definition, features)
        }
    }

    /// Checks every layer, then inserts each non-empty one in its own transaction.
    /// - Parameter replacing: each layer becomes exactly its records (`FeatureStore.replace`, one
    ///   transaction per layer), as a rebuild wants; otherwise they are added.
    public func run(catalog: LayerCatalog, store: any FeatureStore, by caller: Caller = .admin, replacing: Bool = false,
                    progress: ((WorkProgress) -> Void)? = nil) async throws -> [ImportSummary] {
        try await write(try checked(catalog: catalog), store: store, by: caller, replacing: replacing, progress: progress)
    }

    /// Inserts layers `checked` returned, each non-empty one in its own transaction (see `run`).
    public func write(_ checked: [(definition: LayerDefinition, features: [Feature])], store: any FeatureStore, by caller: Caller = .admin,
                      replacing: Bool = false, progress: ((WorkProgress) -> Void)? = nil) async throws -> [ImportSummary] {
        let total = checked.reduce(0) { $0 + $1.features.count }
        progress?(LayerImport.progress(.reading, total, of: total))
        var written = 0
        var summaries: [ImportSummary] = []
        for (definition, features) in checked {
            if replacing {
                try await store.replace(layer: definition.id, with: features, by: caller, at: nil)
            } else if !features.isEmpty {
                try await store.insert(layer: definition.id, features: features, by: caller, at: nil)
            }
            written += features.count
            progress?(LayerImport.progress(.writing, written, of: total))
            summaries.append(ImportSummary(layer: definition.id, count: features.count, sourceCRS: crs,
                                           extent: LayerImport.extent(of: features)))
        }
        return summaries
    }
}
