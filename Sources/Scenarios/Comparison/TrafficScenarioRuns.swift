import CityModel
import Emergency
import Flood
import Foundation
import GeoCore
import NetworkAnalysis
import Parking
import ParkingSim
import ProcessRuntime
import SignalSim
import Signals
import TwinStore

/// What a scenario of kind `signal` or `parking` runs and writes: one result layer of per-object
/// figures (`scenario_<id>_intersections`, `scenario_<id>_parking`) that `ScenarioComparison`
/// compares object by object, as it compares a flood run's `_roads`.
///
/// Both read the map as of the scenario's base with its sandbox changes applied in memory only.
enum TrafficScenarioRun {
    /// The layers a scenario of `kind` may change in its sandbox.
    static func changeableLayers(_ kind: String) -> [String] {
        switch kind {
        case "signal": [SignalPlanLayer.layer, SignalizedIntersection.layer]
        case "parking": [StoreParkingLot.layer]
        default: FloodDistrictLayers.layerIDs
        }
    }

    /// The result layer suffix of `kind` (the flood kinds have `FloodResultLayers.suffixes`).
    static func suffix(_ kind: String) -> String? {
        switch kind {
        case "signal": "intersections"
        case "parking": "parking"
        default: nil
        }
    }

    /// Every result suffix of the non-flood kinds.
    static let suffixes = ["intersections", "parking"]

    /// Checks a scenario's `parameters` for its kind.
    /// - Throws: `ScenarioError` `.invalidScenario` naming `parameters.<member>`.
    static func validate(_ scenario: Scenario) throws {
        switch scenario.kind {
        case "signal": _ = try SignalParameters(scenario)
        case "parking": _ = try ParkingParameters(scenario)
        default: break
        }
    }

    /// Reads a scenario's parameters as process inputs, an input error naming `parameters.<input>`.
    static func parameters<T>(_ scenario: Scenario, known: Set<String>, _ read: ([String: JSONValue]) throws -> T) throws -> T {
        let p = scenario.parameters
        if let extra = p.keys.sorted().first(where: { !known.contains($0) }) {
            throw ScenarioError(.invalidScenario, "unknown parameter (a \(scenario.kind) scenario has \(known.sorted().joined(separator: ", ")))",
                                field: "parameters.\(extra)")
        }
        do { return try read(p) } catch let e as ProcessInputError {
            throw ScenarioError(.invalidScenario, e.reason, field: "parameters.\(e.input)")
        }
    }

    /// A layer as of the scenario's base with its sandbox changes of that layer applied.
    /// - Throws: `ScenarioError` `.missingLayer` when the caller may not read the layer.
    static func features(_ layer: String, of scenario: Scenario, store: any FeatureStore, by caller: Caller) async throws -> [Feature] {
        guard try await store.layerDefinition(layer, for: caller) != nil else {
            throw ScenarioError(.missingLayer, "the \(scenario.kind) scenario reads layer '\(layer)', which is missing or not readable by the caller", field: "scenario")
        }
        var list: [Feature] = []
        for try await f in store.stream(layer: layer, FeatureQuery(asOf: scenario.base, limit: 5000), by: caller) {
            list.append(f)
        }
        return ScenarioChange.apply(scenario.changes.filter { $0.layer == layer }, to: list)
    }

