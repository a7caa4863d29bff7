import Foundation
import GeoCore
import NetworkAnalysis
import ProcessRuntime
import TwinStore

/// The state of the city an analysis answers against (issue 77): at an instant `at`, the flood
/// run the water authority published as current (the maximum depth its `_roads` layer measured
/// along every road), the road closures a duty officer has in force (`road_closures`, each valid
/// from `valid_from` until `valid_to`), and the resources out of service by their own status
/// (a hydrant 待维修, a fire water source 不可用). One value, read once per request, that every
/// analysis takes (`roads(on:vehicle:)` turns it into the closed and slowed road pieces of a
/// vehicle class) and names in its answer (`json`), so no number is read without knowing which
/// state it came from.
///
/// Emergency reads the run through its records and layers (`flood_runs`, `<stem>_roads`), the
/// same data the map reads, not through `Flood`'s code, which sits above it (docs/ARCHITECTURE.md).
public struct CityConditions: Sendable {
    /// Which state a request asks for (process input `conditions`).
    public enum Selection: Sendable, Hashable {
        /// The published current flood run and the closures in force at `at` (the default).
        case current
        /// The dry city: no flood, no closure, every resource as if in service.
        case none
        /// A named flood run (published, archived, or the caller's own draft): a what-if unless it is the current one.
        case run(String)
    }

    /// The flood run the conditions hold.
    public struct FloodState: Sendable, Hashable {
        public var id: String
        public var scenario: String
        public var title: String
        public var stem: String
        public var state: String
        public var current: Bool
        public var finishedAt: String?
        public var publishedAt: String?
        /// Per road id: the maximum depth (m) the run measured along it (its `_roads` layer).
        public var roadDepth: [String: Double]
        /// Per road id: its name (from the run's `_roads` layer).
        public var roadNames: [String: String]

        public var roadsLayer: String { stem + "_roads" }
        public var buildingsLayer: String { stem + "_buildings" }
        public var depthLayer: String { stem + "_depth" }
    }

    /// A road closure in force: a feature of `road_closures`.
    public struct Closure: Sendable, Hashable {
        public var id: String
        public var roadID: String
        public var road: String?
        public var reason: String
        public var validFrom: String
        public var validTo: String?
    }

    /// The catalogue layer of the closures a duty officer adds and lifts.
    public static let closuresLayer = "road_closures"
    /// The flood runs' records (`Flood`'s `FloodRunCatalog.layerID`).
    public static let runsLayer = "flood_runs"
    /// Statuses that put a resource out of service (hydrants 待维修, fire water sources 不可用 …).
    public static let outOfServiceStatuses: Set<String> = ["待维修", "不可用", "停用", "维修中", "损坏", "已出动"]

    public var selection: Selection
    /// The instant the state holds at.
    public var at: Date
    public var flood: FloodState?
    /// Why a flood run that exists is not applied (its roads layer not readable by the caller), nil otherwise.
    public var floodNotApplied: String?
    public var closures: [Closure]

    public init(selection: Selection, at: Date, flood: FloodState? = nil, floodNotApplied: String? = nil, closures: [Closure] = []) {
        self.selection = selection
        self.at = at
        self.flood = flood
        self.floodNotApplied = floodNotApplied
        self.closures = closures
    }

    /// The dry city at `at`.
    public static func none(at: Date = TwinClock.current.now) -> CityConditions { CityConditions(selection: .none, at: at) }

    /// Whether the conditions change nothing (no flood, no closure applied).
    public var isDry: Bool { flood == nil && closures.isEmpty }

