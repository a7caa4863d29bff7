import Emergency
import Foundation
import GeoCore
import NetworkAnalysis
import ProcessRuntime
import TwinStore

/// `hazard-overlay`: what a hazard area holds and cuts off — "what does this flood cut off?".
///
/// The area is `area` (a GeoJSON Polygon or MultiPolygon, CRS84), `hazardLayer` (any polygon
/// collection, e.g. a flood run's `flood_<scenario>_<n>_depth`) with an optional property filter
/// (`property` with `minimum` and/or `values`, e.g. depth ≥ 0.15 m), whose passing polygons are
/// unioned, or `run`, a flood run (`FloodRunCatalog`) whose depth ≥ 0.15 m is the area. With none
/// of them, the run the water authority published as current. An answer from a flood run names it
/// (`run`: id, scenario, state, when it ran and was published), so nobody reads a number without
/// knowing which run it came from. Outputs: the resources, roads, buildings and addresses inside (ids and
/// counts), the residents inside (aggregate only), the road pieces closed; with `origin`, each
/// resource's travel time before and after the closures (cut-off ones listed); with `route`
/// (`{"from": point, "to": point}`), the route with every road open and the one around the flood.
public struct HazardOverlayProcess: TypedProcess {
    public let id = "hazard-overlay"
    public let version = "1.0.0"
    public let title = "Hazard overlay"
    public let description = "Resources, roads, buildings, addresses and population inside a hazard polygon or flood result; the flooded roads closed; which resources become unreachable or slower from a point; and a route around the closures."
    public let jobControlOptions: [JobControlOption] = [.syncExecute]

    public init() {}

    public var outputs: [String: ProcessParameter] {
        [
            "inside": ProcessParameter(title: "Inside the hazard", description: "Per resource layer, roads, buildings, addresses: count and ids; population (aggregate) and its source.", schema: ["type": "object"]),
            "closures": ProcessParameter(title: "Closed roads", description: "Number and length (m) of closed road pieces.", schema: ["type": "object"]),
            "reach": ProcessParameter(title: "Reach from origin", description: "Resources cut off and slowed, with seconds before and after (with origin).", schema: ["type": "object"]),
            "route": ProcessParameter(title: "Route", description: "Before/after routes as GeoJSON LineStrings with seconds and metres (with route); `unavailable` says why one is missing.", schema: ["type": "object"]),
            "run": ProcessParameter(title: "Flood run", description: "The flood run the area came from (id, scenario, state, current, finished_at, published_at), null for an area or a layer of no run.",
                                    schema: ["type": ["object", "null"]]),
            "access_closed": ProcessParameter(title: "Access closed", description: "Resources every one of whose access roads the hazard closes (layer, id, name, road): cut off at the door from anywhere.",
                                              schema: ["type": "array", "items": ["type": "object"]]),
        ]
    }

    /// The inputs, read and checked; the hazard (a run, a layer) is resolved in the store by `request`.
    public struct Input: ProcessInput {
        var area: Geometry?
        var hazardLayer: String?
        var runID: String?
        var property: String?
        var minimum: Double?
        var values: [JSONValue]?
        var origin: Position?
        var route: (from: Position, to: Position)?
        var profile: TravelProfile
        var addressLevel: String
        var maximumSnapMetres: Double

        public init(from r: ProcessInputReader) throws {
            typealias In = ProcessInputs
            let areaValue = r.value("area", title: "Hazard area", description: "A GeoJSON Polygon or MultiPolygon in CRS84 (give this or hazardLayer).",
                                    schema: ["type": "object", "required": ["type", "coordinates"]])
            hazardLayer = try r.optionalString(
                "hazardLayer", title: "Hazard layer",
                description: """
                    Id of a polygon collection, e.g. a flood run's flood_<scenario>_<n>_depth (give at most one of area, \
                    hazardLayer, run).
                    """)
            runID = try r.optionalString(
                "run", title: "Flood run",
                description: """
                    A flood run (GET /flood-runs), e.g. p50-waterlogging-2: its depth ≥ 0.15 m is the area. Without area, \
                    hazardLayer and run: the current published run.
                    """)
            guard [areaValue != nil, hazardLayer != nil, runID != nil].filter({ $0 }).count <= 1 else {
                throw ProcessInputError(runID != nil ? "run" : "hazardLayer", "give at most one of 'area', 'hazardLayer' and 'run'")
            }
            let repair = r.repairValue()
            area = try areaValue.map { try FeaturesInArea.area($0, repair: try repair.map { try In.bool(["repair": $0], "repair") } ?? false) }
            property = try r.optionalString("property", title: "Filter property",
                                            description: "Property of hazardLayer to filter on, e.g. a depth in metres.")
            minimum = try r.number("minimum", title: "Minimum", description: "Keep hazardLayer polygons with property ≥ this (e.g. 0.15 m).",
                                   in: -1e12...1e12)
            values = try r.optional("values", title: "Values",
                                    description: "Keep hazardLayer polygons whose property is one of these (e.g. depth classes).",
                                    schema: ["type": "array"]) { v in
                guard let list = v.arrayValue, !list.isEmpty else { throw ProcessInputError("values", "must be a non-empty array") }
                return list
            }
            if property == nil, minimum != nil || values != nil { throw ProcessInputError("property", "is required with minimum or values") }
            if property != nil, area != nil { throw ProcessInputError("property", "applies to hazardLayer only") }
            route = try r.optional("route", title: "Route", description: "{\"from\": point, \"to\": point}: a trip to plan around the closures.",
                                   schema: ["type": "object", "required": ["from", "to"]]) { r in
                guard let o = r.objectValue else { throw ProcessInputError("route", "must be an object {\"from\": point, \"to\": point}") }
                do {
                    return (try In.requiredPoint(o, "from"), try In.requiredPoint(o, "to"))
                } catch let e as ProcessInputError {
                    throw ProcessInputError("route", e.description)
                }
            }
            addressLevel = try r.optionalString("addressLevel", title: "Address level", description: "Standard-address level listed (default 门牌).",
                                                schema: ["type": "string", "default": "门牌"]) ?? "门牌"
            origin = try r.optionalPoint("origin", title: "Origin", description: "Point to measure resource reach from (GeoJSON Point or [lon, lat]).")
            profile = try r.profile(description: "driving or walking.")
            maximumSnapMetres = try r.maximumSnapMetres()
        }
    }

