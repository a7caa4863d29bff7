import Foundation
import GeoCore
import NetworkAnalysis
import ProcessRuntime
import TwinStore

/// `nearest-resources`: from an incident, the N resources of a layer fastest to reach along the
/// roads — "which three shelters can take 800 people within 10 minutes of here?".
///
/// Inputs: `incident` (GeoJSON Point or [lon, lat], CRS84 degrees), `layer` (shelters,
/// hospitals, fire_stations, warehouses, rescue_teams or any point layer), `count` (1…50,
/// default 3), `profile` (driving, default, or walking), `categories` (values of the layer's
/// category/class/grade attribute), `status`, `minimumCapacity` (free places, beds or members),
/// `maximumMinutes` (optional cut-off). Output `resources`: a FeatureCollection of routes
/// (LineStrings in lon/lat from the incident's road position to the resource's), fastest first,
/// each with `rank`, `resource_id`, `name`, `category`, `capacity`, `free_capacity`, `seconds`,
/// `minutes`, `metres`, `access_metres` (resource to its road, straight) and
/// `incident_snap_metres`. `maximumSnapMetres` (default 500) refuses an incident farther from
/// the roads; output `snap` gives the incident's snap distance and the limit, `off_road` the
/// candidates too far from any road to be ranked, with the reason; `invalid` the stored resources left
/// out because their capacity or occupancy is negative (data stored before the schemas' `minimum: 0`).
public struct NearestResourcesProcess: TypedProcess {
    public let id = "nearest-resources"
    public let version = "1.0.0"
    public let title = "Nearest emergency resources"
    public let description = "The N resources of a layer (shelters, hospitals, fire stations, warehouses, rescue teams) with the shortest travel time along the roads from an incident, filtered by category, status and minimum free capacity, with travel times, distances and route geometries."
    public let jobControlOptions: [JobControlOption] = [.syncExecute]

    public init() {}

    public var outputs: [String: ProcessParameter] {
        [
            "resources": ProcessParameter(title: "Resources reached", description: "Routes to the resources, fastest first, as GeoJSON LineString features in lon/lat with rank, resource_id, name, category, capacity, free_capacity, seconds, minutes, metres and access_metres.",
                                          schema: ProcessInputs.featureCollectionSchema),
            "snap": ProcessParameter(title: "Snap distance", description: "incident_metres: straight metres from the incident to its road position; maximum_metres: the limit applied.",
                                     schema: ["type": "object"]),
            "off_road": ProcessParameter(title: "Resources off the network", description: "Candidates farther than the maximum snap distance from every road (not ranked), with access_metres and the reason.",
                                         schema: ["type": "array"]),
            "cut_off": ProcessParameter(title: "Resources cut off", description: "Candidates the city's conditions cut off from the incident (never ranked): layer, id, name, reason (the road, its depth or the closure), dry_seconds (their time in the dry city).",
                                        schema: ["type": "array"]),
            "out_of_service": ProcessParameter(title: "Resources out of service", description: "Candidates whose status puts them out of service (e.g. 待维修), never ranked unless `status` names that status: layer, id, name, reason.",
                                               schema: ["type": "array"]),
            "conditions": ProcessParameter(title: "Conditions", description: "The state of the city the answer was computed against: the flood run and its time step, the closures in force, the vehicle class and its rules, the roads closed and slowed (CityConditions).",
                                           schema: ["type": "object"]),
            "invalid": ProcessParameter(title: "Resources with impossible data", description: "Stored resources left out (never ranked) because their capacity or occupancy is negative: layer, resource_id, field, value, reason.",
                                        schema: ["type": "array"]),
        ]
    }

    public struct Input: ProcessInput {
        var incident: Position
        var layer: String
        var count: Int
        var profile: TravelProfile
        var filter: ResourceFilter
        var maximumSeconds: Double?
        var maximumSnapMetres: Double
        var conditions: ConditionsInput
        var vehicle: VehicleClass

        public init(from r: ProcessInputReader) throws {
            incident = try r.point("incident", title: "Incident",
                                   description: "Where help is needed: a GeoJSON Point or [longitude, latitude] in CRS84 degrees.")
            layer = try r.string("layer", title: "Resource layer",
                                 description: "Collection id of the resources, e.g. shelters, hospitals, fire_stations, warehouses, rescue_teams.",
                                 schema: ["type": "string", "examples": .array(EmergencyResource.layers.map(JSONValue.string))])
            count = try r.integer("count", title: "Count", description: "How many resources to return (1…50).", in: 1...50, default: 3)
            profile = try r.profile(description: "driving (road speeds, one-way rules) or walking (5 km/h).")
            let categories = try r.strings(
                "categories", title: "Categories",
                description: "Keep resources whose category (category, class or grade attribute) is one of these, e.g. 防汛抗旱 or 固定短期.")
            let status = try r.optionalString("status", title: "Status", description: "Keep resources with this status (layers with a status attribute).")
            let minimum = try r.number(
                "minimumCapacity", title: "Minimum free capacity",
                description: "Keep resources with at least this free capacity (shelter places, hospital beds, team members).", in: 0...1e12)
            filter = ResourceFilter(categories: categories.map(Set.init), status: status, minimumFreeCapacity: minimum)
            maximumSeconds = try r.number("maximumMinutes", title: "Maximum travel time",
                                          description: "Leave out resources farther than this many minutes.", in: 1e-6...1440).map { $0 * 60 }
            maximumSnapMetres = try r.maximumSnapMetres()
            conditions = try r.conditions(vehicleDefault: "fire_engine for fire_stations, car for other layers driving, walking on foot")
            vehicle = try conditions.vehicle(for: profile, default: layer == "fire_stations" ? .fireEngine : .car)
        }
    }

