import Foundation
import GeoCore
import NetworkAnalysis
import ProcessRuntime
import TwinStore

/// `service-area`: isochrones from a point for several breaks — the area a fire engine reaches
/// in 5, 10 and 15 minutes. Inputs: `origin` (GeoJSON Point or [lon, lat], CRS84), `breaks`
/// (minutes, default [5, 10, 15]), `profile` (driving or walking), `bufferMetres` (half-width
/// around reached roads, default 25 m). Output `areas`: a FeatureCollection of Polygon or
/// MultiPolygon features in lon/lat, smallest break first, each with `minutes`,
/// `reached_metres`, `reached_nodes` and `snap_metres`; each contains every road reached within
/// its break and no unreached intersection. An origin on a junction leaves along every road of
/// the junction and reaches it at 0 s. `maximumSnapMetres` (default 500) refuses an origin
/// farther from the roads; output `snap` gives the origin's snap distance and the limit.
public struct ServiceAreaProcess: TypedProcess {
    public let id = "service-area"
    public let version = "1.0.0"
    public let title = "Service areas (isochrones)"
    public let description = "Polygons of the area reachable along the roads from a point within each of several travel-time breaks, driving or walking."
    public let jobControlOptions: [JobControlOption] = [.syncExecute]

    public init() {}

    public var outputs: [String: ProcessParameter] {
        ["areas": ProcessParameter(title: "Service areas", description: "Polygon features in lon/lat, smallest break first, with minutes, reached_metres and reached_nodes.",
                                   schema: ProcessInputs.featureCollectionSchema),
         "conditions": ProcessParameter(title: "Conditions", description: "The state of the city the areas were computed in: the flood run, the closures in force, the vehicle class, the roads closed and slowed (CityConditions).",
                                        schema: ["type": "object"]),
         "snap": ProcessParameter(title: "Snap distance", description: "origin_metres: straight metres from the origin to its road position; maximum_metres: the limit applied.",
                                  schema: ["type": "object"])]
    }

    public struct Input: ProcessInput {
        var origin: Position
        var breaks: [Double]
        var bufferMetres: Double
        var profile: TravelProfile
        var maximumSnapMetres: Double
        var conditions: ConditionsInput
        var vehicle: VehicleClass

        public init(from r: ProcessInputReader) throws {
            origin = try r.point("origin", title: "Origin", description: "A GeoJSON Point or [longitude, latitude] in CRS84 degrees.")
            breaks = try r.optional("breaks", title: "Breaks", description: "Travel-time limits in minutes (each in (0, 240]).",
                                    schema: ["type": "array", "items": ["type": "number", "exclusiveMinimum": 0, "maximum": 240],
                                             "minItems": 1, "maxItems": 10, "default": [5, 10, 15]], parse: Self.breaks) ?? [5, 10, 15]
            bufferMetres = try r.number("bufferMetres", title: "Buffer", description: "Half-width in metres of the area around reached roads (1…200).",
                                        in: 1...200, default: 25)
            profile = try r.profile(description: "driving or walking.")
            maximumSnapMetres = try r.maximumSnapMetres()
            conditions = try r.conditions(vehicleDefault: "car driving, walking on foot")
            vehicle = try conditions.vehicle(for: profile)
        }

        /// 1 to 10 travel times in minutes, each in (0, 240].
        static func breaks(_ value: JSONValue) throws -> [Double] {
            guard let list = value.arrayValue, !list.isEmpty, list.count <= 10 else {
                throw ProcessInputError("breaks", "must be an array of 1 to 10 numbers of minutes")
            }
            return try list.enumerated().map { i, v in
                guard let d = v.doubleValue, d.isFinite, d > 0, d <= 240 else {
                    throw ProcessInputError("breaks", "item \(i) must be minutes in (0, 240]")
                }
                return d
            }
        }
    }

    public func layers(_ inputs: [String: JSONValue]) -> ProcessLayers {
        ProcessLayers(reads: ["roads"])
    }

    public func run(_ input: Input, store: any FeatureStore, caller: Caller, progress: JobProgress) async throws -> JSONValue {
        let (origin, breaks, profile, buffer, maximumSnap) = (input.origin, input.breaks, input.profile, input.bufferMetres, input.maximumSnapMetres)
        return try await ProcessInputs.mapped {
            let roads = try await EmergencyRoadGraphs.shared.graph(for: store, profile: profile, by: caller)
            let conditions = try await input.conditions.load(store: store, by: caller)
            let state = conditions.roads(on: roads, vehicle: input.vehicle)
            let areas = try ServiceAreaIsochrones.compute(from: origin, minutes: breaks, roads: roads, avoiding: state.closures,
                                                      bufferMetres: buffer, maximumSnapMetres: maximumSnap)
            let features: [JSONValue] = try areas.map { a in
                [
                    "type": "Feature", "geometry": try ProcessInputs.json(a.area),
                    "properties": ["minutes": .number(a.minutes), "profile": .string(profile.name),
                                   "reached_metres": ProcessInputs.number(a.reachedMetres),
                                   "reached_nodes": .integer(Int64(a.reachedNodes)),
                                   "snap_metres": ProcessInputs.number(a.snapMetres)],
                ]
            }
            return ["areas": ["type": "FeatureCollection", "features": .array(features)],
                    "snap": ["origin_metres": ProcessInputs.number(areas.first?.snapMetres),
                             "maximum_metres": .number(maximumSnap)],
                    "conditions": conditions.json(state)]
        }
    }
}
