import Flood
import Foundation
import GeoCore
import ProcessRuntime
import TwinStore

/// The scenarios of a store: the features of its `scenarios` layer (no geometry), one per
/// scenario, written through `FeatureStore` so both backends keep them with versions, history and
/// an audit entry per write. The layer is owned by the water authority (the owner of the flood
/// results a run writes); its editors create, run, publish and archive scenarios.
///
/// A scenario's results are a what-if with the flood runs' lifecycle (`ResultLifecycle`): a
/// draft of the owner until published (`publish`), archived by it (`archive`). The layer itself
/// is the owner's (`not-shared`: a draft's record never reaches another department through
/// `/collections/scenarios`); the catalogue lists to every department the published and archived
/// scenarios, to the owner every one. A run's result layers are written `draftSharing` and marked
/// what-if (`LayerConditions`); publishing gives them `publishedSharing`, archiving takes it back,
/// and a comparison of two scenarios (`diff_<a>_<b>`) is shared only while both are published.
public struct ScenarioCatalog: Sendable {
    /// The layer holding the scenarios.
    public static let layerID = "scenarios"
    /// Owner of the layer and of the results (`FloodResultLayers.owner`).
    public static var owner: String { FloodResultLayers.owner }

    /// The sharing of a draft or archived scenario's result layers: the owner's alone.
    public static let draftSharing = SharingPolicy(type: .notShared, method: "api",
                                                   requirements: "不共享：未发布的情景（非实况）结果，仅\(FloodResultLayers.owner)可见。")
    /// The sharing of a published scenario's result layers: every department, as a what-if.
    public static let publishedSharing = SharingPolicy(
        type: .shared, method: "api",
        requirements: "无条件共享（情景，非实况）：\(FloodResultLayers.owner)发布的规划情景结果，不是实况，不作为现状或应急决策依据。")

    public let store: any FeatureStore

    public init(store: any FeatureStore) {
        self.store = store
    }

    /// The `scenarios` layer's definition.
    public static let definition: LayerDefinition = {
        let string: JSONValue = ["type": ["string", "null"]]
        let json: JSONValue = [
            "id": .string(layerID), "title": ["zh": "情景方案", "en": "Scenarios"], "category": "公共专题",
            "owner": .string(FloodResultLayers.owner), "format": "table", "updateFrequency": "per scenario edit or run",
            "sharing": ["type": "not-shared", "method": "api",
                        "requirements": "不共享：情景方案记录由水务和湖泊局管理；已发布的情景经 /scenarios 向各部门列出（情景，非实况）。"],
            "negativeList": false, "geometryType": .null, "storageCRS": "EPSG:4490",
            "schema": [
                "$schema": "https://json-schema.org/draft/2020-12/schema", "type": "object",
                "properties": [
                    "title": ["type": "string", "title": "名称"], "kind": ["type": "string", "title": "类型"],
                    "district": ["type": "string", "title": "行政区划代码"], "base": ["type": "string", "title": "底图时刻"],
                    "parameters": ["type": "object", "title": "模型参数"], "changes": ["type": "array", "title": "沙盒修改"],
                    "status": ["type": "string", "title": "状态"], "job": string, "result": ["type": ["object", "null"]],
                    "error": string, "state": ["type": "string", "enum": ["draft", "published", "archived"], "title": "发布状态"],
                    "published_by": string, "published_at": string,
                ],
            ],
            "sensitive": [],
        ]
        // The literal above is a valid definition; a failure here is a programming error.
        return try! LayerDefinition(json: json)
    }()

    /// Creates the `scenarios` layer when the store lacks it, and brings the definition of one
    /// written before scenarios had a lifecycle (shared with every department) to this one.
    func ensureLayer() async throws {
        guard let stored = try await store.layerDefinition(Self.layerID, for: .admin) else {
            try await store.createLayer(Self.definition)
            return
        }
        if stored.sharing != Self.definition.sharing || stored.schema != Self.definition.schema {
            var definition = stored
            definition.sharing = Self.definition.sharing
            definition.schema = Self.definition.schema
            try await store.createLayer(definition)
        }
    }