    /// Reads the state `selection` names at `at` (default now) from `store` as `caller` sees it:
    /// the run's records and the closures as recorded at `at` (now for a later instant), the
    /// closures whose validity holds at `at`.
    /// - Throws: `ScenarioError` naming `conditions` for a run that does not exist or has no result.
    public static func load(_ selection: Selection, at: Date? = nil, store: any FeatureStore, by caller: Caller) async throws -> CityConditions {
        let now = TwinClock.current.now
        let at = at ?? now
        var conditions = CityConditions(selection: selection, at: at)
        guard selection != .none else { return conditions }
        let asOf: Date? = at < now ? at : nil
        // The flood run.
        if try await store.layerDefinition(runsLayer, for: caller) != nil {
            var record: Feature?
            for try await f in store.stream(layer: runsLayer, FeatureQuery(asOf: asOf, limit: 10_000), by: caller) {
                let p = f.properties
                switch selection {
                case .current:
                    if p["current"]?.boolValue == true, p["state"]?.stringValue == "published" { record = f }
                case .run(let id):
                    if f.id.map({ "\($0)" }) == id { record = f }
                case .none: break
                }
                if record != nil { break }
            }
            if case .run(let id) = selection {
                guard let record, record.properties["status"]?.stringValue == "successful" else {
                    throw ScenarioError(.noSuchScenario, "no finished flood run '\(id)' (the runs are listed at /flood-runs)", field: "conditions")
                }
                // A draft is its owner's: the store's sharing of the run's layers decides below.
                _ = record
            }
            if let record, record.properties["status"]?.stringValue == "successful" {
                let p = record.properties
                var flood = FloodState(id: record.id.map { "\($0)" } ?? "", scenario: p["scenario"]?.stringValue ?? "",
                                       title: p["title"]?.stringValue ?? "", stem: p["stem"]?.stringValue ?? "",
                                       state: p["state"]?.stringValue ?? "", current: p["current"]?.boolValue ?? false,
                                       finishedAt: p["finished_at"]?.stringValue, publishedAt: p["published_at"]?.stringValue,
                                       roadDepth: [:], roadNames: [:])
                if try await store.layerDefinition(flood.roadsLayer, for: caller) != nil {
                    let query = FeatureQuery(properties: ["road_id", "name", "max_depth_m"], limit: 100_000)
                    for try await f in store.stream(layer: flood.roadsLayer, query, by: caller) {
                        let id = f.properties["road_id"]?.stringValue ?? f.id.map { "\($0)" } ?? ""
                        flood.roadDepth[id] = f.properties["max_depth_m"]?.doubleValue ?? 0
                        flood.roadNames[id] = f.properties["name"]?.stringValue
                    }
                    conditions.flood = flood
                } else if case .run(let id) = selection {
                    throw ScenarioError(.noSuchScenario, "flood run '\(id)': its roads layer is not shared with the caller", field: "conditions")
                } else {
                    conditions.floodNotApplied = "flood run '\(flood.id)' is published but its roads layer \(flood.roadsLayer) is not shared with the caller"
                }
            }
        } else if case .run(let id) = selection {
            throw ScenarioError(.noSuchScenario, "no flood run '\(id)' (the runs are listed at /flood-runs)", field: "conditions")
        } else if try await store.layerDefinition(runsLayer, for: .admin) != nil {
            conditions.floodNotApplied = "the caller may not read the flood runs (\(runsLayer)): no published flood is applied"
        }
        // The closures in force at `at`.
        if try await store.layerDefinition(closuresLayer, for: caller) != nil {
            var closures: [Closure] = []
            for try await f in store.stream(layer: closuresLayer, FeatureQuery(asOf: asOf, limit: 10_000), by: caller) {
                let p = f.properties
                guard let road = p["road_id"]?.stringValue, let fromText = p["valid_from"]?.stringValue,
                      let from = ScenarioInstant.instant(fromText), from <= at else { continue }
                let toText = p["valid_to"]?.stringValue
                if let toText, let to = ScenarioInstant.instant(toText), to <= at { continue }
                closures.append(Closure(id: f.id.map { "\($0)" } ?? "", roadID: road, road: nil, reason: p["reason"]?.stringValue ?? "",
                                        validFrom: fromText, validTo: toText))
            }
            // The closed roads' names, read as the caller (the roads layer is open).
            if !closures.isEmpty, try await store.layerDefinition("roads", for: caller) != nil {
                for k in closures.indices {
                    closures[k].road = try await store.feature(layer: "roads", id: closures[k].roadID, by: caller)?.properties["name"]?.stringValue
                }
            }
            conditions.closures = closures.sorted { $0.id < $1.id }
        }
        return conditions
    }

