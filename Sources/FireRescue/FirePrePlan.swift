import Emergency
import Foundation
import GeoCore
import Governance
import NetworkAnalysis
import ProcessRuntime
import QueryLanguage
import TwinStore

/// A fire pre-plan for one building (灭火救援预案): what a command centre reads on the way — the
/// building and who is in it, the nearest working hydrants and water sources by hose-laying
/// distance along the streets, each fire station's route and arrival time, and whether an aerial
/// ladder truck can reach it (the street it fronts, the fire lanes near it and the violations
/// still open on them). Every part the caller may not read is said to be withheld, never left
/// to look empty.
public enum FirePrePlan {
    /// Seconds from dispatch to the engine leaving the station (出动时间): 1 minute, so that the
    /// 5 minutes of 建标152-2017 / GB 51080-2015 §4.1.4 leave 4 minutes of driving.
    public static let turnOutSeconds = 60.0
    /// Hose lengths farther than this along the streets are not listed (m).
    public static let hoseSearchMetres = 1_000.0
    /// Water sources farther than this along the streets are not listed (m): an engine relays or shuttles from them.
    public static let waterSearchMetres = 5_000.0
    /// A water source farther than this from every street has no engine access worth listing (m).
    public static let waterAccessMetres = 500.0
    /// Fire lanes and streets within this distance of the footprint's bounding box are listed (m):
    /// a compound's lane runs between its rows of buildings, up to about 70 m from each.
    public static let laneSearchMetres = 100.0
    /// GB 50016-2014 §7.1.8: fire lanes at least 4 m wide and 4 m clear high.
    public static let minimumLaneWidth = 4.0
    /// An aerial ladder truck's working area beside the building (GB 50016 §7.2.2: at least 10 m
    /// wide, its near edge 5–10 m from the wall): here a street of at least 10 m of carriageway
    /// (3.5 m per lane) whose centreline is within 10 m plus half its width of the footprint.
    public static let ladderStreetWidth = 10.0

    /// Where a point meets the streets, and the straight metres between.
    struct StreetPoint { var id: String; var name: String?; var at: EdgePosition; var properties: [String: JSONValue] }