    /// Every scenario `caller` may see (`ResultLifecycle.sees`: a draft is its owner's), by id.
    public func list(by caller: Caller) async throws -> [Scenario] {
        guard try await store.layerDefinition(Self.layerID, for: .admin) != nil else { return [] }
        var list: [Scenario] = []
        for try await f in store.stream(layer: Self.layerID, FeatureQuery(limit: 1000), by: .admin) {
            let scenario = try Scenario(feature: f)
            if ResultLifecycle.sees(scenario.state, owner: Self.owner, caller) { list.append(scenario) }
        }
        return list.sorted { $0.id < $1.id }
    }

    /// The scenario `id` as `caller` may see it (a draft is found by its owner alone).
    /// - Throws: `ScenarioError` `.noSuchScenario` naming `field` (the input that named it).
    public func scenario(_ id: String, by caller: Caller, field: String = "scenario") async throws -> Scenario {
        guard Scenario.isValidID(id), try await store.layerDefinition(Self.layerID, for: .admin) != nil,
              let f = try await store.feature(layer: Self.layerID, id: id, by: .admin),
              case let scenario = try Scenario(feature: f), ResultLifecycle.sees(scenario.state, owner: Self.owner, caller) else {
            throw ScenarioError(.noSuchScenario, "no scenario '\(id)' (the scenarios are listed at /scenarios)", field: field)
        }
        return scenario
    }

    // MARK: Lifecycle

    /// Publishes scenario `id`'s results: its result layers (and the comparisons whose scenarios
    /// are all published) are shared with every department as a what-if (`publishedSharing`,
    /// their titles marked 情景（非实况）); the record says who published it and when.
    /// - Throws: `StoreError` `.unauthenticated`/`.forbidden` for a caller other than the owner's
    ///   editors or the admin; `ScenarioError` `.noSuchScenario`, `.scenarioNotFinished` for a
    ///   scenario whose last run did not succeed or that is running.
    @discardableResult
    public func publish(_ id: String, by caller: Caller, field: String = "scenarioId", now: Date = TwinClock.current.now) async throws -> Scenario {
        try ResultLifecycle.requireChange(owner: Self.owner, caller, layer: Self.layerID, "publishing a scenario")
        let scenario = try await self.scenario(id, by: caller, field: field)
        guard scenario.status == .successful, !scenario.resultLayers.isEmpty else {
            throw ScenarioError(.scenarioNotFinished, "scenario '\(id)' is \(scenario.status.rawValue): only the results of a finished run can be published",
                                field: field)
        }
        let published = try await update(id, by: caller, field: field) {
            guard $0.status == .successful else {
                throw ScenarioError(.scenarioNotFinished, "scenario '\(id)' is \($0.status.rawValue): only the results of a finished run can be published", field: field)
            }
            $0.state = .published
            $0.publishedBy = caller.author
            $0.publishedAt = ScenarioInstant.text(now)
        }
        try await shareResults(of: published)
        return published
    }

    /// Archives scenario `id`: the record stays (listed as archived), its result layers and the
    /// comparisons it is part of are the owner's alone again.
    /// - Throws: as `publish` (no state is needed).
    @discardableResult
    public func archive(_ id: String, by caller: Caller, field: String = "scenarioId") async throws -> Scenario {
        try ResultLifecycle.requireChange(owner: Self.owner, caller, layer: Self.layerID, "archiving a scenario")
        _ = try await scenario(id, by: caller, field: field)
        let archived = try await update(id, by: caller, field: field) { $0.state = .archived }
        try await shareResults(of: archived)
        return archived
    }