    public func layers(_ inputs: [String: JSONValue]) -> ProcessLayers {
        ProcessLayers(reads: (ProcessInputs.unwrap(inputs["layer"])?.stringValue.map { [$0] } ?? []) + ["roads"])
    }

    /// The layer exists with geometry and has the attributes the filter asks about.
    public func check(_ r: Input, store: any FeatureStore, caller: Caller) async throws {
        let layer = r.layer
        guard let definition = try await store.layerDefinition(layer, for: caller) else {
            throw ProcessInputError("layer", "no collection '\(layer)'")
        }
        guard definition.hasGeometry else { throw ProcessInputError("layer", "collection '\(layer)' has no geometry") }
        let schema = definition.schema.properties
        if r.filter.status != nil, schema["status"] == nil { throw ProcessInputError("status", "collection '\(layer)' has no status attribute") }
        if r.filter.minimumFreeCapacity != nil, !EmergencyResource.capacityProperties.contains(where: { schema[$0] != nil }) {
            throw ProcessInputError("minimumCapacity", "collection '\(layer)' has no capacity attribute (\(EmergencyResource.capacityProperties.joined(separator: ", ")))")
        }
        if r.filter.categories != nil, !EmergencyResource.categoryProperties.contains(where: { schema[$0] != nil }) {
            throw ProcessInputError("categories", "collection '\(layer)' has no category attribute (\(EmergencyResource.categoryProperties.joined(separator: ", ")))")
        }
    }

    public func run(_ r: Input, store: any FeatureStore, caller: Caller, progress: JobProgress) async throws -> JSONValue {
        try await check(r, store: store, caller: caller)
        return try await ProcessInputs.mapped {
            let attributes = try await EmergencyResource.attributes(of: r.layer, in: store, filter: r.filter, by: caller)
            let roads = try await EmergencyRoadGraphs.shared.graph(for: store, profile: r.profile, by: caller)
            let layer = try await EmergencyRoadGraphs.shared.resources(of: r.layer, attributes: attributes, in: store, roads: roads,
                                                                       profile: r.profile, by: caller)
            let invalid = layer.invalid
            // The city's state: closed and flooded roads for the vehicle, resources out of service.
            let conditions = try await r.conditions.load(store: store, by: caller)
            let state = conditions.roads(on: roads, vehicle: r.vehicle)
            var candidates = layer.filtered(r.filter)
            var outOfService: [JSONValue] = []
            // A `status` the caller names selects by it (a crew looking for the hydrants 待维修 to mend):
            // only without one are the resources out of service left unranked.
            if conditions.selection != .none, r.filter.status == nil {
                var kept = candidates
                kept.resources = []
                kept.accesses = []
                for (resource, access) in zip(candidates.resources, candidates.accesses) {
                    if let why = conditions.outOfService(resource) {
                        outOfService.append(["layer": .string(resource.layer), "id": .string(resource.id),
                                             "name": resource.name.map(JSONValue.string) ?? .null, "reason": .string(why)])
                    } else {
                        kept.resources.append(resource)
                        kept.accesses.append(access)
                    }
                }
                candidates = kept
            }
            let answer = try NearestResources.search(from: r.incident, among: candidates, count: r.count, roads: roads, under: state,
                                                     maximumSnapMetres: r.maximumSnapMetres)
            var found = answer.reached
            if let m = r.maximumSeconds { found = found.filter { $0.seconds <= m } }
            var features: [JSONValue] = []
            for (rank, hit) in found.enumerated() {
                let s = hit.resource
                features.append([
                    "type": "Feature", "id": .string(s.id),
                    "geometry": try ProcessInputs.json(.lineString(hit.route)),
                    "properties": [
                        "rank": .integer(Int64(rank + 1)), "resource_id": .string(s.id), "layer": .string(s.layer),
                        "name": s.name.map(JSONValue.string) ?? .null, "category": s.category.map(JSONValue.string) ?? .null,
                        "capacity": ProcessInputs.number(s.capacity), "free_capacity": ProcessInputs.number(s.freeCapacity),
                        "seconds": ProcessInputs.number(hit.seconds), "minutes": ProcessInputs.number(hit.seconds / 60),
                        "metres": ProcessInputs.number(hit.metres), "access_metres": ProcessInputs.number(hit.accessMetres),
                        "incident_snap_metres": ProcessInputs.number(answer.incidentSnapMetres),
                        "position": ProcessInputs.json(s.position),
                    ],
                ])
            }
            return ["resources": ["type": "FeatureCollection", "features": .array(features)],
                    "snap": ["incident_metres": ProcessInputs.number(answer.incidentSnapMetres),
                             "maximum_metres": .number(r.maximumSnapMetres)],
                    "off_road": .array(answer.offRoad.map { ProcessInputs.json($0) }),
                    "invalid": .array(invalid.map(\.json)),
                    "cut_off": .array(answer.cutOff.map { c in
                        ["layer": .string(c.resource.layer), "id": .string(c.resource.id), "name": c.resource.name.map(JSONValue.string) ?? .null,
                         "reason": .string(c.reason), "dry_seconds": c.drySeconds.map { ProcessInputs.number($0) } ?? .null,
                         "position": ProcessInputs.json(c.resource.position)]
                    }),
                    "out_of_service": .array(outOfService),
                    "conditions": conditions.json(state)]
        }
    }
}
