import Emergency
import Foundation
import GeoCore
import NetworkAnalysis
import ProcessRuntime
import TwinStore

/// `fire-station-coverage`: each fire station's response area — what it reaches within 5 minutes
/// of dispatch (建标152-2017, GB 51080-2015 §4.1.4), i.e. `FirePrePlan.turnOutSeconds` to leave and
/// the rest driving — as the `service-area` process draws it from the station; its district (the
/// buildings it reaches first); and the buildings no station reaches in time.
public struct FireStationCoverageProcess: TypedProcess {
    public let id = "fire-station-coverage"
    public let version = "1.0.0"
    public let title = "Fire station response coverage (5 minutes from dispatch)"
    public let description = "Each fire station's area reached within 5 minutes of dispatch (1 minute turn-out, then driving), its district (the buildings it reaches first), and the buildings no station reaches in time."
    public let jobControlOptions: [JobControlOption] = [.syncExecute, .asyncExecute]

    public init() {}

    public struct Input: ProcessInput {
        var minutes: Double
        var maximumListed: Int
        var conditions: ConditionsInput
        var vehicle: VehicleClass

        public init(from r: ProcessInputReader) throws {
            minutes = try r.number("minutes", title: "Response time", description: "Minutes from dispatch to arrival (2…30), default 5 (建标152-2017).",
                                   in: 2...30, default: 5)
            maximumListed = try r.integer("maximumListed", title: "Most listed", description: "Most uncovered buildings listed (1…10000).",
                                          in: 1...10_000, default: 1_000)
            conditions = try r.conditions(vehicleDefault: "fire_engine")
            vehicle = try conditions.vehicle(for: .driving, default: .fireEngine)
        }
    }

    public var outputs: [String: ProcessParameter] {
        ["stations": ProcessParameter(title: "Stations", description: "Each station's area (lon/lat polygon) with drive_minutes, district_buildings (reached first) and buildings_in_time.",
                                      schema: ProcessInputs.featureCollectionSchema),
         "conditions": ProcessParameter(title: "Conditions", description: "The state of the city the coverage was computed in (CityConditions): the flood run, the closures, the vehicle class, the roads closed and slowed. A station whose access road it closes has no area and says why in cut_off.",
                                        schema: ["type": "object"]),
         "summary": ProcessParameter(title: "Summary", description: "Buildings, those reached in time, the share, turn-out seconds.", schema: ["type": "object"]),
         "uncovered_buildings": ProcessParameter(title: "Uncovered buildings", description: "Buildings no station reaches in time: id, best station and arrival_seconds (null when none reaches it), latest first.",
                                                 schema: ["type": "array"])]
    }

    public func layers(_ inputs: [String: JSONValue]) -> ProcessLayers {
        ProcessLayers(reads: ["fire_stations", "roads", "buildings"])
    }