    /// Gives `scenario`'s result layers, and every what-if layer naming it (comparisons), the
    /// sharing its state says: shared when the scenarios a layer comes from are all published.
    func shareResults(of scenario: Scenario) async throws {
        var states: [String: ResultState] = [scenario.id: scenario.state]
        var layers = Set(scenario.resultLayers)
        for info in try await store.layers(for: .admin) where info.definition.conditions?.scenarios.contains(scenario.id) == true {
            layers.insert(info.definition.id)
        }
        for layer in layers.sorted() {
            guard let definition = try await store.layerDefinition(layer, for: .admin) else { continue }
            let from = definition.conditions?.scenarios ?? [scenario.id]
            for other in from where states[other] == nil {
                states[other] = try await store.feature(layer: Self.layerID, id: other, by: .admin).flatMap { try? Scenario(feature: $0).state } ?? .draft
            }
            let shared = from.allSatisfy { states[$0] == .published }
            try await ResultLifecycle.share([layer], store: store, by: .admin) { _ in shared ? Self.publishedSharing : Self.draftSharing }
        }
    }

    /// The sharing a what-if layer coming from `scenarios` is written with: shared when all of
    /// them are published, else the owner's alone.
    func sharing(from scenarios: [String]) async throws -> SharingPolicy {
        for id in scenarios {
            let state = try await store.feature(layer: Self.layerID, id: id, by: .admin).flatMap { try? Scenario(feature: $0).state }
            if state != .published { return Self.draftSharing }
        }
        return Self.publishedSharing
    }

    /// Brings a store written before scenarios had a lifecycle to it (the server does at start):
    /// the `scenarios` layer becomes its owner's; each record without a state becomes a draft
    /// (an audited write by `caller`), its result layers and the comparisons made of it its
    /// owner's alone and marked what-if. Returns the ids of the scenarios made drafts.
    @discardableResult
    public func settle(by caller: Caller = .admin) async throws -> [String] {
        guard try await store.layerDefinition(Self.layerID, for: .admin) != nil else { return [] }
        try await ensureLayer()
        var legacy: [Scenario] = [], all: [Scenario] = []
        for try await f in store.stream(layer: Self.layerID, FeatureQuery(limit: 10_000), by: .admin) {
            let scenario = try Scenario(feature: f)
            all.append(scenario)
            if f.properties["state"]?.stringValue == nil { legacy.append(scenario) }
        }
        guard !legacy.isEmpty else { return [] }
        for scenario in legacy {
            // Its result layers, and the comparisons written before (diff_<a>_<b>) with any other scenario.
            var layers = scenario.resultLayers.map { ($0, [scenario.id]) }
            for other in all where other.id != scenario.id {
                layers.append((ScenarioComparison.layerID(a: scenario, b: other), [scenario.id, other.id]))
                layers.append((ScenarioComparison.layerID(a: other, b: scenario), [other.id, scenario.id]))
            }
            for (layer, from) in layers {
                guard var definition = try await store.layerDefinition(layer, for: .admin), definition.owner == Self.owner,
                      definition.conditions == nil else { continue }
                let conditions = LayerConditions(kind: .scenario, scenarios: from)
                definition.conditions = conditions
                definition.title = conditions.marked(definition.title)
                definition.sharing = Self.draftSharing
                try await store.createLayer(definition)
            }
            try await update(scenario.id, by: caller) { $0.state = .draft }
        }
        return legacy.map(\.id)
    }

    /// Writes `scenario` as it is (a new version of its record), whatever the record holds now, e.g.
    /// a record copied from another store. A change to a stored record goes through `update`.
    public func save(_ scenario: Scenario, by caller: Caller) async throws {
        try await ensureLayer()
        try await store.upsert(layer: Self.layerID, features: [scenario.feature], by: caller, at: nil)
    }

    /// Changes the stored record of scenario `id` as `change` says, on the record as it is when
    /// the write lands: when another writer (the job's worker, in this process or another; a
    /// second run request) wrote it after it was read here, it is read and changed again, so
    /// neither change is lost (a job id and a status written at the same instant both stay).
    /// - Returns: the record as written.
    /// - Throws: `ScenarioError` `.noSuchScenario` naming `field` when there is no such scenario.
    @discardableResult
    public func update(_ id: String, by caller: Caller, field: String = "scenario",
                       _ change: (inout Scenario) throws -> Void) async throws -> Scenario {
        try await store.update(layer: Self.layerID, reading: [id], by: caller) {
            var scenario = try await self.scenario(id, by: caller, field: field)
            try change(&scenario)
            return (FeatureChanges(upserts: [scenario.feature]), scenario)
        }
    }