    /// Writes `features` as the result layer `id` of `scenario` in one transaction: a what-if
    /// (`Scenario.conditions`, the title marked), a draft of the owner (`ScenarioCatalog.draftSharing`).
    static func write(_ features: [Feature], layer id: String, of scenario: Scenario, title: (zh: String, en: String),
                      properties: [String: JSONValue], store: any FeatureStore, by caller: Caller) async throws {
        let conditions = scenario.conditions
        let marked = conditions.marked(LayerTitle(zh: title.zh, en: title.en))
        let draft = ScenarioCatalog.draftSharing
        let definition = try LayerDefinition(json: [
            "id": .string(id), "title": ["zh": .string(marked.zh), "en": .string(marked.en)],
            "category": "公共专题", "owner": .string(ScenarioCatalog.owner), "format": "vector", "updateFrequency": "per scenario run",
            "sharing": ["type": .string(draft.type.rawValue), "method": .string(draft.method), "requirements": .string(draft.requirements)],
            "negativeList": false, "geometryType": "Point", "storageCRS": "EPSG:4490",
            "schema": ["$schema": "https://json-schema.org/draft/2020-12/schema", "type": "object", "properties": .object(properties)],
            "sensitive": [], "conditions": conditions.json,
        ])
        try await store.createLayer(definition)
        try await store.replace(layer: id, with: features, by: caller, at: nil)
    }

    static func round(_ v: Double?, _ scale: Double = 10) -> JSONValue {
        guard let v, v.isFinite else { return .null }
        return .number((v * scale).rounded() / scale)
    }
}

// MARK: Signal scenarios

/// A signal scenario's parameters: `period` (HH:MM-HH:MM, default 07:00-09:00), whose busiest
/// hour of `traffic_counts` gives each intersection's flows, and whose start picks the plan in
/// force (`SignalPlanLayer.running(at:among:)`).
struct SignalParameters {
    static let known: Set<String> = ["period"]
    var period: (start: Int, end: Int)

    init(_ scenario: Scenario) throws {
        period = try TrafficScenarioRun.parameters(scenario, known: Self.known) { p in
            try SignalProcessInputs.period(p) ?? (7 * 60, 9 * 60)
        }
    }
}