    /// Why `resource` is out of service under these conditions (its status), nil when in service
    /// or the conditions are `none`.
    public func outOfService(_ resource: EmergencyResource) -> String? {
        guard selection != .none, let status = resource.status, Self.outOfServiceStatuses.contains(status) else { return nil }
        return "status \(status)"
    }

    // MARK: The roads a vehicle class may use

    /// A road the conditions close to a vehicle class.
    public struct ClosedRoad: Sendable, Hashable {
        public var roadID: String
        public var name: String?
        /// `flooded` (deeper than the class's wading depth) or `closed` (a closure in force).
        public var reason: String
        public var depth: Double?
        public var closure: String?

        /// Why, in words: "潘塘街 flooded 0.62 m (消防车 closed above 0.50 m)", "问津路 closed (RC-1: 塌陷)".
        public func why(_ vehicle: VehicleClass) -> String {
            let road = name.map { "\($0) (\(roadID))" } ?? roadID
            if reason == "closed" { return "\(road) closed by \(closure ?? "a closure")" }
            return "\(road) flooded \(Self.metres(depth ?? 0)) m (\(vehicle.title) closed above \(Self.metres(vehicle.wadingDepthMetres)) m)"
        }

        static func metres(_ d: Double) -> String { String(format: "%.2f", d) }
    }

    /// A road the water slows but leaves open.
    public struct SlowedRoad: Sendable, Hashable {
        public var roadID: String
        public var name: String?
        public var depth: Double
        public var speedKmh: Double
        public var factor: Double
    }

    /// The roads of one graph under the conditions for one vehicle class.
    public struct Roads: Sendable {
        public var vehicle: VehicleClass
        /// The closed and slowed pieces of the graph.
        public var closures: RoadClosures
        public var closed: [ClosedRoad]
        public var slowed: [SlowedRoad]
        /// Per closed piece: the road closed.
        var closedByPiece: [Int: Int]

        /// The closed road that closes piece `piece`, if any.
        public func closedRoad(piece: Int) -> ClosedRoad? { closedByPiece[piece].map { closed[$0] } }
    }

    /// The pieces of `roads` these conditions close or slow for `vehicle`: every piece of a road
    /// with a closure in force is closed; every piece of a road the run measured deeper than the
    /// class's wading depth is closed, a shallower one with water on it is slowed by the class's
    /// depth–speed rule (`VehicleClass.factor`), at the road's maximum depth along it.
    public func roads(on roads: StoreRoadGraph, vehicle: VehicleClass) -> Roads {
        let network = roads.graph.network
        var piecesOfLine: [String: [Int]] = [:]
        for (p, piece) in network.pieces.enumerated() {
            if let id = network.lines[Int(piece.line)].id { piecesOfLine[id, default: []].append(p) }
        }
        var closedPieces = Set<Int>(), slowedPieces: [Int: Double] = [:]
        var closed: [ClosedRoad] = [], slowed: [SlowedRoad] = [], byPiece: [Int: Int] = [:]
        for c in closures where piecesOfLine[c.roadID] != nil && !closed.contains(where: { $0.roadID == c.roadID }) {
            closed.append(ClosedRoad(roadID: c.roadID, name: c.road ?? flood?.roadNames[c.roadID], reason: "closed",
                                     depth: flood?.roadDepth[c.roadID], closure: c.id))
            for p in piecesOfLine[c.roadID] ?? [] { closedPieces.insert(p); byPiece[p] = closed.count - 1 }
        }
        if let flood {
            for (road, depth) in flood.roadDepth.sorted(by: { $0.key < $1.key }) where depth > 0 {
                guard let pieces = piecesOfLine[road], !closed.contains(where: { $0.roadID == road }) else { continue }
                let speed = network.lines[Int(network.pieces[pieces[0]].line)].speedKmh
                let kmh = roads.graph.profile.fixedSpeedKmh ?? speed
                guard let factor = vehicle.factor(road: kmh, depth: depth) else {
                    closed.append(ClosedRoad(roadID: road, name: flood.roadNames[road], reason: "flooded", depth: depth, closure: nil))
                    for p in pieces { closedPieces.insert(p); byPiece[p] = closed.count - 1 }
                    continue
                }
                guard factor > 1 + 1e-12 else { continue }
                slowed.append(SlowedRoad(roadID: road, name: flood.roadNames[road], depth: depth, speedKmh: kmh / factor, factor: factor))
                for p in pieces { slowedPieces[p] = factor }
            }
        }
        return Roads(vehicle: vehicle, closures: RoadClosures(pieces: closedPieces, slowed: slowedPieces),
                     closed: closed, slowed: slowed, closedByPiece: byPiece)
    }