    public static func plan(building id: String, store: any FeatureStore, caller: Caller, hydrantCount: Int,
                            conditions: CityConditions = .none(), vehicle: VehicleClass = .fireEngine) async throws -> JSONValue {
        guard let building = try await store.feature(layer: "buildings", id: id, by: caller), let footprint = building.geometry,
              let centre = footprint.envelope?.center else {
            throw ProcessInputError("building", "no building '\(id)' the caller may read")
        }
        let walking = try await EmergencyRoadGraphs.shared.graph(for: store, profile: .walking, by: caller)
        let driving = try await EmergencyRoadGraphs.shared.graph(for: store, profile: .driving, by: caller)
        let network = walking.graph.network
        let centreMetric = try walking.metric(centre)
        // A building far from every street has no hose or route distance worth stating: refused, not answered.
        guard let buildingAt = network.snap(centreMetric), buildingAt.distance <= HydrantCoverage.maximumBuildingOffset else {
            throw ProcessInputError("building", "building '\(id)' lies farther than \(Int(HydrantCoverage.maximumBuildingOffset)) m from every street")
        }
        let fromBuilding = network.streetDistances(from: [buildingAt], limit: waterSearchMetres)

        /// The nearest of `layer` by street metres plus the straight metres at both ends, within
        /// `reach` metres along the streets and `offset` metres of a street.
        func nearestByHose(_ layer: String, keep: ([String: JSONValue]) -> Bool, count: Int, reach: Double, offset: Double) async throws -> JSONValue {
            guard try await store.layerDefinition(layer, for: caller) != nil else { return withheld(layer) }
            var found: [(Double, JSONValue)] = []
            for try await f in store.stream(layer: layer, FeatureQuery(limit: 5000), by: caller) {
                guard keep(f.properties), case .point(let point)? = f.geometry, let p = point.position else { continue }
                let m = try walking.metric(p)
                guard let at = network.snap(m), at.distance <= offset else { continue }
                let street = network.streetDistance(to: at, nodeDistances: fromBuilding, sources: [buildingAt])
                guard street <= reach else { continue }
                let hose = street + at.distance + buildingAt.distance
                var properties = f.properties
                properties["id"] = .string(f.id?.description ?? "")
                properties["hose_metres"] = ProcessInputs.number(hose)
                properties["street_metres"] = ProcessInputs.number(street)
                properties["access_metres"] = ProcessInputs.number(at.distance)
                properties["position"] = ProcessInputs.json(p)
                found.append((hose, .object(properties)))
            }
            return .array(found.sorted { $0.0 < $1.0 }.prefix(count).map(\.1))
        }
        let hydrants = try await nearestByHose("hydrants", keep: { $0["status"]?.stringValue == "完好" }, count: hydrantCount,
                                               reach: hoseSearchMetres, offset: HydrantCoverage.maximumHydrantOffset)
        let sources = try await nearestByHose("fire_water_sources", keep: { $0["status"]?.stringValue == "可用" }, count: 3,
                                              reach: waterSearchMetres, offset: waterAccessMetres)
        let state = conditions.roads(on: driving, vehicle: vehicle)
        let (stations, cutOff) = try await stationRoutes(to: centre, roads: driving, under: state, store: store, caller: caller)
        let access = try await ladderAccess(footprint: footprint, store: store, caller: caller, roads: walking)
        let occupants = try await Self.occupants(of: building, store: store, caller: caller)
        var facts = building.properties
        facts["id"] = .string(id)
        facts["high_rise"] = try await related("high_rise_residences", building: id, store: store, caller: caller)
        facts["key_unit"] = try await related("fire_key_units", building: id, store: store, caller: caller)
        return ["building": .object(facts), "occupants": occupants, "hydrants": hydrants, "water_sources": sources,
                "stations": stations, "stations_cut_off": cutOff, "aerial_ladder_access": access,
                "conditions": conditions.json(state),
                "rules": ["turn_out_seconds": .number(turnOutSeconds),
                          "hose": "metres along the streets from the building's street position, plus the straight metres from each end to its street",
                          "lanes": "GB 50016-2014 §7.1.8: fire lanes at least 4 m wide and 4 m clear high; a lane with a violation not yet 已处理 is blocked",
                          "ladder": "GB 50016-2014 §7.2.2: a street of at least 10 m carriageway (3.5 m a lane) whose centreline lies within 10 m plus half its width of the footprint"]]
    }

    static func withheld(_ layer: String) -> JSONValue {
        ["withheld": true, "reason": .string("the caller may not read the layer \(layer)")]
    }

    /// The feature of `layer` whose `building` is `id`, or null; withheld when unreadable.
    static func related(_ layer: String, building id: String, store: any FeatureStore, caller: Caller) async throws -> JSONValue {
        guard try await store.layerDefinition(layer, for: caller) != nil else { return withheld(layer) }
        let page = try await store.query(layer: layer, FeatureQuery(filter: .comparison(.equal, .property("building"), .literal(.string(id))), limit: 1),
                                         by: caller)
        return page.features.first.map { .object($0.properties.merging(["id": .string($0.id?.description ?? "")]) { a, _ in a }) } ?? .null
    }

