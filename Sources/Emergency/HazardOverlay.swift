import GeoCore
import NetworkAnalysis
import ProcessRuntime
import TwinStore

/// A hazard area in lon/lat (EPSG:4490): a polygon drawn by a commander, or the union of a
/// result layer's polygons passing a property filter (e.g. a flood run's depth classes ≥ 0.15 m).
public struct HazardArea: Sendable, Hashable {
    /// Polygon or MultiPolygon, lon/lat degrees.
    public var geometry: Geometry
    /// Where it came from, for reports: "input polygon" or "<layer> where <filter>".
    public var source: String

    public init(geometry: Geometry, source: String = "input polygon") {
        self.geometry = geometry
        self.source = source
    }

    /// A property filter on a hazard layer.
    public struct Filter: Sendable, Hashable {
        public var property: String
        /// Keep features with `property` ≥ this number.
        public var minimum: Double?
        /// Keep features whose `property` is one of these values.
        public var values: [JSONValue]?

        public init(property: String, minimum: Double? = nil, values: [JSONValue]? = nil) {
            self.property = property
            self.minimum = minimum
            self.values = values
        }

        var expression: FilterExpression {
            var parts: [FilterExpression] = []
            if let m = minimum { parts.append(.comparison(.greaterOrEqual, .property(property), .literal(.number(m)))) }
            if let v = values { parts.append(.in(.property(property), v.map { .literal($0) })) }
            if parts.isEmpty { return .not(.isNull(.property(property))) }
            return parts.count == 1 ? parts[0] : .and(parts)
        }
    }

    /// One (multi)polygon of `parts`: the one area a hazard layer's polygons cover. The flood run
    /// dissolves its depth classes the same way, so its cut-off resources are this area's.
    package static func dissolve(_ parts: [Geometry]) throws -> Geometry {
        parts.count == 1 ? parts[0] : try Geometry.geometryCollection(GeometryCollection(parts)).unaryUnion()
    }

    /// The union of the polygons of `layer` that pass `filter`, read as `caller`.
    /// - Throws: `ScenarioError` naming `hazardLayer` / `property` when the layer is missing,
    ///   hidden, not polygonal or lacks the property, or when nothing passes the filter.
    public static func union(of layer: String, filter: Filter?, from store: any FeatureStore, by caller: Caller) async throws -> HazardArea {
        guard let definition = try await store.layerDefinition(layer, for: caller) else {
            throw ScenarioError(.missingLayer, "no layer '\(layer)'", field: "hazardLayer")
        }
        if let f = filter, definition.schema.properties[f.property] == nil {
            let known = definition.schema.properties.keys.sorted().joined(separator: ", ")
            throw ScenarioError(.missingLayer, "layer '\(layer)' has no property '\(f.property)' (it has: \(known))", field: "property")
        }
        var parts: [Geometry] = []
        for try await feature in store.stream(layer: layer, FeatureQuery(filter: filter?.expression, properties: [], limit: 2000), by: caller) {
            switch feature.geometry {
            case .polygon(let p)?: parts.append(.polygon(p))
            case .multiPolygon(let m)?: parts.append(.multiPolygon(m))
            case nil: continue
            default: throw ScenarioError(.missingLayer, "layer '\(layer)' has a non-polygon feature \(feature.id?.description ?? "?")",
                                                  field: "hazardLayer")
            }
        }
        guard !parts.isEmpty else {
            throw ScenarioError(.invalidArgument, "no polygon of '\(layer)' passes the filter", field: filter == nil ? "hazardLayer" : "property")
        }
        let geometry = try dissolve(parts)
        var source = layer
        if let f = filter {
            source += " where \(f.property)"
            if let m = f.minimum { source += " ≥ \(m)" }
            if let v = f.values { source += " in \(v.count) values" }
        }
        return HazardArea(geometry: geometry, source: source)
    }
}

/// How one resource's travel time from a point changes when the flooded roads close.
public struct ReachChange: Sendable, Hashable {
    public var resource: EmergencyResource
    /// Seconds with every road open (`nil`: unreachable even then).
    public var before: Double?
    /// Seconds with the hazard's roads closed (`nil`: cut off).
    public var after: Double?
    /// Whether the closures cut it off.
    public var cutOff: Bool { before != nil && after == nil }
    /// Extra seconds (0 when unchanged, `nil` when cut off or never reachable).
    public var increase: Double? { before.flatMap { b in after.map { $0 - b } } }
}