    // MARK: As answers name it

    /// The `conditions` object every answer computed against these conditions carries.
    public func json(_ roads: Roads? = nil) -> JSONValue {
        var o: [String: JSONValue] = [:]
        switch selection {
        case .current: o["state"] = "current"
        case .none: o["state"] = "none"
        case .run: o["state"] = flood?.current == true ? "current" : "what-if"
        }
        o["at"] = .string(ScenarioInstant.text(at))
        o["flood_run"] = flood.map { f in
            ["id": .string(f.id), "scenario": .string(f.scenario), "title": .string(f.title), "state": .string(f.state),
             "current": .bool(f.current), "finished_at": f.finishedAt.map(JSONValue.string) ?? .null,
             "published_at": f.publishedAt.map(JSONValue.string) ?? .null, "roads_layer": .string(f.roadsLayer),
             "time_step": "maximum"]
        } ?? .null
        if let floodNotApplied { o["flood_not_applied"] = .string(floodNotApplied) }
        o["closures"] = .array(closures.map { c in
            ["id": .string(c.id), "road_id": .string(c.roadID), "road": c.road.map(JSONValue.string) ?? .null, "reason": .string(c.reason),
             "valid_from": .string(c.validFrom), "valid_to": c.validTo.map(JSONValue.string) ?? .null]
        })
        if let roads {
            o["vehicle"] = roads.vehicle.rules
            o["roads_closed"] = .array(roads.closed.map { r in
                ["road_id": .string(r.roadID), "road": r.name.map(JSONValue.string) ?? .null, "reason": .string(r.reason),
                 "depth_m": r.depth.map { .number(($0 * 1000).rounded() / 1000) } ?? .null,
                 "closure": r.closure.map(JSONValue.string) ?? .null]
            })
            o["roads_slowed"] = .array(roads.slowed.map { r in
                ["road_id": .string(r.roadID), "road": r.name.map(JSONValue.string) ?? .null, "depth_m": .number((r.depth * 1000).rounded() / 1000),
                 "speed_kmh": .number((r.speedKmh * 100).rounded() / 100), "factor": .number((r.factor * 1000).rounded() / 1000)]
            })
        }
        return .object(o)
    }
}

extension CityConditions.Selection {
    /// Reads the `conditions` input: `current` (default), `none`, or a flood run id.
    /// - Throws: `ProcessInputError` naming `conditions` for a scenario id (what-if scenarios
    ///   answer through their own runs, `POST /scenarios/{id}/runs`) or any other text.
    public static func parse(_ text: String?) throws -> Self {
        guard let text, text != "current" else { return .current }
        if text == "none" { return .none }
        if text.range(of: "^[a-z0-9][a-z0-9-]{0,40}-[0-9]{1,6}$", options: .regularExpression) != nil { return .run(text) }
        throw ProcessInputError("conditions", """
            must be 'current', 'none' or a flood run id (GET /flood-runs); a what-if scenario is analysed through its own \
            runs (POST /scenarios/{id}/runs), not as conditions, got '\(text)'
            """)
    }
}
