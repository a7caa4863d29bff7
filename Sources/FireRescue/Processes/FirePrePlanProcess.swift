import Emergency
import Foundation
import GeoCore
import ProcessRuntime
import TwinStore

/// `fire-pre-plan`: the pre-plan (灭火救援预案) for one building (`FirePrePlan`): the building,
/// its high-rise and key-unit records, occupants by address, the nearest working hydrants and
/// water sources by hose distance, every station's route and arrival time, aerial ladder access
/// and the fire lanes near it with their open violations. Parts the caller may not read are
/// marked `withheld`.
public struct FirePrePlanProcess: TypedProcess {
    public let id = "fire-pre-plan"
    public let version = "1.0.0"
    public let title = "Fire pre-plan for a building (灭火救援预案)"
    public let description = "For one building: occupants, the nearest working hydrants and water sources by hose distance along the streets, fire stations' routes and arrival times (1 min turn-out), aerial ladder access and the fire lanes near it with their open violations."
    public let jobControlOptions: [JobControlOption] = [.syncExecute]

    public init() {}

    public struct Input: ProcessInput {
        var building: String
        var hydrants: Int
        var conditions: ConditionsInput
        var vehicle: VehicleClass

        public init(from r: ProcessInputReader) throws {
            building = try r.string("building", title: "Building", description: "The buildings id, e.g. BLD-00059.")
            hydrants = try r.integer("hydrants", title: "Hydrants", description: "How many of the nearest working hydrants to list (1…20).",
                                     in: 1...20, default: 5)
            conditions = try r.conditions(vehicleDefault: "fire_engine")
            vehicle = try conditions.vehicle(for: .driving, default: .fireEngine)
        }
    }

    public var outputs: [String: ProcessParameter] {
        ["building": ProcessParameter(title: "Building", description: "Its attributes, high_rise and key_unit records (null when none).", schema: ["type": "object"]),
         "occupants": ProcessParameter(title: "Occupants", description: "Households, residents, elderly and children at its addresses, or withheld.", schema: ["type": "object"]),
         "hydrants": ProcessParameter(title: "Hydrants", description: "Nearest working hydrants with hose_metres and street_metres, nearest first.", schema: ["type": "array"]),
         "water_sources": ProcessParameter(title: "Water sources", description: "Nearest usable fire water sources by hose distance.", schema: ["type": "array"]),
         "stations": ProcessParameter(title: "Stations", description: "Each fire station's route (lon/lat LineString) with drive_seconds, arrival_seconds and within_5_minutes, soonest first.",
                                      schema: ProcessInputs.featureCollectionSchema),
         "stations_cut_off": ProcessParameter(title: "Stations cut off", description: "Stations the city's conditions cut off from the building: id, name, reason (the road, its depth or the closure), dry_seconds.",
                                              schema: ["type": "array"]),
         "conditions": ProcessParameter(title: "Conditions", description: "The state of the city the routes were found in (CityConditions): the flood run, the closures in force, the vehicle class, the roads closed and slowed.",
                                        schema: ["type": "object"]),
         "aerial_ladder_access": ProcessParameter(title: "Aerial ladder access", description: "ladder_street, the streets near the building and the fire lanes with their open violations.",
                                                  schema: ["type": "object"]),
         "rules": ProcessParameter(title: "Rules", description: "The turn-out time and the rules applied.", schema: ["type": "object"])]
    }

    public func layers(_ inputs: [String: JSONValue]) -> ProcessLayers {
        ProcessLayers(reads: ["buildings", "roads"])
    }

    public func run(_ input: Input, store: any FeatureStore, caller: Caller, progress: JobProgress) async throws -> JSONValue {
        try await ProcessInputs.mapped {
            let conditions = try await input.conditions.load(store: store, by: caller)
            return try await FirePrePlan.plan(building: input.building, store: store, caller: caller, hydrantCount: input.hydrants,
                                              conditions: conditions, vehicle: input.vehicle)
        }
    }
}
