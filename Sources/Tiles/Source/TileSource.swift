import Foundation
import GeoCore
import TwinStore

/// Vector tiles cut on request from a `FeatureStore`: one MVT layer per store layer, features
/// read by the tile's lon/lat box (grown by the buffer) in bounded pages, as the caller may see
/// them. The store applies sharing classes and attribute masking, so a masked
/// attribute never reaches a tile.
///
/// ```swift
/// let source = TileSource(store: store)
/// let bytes = try await source.tile(layers: ["buildings"], tileMatrixSet: .webMercatorQuad,
///                                   tile: TileID(matrix: 15, row: 13_578, col: 26_788), caller: .anonymous)
/// ```
public struct TileSource: Sendable {
    public let store: any FeatureStore
    /// Tile units across a tile (MVT `extent`).
    public var extent: Int
    /// Tile units kept beyond each tile edge.
    public var buffer: Int
    /// From this Web-Mercator-equivalent zoom on every point is kept.
    public var fullPointLevel: Int
    /// Features read from the store per page (at most `FeatureQuery.maximumLimit`).
    public var chunkSize: Int
    /// What the server joins onto a layer's features at read time before they are cut (the
    /// latest sensor reading of the Thing standing for a feature), as the caller may see it:
    /// `(layer, features, caller)`. The tile then shows what the features API shows.
    public var decorate: (@Sendable (String, inout [Feature], Caller) async throws -> Void)?

    public init(store: any FeatureStore, extent: Int = 4096, buffer: Int = 64, fullPointLevel: Int = 14,
                chunkSize: Int = FeatureQuery.maximumLimit) {
        self.store = store
        self.extent = extent
        self.buffer = buffer
        self.fullPointLevel = fullPointLevel
        self.chunkSize = chunkSize
    }

    /// The generalization used for a level of a matrix set.
    public func generalization(_ tileMatrixSet: TileMatrixSet, level: Int) -> TileGeneralization {
        .standard(level: tileMatrixSet.zoom(of: level), extent: extent, fullPointLevel: fullPointLevel)
    }

    /// The encoded tile (uncompressed MVT bytes), or `nil` when no feature of any layer falls
    /// in it (HTTP 204). A tile larger than the generalization's byte budget is rebuilt up to
    /// three times with a coarser generalization, from the features read once.
    /// - Throws: `TileError.outsideMatrix` for a tile outside the set; `StoreError` when a
    ///   layer is unknown or hidden from `caller`; `GeometryError` from PROJ/GEOS.
    public func tile(layers: [String], tileMatrixSet: TileMatrixSet, tile: TileID, caller: Caller) async throws -> [UInt8]? {
        let frame = try TileFrame(tileMatrixSet, tile, extent: extent, buffer: buffer)
        var generalization = generalization(tileMatrixSet, level: tile.matrix)
        var read: [(name: String, features: [Feature])] = []
        for name in layers {
            var features = try await features(name, frame: frame, limit: generalization.maximumFeatures, caller: caller)
            if let decorate { try await decorate(name, &features, caller) }
            read.append((name, features))
        }
        var attempt = 0
        while true {
            let built = try read.map { try layer($0.name, features: $0.features, frame: frame, generalization: generalization) }
            let bytes = VectorTile.encode(built)
            if bytes.isEmpty { return nil }
            if bytes.count <= generalization.maximumTileBytes || attempt == 3 { return bytes }
            generalization = generalization.coarser(extent: extent)
            attempt += 1
        }
    }

    /// The features of store layer `name` whose box meets the tile's box grown by the buffer, in
    /// the store's page order, at most `limit` of them (the generalization's cap) — the most a
    /// layer of one tile can use, so coarser rebuilds need no second read. Pages of `chunkSize`
    /// features are read until the cap or the last page.
    func features(_ name: String, frame: TileFrame, limit: Int, caller: Caller) async throws -> [Feature] {
        var query = FeatureQuery(bbox: BoundingBox(try frame.lonLatQueryEnvelope()), limit: max(1, min(chunkSize, limit, FeatureQuery.maximumLimit)))
        var features: [Feature] = []
        while true {
            let page = try await store.query(layer: name, query, by: caller)
            features += page.features.prefix(limit - features.count)
            guard features.count < limit, let next = page.next else { return features }
            query.after = next
        }
    }

    /// Cuts `features` into an MVT layer; features that fall outside the tile after clipping or
    /// generalization are skipped, and the layer stops at the generalization's feature cap.
    func layer(_ name: String, features: [Feature], frame: TileFrame, generalization: TileGeneralization) throws -> TileLayerEncoder {
        var cutter = TileCutter(frame: frame, generalization: generalization)
        var layer = TileLayerEncoder(name: name, extent: extent)
        for feature in features {
            guard let geometry = feature.geometry, let cut = try cutter.cut(geometry) else { continue }
            layer.append(feature, geometry: cut)
            if layer.featureCount >= generalization.maximumFeatures { break }
        }
        return layer
    }
}