    /// Every station's fastest driving route to the building under the city's conditions,
    /// arrival = turn-out + travel; a station the conditions cut off (its access road closed or
    /// flooded beyond the vehicle's wading depth, or no open way) is listed apart with why.
    static func stationRoutes(to centre: Position, roads: StoreRoadGraph, under state: CityConditions.Roads,
                              store: any FeatureStore, caller: Caller) async throws -> (JSONValue, JSONValue) {
        guard try await store.layerDefinition("fire_stations", for: caller) != nil else { return (withheld("fire_stations"), .array([])) }
        let closures = state.closures
        let target = try roads.access(lonLat: centre, avoiding: closures, field: "building", maximumMetres: StoreRoadGraph.defaultMaximumSnapMetres)
        var out: [(Double, JSONValue)] = []
        var cutOff: [JSONValue] = []
        for try await f in store.stream(layer: "fire_stations", FeatureQuery(limit: 1000), by: caller) {
            guard case .point(let point)? = f.geometry, let p = point.position,
                  let origin = try? roads.access(lonLat: p, field: "station", maximumMetres: StoreRoadGraph.defaultMaximumSnapMetres) else { continue }
            guard let route = roads.graph.route(from: origin, to: target, avoiding: closures) else {
                guard let dry = roads.graph.route(from: origin, to: target) else { continue }
                let why: String
                if origin.positions.allSatisfy({ closures.contains($0.piece) }), let road = state.closedRoad(piece: origin.positions[0].piece) {
                    why = "its access road: " + road.why(state.vehicle)
                } else {
                    why = "isolated: every way to the building crosses a closed or flooded road"
                }
                cutOff.append(["id": .string(f.id?.description ?? ""), "name": f.properties["name"] ?? .null, "reason": .string(why),
                               "dry_seconds": ProcessInputs.number(dry.seconds), "position": ProcessInputs.json(p)])
                continue
            }
            let arrival = turnOutSeconds + route.seconds
            out.append((arrival, ["type": "Feature", "id": .string(f.id?.description ?? ""),
                                  "geometry": try ProcessInputs.json(.lineString(try roads.lonLatLine(route))),
                                  "properties": ["name": f.properties["name"] ?? .null, "class": f.properties["class"] ?? .null,
                                                 "drive_seconds": ProcessInputs.number(route.seconds), "metres": ProcessInputs.number(route.metres),
                                                 "arrival_seconds": ProcessInputs.number(arrival),
                                                 "within_5_minutes": .bool(arrival <= 300)]]))
        }
        return (["type": "FeatureCollection", "features": .array(out.sorted { $0.0 < $1.0 }.map(\.1))], .array(cutOff))
    }

    /// The street an aerial ladder could work from, and the fire lanes near the building with their state.
    static func ladderAccess(footprint: Geometry, store: any FeatureStore, caller: Caller, roads: StoreRoadGraph) async throws -> JSONValue {
        let metricFootprint = try roads.toMetric.transform(footprint)
        guard let box = metricFootprint.envelope?.expanded(by: laneSearchMetres) else { return .null }
        let corners = try roads.storage([Position(x: box.minX, y: box.minY), Position(x: box.maxX, y: box.minY),
                                         Position(x: box.maxX, y: box.maxY), Position(x: box.minX, y: box.maxY)])
        var lonLat = Envelope(minX: corners[0].x, minY: corners[0].y, maxX: corners[0].x, maxY: corners[0].y)
        for c in corners { lonLat.expand(toInclude: c) }
        let near = BoundingBox(lonLat)
        var streets: [JSONValue] = []
        var ladder = false
        for try await f in store.stream(layer: "roads", FeatureQuery(bbox: near, limit: 1000), by: caller) {
            guard let line = f.geometry else { continue }
            let width = f.properties["width_m"]?.doubleValue ?? (f.properties["lanes"]?.doubleValue ?? 0) * 3.5
            let metres = try roads.toMetric.transform(line).distance(to: metricFootprint)
            let works = width >= ladderStreetWidth && metres <= 10 + width / 2
            ladder = ladder || works
            streets.append(["road": .string(f.id?.description ?? ""), "name": f.properties["name"] ?? .null,
                            "width_m": ProcessInputs.number(width), "metres_from_footprint": ProcessInputs.number(metres),
                            "ladder_can_work": .bool(works)])
        }
        var lanes: JSONValue = withheld("fire_lanes")
        if try await store.layerDefinition("fire_lanes", for: caller) != nil {
            var open: [String: [JSONValue]] = [:]
            if try await store.layerDefinition("fire_lane_violations", for: caller) != nil {
                let q = FeatureQuery(filter: .not(.comparison(.equal, .property("status"), .literal("已处理"))), limit: 5000)
                for try await v in store.stream(layer: "fire_lane_violations", q, by: caller) {
                    guard let lane = v.properties["lane"]?.stringValue else { continue }
                    open[lane, default: []].append(["id": .string(v.id?.description ?? ""), "kind": v.properties["kind"] ?? .null,
                                                    "status": v.properties["status"] ?? .null, "observed_at": v.properties["observed_at"] ?? .null])
                }
            }
            var list: [JSONValue] = []
            for try await l in store.stream(layer: "fire_lanes", FeatureQuery(bbox: near, limit: 1000), by: caller) {
                let id = l.id?.description ?? ""
                let width = l.properties["width_m"]?.doubleValue ?? 0, height = l.properties["clear_height_m"]?.doubleValue ?? 0
                let blocked = open[id] ?? []
                list.append(["lane": .string(id), "name": l.properties["name"] ?? .null, "width_m": ProcessInputs.number(width),
                             "clear_height_m": ProcessInputs.number(height),
                             "engine_can_pass": .bool(width >= minimumLaneWidth && height >= minimumLaneWidth && blocked.isEmpty),
                             "open_violations": .array(blocked)])
            }
            lanes = .array(list)
        }
        return ["ladder_street": .bool(ladder), "streets": .array(streets), "fire_lanes": lanes]
    }

