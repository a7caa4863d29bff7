import Foundation
import GeoCore
import NetworkAnalysis
import ProcessRuntime
import TwinStore

/// The road graphs the emergency analyses route on, built once per store, profile and caller
/// and refreshed from the change feed when the roads layer changes (a process call costs one
/// change-feed query instead of a graph and hierarchy build).
public actor EmergencyRoadGraphs {
    /// The graphs shared by every process of this server or worker.
    public static let shared = EmergencyRoadGraphs()

    private struct Key: Hashable {
        var store: ObjectIdentifier
        var profile: TravelProfile
        var caller: Caller
        var layer: String
    }
    private var graphs: [Key: StoreRoadGraph] = [:]
    /// First builds under way, one per key: every caller that comes meanwhile waits for the same one.
    private var loading: [Key: Task<StoreRoadGraph, any Error>] = [:]

    public init() {}

    /// The graph of `layer` for `profile` as `caller` reads it, rebuilt if the layer changed.
    /// Stores that are not classes are not cached (a value has no identity to key on).
    public func graph(for store: any FeatureStore, profile: TravelProfile, layer: String = "roads",
                      by caller: Caller) async throws -> StoreRoadGraph {
        guard type(of: store) is AnyClass else {
            return try await StoreRoadGraph.load(from: store, profile: profile, layer: layer, by: caller)
        }
        let key = Key(store: ObjectIdentifier(store as AnyObject), profile: profile, caller: caller.accessClass, layer: layer)
        guard let cached = graphs[key] else {
            return try await firstLoad(key, store: store, profile: profile, layer: layer, caller: caller).value
        }
        let graph = try await cached.refreshed(from: store, layer: layer, by: caller)
        graphs[key] = graph
        return graph
    }

    /// The graph as ``graph(for:profile:layer:by:)`` gives it when one is built; while the first build
    /// runs (started now if none is) it waits at most `patience`, then answers nil and lets the build
    /// go on. For work that has an answer without the roads and must not wait for a city's hierarchy
    /// (the parking signs at start-up keep their listed order meanwhile); a small city's graph is
    /// built within the wait.
    public func graphIfBuilt(for store: any FeatureStore, profile: TravelProfile, layer: String = "roads",
                             by caller: Caller, patience: Duration = .seconds(1)) async throws -> StoreRoadGraph? {
        guard type(of: store) is AnyClass else { return try await graph(for: store, profile: profile, layer: layer, by: caller) }
        let key = Key(store: ObjectIdentifier(store as AnyObject), profile: profile, caller: caller.accessClass, layer: layer)
        if graphs[key] == nil {
            let load = firstLoad(key, store: store, profile: profile, layer: layer, caller: caller)
            let deadline = ContinuousClock.now + patience
            while loading[key] != nil, ContinuousClock.now < deadline { try await Task.sleep(for: .milliseconds(10)) }
            guard graphs[key] != nil else {
                if loading[key] == nil { _ = try await load.value }  // the build failed: its error
                return nil
            }
        }
        return try await graph(for: store, profile: profile, layer: layer, by: caller)
    }

    /// The first build of `key`'s graph, shared: it runs on even if the caller that started it stops waiting.
    private func firstLoad(_ key: Key, store: any FeatureStore, profile: TravelProfile, layer: String,
                           caller: Caller) -> Task<StoreRoadGraph, any Error> {
        if let running = loading[key] { return running }
        let load = Task { () async throws -> StoreRoadGraph in
            do {
                let graph = try await StoreRoadGraph.load(from: store, profile: profile, layer: layer, by: caller)
                self.loaded(key, graph)
                return graph
            } catch {
                self.loaded(key, nil)
                throw error
            }
        }
        loading[key] = load
        return load
    }

    private func loaded(_ key: Key, _ graph: StoreRoadGraph?) {
        loading[key] = nil
        if let graph, graphs[key] == nil { graphs[key] = graph }
    }

    private struct ResourceKey: Hashable {
        var store: ObjectIdentifier
        var profile: TravelProfile
        var caller: Caller
        var layer: String
    }
    private var resources: [ResourceKey: (snapped: SnappedResources, used: UInt64)] = [:]
    private var uses: UInt64 = 0
    /// How many resource layers (per store, profile and caller) stay cached; the least recently
    /// used is dropped beyond it (memory bounded by this count, not by the city).
    public private(set) var maximumResourceLayers = SnappedResources.defaultMaximumLayers

    /// How many resource layers are cached now.
    public var cachedResourceLayers: Int { resources.count }

    /// Sets how many resource layers stay cached (≥ 1), dropping the least recently used beyond it.
    public func setMaximumResourceLayers(_ maximum: Int) {
        maximumResourceLayers = Swift.max(1, maximum)
        trimResources()
    }

    /// The resources of `layer` as `caller` reads them, each with its access to `roads` (the graph
    /// ``graph(for:profile:layer:by:)`` gave for `profile`, just now: its `sequence` is the change
    /// the request answers as of): read and snapped once, and again only when the change feed shows
    /// the layer changed, `roads` was rebuilt or the layer's schema names other capacity or
    /// occupancy attributes. Resources already known unchanged up to `roads.sequence` are not
    /// checked again (on PostGIS each check is a round trip). Stores that are not classes are not cached.
    /// - Throws: as ``EmergencyResource/readAll(layer:from:attributes:by:)``, `GeometryError` from reprojection.
    public func resources(of layer: String, attributes: EmergencyResource.Attributes, in store: any FeatureStore,
                          roads: StoreRoadGraph, profile: TravelProfile, by caller: Caller) async throws -> SnappedResources {
        guard type(of: store) is AnyClass else {
            return try await SnappedResources.read(layer: layer, attributes: attributes, from: store, roads: roads, by: caller)
        }
        let key = ResourceKey(store: ObjectIdentifier(store as AnyObject), profile: profile, caller: caller.accessClass, layer: layer)
        var snapped: SnappedResources
        if let cached = resources[key]?.snapped, cached.attributes == attributes, cached.roadsBuiltAt == roads.builtAt {
            if cached.sequence >= roads.sequence {
                // Known unchanged up to the change the graph was just checked against: the request
                // answers as of that change, graph and resources alike, with one look at the feed.
                snapped = cached
            } else {
                let (changed, since) = try await store.changes(to: [layer], since: cached.sequence, by: caller)
                snapped = changed ? try await SnappedResources.read(layer: layer, attributes: attributes, from: store, roads: roads, by: caller)
                                  : cached
                if !changed { snapped.sequence = since }
            }
        } else {
            snapped = try await SnappedResources.read(layer: layer, attributes: attributes, from: store, roads: roads, by: caller)
        }
        uses += 1
        resources[key] = (snapped, uses)
        trimResources()
        return snapped
    }

    private func trimResources() {
        while resources.count > maximumResourceLayers, let oldest = resources.min(by: { $0.value.used < $1.value.used })?.key {
            resources[oldest] = nil
        }
    }
}