extension TrafficScenarioRun {
    /// A signal scenario: every signalised intersection with a plan, its plan in force at the
    /// period's start (the sandbox's re-timed plans included) evaluated against the flows of the
    /// period's busiest counted hour: HCM 2000 control delay and Webster's delay per vehicle,
    /// degree of saturation and LOS (`SignalTiming.evaluate`). Writes `<stem>_intersections`.
    /// - Returns: the summary (flow-weighted mean delay, vehicle-hours of delay per hour).
    static func runSignal(_ scenario: Scenario, store: any FeatureStore, by caller: Caller,
                          progress: (Double) async throws -> Void) async throws -> (layers: [String], summary: JSONValue) {
        let parameters = try SignalParameters(scenario)
        let period = parameters.period
        let settings = SignalTimingSettings()
        return try await SignalProcessInputs.mapped {
            let intersections = try await features(SignalizedIntersection.layer, of: scenario, store: store, by: caller)
                .map(SignalizedIntersection.init).sorted { $0.id < $1.id }
            var plans: [String: [SignalPlanLayer.Stored]] = [:]
            for f in try await features(SignalPlanLayer.layer, of: scenario, store: store, by: caller) {
                guard let id = f.properties["intersection"]?.stringValue else { continue }
                let (plan, start, end) = try SignalPlanLayer.plan(of: f)
                plans[id, default: []].append((f, plan, start, end))
            }
            var out: [Feature] = []
            var flowSum = 0.0, delayFlow = 0.0
            for (k, intersection) in intersections.enumerated() {
                try await progress(Double(k) / Double(max(1, intersections.count)))
                guard let running = SignalPlanLayer.running(at: period.start, among: plans[intersection.id] ?? []) else { continue }
                // Flows of the period's busiest counted hour; without counts in it, the layer's peak-hour turning counts.
                let read = try await intersection.countsIfReadable(from: store, by: caller)
                let (counts, minutes) = (read.intervals, read.minutes)
                var flows = intersection.demand.flowsByApproach
                var source = "turning_counts"
                if counts.contains(where: { $0.start >= period.start && $0.start < period.end }) {
                    flows = try SignalPlanning.plans(for: intersection, counts: counts, intervalMinutes: minutes, period: period,
                                                     settings: settings)[0].period.designFlows
                    source = SignalizedIntersection.countsLayer
                }
                let timing = try SignalTiming.evaluate(running.plan, for: intersection.demand.with(flows: flows), settings: settings)
                let served = timing.approaches.filter { $0.flow > 0 }
                let flow = served.reduce(0) { $0 + $1.flow }
                let webster: Double? = served.allSatisfy { $0.websterDelay != nil } && flow > 0
                    ? served.reduce(0) { $0 + ($1.websterDelay ?? 0) * $1.flow } / flow : nil
                let delay = timing.meanControlDelay
                flowSum += flow
                delayFlow += delay * flow
                out.append(Feature(id: .string(intersection.id), geometry: .point(Point(intersection.position)), properties: [
                    "name": .string(intersection.name ?? ""), "plan_id": .string(running.feature.id?.description ?? ""),
                    "cycle_s": round(timing.cycle), "flow_veh_h": round(flow, 1), "delay_s": round(delay), "webster_delay_s": round(webster),
                    "max_degree_of_saturation": round(served.map(\.degreeOfSaturation).max(), 1000),
                    "los": .string((served.map(\.levelOfService).max() ?? .a).rawValue),
                    "vehicle_hours": round(delay * flow / 3600, 100), "flows_from": .string(source),
                    "counts_note": read.leftOutNote.map(JSONValue.string) ?? .null,
                ]))
            }
            guard !out.isEmpty else {
                throw ScenarioError(.invalidDistrict, "no signalised intersection has a plan in \(SignalPlanLayer.layer) as of the scenario's base", field: "scenario")
            }
            let layer = scenario.layerStem + "_intersections"
            let number: JSONValue = ["type": ["number", "null"]]
            try await write(out, layer: layer, of: scenario, title: (zh: "情景路口延误：\(scenario.title)", en: "Scenario \(scenario.id): delay per intersection"),
                            properties: ["name": ["type": ["string", "null"], "title": "名称"], "plan_id": ["type": "string", "title": "配时方案"],
                                         "cycle_s": number, "flow_veh_h": number, "delay_s": ["type": ["number", "null"], "title": "控制延误(s/veh, HCM 2000)"],
                                         "webster_delay_s": ["type": ["number", "null"], "title": "Webster 延误(s/veh)"], "max_degree_of_saturation": number,
                                         "los": ["type": "string", "title": "服务水平"], "vehicle_hours": number, "flows_from": ["type": "string"],
                                         "counts_note": ["type": ["string", "null"], "title": "流量缺测说明 (intervals or days of counts left out)"]],
                            store: store, by: caller)
            let summary: JSONValue = [
                "kind": "signal", "period": .string("\(TimeOfDayPeriod.clock(period.start))-\(TimeOfDayPeriod.clock(period.end))"),
                "intersections": .integer(Int64(out.count)), "meanDelaySeconds": round(flowSum > 0 ? delayFlow / flowSum : 0, 100),
                "vehicleHoursOfDelay": round(delayFlow / 3600, 100), "layers": [.string(layer)],
            ]
            return ([layer], summary)
        }
    }
}

// MARK: Parking scenarios

/// A parking scenario's parameters: `guidance` (`unguided` or `guided`: how the day's drivers find a
/// lot), `drivers` (default: sized from the base map's lots, so closing a lot keeps the demand)
/// and `seed` (same seed, same trips).
struct ParkingParameters {
    static let known: Set<String> = ["guidance", "drivers", "seed"]
    var strategy: ParkingStrategy
    var drivers: Int?
    var seed: UInt64