    public func run(_ input: Input, store: any FeatureStore, caller: Caller, progress: JobProgress) async throws -> JSONValue {
        try await ProcessInputs.mapped {
            let roads = try await EmergencyRoadGraphs.shared.graph(for: store, profile: .driving, by: caller)
            let conditions = try await input.conditions.load(store: store, by: caller)
            let state = conditions.roads(on: roads, vehicle: input.vehicle)
            let closures = state.closures
            let limit = input.minutes * 60, drive = limit - FirePrePlan.turnOutSeconds
            var stations: [Feature] = []
            for try await f in store.stream(layer: "fire_stations", FeatureQuery(limit: 1000), by: caller) { stations.append(f) }
            var buildings: [(String, Position)] = []
            for try await f in store.stream(layer: "buildings", FeatureQuery(properties: [], limit: 5000), by: caller) {
                if let c = f.geometry?.envelope?.center { buildings.append((f.id?.description ?? "", c)) }
            }
            // Buildings with a road to stand on (every one of the sample district), by index.
            let onRoads = try roads.access(lonLats: buildings.map(\.1), avoiding: closures).enumerated().compactMap { b, a in a.map { (b, $0) } }
            var best = [(station: Int, seconds: Double)?](repeating: nil, count: buildings.count)
            var features: [JSONValue] = []
            var inTime = [Int](repeating: 0, count: stations.count), first = [Int](repeating: 0, count: stations.count)
            for (s, station) in stations.enumerated() {
                guard case .point(let point)? = station.geometry, let p = point.position,
                      let origin = try? roads.access(lonLat: p, field: "station", maximumMetres: StoreRoadGraph.defaultMaximumSnapMetres) else { continue }
                // A station whose every access road the conditions close reaches nothing: listed, with why.
                if origin.positions.allSatisfy({ closures.contains($0.piece) }) {
                    let why = state.closedRoad(piece: origin.positions[0].piece).map { "its access road: " + $0.why(state.vehicle) } ?? "its access road is closed"
                    features.append(["type": "Feature", "id": .string(station.id?.description ?? ""), "geometry": .null,
                                     "properties": ["name": station.properties["name"] ?? .null, "class": station.properties["class"] ?? .null,
                                                    "drive_minutes": ProcessInputs.number(drive / 60), "reached_metres": 0,
                                                    "cut_off": .string(why), "position": ProcessInputs.json(p)]])
                    continue
                }
                let times = roads.graph.travelTimes(from: origin, to: onRoads.map(\.1), avoiding: closures)
                for ((b, _), t) in zip(onRoads, times) {
                    guard let t else { continue }
                    if t <= drive { inTime[s] += 1 }
                    if best[b].map({ t < $0.seconds }) ?? true { best[b] = (s, t) }
                }
                let area = try ServiceAreaIsochrones.compute(from: p, minutes: [drive / 60], roads: roads, avoiding: closures)[0]
                features.append(["type": "Feature", "id": .string(station.id?.description ?? ""), "geometry": try ProcessInputs.json(area.area),
                                 "properties": ["name": station.properties["name"] ?? .null, "class": station.properties["class"] ?? .null,
                                                "drive_minutes": ProcessInputs.number(drive / 60), "reached_metres": ProcessInputs.number(area.reachedMetres),
                                                "cut_off": .null, "position": ProcessInputs.json(p)]])
            }
            for b in best { if let b { first[b.station] += 1 } }
            for i in features.indices {
                guard case .object(var f) = features[i], case .object(var p)? = f["properties"] else { continue }
                p["district_buildings"] = .integer(Int64(first[i])); p["buildings_in_time"] = .integer(Int64(inTime[i]))
                f["properties"] = .object(p); features[i] = .object(f)
            }
            var uncovered: [(String, String?, Double?)] = []
            for (b, hit) in best.enumerated() where hit.map({ $0.seconds > drive }) ?? true {
                uncovered.append((buildings[b].0, hit.map { stations[$0.station].id?.description ?? "" }, hit.map { $0.seconds + FirePrePlan.turnOutSeconds }))
            }
            uncovered.sort { ($0.2 ?? .infinity) > ($1.2 ?? .infinity) }
            let covered = buildings.count - uncovered.count
            return ["stations": ["type": "FeatureCollection", "features": .array(features)],
                    "summary": ["buildings": .integer(Int64(buildings.count)), "buildings_in_time": .integer(Int64(covered)),
                                "share_in_time": ProcessInputs.number(buildings.isEmpty ? 0 : Double(covered) / Double(buildings.count)),
                                "response_minutes": .number(input.minutes), "turn_out_seconds": .number(FirePrePlan.turnOutSeconds),
                                "standard": "建标152-2017 / GB 51080-2015 §4.1.4: arrival at the district's edge within 5 minutes of dispatch"],
                    "conditions": conditions.json(state),
                    "uncovered_buildings": .array(uncovered.prefix(input.maximumListed).map {
                        ["id": .string($0.0), "station": $0.1.map(JSONValue.string) ?? .null, "arrival_seconds": ProcessInputs.number($0.2)]
                    })]
        }
    }
}
