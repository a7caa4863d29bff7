import Foundation
import GeoCore
import TwinStore

/// A layer's 3D tileset as a caller sees it, kept between requests and brought up to date with
/// the store's change feed one leaf at a time: an edit stales only the leaves that held the
/// feature before and after it (`LeafGrid`), and only those are made again.
///
/// Tilesets are kept per layer and access class (`Caller.accessClass`: the public, the admin, a
/// department and role), and every feature is read through the store as that caller, so masking,
/// sharing classes and the negative list apply as they do to every other output.
public actor Tileset3DService {
    public let store: any FeatureStore
    /// How often requests look at the change feed (seconds); 0 looks on every request.
    public let followInterval: TimeInterval
    /// The leaf side, metres.
    public let leafSize: Double

    /// What a built tileset holds: its frame, its grid and its leaves.
    struct Built: Sendable {
        var definition: LayerDefinition
        var frame: LocalFrame
        var grid: LeafGrid
        var leaves: [LeafGrid.Key: LeafContent]
        /// The DEM's SHA-256 the solids were stood on (`nil` for solids at surveyed elevations).
        var terrainVersion: String?
    }

    struct StateKey: Hashable, Sendable {
        var layer: String
        var caller: Caller
    }

    private var states: [StateKey: Built] = [:]
    private var pending: [StateKey: Task<Built, any Error>] = [:]
    /// Leaves staled by the change feed since each state was built.
    private var dirty: [StateKey: Set<LeafGrid.Key>] = [:]
    private var lastSequence: Int64?
    private var lastFollow = Date.distantPast
    /// Terrain tilesets by raster id (`terrainTileset(raster:caller:)`).
    private var terrains: [String: TerrainTileset] = [:]

    /// Leaf contents made since the service started (a full build counts every leaf, an edit
    /// the leaves it staled): what a test counts to see an edit rebuild no more than it must.
    public private(set) var leavesBuilt = 0
    /// Terrain tilesets made since the service started (one per DEM version read).
    public private(set) var terrainsBuilt = 0

    /// The services of every store this process serves, one per store (`shared(for:)`).
    private static let services = ServiceRegistry()

    /// The one service of `store` in this process (a server's routes and its tests share it).
    public static func shared(for store: any FeatureStore) async -> Tileset3DService {
        await services.service(for: store)
    }

    public init(store: any FeatureStore, followInterval: TimeInterval = 0.25, leafSize: Double = 250) {
        self.store = store
        self.followInterval = followInterval
        self.leafSize = leafSize
    }

    // MARK: - Reading

    /// `tileset.json` of `layer` for `caller`, content URIs prefixed by `contentPrefix`.
    /// - Throws: `Tiles3DError` (`.unsupportedLayer`, `.noTerrain`), `StoreError` from the reads.
    public func tileset(layer: String, caller: Caller, contentPrefix: String = "") async throws -> [UInt8] {
        let built = try await state(layer: layer, caller: caller)
        return try Self.document(built, contentPrefix: contentPrefix, leafSize: leafSize)
    }

    /// One leaf's `.glb` (`name` as the tileset names it: `column_row.glb`).
    /// - Throws: `Tiles3DError` `.unknownTile` when the tileset has no such leaf.
    public func content(layer: String, name: String, caller: Caller) async throws -> [UInt8] {
        let built = try await state(layer: layer, caller: caller)
        guard name.hasSuffix(".glb"), let key = LeafGrid.Key(name.dropLast(4)), let leaf = built.leaves[key] else {
            throw Tiles3DError(.unknownTile, "the 3D tileset of '\(layer)' has no tile '\(name)'")
        }
        return leaf.glb
    }

    /// The names of the tileset's leaves (`column_row.glb`), sorted.
    public func contentNames(layer: String, caller: Caller) async throws -> [String] {
        try await state(layer: layer, caller: caller).leaves.keys.sorted().map { "\($0).glb" }
    }

    /// The ellipsoidal heights (metres) the layer's solids span as `caller` reads them, `nil` when
    /// it has none or its tileset has not been built yet: a catalogue request never builds a
    /// tileset (at a city's size that is minutes of work on a request path), it reports the heights
    /// of the one the first tileset request built. From the leaves' boxes in the frame, widened at
    /// the top by the earth's curvature at their farthest corner (a point `d` from the frame's
    /// origin lies at most `d²/R` below its height in the frame, never above), so the range holds
    /// every solid.
    public func builtHeightRange(layer: String, caller: Caller) -> ClosedRange<Double>? {
        guard let built = states[StateKey(layer: layer, caller: caller.accessClass)] else { return nil }
        let boxes = built.leaves.values.map(\.box)
        guard let low = boxes.map(\.min.z).min(), let high = boxes.map(\.max.z).max() else { return nil }
        let far = boxes.map { max($0.min.x * $0.min.x, $0.max.x * $0.max.x) + max($0.min.y * $0.min.y, $0.max.y * $0.max.y) }.max() ?? 0
        return low...(high + far / 6_356_752)
    }

    static func document(_ built: Built, contentPrefix: String, leafSize: Double) throws -> [UInt8] {
        var named: [LeafGrid.Key: (content: String, box: (min: SIMD3<Double>, max: SIMD3<Double>))] = [:]
        for (key, leaf) in built.leaves { named[key] = ("content/\(key).glb", leaf.box) }
        let empty = TileNode(box: (.zero, .zero), geometricError: 0)
        let root = Quadtree.build(leaves: named, leafSize: leafSize) ?? empty
        let rule = SolidRule.rule(for: built.definition.id)
        return try TilesetDocument.encode(root: root, frame: built.frame, contentPrefix: contentPrefix,
                                          properties: ["layer": built.definition.id, "cimLevel": rule?.cimLevel.rawValue ?? "",
                                                       "features": built.leaves.values.reduce(0) { $0 + $1.featureCount }])
    }

    // MARK: - Building

    private func state(layer: String, caller: Caller) async throws -> Built {
        try await follow()
        let key = StateKey(layer: layer, caller: caller.accessClass)
        while let running = pending[key] { _ = try? await running.value }
        if let built = states[key], built.terrainVersion != nil,
           try await Self.demVersion(store) != built.terrainVersion {
            states[key] = nil  // the DEM was replaced: every solid stands anew
            dirty[key] = nil
        }
        if let built = states[key], dirty[key, default: []].isEmpty { return built }
        let previous = states[key]
        let stale = dirty.removeValue(forKey: key) ?? []
        let store = self.store, leafSize = self.leafSize
        let task = Task { () throws -> (Built, Int) in
            if var built = previous {
                let made = try await Self.rebuild(stale, in: &built, store: store, caller: caller)
                return (built, made)
            }
            let built = try await Self.build(layer: layer, store: store, caller: caller, leafSize: leafSize)
            return (built, built.leaves.count)
        }
        pending[key] = Task { try await task.value.0 }
        defer { pending[key] = nil }
        do {
            let (built, made) = try await task.value
            states[key] = built
            leavesBuilt += made
            return built
        } catch {
            if !stale.isEmpty { dirty[key, default: []].formUnion(stale) }
            throw error
        }
    }

    /// A whole tileset: every feature the caller may read, grouped by leaf.
    static func build(layer: String, store: any FeatureStore, caller: Caller, leafSize: Double) async throws -> Built {
        guard let rule = SolidRule.rule(for: layer) else {
            throw Tiles3DError(.unsupportedLayer, "layer '\(layer)' has no 3D representation (3D tilesets: \(SolidRule.layers.joined(separator: ", ")))")
        }
        guard let definition = try await store.layerDefinition(layer, for: caller) else {
            // Refused as the features are (401, 403, or not there for a secret layer).
            if let hidden = try await store.layerDefinition(layer, for: .admin),
               let refusal = AccessPolicy.readRefusal(hidden, caller, reading: "the 3D tileset") { throw refusal }
            throw StoreError(.layerNotFound, "no layer '\(layer)'", layer: layer)
        }
        guard let crs = try await CityRecord.metricCRS(of: store) else {
            throw Tiles3DError(.noTerrain, "the store holds no city yet, so its solids have no metric CRS or terrain")
        }
        let terrain = try await Terrain.read(from: store, crs: crs)
        let centre = try CoordinateTransformer.shared(from: crs, to: .cgcs2000).transform(terrain.grid.envelope.center)
        let frame = try LocalFrame(origin: Position(x: centre.x, y: centre.y, z: 0))
        let grid = LeafGrid(size: leafSize, metricCRS: crs)
        var groups: [LeafGrid.Key: [Feature]] = [:]
        for try await feature in store.stream(layer: layer, FeatureQuery(limit: FeatureQuery.maximumLimit), by: caller) {
            guard let e = feature.geometry?.envelope else { continue }
            groups[try grid.key(storageEnvelope: e), default: []].append(feature)
        }
        let builder = try await LeafBuilder.make(definition, rule, frame: frame, terrain: terrain, store: store, caller: caller)
        var leaves: [LeafGrid.Key: LeafContent] = [:]
        for (key, features) in groups { leaves[key] = try builder.build(features) }
        return Built(definition: definition, frame: frame, grid: grid, leaves: leaves,
                     terrainVersion: rule.needsTerrain ? terrain.version : nil)
    }

    /// The SHA-256 of the store's DEM as stored now (`nil` when it has none).
    static func demVersion(_ store: any FeatureStore) async throws -> String? {
        try await (store as? any ManagedRasters)?.managedRaster(ManagedRaster.defaultDEM)?.sha256
    }

    // MARK: - Terrain

    /// The terrain tileset of the store's DEM `raster` (CIM1), made again when the DEM is
    /// replaced (its stored SHA-256 changes). The managed rasters are the city's shared base
    /// data: departments and the admin read them, the public does not.
    /// - Throws: `StoreError` `.unauthenticated` for the public; `Tiles3DError` `.noTerrain`.
    public func terrainTileset(raster: String, caller: Caller) async throws -> TerrainTileset {
        guard caller != .anonymous else {
            throw StoreError(.unauthenticated, "the DEM's terrain is shared with departments: send a bearer token", field: "Authorization")
        }
        guard ManagedRaster.isValidID(raster), let rasters = store as? any ManagedRasters,
              let described = try await rasters.managedRaster(raster) else {
            throw Tiles3DError(.unknownRaster, "the store has no raster '\(raster)' to mesh as terrain (its rasters are listed at /rasters)")
        }
        if let known = terrains[raster], known.version == described.sha256 { return known }
        guard let crs = try await CityRecord.metricCRS(of: store) else {
            throw Tiles3DError(.noTerrain, "the store holds no city yet, so its terrain has no metric CRS")
        }
        let made = try await TerrainTileset.build(raster: raster, store: store, crs: crs)
        terrains[raster] = made
        terrainsBuilt += 1
        return made
    }

    /// Makes `stale` leaves again from the store; returns how many were made.
    static func rebuild(_ stale: Set<LeafGrid.Key>, in built: inout Built, store: any FeatureStore, caller: Caller) async throws -> Int {
        guard let rule = SolidRule.rule(for: built.definition.id) else { return 0 }
        let terrain = try await Terrain.read(from: store, crs: built.grid.metricCRS)
        let builder = try await LeafBuilder.make(built.definition, rule, frame: built.frame, terrain: terrain, store: store, caller: caller)
        for key in stale {
            let query = FeatureQuery(bbox: BoundingBox(try built.grid.storageEnvelope(key)), limit: FeatureQuery.maximumLimit)
            var features: [Feature] = []
            for try await feature in store.stream(layer: built.definition.id, query, by: caller) {
                guard let e = feature.geometry?.envelope, try built.grid.key(storageEnvelope: e) == key else { continue }
                features.append(feature)
            }
            built.leaves[key] = try builder.build(features)
        }
        return stale.count
    }

    // MARK: - Following the change feed

    /// Reads the change feed since the last look (at most every `followInterval`) and stales the
    /// leaves each event's envelopes fall in; an event without an envelope stales the layer.
    public func follow() async throws {
        guard let since = lastSequence else {
            lastSequence = try await store.latestChange()
            lastFollow = TwinClock.current.now
            return
        }
        guard TwinClock.current.now.timeIntervalSince(lastFollow) >= followInterval else { return }
        lastFollow = TwinClock.current.now
        var sequence = since
        while true {
            let events = try await store.changes(since: sequence, limit: 1000, by: .admin)
            for event in events { try stale(event) }
            guard let last = events.last else { break }
            sequence = last.sequence
            if events.count < 1000 { break }
        }
        lastSequence = sequence
    }

    private func stale(_ event: ChangeEvent) throws {
        // A node's invert moves every pipe that ends at it: those tilesets are made again whole.
        for key in states.keys {
            if case .pipes(let nodes) = SolidRule.rule(for: key.layer), nodes.contains(event.layer) {
                states[key] = nil
                dirty[key] = nil
            }
        }
        for (key, built) in states where key.layer == event.layer {
            let envelopes = [event.envelopeBefore, event.envelopeAfter].compactMap { $0 }
            if envelopes.isEmpty {
                states[key] = nil
                dirty[key] = nil
                continue
            }
            for e in envelopes { dirty[key, default: []].insert(try built.grid.key(storageEnvelope: e)) }
        }
    }
}

/// One `Tileset3DService` per store object, so every request of a server shares its tilesets.
private actor ServiceRegistry {
    private var services: [ObjectIdentifier: Tileset3DService] = [:]

    func service(for store: any FeatureStore) -> Tileset3DService {
        guard type(of: store) is AnyClass else { return Tileset3DService(store: store) }
        let key = ObjectIdentifier(store as AnyObject)
        if let known = services[key] { return known }
        let service = Tileset3DService(store: store)
        services[key] = service
        return service
    }
}