/// What a hazard area holds and cuts off: resources, roads, buildings, addresses and people
/// inside it, the road pieces it closes, and (from a given point) which resources become
/// unreachable or slower, with a route around it.
public struct HazardOverlay: Sendable {
    public var area: HazardArea
    /// Per resource layer, ids of the resources inside (intersecting) the area.
    public var resources: [String: [String]]
    /// Ids of road features intersecting the area.
    public var roads: [String]
    /// Ids of buildings intersecting the area.
    public var buildings: [String]
    /// Ids of in-use addresses of `addressLevel` that belong to a building in the area (the
    /// building's 门牌 above it, or its 单元/户室 below it), or whose point is in the area.
    /// Counted by building because a flood area has holes where buildings stand (their cells
    /// take no surface water), and address points sit at the buildings: by position alone a
    /// flooded block's addresses would fall through those holes.
    public var addresses: [String]
    public var addressLevel: String
    /// Residents of the households of the buildings in the area, plus any household whose
    /// point is in the area outside them (see `populationSource`); counted by building for the
    /// reason `addresses` is.
    public var population: Double
    public var populationSource: PopulationSource
    /// Closed road pieces and their length in metres.
    public var closures: RoadClosures
    public var closedMetres: Double
    /// Resources whose own access road (the road piece they snap to) the hazard closes: cut
    /// off at their door, from anywhere. The flood run's `cutOffResources` and `_cutoff` layer
    /// count exactly these for its depth ≥ 0.15 m area (`FloodCutOff`).
    public var accessClosed: [AccessClosure]
    /// From `origin`: every resource's travel time before and after the closures.
    public var reach: [ReachChange]
    /// Whether `origin`'s own road position is closed (every one of its tied positions).
    public var originFlooded: Bool?
    /// Straight metres from `origin`, and from the route's ends, to their road positions (the
    /// snap distances used; `nil` when not given).
    public var originSnapMetres: Double?
    public var routeSnapMetres: (from: Double, to: Double)?
    /// The maximum snap distance applied.
    public var maximumSnapMetres: Double
    /// Resources left out of `reach` because the roads do not reach them, with the reason.
    public var offRoad: [OffRoadResource]
    /// The requested route, with every road open and around the closures (`nil`: no route).
    public var routeBefore: Route?
    public var routeAfter: Route?
    /// Those routes in lon/lat.
    public var routeBeforeLine: LineString?
    public var routeAfterLine: LineString?
    /// Whether a route was requested.
    public var routeRequested: Bool
    /// Why a requested route is missing (`routeBefore` or `routeAfter` is `nil`): a start or end
    /// on a closed road, or no way around the closures; `nil` when both routes were found.
    public var routeUnavailable: String?