    /// Households and people registered at the building's addresses (实有人口), when the caller may read them.
    static func occupants(of building: Feature, store: any FeatureStore, caller: Caller) async throws -> JSONValue {
        guard let code = building.properties["address_code"]?.stringValue, !code.isEmpty else { return .null }
        let households = FilterExpression.like(.property("address_code"), pattern: code + "%", caseInsensitive: false)
        guard try await store.layerDefinition(populationLayer, for: caller) != nil else {
            return try await occupantAggregates(code: code, building: building.id.map { "\($0)" } ?? code, households, store: store, caller: caller)
        }
        var count = 0, residents = 0, elderly = 0, children = 0
        for try await f in store.stream(layer: populationLayer, FeatureQuery(filter: households, limit: 5000), by: caller) {
            count += 1
            residents += Int(f.properties["residents"]?.doubleValue ?? 0)
            elderly += Int(f.properties["elderly"]?.doubleValue ?? 0)
            children += Int(f.properties["children"]?.doubleValue ?? 0)
        }
        return ["address_code": .string(code), "households": .integer(Int64(count)), "residents": .integer(Int64(residents)),
                "elderly": .integer(Int64(elderly)), "children": .integer(Int64(children))]
    }

    /// The layer of residents by address (实有人口, the police's, on the negative list).
    static let populationLayer = "population_by_address"

    /// Who lives in the building, for a caller who may not read the population rows: the
    /// sandbox's k-anonymous aggregates, when the layer's owner granted them to the caller's
    /// department for this process in the catalogue (`sharing.aggregates`); withheld otherwise.
    static func occupantAggregates(code: String, building: String, _ households: FilterExpression, store: any FeatureStore,
                                   caller: Caller) async throws -> JSONValue {
        let measures: [AggregateRequest.Measure] = [.init(.count), .init(.sum, "residents"), .init(.sum, "elderly"), .init(.sum, "children")]
        let sandbox = Sandbox(store: store)
        guard let group = try await sandbox.aggregate(layer: populationLayer, measures, selection: households,
                                                      subject: "the households of building \(building) (address \(code)…)",
                                                      process: "fire-pre-plan", by: caller) else {
            return withheld(populationLayer)
        }
        var out: [String: JSONValue] = ["address_code": .string(code), "aggregated": true,
                                        "method": "the sandbox's aggregates under the owner's grant: fewer than k households suppressed"]
        if let definition = try await store.layerDefinition(populationLayer, for: .admin) { out["k"] = .integer(Int64(sandbox.effectiveK(definition))) }
        guard !group.suppressed, let count = group.count else {
            out["suppressed"] = true
            out["reason"] = group.suppressedBecause.map(JSONValue.string) ?? .null
            return .object(out)
        }
        out["households"] = .integer(Int64(count))
        for (name, measure) in [("residents", "sum(residents)"), ("elderly", "sum(elderly)"), ("children", "sum(children)")] {
            out[name] = group.values[measure].flatMap { $0 }.map { .integer(Int64($0.rounded())) } ?? .null
        }
        return .object(out)
    }
}