    struct Request {
        var area: Geometry?
        var layer: String?
        var filter: HazardArea.Filter?
        /// The flood run the area comes from, if any.
        var run: FloodRun?
    }

    /// The hazard of `input` in the store: the run named (or the current published one) and its
    /// depth layer, or the layer named, which must exist (with the filter's property).
    func request(_ input: Input, store: any FeatureStore, caller: Caller) async throws -> Request {
        let hasArea = input.area != nil
        // An area in another city would answer zeros that read as "nothing affected": refused.
        if let box = input.area?.envelope, let city = try await CityExtent.of(store), !city.meets(box) {
            throw ProcessInputError("area", city.areaRefusal(box))
        }
        var layer = input.hazardLayer
        // A flood run: the one named, or the current published one; its depth layer is the area.
        let runs = FloodRunCatalog(store: store)
        var run: FloodRun?
        if let runID = input.runID {
            do { run = try await runs.run(runID, by: caller) } catch let e as ScenarioError { throw ProcessInputError("run", e.message) }
        } else if !hasArea, layer == nil {
            guard let current = try await runs.current(by: caller) else {
                throw ProcessInputError("run", "no flood run is published as current: give 'run' (GET /flood-runs), 'hazardLayer' or 'area'")
            }
            run = current
        } else if let layer {
            run = try await runs.run(owning: layer, by: caller)
        }
        if let run, layer == nil {
            guard run.status == .successful else {
                throw ProcessInputError("run", "flood run '\(run.id)' is \(run.status.rawValue): it has no depth to overlay")
            }
            layer = run.depthLayer
        }
        // A run's area is where the water stands 15 cm or more (the depth that closes a road), unless a filter is given.
        var filter = input.property.map { HazardArea.Filter(property: $0, minimum: input.minimum, values: input.values) }
        if run != nil, input.runID != nil || !hasArea && input.hazardLayer == nil, filter == nil {
            filter = HazardArea.Filter(property: "min_depth_m", minimum: FloodResultLayers.roadThreshold, values: nil)
        }
        if let layer {
            guard let definition = try await store.layerDefinition(layer, for: caller) else {
                throw ProcessInputError("hazardLayer", "no collection '\(layer)'")
            }
            if let p = input.property, definition.schema.properties[p] == nil {
                throw ProcessInputError("property", "collection '\(layer)' has no property '\(p)'")
            }
        }
        return Request(area: input.area, layer: layer, filter: filter, run: run)
    }

    /// The roads (closures) and the hazard layer are needed; the resource layers, buildings and
    /// addresses are counted when the caller may read them, else left out of a marked partial
    /// answer. (Population falls back to the household estimate and says so in its source.)
    public func layers(_ inputs: [String: JSONValue]) -> ProcessLayers {
        // A named run's depth layer is `flood_<run id with _>_depth` (`FloodRunCatalog`); the current run's is read in `request`.
        let run = (ProcessInputs.unwrap(inputs["run"])?.stringValue).flatMap(FloodRun.depthLayer(ofRun:))
        let hazard = (ProcessInputs.unwrap(inputs["hazardLayer"])?.stringValue).map { [$0] } ?? run.map { [$0] } ?? []
        return ProcessLayers(reads: hazard + ["roads"], optionalReads: EmergencyResource.layers + ["buildings", "addresses"])
    }

    public func check(_ input: Input, store: any FeatureStore, caller: Caller) async throws {
        _ = try await request(input, store: store, caller: caller)
    }