    /// Runs the overlay on the store as `caller`.
    /// - Parameters:
    ///   - origin: lon/lat point to measure resource reach from (e.g. the command post), optional.
    ///   - route: lon/lat from/to of a route to plan around the closures, optional.
    ///   - profile: traveller for reach and route (default driving).
    ///   - maximumSnapMetres: the farthest `origin`, the route's ends or a resource may lie from
    ///     the roads (the points are refused beyond it, resources listed in `offRoad`).
    public static func assess(_ area: HazardArea, store: any FeatureStore, by caller: Caller,
                              resourceLayers: [String] = EmergencyResource.layers, addressLevel: String = "门牌",
                              origin: Position? = nil, route: (from: Position, to: Position)? = nil,
                              profile: TravelProfile = .driving, graphs: EmergencyRoadGraphs = .shared,
                              maximumSnapMetres: Double = StoreRoadGraph.defaultMaximumSnapMetres) async throws -> HazardOverlay {
        guard !area.geometry.isEmpty else { throw ScenarioError(.invalidArgument, "the hazard area is empty", field: "area") }
        let inside = FilterExpression.spatial(.intersects, area.geometry)
        func ids(_ layer: String, _ filter: FilterExpression) async throws -> [String] {
            guard try await store.layerDefinition(layer, for: caller) != nil else { return [] }
            var out: [String] = []
            for try await f in store.stream(layer: layer, FeatureQuery(filter: filter, properties: [], limit: 5000), by: caller) {
                out.append(f.id?.description ?? "")
            }
            return out
        }
        var resources: [String: [String]] = [:]
        var all: [EmergencyResource] = []
        for layer in resourceLayers {
            guard try await store.layerDefinition(layer, for: caller) != nil else { continue }
            resources[layer] = try await ids(layer, inside)
            all += try await EmergencyResource.load(layer: layer, from: store, by: caller, field: "resourceLayers")
        }
        let roadIDs = try await ids("roads", inside)
        let affected = try await AffectedBuildings.load(inside, from: store, by: caller)
        let inUse = FilterExpression.and([.comparison(.equal, .property("level"), .literal(.string(addressLevel))),
                                          .comparison(.equal, .property("status"), .literal("在用"))])
        var addressIDs = try await ids("addresses", .and([inside, inUse]))
        addressIDs += try await affected.addresses(inUse, from: store, by: caller, besides: Set(addressIDs))
        let population = try await affected.population(within: area.geometry, from: store, by: caller)

        let roads = try await graphs.graph(for: store, profile: profile, by: caller)
        let metricArea = try roads.toMetric.transform(area.geometry)
        let closures = try RoadClosures(network: roads.graph.network, intersecting: metricArea)
        let closedMetres = closures.pieces.reduce(0) { $0 + roads.graph.network.pieces[$1].length }

        let (edges, offRoad) = try roads.access(resources: all, maximumMetres: maximumSnapMetres)
        let accessClosed = AccessClosure.closed(all, accesses: edges, by: closures, on: roads)
        var reach: [ReachChange] = []
        var originFlooded: Bool?, originSnapMetres: Double?
        if let origin {
            let start = try roads.access(lonLat: origin, field: "origin", maximumMetres: maximumSnapMetres)
            originFlooded = start.positions.allSatisfy { closures.contains($0.piece) }
            originSnapMetres = start.distance
            let targets = edges.compactMap { $0 }
            let keep = all.indices.filter { edges[$0] != nil }
            let before = roads.graph.travelTimes(from: start, to: targets)
            let after = roads.graph.travelTimes(from: start, to: targets, avoiding: closures)
            reach = keep.indices.map { k in ReachChange(resource: all[keep[k]], before: before[k], after: after[k]) }
        }
        var routeBefore: Route?, routeAfter: Route?, routeSnapMetres: (from: Double, to: Double)?
        var routeUnavailable: String?
        if let route {
            let a = try roads.access(lonLat: route.from, field: "from", maximumMetres: maximumSnapMetres)
            let b = try roads.access(lonLat: route.to, field: "to", maximumMetres: maximumSnapMetres)
            routeSnapMetres = (a.distance, b.distance)
            routeBefore = roads.graph.route(from: a, to: b)
            routeAfter = roads.graph.route(from: a, to: b, avoiding: closures)
            if routeAfter == nil {
                routeUnavailable = RouteUnavailable.reason(from: a, to: b, closures: closures, connectedWhenOpen: routeBefore != nil,
                                                           profile: profile, area: "the hazard area", around: "the hazard")
            }
        }
        return HazardOverlay(area: area, resources: resources, roads: roadIDs, buildings: affected.ids, addresses: addressIDs,
                             addressLevel: addressLevel, population: population.total, populationSource: population.source,
                             closures: closures, closedMetres: closedMetres, accessClosed: accessClosed, reach: reach,
                             originFlooded: originFlooded, originSnapMetres: originSnapMetres, routeSnapMetres: routeSnapMetres,
                             maximumSnapMetres: maximumSnapMetres, offRoad: offRoad,
                             routeBefore: routeBefore, routeAfter: routeAfter,
                             routeBeforeLine: try routeBefore.map(roads.lonLatLine), routeAfterLine: try routeAfter.map(roads.lonLatLine),
                             routeRequested: route != nil, routeUnavailable: routeUnavailable)
    }

    /// Resources the closures cut off from the origin: those of `accessClosed`, and those whose
    /// road is open but every way there from the origin crosses a closed one.
    public var cutOff: [ReachChange] { reach.filter(\.cutOff) }
}

/// An emergency resource whose access road a hazard closes.
public struct AccessClosure: Sendable, Hashable {
    public var resource: EmergencyResource
    /// The roads-layer id of the closed road piece the resource is reached by.
    public var roadID: String?
    /// Index of that piece in the graph's `RoadNetwork.pieces`.
    public var piece: Int

    package init(resource: EmergencyResource, roadID: String?, piece: Int) {
        self.resource = resource
        self.roadID = roadID
        self.piece = piece
    }

    /// The resources (with where they meet the roads, `nil`: off the network) every one of whose
    /// tied road pieces `closures` closes: cut off at the door, whichever road they are reached by.
    package static func closed(_ resources: [EmergencyResource], accesses: [RoadAccess?], by closures: RoadClosures,
                       on roads: StoreRoadGraph) -> [AccessClosure] {
        zip(resources, accesses).compactMap { resource, access in
            guard let access, let first = access.positions.first, access.positions.allSatisfy({ closures.contains($0.piece) }) else { return nil }
            let network = roads.graph.network
            return AccessClosure(resource: resource, roadID: network.lines[Int(network.pieces[first.piece].line)].id, piece: first.piece)
        }
    }
}