    /// Creates a scenario from its document: `id`, optional `title`, `kind` (`flood`, `signal`, `parking`),
    /// `district` (default: the district's root admin division), `base` (RFC 3339, default now),
    /// `parameters` and `changes` (`ScenarioChange`), each checked against the store.
    /// - Throws: `ScenarioError` naming the member at fault (`.scenarioExists` for a taken id);
    ///   `StoreError` when the caller may not write the `scenarios` layer.
    public func create(_ document: JSONValue, by caller: Caller, now: Date = TwinClock.current.now,
                       flood: FloodScenarioProcess = FloodScenarioProcess()) async throws -> Scenario {
        // Rights first: an anonymous caller hears "send a token", not what its document lacks.
        let owner = try await store.layerDefinition(Self.layerID, for: .admin)?.owner ?? Self.owner
        guard AccessPolicy.canWrite(owner: owner, caller) else {
            throw AccessPolicy.refusal(caller, layer: Self.layerID, "creating a scenario writes layer '\(Self.layerID)', which only an editor or admin of \(owner) (or the platform admin) may write")
        }
        guard let o = document.objectValue else {
            throw ScenarioError(.invalidScenario, "a scenario is a JSON object {id, title, kind, district, base, parameters, changes}", field: "$")
        }
        let known: Set<String> = ["id", "title", "kind", "district", "base", "parameters", "changes"]
        if let extra = o.keys.sorted().first(where: { !known.contains($0) }) {
            throw ScenarioError(.invalidScenario, "unknown member (a scenario has \(known.sorted().joined(separator: ", ")))", field: extra)
        }
        guard let id = o["id"]?.stringValue, Scenario.isValidID(id) else {
            throw ScenarioError(.invalidScenario, "must match [a-z][a-z0-9-]{0,24} (it names the result layers)", field: "id")
        }
        let kind = o["kind"]?.stringValue ?? "flood"
        guard Scenario.kinds.contains(kind) else {
            throw ScenarioError(.invalidScenario, "unknown kind '\(kind)' (known: \(Scenario.kinds.joined(separator: ", ")))", field: "kind")
        }
        // Now, to the next millisecond (the precision a base is kept to): every edit before this one is in the base.
        var base = Date(timeIntervalSince1970: (now.timeIntervalSince1970 * 1000).rounded(.up) / 1000)
        if let text = o["base"], !text.isNull {
            guard let t = text.stringValue, let d = Scenario.instant(t) else {
                throw ScenarioError(.invalidScenario, "must be an RFC 3339 date-time such as 2026-07-01T08:00:00Z", field: "base")
            }
            guard d <= now else { throw ScenarioError(.invalidScenario, "the base map instant \(t) is in the future", field: "base") }
            base = d
        }
        let district = try await district(o["district"], by: caller)
        let parameters = o["parameters"]?.objectValue ?? [:]
        if o["parameters"] != nil, o["parameters"]?.objectValue == nil, o["parameters"]?.isNull != true {
            throw ScenarioError(.invalidScenario, "must be an object", field: "parameters")
        }
        var scenario = Scenario(id: id, title: o["title"]?.stringValue, kind: kind, district: district, base: base, parameters: parameters)
        if kind == "flood" {
            _ = try ScenarioFloodModel(scenario, flood: flood)
            if let start = parameters["start"], start.stringValue.flatMap(Scenario.instant) == nil {
                throw ScenarioError(.invalidScenario, "must be an RFC 3339 date-time", field: "parameters.start")
            }
        } else {
            try TrafficScenarioRun.validate(scenario)
        }
        guard o["changes"] == nil || o["changes"]?.isNull == true || o["changes"]?.arrayValue != nil else {
            throw ScenarioError(.invalidScenario, "must be an array of changes", field: "changes")
        }
        scenario.changes = try (o["changes"]?.arrayValue ?? []).enumerated().map { try ScenarioChange(json: $1, field: "changes[\($0)]") }
        for (k, change) in scenario.changes.enumerated() {
            let changeable = TrafficScenarioRun.changeableLayers(kind)
            guard changeable.contains(change.layer) else {
                throw ScenarioError(.invalidScenario, "a \(kind) scenario changes only the layers its run reads (\(changeable.joined(separator: ", ")))",
                                    field: "changes[\(k)].layer")
            }
            guard try await store.layerDefinition(change.layer, for: caller) != nil else {
                throw ScenarioError(.invalidScenario, "no layer '\(change.layer)' the caller may read", field: "changes[\(k)].layer")
            }
        }
        try await ensureLayer()
        if try await store.feature(layer: Self.layerID, id: id, by: .admin) != nil {
            throw ScenarioError(.scenarioExists, "a scenario '\(id)' exists already", field: "id")
        }
        try await store.insert(layer: Self.layerID, features: [scenario.feature], by: caller, at: nil)
        return scenario
    }