/// A resource layer read once with each resource's road access (no distance limit, no closures):
/// what nearest-resources answers from without reading the layer or snapping it again.
public struct SnappedResources: Sendable {
    /// Resource layers cached when the configuration does not say: 32.
    public static let defaultMaximumLayers = 32

    /// Every readable resource of the layer, unfiltered, in the store's order.
    public var resources: [EmergencyResource]
    /// The road access of each of `resources` (`nil` when no road is open).
    public var accesses: [RoadAccess?]
    /// The stored resources left out for impossible data.
    public var invalid: [EmergencyResource.Invalid]
    /// The attributes the resources were read by.
    public var attributes: EmergencyResource.Attributes
    /// The change-feed sequence the layer reflects.
    public var sequence: Int64
    /// `StoreRoadGraph.builtAt` of the graph the accesses were found on.
    public var roadsBuiltAt: Int64
    /// The graph's sweep selection of every resource's access (`RoadGraph.sweepSelection`): made
    /// once with the layer, it serves every search among the layer or a filtered part of it.
    public var sweep: [Int32]

    /// Reads and snaps `layer`.
    static func read(layer: String, attributes: EmergencyResource.Attributes, from store: any FeatureStore,
                     roads: StoreRoadGraph, by caller: Caller) async throws -> SnappedResources {
        let sequence = try await store.latestChange()
        let (all, invalid) = try await EmergencyResource.readAll(layer: layer, from: store, attributes: attributes, by: caller)
        let accesses = try roads.access(lonLats: all.map(\.position))
        return SnappedResources(resources: all, accesses: accesses, invalid: invalid, attributes: attributes, sequence: sequence,
                                roadsBuiltAt: roads.builtAt, sweep: roads.graph.sweepSelection(reaching: accesses.compactMap { $0 }))
    }

