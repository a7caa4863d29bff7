import Foundation
import GeoCore
import NetworkAnalysis
import ProcessRuntime
import TwinStore

/// `route`: the fastest route between two points along the roads, driving or walking, optionally
/// around closed roads (every road piece crossing `avoidArea`, e.g. a flooded block or a works
/// site) — the service other departments call instead of running their own router.
///
/// Inputs: `from`, `to` (GeoJSON Points or [lon, lat], CRS84), `profile` (driving, default, or
/// walking), `avoidArea` (GeoJSON Polygon or MultiPolygon, CRS84), `maximumSnapMetres` (default
/// 500). Outputs: `route` (a GeoJSON LineString Feature in lon/lat with seconds, minutes,
/// metres, profile and each end's snap distance; null when there is none), `unavailable` (why
/// there is no route) and `closed_metres` (road length the area closes).
public struct RouteProcess: TypedProcess {
    public let id = "route"
    public let version = "1.0.0"
    public let title = "Route"
    public let description = "The fastest route between two points along the district's roads, driving (design speeds, one-way rules, turn restrictions) or walking, optionally avoiding every road that crosses a closed area."
    public let jobControlOptions: [JobControlOption] = [.syncExecute]

    public init() {}

    public var outputs: [String: ProcessParameter] {
        [
            "route": ProcessParameter(title: "Route", description: "A GeoJSON LineString Feature in lon/lat with seconds, minutes, metres, profile, from_snap_metres and to_snap_metres; null when no route exists.",
                                      schema: ["type": ["object", "null"]]),
            "unavailable": ProcessParameter(title: "Why no route", description: "Set when route is null.", schema: ["type": ["string", "null"]]),
            "closed_metres": ProcessParameter(title: "Closed road length", description: "Metres of road the closed area closes (0 without one).", schema: ["type": "number"]),
            "conditions": ProcessParameter(title: "Conditions", description: "The state of the city the route was found in: the flood run, the closures in force, the vehicle class, the roads closed and slowed (CityConditions).",
                                           schema: ["type": "object"]),
        ]
    }

    public func layers(_ inputs: [String: JSONValue]) -> ProcessLayers {
        ProcessLayers(reads: ["roads"], optionalReads: ["turn_restrictions"])
    }

    public struct Input: ProcessInput {
        var from: Position
        var to: Position
        var profile: TravelProfile
        var avoid: Geometry?
        var maximumSnapMetres: Double
        var conditions: ConditionsInput
        var vehicle: VehicleClass

        public init(from r: ProcessInputReader) throws {
            avoid = try r.optional("avoidArea", title: "Closed area",
                                   description: "A GeoJSON Polygon or MultiPolygon in CRS84: every road crossing it is closed.",
                                   schema: ["type": "object"]) { area in
                do { return try FeaturesInArea.area(area) } catch let e as ProcessInputError {
                    throw ProcessInputError("avoidArea", e.reason)
                }
            }
            from = try r.point("from", title: "From", description: "Origin: a GeoJSON Point or [longitude, latitude] in CRS84 degrees.")
            to = try r.point("to", title: "To", description: "Destination: a GeoJSON Point or [longitude, latitude] in CRS84 degrees.")
            profile = try r.profile(description: "driving (road speeds, one-way rules) or walking (5 km/h).")
            maximumSnapMetres = try r.maximumSnapMetres()
            conditions = try r.conditions(vehicleDefault: "car driving, walking on foot")
            vehicle = try conditions.vehicle(for: profile)
        }
    }

    public func run(_ r: Input, store: any FeatureStore, caller: Caller, progress: JobProgress) async throws -> JSONValue {
        return try await ProcessInputs.mapped {
            let roads = try await EmergencyRoadGraphs.shared.graph(for: store, profile: r.profile, by: caller)
            let conditions = try await r.conditions.load(store: store, by: caller)
            let state = conditions.roads(on: roads, vehicle: r.vehicle)
            let avoided = try r.avoid.map { try RoadClosures(network: roads.graph.network, intersecting: try roads.toMetric.transform($0)) } ?? .none
            let closures = avoided.union(state.closures)
            let closedMetres = avoided.pieces.reduce(0) { $0 + roads.graph.network.pieces[$1].length }
            let a = try roads.access(lonLat: r.from, field: "from", maximumMetres: r.maximumSnapMetres)
            let b = try roads.access(lonLat: r.to, field: "to", maximumMetres: r.maximumSnapMetres)
            guard let route = roads.graph.route(from: a, to: b, avoiding: closures) else {
                let why = RouteUnavailable.reason(from: a, to: b, closures: closures,
                                                  connectedWhenOpen: !closures.isEmpty && roads.graph.route(from: a, to: b) != nil,
                                                  profile: r.profile, area: avoided.isEmpty ? "the closed or flooded roads" : "avoidArea",
                                                  around: avoided.isEmpty ? "the closed or flooded roads" : "avoidArea and the closed or flooded roads")
                return ["route": .null, "unavailable": .string(why), "closed_metres": ProcessInputs.number(closedMetres, decimals: 10),
                        "conditions": conditions.json(state)]
            }
            let properties: [String: JSONValue] = [
                "seconds": ProcessInputs.number(route.seconds, decimals: 10), "minutes": ProcessInputs.number(route.minutes, decimals: 100),
                "metres": ProcessInputs.number(route.metres, decimals: 10), "profile": .string(r.profile.name),
                "from_snap_metres": ProcessInputs.number(a.distance, decimals: 10), "to_snap_metres": ProcessInputs.number(b.distance, decimals: 10),
            ]
            return ["route": ["type": "Feature", "geometry": try ProcessInputs.json(.lineString(try roads.lonLatLine(route))),
                              "properties": .object(properties)],
                    "unavailable": .null, "closed_metres": ProcessInputs.number(closedMetres, decimals: 10),
                    "conditions": conditions.json(state)]
        }
    }
}