    public func run(_ input: Input, store: any FeatureStore, caller: Caller, progress: JobProgress) async throws -> JSONValue {
        let r = try await request(input, store: store, caller: caller)
        typealias In = ProcessInputs
        let overlay = try await In.mapped {
            let area: HazardArea
            if let g = r.area {
                area = HazardArea(geometry: g)
            } else {
                do {
                    area = try await HazardArea.union(of: r.layer ?? "", filter: r.filter, from: store, by: caller)
                } catch let e as ScenarioError where e.code == .invalidArgument && r.run != nil {
                    // A run that flooded nothing that deep: say so of the run the caller chose.
                    throw ProcessInputError("run", "flood run '\(r.run?.id ?? "")' floods no area 0.15 m deep or more: nothing in it is a hazard to overlay")
                }
            }
            return try await HazardOverlay.assess(area, store: store, by: caller, addressLevel: input.addressLevel,
                                                  origin: input.origin, route: input.route, profile: input.profile,
                                                  maximumSnapMetres: input.maximumSnapMetres)
        }
        func list(_ ids: [String]) -> JSONValue { ["count": .integer(Int64(ids.count)), "ids": .array(ids.map(JSONValue.string))] }
        var inside: [String: JSONValue] = [
            "roads": list(overlay.roads), "buildings": list(overlay.buildings), "addresses": list(overlay.addresses),
            "population": overlay.populationSource.isKnown ? In.number(overlay.population, decimals: 10) : .null,
            "population_source": .string(overlay.populationSource.description), "area_source": .string(overlay.area.source),
        ]
        for (layer, ids) in overlay.resources { inside[layer] = list(ids) }
        // Resources whose own road the hazard closes: cut off at the door, whatever the origin.
        let accessClosed: [JSONValue] = overlay.accessClosed.map { c in
            ["layer": .string(c.resource.layer), "id": .string(c.resource.id), "name": c.resource.name.map(JSONValue.string) ?? .null,
             "road": c.roadID.map(JSONValue.string) ?? .null]
        }
        var result: [String: JSONValue] = [
            "run": r.run.map { run in
                ["id": .string(run.id), "scenario": .string(run.scenario), "state": .string(run.state.rawValue), "current": .bool(run.current),
                 "finished_at": run.finishedAt.map(JSONValue.string) ?? .null, "published_at": run.publishedAt.map(JSONValue.string) ?? .null,
                 "depth_layer": .string(run.depthLayer)]
            } ?? .null,
            "inside": .object(inside),
            "closures": ["pieces": .integer(Int64(overlay.closures.pieces.count)), "metres": In.number(overlay.closedMetres)],
            "access_closed": .array(accessClosed),
        ]
        if input.origin != nil {
            func item(_ c: ReachChange) -> JSONValue {
                ["layer": .string(c.resource.layer), "id": .string(c.resource.id), "name": c.resource.name.map(JSONValue.string) ?? .null,
                 "seconds_before": In.number(c.before), "seconds_after": In.number(c.after), "increase": In.number(c.increase)]
            }
            // Most slowed first; equal increases (to the millisecond, below float noise) in layer and id order,
            // so every run and the CLI list them alike.
            let slowed = overlay.reach.filter { ($0.increase ?? 0) > 1e-6 }.sorted { a, b in
                let x = ((a.increase ?? 0) * 1000).rounded(), y = ((b.increase ?? 0) * 1000).rounded()
                return x != y ? x > y : (a.resource.layer, a.resource.id) < (b.resource.layer, b.resource.id)
            }
            result["reach"] = ["origin_flooded": .bool(overlay.originFlooded ?? false),
                               "cut_off": .array(overlay.cutOff.map(item)), "slowed": .array(slowed.map(item)),
                               "unchanged": .integer(Int64(overlay.reach.count - overlay.cutOff.count - slowed.count)),
                               "origin_snap_metres": In.number(overlay.originSnapMetres),
                               "maximum_snap_metres": .number(overlay.maximumSnapMetres),
                               "off_road": .array(overlay.offRoad.map { In.json($0) })]
        }
        if overlay.routeRequested {
            func leg(_ route: Route?, _ line: LineString?) throws -> JSONValue {
                guard let route, let line else { return .null }
                return ["seconds": In.number(route.seconds), "metres": In.number(route.metres), "geometry": try In.json(.lineString(line))]
            }
            result["route"] = ["before": try leg(overlay.routeBefore, overlay.routeBeforeLine),
                               "after": try leg(overlay.routeAfter, overlay.routeAfterLine),
                               "increase": In.number(overlay.routeAfter.flatMap { a in overlay.routeBefore.map { a.seconds - $0.seconds } }),
                               "from_snap_metres": In.number(overlay.routeSnapMetres?.from),
                               "to_snap_metres": In.number(overlay.routeSnapMetres?.to),
                               "maximum_snap_metres": .number(overlay.maximumSnapMetres),
                               "unavailable": overlay.routeUnavailable.map(JSONValue.string) ?? .null]
        }
        return .object(result)
    }
}