    /// The `district` member: an `admin_divisions` id, or the root division (no parent) when absent.
    func district(_ value: JSONValue?, by caller: Caller) async throws -> String {
        let hasDivisions = try await store.layerDefinition("admin_divisions", for: caller) != nil
        if let value, !value.isNull {
            guard let code = value.stringValue, !code.isEmpty else {
                throw ScenarioError(.invalidScenario, "must be the code of an admin division", field: "district")
            }
            if hasDivisions, try await store.feature(layer: "admin_divisions", id: code, by: caller) == nil {
                throw ScenarioError(.invalidScenario, "no admin division '\(code)' in this store", field: "district")
            }
            return code
        }
        if hasDivisions {
            for try await f in store.stream(layer: "admin_divisions", FeatureQuery(limit: 1000), by: caller)
            where f.properties["parent_code"]?.isNull ?? true {
                return f.id.map { "\($0)" } ?? ""
            }
        }
        throw ScenarioError(.invalidScenario, "the store has no admin division without a parent: name the district", field: "district")
    }
}

/// A flood scenario's model: the `FloodScenario` its parameters name, with the scenario's id
/// and result-layer stem, and the run options they set.
struct ScenarioFloodModel {
    var flood: FloodScenario
    var durationScale: Double
    var demCoarsening: Int
    /// Seconds between depth snapshots.
    var outputInterval: Double

    /// - Throws: `ScenarioError` `.invalidScenario` naming `parameters.<member>`.
    init(_ scenario: Scenario, flood process: FloodScenarioProcess) throws {
        let p = scenario.parameters
        let known: Set<String> = ["model", "durationScale", "demCoarsening", "outputIntervalMinutes", "start", "dem"]
        if let extra = p.keys.sorted().first(where: { !known.contains($0) }) {
            throw ScenarioError(.invalidScenario, "unknown parameter (a flood scenario has \(known.sorted().joined(separator: ", ")))", field: "parameters.\(extra)")
        }
        guard let model = p["model"] else {
            throw ScenarioError(.invalidScenario, "a flood scenario needs its storm model: a file name of Models/scenarios (p50-waterlogging) or a scenario document",
                                field: "parameters.model")
        }
        do {
            flood = try process.scenario(["scenario": model])
        } catch let e as ProcessInputError {
            throw ScenarioError(.invalidScenario, e.reason, field: "parameters.model")
        }
        flood.id = scenario.id
        flood.title = scenario.title
        flood.resultStem = scenario.layerStem
        func number(_ name: String, _ fallback: Double, _ range: ClosedRange<Double>) throws -> Double {
            guard let v = p[name], !v.isNull else { return fallback }
            guard let d = v.doubleValue, range.contains(d) else {
                throw ScenarioError(.invalidScenario, "must be a number in \(range.lowerBound)…\(range.upperBound)", field: "parameters.\(name)")
            }
            return d
        }
        durationScale = try number("durationScale", 1, 0.001...1)
        let coarsening = try number("demCoarsening", 1, 1...10)
        guard coarsening == coarsening.rounded() else {
            throw ScenarioError(.invalidScenario, "must be an integer 1–10", field: "parameters.demCoarsening")
        }
        demCoarsening = Int(coarsening)
        outputInterval = try number("outputIntervalMinutes", 5, 0.5...60) * 60
    }
}