    init(_ scenario: Scenario) throws {
        (strategy, drivers, seed) = try TrafficScenarioRun.parameters(scenario, known: Self.known) { p in
            let text = try ProcessInputs.string(p, "guidance") ?? "unguided"
            guard let strategy = ParkingStrategy(rawValue: text) else {
                throw ProcessInputError("guidance", "must be \"unguided\" or \"guided\" (got '\(text)')")
            }
            let drivers = ProcessInputs.unwrap(p["drivers"]) == nil ? nil : try ProcessInputs.integer(p, "drivers", default: 0, in: 1...200_000)
            return (strategy, drivers, UInt64(try ProcessInputs.integer(p, "seed", default: 17, in: 0...Int(Int32.max))))
        }
    }
}

extension TrafficScenarioRun {
    /// A parking scenario: a day of drivers (`ParkingSimulation`) on the district's road graph with
    /// the scenario's lots (a lot closed, a price changed in the sandbox) and its guidance. Writes
    /// `<stem>_parking`: per lot the drivers parked and their mean search time.
    static func runParking(_ scenario: Scenario, store: any FeatureStore, by caller: Caller,
                           progress: (Double) async throws -> Void) async throws -> (layers: [String], summary: JSONValue) {
        let parameters = try ParkingParameters(scenario)
        return try await ProcessInputs.mapped {
            let roads = try await EmergencyRoadGraphs.shared.graph(for: store, profile: .driving, by: caller)
            let destinations = try await ParkingSimulationProcess.destinations(from: store, by: caller)
            var drivers = parameters.drivers
            if drivers == nil, scenario.changes.contains(where: { $0.layer == StoreParkingLot.layer }) {
                // The demand of the base map's lots: a scenario closing a lot meets the same drivers.
                let base = try await StoreParkingLot.load(from: store, by: caller, asOf: scenario.base)
                drivers = try DistrictParking(lots: base, roads: roads).scenario(destinations: destinations, drivers: nil, seed: parameters.seed).trips.count
            }
            try await progress(0.2)
            let lots = try await StoreParkingLot.load(from: store, by: caller, asOf: scenario.base, changes: scenario.changes)
            let day = try DistrictParking(lots: lots, roads: roads).scenario(destinations: destinations, drivers: drivers, seed: parameters.seed)
            try await progress(0.4)
            let result: ParkingSimulationSummary
            do { result = try ParkingSimulation.run(day.network, trips: day.trips, strategy: parameters.strategy) } catch let e as ParkingError {
                throw ScenarioError(.invalidArgument, e.reason, field: e.field)
            }
            let features = zip(day.lots, result.lots).map { lot, d in
                Feature(id: .string(lot.id), geometry: .point(Point(lot.entrance)), properties: [
                    "name": .string(lot.name ?? ""), "capacity": .integer(Int64(lot.capacity)), "price_per_hour": round(lot.pricePerHour, 100),
                    "parked": .integer(Int64(d.parked)), "mean_search_s": round(d.meanSearchSeconds),
                ])
            }
            let layer = scenario.layerStem + "_parking"
            let number: JSONValue = ["type": ["number", "null"]]
            try await write(features, layer: layer, of: scenario, title: (zh: "情景停车寻位：\(scenario.title)", en: "Scenario \(scenario.id): parking search time per lot"),
                            properties: ["name": ["type": ["string", "null"], "title": "名称"], "capacity": ["type": "integer", "title": "泊位"],
                                         "price_per_hour": number, "parked": ["type": "integer", "title": "停放车次"],
                                         "mean_search_s": ["type": ["number", "null"], "title": "平均寻位时间(s)"]],
                            store: store, by: caller)
            let summary: JSONValue = [
                "kind": "parking", "guidance": .string(parameters.strategy.rawValue), "lots": .integer(Int64(features.count)),
                "drivers": .integer(Int64(result.drivers)), "parked": .integer(Int64(result.parked)), "rejected": .integer(Int64(result.rejected)),
                "meanSearchSeconds": round(result.meanSearchSeconds, 100), "extraVehicleKm": round(result.extraVehicleKm, 100),
                "meanWalkMetres": round(result.meanWalkMetres), "layers": [.string(layer)],
            ]
            return ([layer], summary)
        }
    }
}
