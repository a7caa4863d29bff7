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
public struct NearestResourcesProcess: OGCProcess {
    public let id = "nearest-resources"
    public let version = "1.0.0"
    public let title = "Nearest emergency resources"
    public let description = "The N resources of a layer (shelters, hospitals, fire stations, warehouses, rescue teams) with the shortest travel time along the roads from an incident, filtered by category, status and minimum free capacity, with travel times, distances and route geometries."
    public let jobControlOptions: [JobControlOption] = [.syncExecute]

    public init() {}

    public var inputs: [String: ProcessParameter] {
        [
            "incident": ProcessParameter(title: "Incident", description: "Where help is needed: a GeoJSON Point or [longitude, latitude] in CRS84 degrees.",
                                         schema: ProcessInputs.pointSchema),
            "layer": ProcessParameter(title: "Resource layer", description: "Collection id of the resources, e.g. shelters, hospitals, fire_stations, warehouses, rescue_teams.",
                                      schema: ["type": "string", "examples": .array(EmergencyResource.layers.map(JSONValue.string))]),
            "count": ProcessParameter(title: "Count", description: "How many resources to return (1…50).",
                                      schema: ["type": "integer", "minimum": 1, "maximum": 50, "default": 3], minOccurs: 0),
            "profile": ProcessParameter(title: "Travel profile", description: "driving (road speeds, one-way rules) or walking (5 km/h).",
                                        schema: ProcessInputs.profileSchema, minOccurs: 0),
            "categories": ProcessParameter(title: "Categories", description: "Keep resources whose category (category, class or grade attribute) is one of these, e.g. 防汛抗旱 or 固定短期.",
                                           schema: ["type": "array", "items": ["type": "string"]], minOccurs: 0),
            "status": ProcessParameter(title: "Status", description: "Keep resources with this status (layers with a status attribute).",
                                       schema: ["type": "string"], minOccurs: 0),
            "minimumCapacity": ProcessParameter(title: "Minimum free capacity", description: "Keep resources with at least this free capacity (shelter places, hospital beds, team members).",
                                                schema: ["type": "number", "minimum": 0], minOccurs: 0),
            "maximumMinutes": ProcessParameter(title: "Maximum travel time", description: "Leave out resources farther than this many minutes.",
                                               schema: ["type": "number", "exclusiveMinimum": 0], minOccurs: 0),
            "maximumSnapMetres": ProcessInputs.maximumSnapParameter,
        ]
    }

    public var outputs: [String: ProcessParameter] {
        [
            "resources": ProcessParameter(title: "Resources reached", description: "Routes to the resources, fastest first, as GeoJSON LineString features in lon/lat with rank, resource_id, name, category, capacity, free_capacity, seconds, minutes, metres and access_metres.",
                                          schema: ProcessInputs.featureCollectionSchema),
            "snap": ProcessParameter(title: "Snap distance", description: "incident_metres: straight metres from the incident to its road position; maximum_metres: the limit applied.",
                                     schema: ["type": "object"]),
            "off_road": ProcessParameter(title: "Resources off the network", description: "Candidates farther than the maximum snap distance from every road (not ranked), with access_metres and the reason.",
                                         schema: ["type": "array"]),
            "invalid": ProcessParameter(title: "Resources with impossible data", description: "Stored resources left out (never ranked) because their capacity or occupancy is negative: layer, resource_id, field, value, reason.",
                                        schema: ["type": "array"]),
        ]
    }

    struct Request {
        var incident: Position
        var layer: String
        var count: Int
        var profile: TravelProfile
        var filter: ResourceFilter
        var maximumSeconds: Double?
        var maximumSnapMetres: Double
    }

    func request(_ inputs: [String: JSONValue], store: any FeatureStore, caller: Caller) async throws -> Request {
        typealias In = ProcessInputs
        let incident = try In.requiredPoint(inputs, "incident")
        guard let layer = try In.string(inputs, "layer") else { throw ProcessInputError("layer", "is required") }
        guard let definition = try await store.layerDefinition(layer, for: caller) else {
            throw ProcessInputError("layer", "no collection '\(layer)'")
        }
        guard definition.hasGeometry else { throw ProcessInputError("layer", "collection '\(layer)' has no geometry") }
        let count = try In.integer(inputs, "count", default: 3, in: 1...50)
        let profile = try In.profile(inputs)
        let categories = try In.strings(inputs, "categories").map(Set.init)
        let status = try In.string(inputs, "status")
        let minimum = try In.number(inputs, "minimumCapacity", in: 0...1e12)
        let maximum = try In.number(inputs, "maximumMinutes", in: 1e-6...1440)
        let schema = definition.schema.properties
        if status != nil, schema["status"] == nil { throw ProcessInputError("status", "collection '\(layer)' has no status attribute") }
        if minimum != nil, !EmergencyResource.capacityProperties.contains(where: { schema[$0] != nil }) {
            throw ProcessInputError("minimumCapacity", "collection '\(layer)' has no capacity attribute (\(EmergencyResource.capacityProperties.joined(separator: ", ")))")
        }
        if categories != nil, !EmergencyResource.categoryProperties.contains(where: { schema[$0] != nil }) {
            throw ProcessInputError("categories", "collection '\(layer)' has no category attribute (\(EmergencyResource.categoryProperties.joined(separator: ", ")))")
        }
        return Request(incident: incident, layer: layer, count: count, profile: profile,
                       filter: ResourceFilter(categories: categories, status: status, minimumFreeCapacity: minimum),
                       maximumSeconds: maximum.map { $0 * 60 }, maximumSnapMetres: try In.maximumSnapMetres(inputs))
    }

    public func layers(_ inputs: [String: JSONValue]) -> ProcessLayers {
        ProcessLayers(reads: (ProcessInputs.unwrap(inputs["layer"])?.stringValue.map { [$0] } ?? []) + ["roads"])
    }

    public func validate(_ inputs: [String: JSONValue], store: any FeatureStore, caller: Caller) async throws {
        _ = try await request(inputs, store: store, caller: caller)
    }

    public func execute(_ inputs: [String: JSONValue], store: any FeatureStore, caller: Caller,
                        progress: JobProgress) async throws -> JSONValue {
        let r = try await request(inputs, store: store, caller: caller)
        return try await ProcessInputs.mapped {
            let (resources, invalid) = try await EmergencyResource.loadChecked(layer: r.layer, from: store, filter: r.filter, by: caller)
            let roads = try await EmergencyRoadGraphs.shared.graph(for: store, profile: r.profile, by: caller)
            let answer = try NearestResources.search(from: r.incident, among: resources, count: r.count, roads: roads,
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
                    "invalid": .array(invalid.map(\.json))]
        }
    }
}