    /// The resources `filter` admits, with their accesses, in order.
    public func filtered(_ filter: ResourceFilter) -> SnappedResources {
        guard filter != .any else { return self }
        var copy = self
        copy.resources = []
        copy.accesses = []
        for (r, a) in zip(resources, accesses) where filter.admits(r) {
            copy.resources.append(r)
            copy.accesses.append(a)
        }
        return copy
    }
}

extension StoreRoadGraph {
    /// How far (metres) a point may lie from the nearest road and still be routed from or to:
    /// 500 m. Beyond it the straight stretch to the road is not a detail of the answer but
    /// most of it (a vehicle does not cross 500 m of blocks; GB 51143 counts a shelter's whole
    /// walking catchment as 500 m), so an incident there is refused and a resource there is
    /// reported off the network, never given a confident travel time. Every analysis takes its
    /// own limit (process input `maximumSnapMetres`, CLI `--max-snap-metres`).
    public static let defaultMaximumSnapMetres = 500.0

    /// The open road positions nearest to a lon/lat point (ties included, see `RoadAccess`).
    /// - Parameter maximumMetres: the farthest the point may lie from the road.
    /// - Throws: `ScenarioError` naming `field` when the point is not finite, no road is open, or
    ///   the nearest road is farther than `maximumMetres` (the message gives the distance).
    public func access(lonLat: Position, avoiding closures: RoadClosures = .none, field: String,
                       maximumMetres: Double = defaultMaximumSnapMetres) throws -> RoadAccess {
        guard lonLat.x.isFinite, lonLat.y.isFinite, (-180...180).contains(lonLat.x), (-90...90).contains(lonLat.y) else {
            throw ScenarioError(.invalidArgument, "(\(lonLat.x), \(lonLat.y)) is not a longitude, latitude in degrees", field: field)
        }
        guard let access = graph.access(to: try metric(lonLat), avoiding: closures) else {
            throw ScenarioError(.noRoads, "the road network has no open road near (\(lonLat.x), \(lonLat.y))", field: field)
        }
        guard access.distance <= maximumMetres else {
            throw ScenarioError(.tooFarFromRoads,
                                "(\(lonLat.x), \(lonLat.y)) is \(Self.metresText(access.distance)) m from the nearest \(closures.isEmpty ? "" : "open ")road, beyond the maximum snap distance of \(Self.metresText(maximumMetres)) m",
                                field: field)
        }
        return access
    }

    /// The nearest open road position to a lon/lat point, ties broken by piece order.
    /// - Throws: `ScenarioError` as `access(lonLat:avoiding:field:maximumMetres:)`.
    public func snap(lonLat: Position, avoiding closures: RoadClosures = .none, field: String,
                     maximumMetres: Double = defaultMaximumSnapMetres) throws -> EdgePosition {
        try access(lonLat: lonLat, avoiding: closures, field: field, maximumMetres: maximumMetres).nearest
    }

    /// The road accesses of many lon/lat points in one reprojection batch, with no distance limit
    /// (the caller decides what is too far); `nil` only when no road is open.
    public func access(lonLats: [Position], avoiding closures: RoadClosures = .none) throws -> [RoadAccess?] {
        var xs = lonLats.map(\.x), ys = lonLats.map(\.y)
        try toMetric.transform(xs: &xs, ys: &ys)
        return zip(xs, ys).map { graph.access(to: Position(x: $0, y: $1), avoiding: closures) }
    }

    /// Metres for messages: whole metres from 10 m on, else centimetres.
    static func metresText(_ metres: Double) -> String {
        metres >= 10 ? String(Int(metres.rounded())) : String(format: "%.2f", metres)
    }

    /// A route's geometry in lon/lat (EPSG:4490).
    public func lonLatLine(_ route: Route) throws -> LineString {
        LineString(try storage(route.coordinates))
    }
}
