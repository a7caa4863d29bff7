import Foundation
import GeoCore
import ProcessRuntime
import TwinStore

/// One run of a flood scenario (issue 58 §3): its own result set, never another run's. Its layers
/// are `<stem>_depth|roads|buildings|cutoff|depth_steps` with `stem` = `flood_<scenario>_<n>`, its
/// record says what it was given, who ran it and when, and where it is in its life:
///
/// - **draft**: just run; its layers are the water authority's alone (sharing `not-shared`), so an
///   absurd or quick-look run is seen by no other department;
/// - **published**: the owner vouches for it; its layers are shared as their templates say, and
///   one published run is the **current** one that the map and the hazard overlay answer from;
/// - **archived**: kept for the record, its layers the owner's alone again.
///
/// Deleting a run drops its layers and rasters and its record. Every change is a write of the
/// record (a feature of `flood_runs`, versioned and audited like any feature). The states and
/// who sees and changes them are `ResultLifecycle`'s, which scenarios share (a published
/// scenario is shared as a what-if, never current).
public struct FloodRun: Sendable, Equatable, Codable {
    /// The lifecycle's state (`ResultLifecycle`, shared with scenarios).
    public typealias State = ResultState

    public enum Status: String, Sendable, Codable {
        case running, successful, failed
    }

    /// `<scenario>-<n>`, e.g. `p50-waterlogging-3`.
    public var id: String
    public var scenario: String
    public var title: String
    /// The stem of the run's layers (`flood_p50_waterlogging_3`).
    public var stem: String
    public var state: State
    /// Whether this is the published run the map and the hazard overlay answer from.
    public var current: Bool
    public var status: Status
    /// What the run was given: the scenario's storm and boundary, and the run options.
    public var inputs: JSONValue
    /// Who ran it (`Caller.author`), for which department, and when (RFC 3339).
    public var runBy: String
    public var department: String?
    public var startedAt: String
    public var finishedAt: String?
    public var layers: [String]
    /// The run's summary (flooded roads, cut-off resources, mass balance …) once it finished.
    public var summary: JSONValue?
    public var error: String?
    public var publishedBy: String?
    public var publishedAt: String?

    enum CodingKeys: String, CodingKey {
        case id, scenario, title, stem, state, current, status, inputs, department, layers, summary, error
        case runBy = "run_by", startedAt = "started_at", finishedAt = "finished_at", publishedBy = "published_by",
             publishedAt = "published_at"
    }

    /// The depth layer (`<stem>_depth`), which the hazard overlay reads.
    public var depthLayer: String { stem + "_depth" }

    /// The stem of run `id`'s layers: `flood_` and the id with `-` → `_` (`p50-waterlogging-3` → `flood_p50_waterlogging_3`).
    static func stem(ofRun id: String) -> String { "flood_" + id.replacingOccurrences(of: "-", with: "_") }

    /// The depth layer of run `id`, nil for a text that is no run id.
    public static func depthLayer(ofRun id: String) -> String? {
        isValidID(id) ? stem(ofRun: id) + "_depth" : nil
    }

    /// Whether `id` may name a run: a scenario id and a run number.
    public static func isValidID(_ id: String) -> Bool {
        id.range(of: "^[a-z0-9][a-z0-9-]{0,40}-[0-9]{1,6}$", options: .regularExpression) != nil
    }

    /// The run as the feature of `flood_runs` that keeps it.
    var feature: Feature {
        get throws {
            var properties = try JSONOutput.value(self).objectValue ?? [:]
            properties["id"] = nil
            return Feature(id: .string(id), geometry: nil, properties: properties)
        }
    }

    /// The run as the API and the CLI show it.
    public var document: JSONValue {
        (try? JSONOutput.value(self)) ?? .null
    }
}

extension FloodRun {
    init(feature f: Feature) throws {
        var o = f.properties
        o["id"] = .string(f.id.map { "\($0)" } ?? "")
        do { self = try JSONOutput.convert(JSONValue.object(o), to: FloodRun.self) } catch {
            throw ScenarioError(.invalidScenario, "flood run record '\(f.id.map { "\($0)" } ?? "")' in the store cannot be read")
        }
    }
}

/// The flood runs of a store: the features of its `flood_runs` layer (no geometry), owned by the
/// water authority like the results. Its editors (and the admin) run, publish, archive and delete
/// runs; every department reads the published and archived runs' records, the owner every record.
public struct FloodRunCatalog: Sendable {
    public static let layerID = "flood_runs"
    public static var owner: String { FloodResultLayers.owner }
    /// The sharing of a draft or archived run's layers: its owner's alone.
    public static let privateSharing = SharingPolicy(type: .notShared, method: "api",
                                                     requirements: "不共享：未发布的内涝模拟结果，仅水务和湖泊局可见。")

    public let store: any FeatureStore
    /// The result layers' templates (`Layers/results`): a published run's layers take their sharing.
    public let templates: URL

    public init(store: any FeatureStore, templates: URL = ProjectFiles.url("Layers/results")) {
        self.store = store
        self.templates = templates
    }

    /// The `flood_runs` layer's definition.
    public static let definition: LayerDefinition = {
        let text: JSONValue = ["type": ["string", "null"]]
        let json: JSONValue = [
            "id": .string(layerID), "title": ["zh": "内涝模拟运行记录", "en": "Flood runs"], "category": "公共专题",
            "owner": .string(FloodResultLayers.owner), "format": "table", "updateFrequency": "per flood run",
            "sharing": ["type": "shared", "method": "api", "requirements": "无条件共享：已发布的内涝模拟运行及其输入、运行者与时间。"],
            "negativeList": false, "geometryType": .null, "storageCRS": "EPSG:4490",
            "schema": [
                "$schema": "https://json-schema.org/draft/2020-12/schema", "type": "object",
                "properties": [
                    "scenario": ["type": "string", "title": "情景"], "title": ["type": "string", "title": "名称"],
                    "stem": ["type": "string", "title": "结果图层前缀"],
                    "state": ["type": "string", "enum": ["draft", "published", "archived"], "title": "发布状态"],
                    "current": ["type": "boolean", "title": "当前发布"],
                    "status": ["type": "string", "enum": ["running", "successful", "failed"], "title": "运行状态"],
                    "inputs": ["type": "object", "title": "输入"], "run_by": ["type": "string", "title": "运行者"], "department": text,
                    "started_at": ["type": "string", "title": "开始时间"], "finished_at": text,
                    "layers": ["type": "array", "items": ["type": "string"], "title": "结果图层"],
                    "summary": ["type": ["object", "null"]], "error": text, "published_by": text, "published_at": text,
                ],
            ],
            "sensitive": [],
        ]
        // The literal above is a valid definition; a failure here is a programming error.
        return try! LayerDefinition(json: json)
    }()

    func ensureLayer() async throws {
        if try await store.layerDefinition(Self.layerID, for: .admin) == nil {
            try await store.createLayer(Self.definition)
        }
    }

    /// The runs `caller` may see, newest first: every run for the owner and the admin, the
    /// published and archived ones for other departments (a draft is its owner's until published).
    public func list(by caller: Caller) async throws -> [FloodRun] {
        guard try await store.layerDefinition(Self.layerID, for: caller) != nil else { return [] }
        var runs: [FloodRun] = []
        for try await f in store.stream(layer: Self.layerID, FeatureQuery(limit: 10_000), by: caller) {
            let run = try FloodRun(feature: f)
            if ResultLifecycle.sees(run.state, owner: Self.owner, caller) { runs.append(run) }
        }
        return runs.sorted { ($0.startedAt, $0.id) > ($1.startedAt, $1.id) }
    }

    /// The run `id` as `caller` may see it.
    /// - Throws: `ScenarioError` `.noSuchScenario` naming `field` (a draft run is not found by other departments).
    public func run(_ id: String, by caller: Caller, field: String = "run") async throws -> FloodRun {
        guard FloodRun.isValidID(id), try await store.layerDefinition(Self.layerID, for: caller) != nil,
              let f = try await store.feature(layer: Self.layerID, id: id, by: caller) else {
            throw ScenarioError(.noSuchScenario, "no flood run '\(id)' (the runs are listed at /flood-runs)", field: field)
        }
        let run = try FloodRun(feature: f)
        guard ResultLifecycle.sees(run.state, owner: Self.owner, caller) else {
            throw ScenarioError(.noSuchScenario, "no flood run '\(id)' (the runs are listed at /flood-runs)", field: field)
        }
        return run
    }

    /// The published run the map and the hazard overlay answer from, if there is one.
    public func current(by caller: Caller) async throws -> FloodRun? {
        try await list(by: caller).first { $0.current && $0.state == .published }
    }

    /// Records a new run of `scenario` (draft, running) under the next free number and returns
    /// it; the caller then runs the model into the run's stem.
    /// - Throws: `ScenarioError` naming `scenario` when its id leaves no room for a run's layer
    ///   names; `StoreError` when the caller may not write the runs.
    public func begin(_ scenario: FloodScenario, inputs: JSONValue, by caller: Caller, now: Date = TwinClock.current.now) async throws -> FloodRun {
        try await ensureLayer()
        var n = try await list(by: .admin).filter { $0.scenario == scenario.id }
            .compactMap { Int($0.id.split(separator: "-").last ?? "") }.max() ?? 0
        for _ in 0..<20 {
            n += 1
            let id = "\(scenario.id)-\(n)"
            let stem = FloodRun.stem(ofRun: id)
            guard FloodRun.isValidID(id), LayerDefinition.isSafeIdentifier(stem + "_depth_steps") else {
                throw ScenarioError(.invalidScenario, "the scenario id '\(scenario.id)' cannot name a run's layers (lower-case letters, digits and '-', at most 30 characters)",
                                    field: "scenario")
            }
            // Layers of that name from elsewhere (a scenario id spelt with '_' for '-') are never
            // overwritten, and a deleted run's id is not given again (its record's history keeps it).
            if try await store.layerDefinition(stem + "_depth", for: .admin) != nil { continue }
            if try await !store.history(layer: Self.layerID, featureID: id, by: .admin).isEmpty { continue }
            let run = FloodRun(id: id, scenario: scenario.id, title: scenario.title, stem: stem, state: .draft,
                               current: false, status: .running, inputs: inputs, runBy: caller.author, department: caller.departmentName,
                               startedAt: ScenarioInstant.text(now), finishedAt: nil, layers: [], summary: nil, error: nil,
                               publishedBy: nil, publishedAt: nil)
            do {
                try await store.insert(layer: Self.layerID, features: [try run.feature], by: caller, at: nil)
                return run
            } catch let e as StoreError where e.code == .duplicateFeature {
                continue   // another run took the number at the same time
            }
        }
        throw ScenarioError(.invalidScenario, "no free run number for scenario '\(scenario.id)'", field: "scenario")
    }

    /// Runs `scenario` as a new flood run: records it (draft), runs the model into the run's own
    /// layers (its owner's alone until published) and records how it ended. Nothing another run
    /// wrote is overwritten.
    public func run(_ scenario: FloodScenario, options: FloodScenarioRun.Options, by caller: Caller,
                    progress: ((WorkProgress) -> Void)? = nil) async throws -> (run: FloodRun, summary: FloodScenarioSummary) {
        let run = try await begin(scenario, inputs: Self.inputs(scenario, options), by: caller)
        var named = scenario
        named.resultStem = run.stem
        var runOptions = options
        runOptions.resultSharing = Self.privateSharing
        let summary: FloodScenarioSummary
        do {
            summary = try await FloodScenarioRun.run(named, store: store, caller: caller, options: runOptions, progress: progress)
        } catch {
            let reason = error is CancellationError ? "the run was dismissed" : "\(error)"
            try? await finish(run.id, layers: [], summary: nil, error: reason, by: caller)
            throw error
        }
        let summaryJSON = try JSONOutput.value(summary)
        try await finish(run.id, layers: summary.layers, summary: summaryJSON, error: nil, by: caller)
        return (try await self.run(run.id, by: caller), summary)
    }

    /// What a run was given, as its record keeps it: the storm and boundary of the scenario and the run options.
    static func inputs(_ scenario: FloodScenario, _ options: FloodScenarioRun.Options) -> JSONValue {
        var stage: JSONValue = .null
        switch scenario.outfallStage {
        case .fixed(let z)?: stage = .number(z)
        case .series(let t, let z)?: stage = ["times_min": .array(t.map(JSONValue.number)), "stage_m": .array(z.map(JSONValue.number))]
        case nil: break
        }
        var inputs: [String: JSONValue] = [
            "scenario": .string(scenario.id), "return_period_a": .number(scenario.returnPeriod), "duration_min": .number(scenario.duration),
            "peak_ratio": .number(scenario.peakRatio), "time_step_min": .number(scenario.timeStep), "storm_formula": .string(scenario.stormFormula),
            "outfall_stage_m": stage, "ground_floor_sill_m": .number(scenario.groundFloorSill), "nowcast": .bool(scenario.rainfall != nil),
            "durationScale": .number(options.durationScale), "demCoarsening": .integer(Int64(options.demCoarsening)), "dem": .string(options.dem),
        ]
        if let district = options.district { inputs["district"] = .string(district) }
        return .object(inputs)
    }

    /// Records how run `id` ended: its layers and summary, or why it failed.
    public func finish(_ id: String, layers: [String], summary: JSONValue?, error: String?, by caller: Caller, now: Date = TwinClock.current.now) async throws {
        try await update(id, by: caller) { run in
            run.status = error == nil ? .successful : .failed
            run.layers = layers
            run.summary = summary
            run.error = error
            run.finishedAt = ScenarioInstant.text(now)
        }
    }

    /// Publishes run `id` as the current one: its layers take their templates' sharing (every
    /// department reads them); the run that was current stays published but is no longer current.
    /// - Throws: `ScenarioError` `.scenarioNotFinished` for a run that has not succeeded.
    @discardableResult
    public func publish(_ id: String, by caller: Caller, now: Date = TwinClock.current.now) async throws -> FloodRun {
        let run = try await self.run(id, by: caller)
        guard run.status == .successful else {
            throw ScenarioError(.scenarioNotFinished, "flood run '\(id)' is \(run.status.rawValue): only a finished run can be published", field: "run")
        }
        try await setSharing(of: run, public: true, by: caller)
        for other in try await list(by: caller) where other.current && other.id != id {
            try await update(other.id, by: caller) { $0.current = false }
        }
        return try await update(id, by: caller) {
            $0.state = .published
            $0.current = true
            $0.publishedBy = caller.author
            $0.publishedAt = ScenarioInstant.text(now)
        }
    }

    /// Archives run `id`: kept with its record, its layers its owner's alone, no longer current.
    @discardableResult
    public func archive(_ id: String, by caller: Caller) async throws -> FloodRun {
        let run = try await self.run(id, by: caller)
        try await setSharing(of: run, public: false, by: caller)
        return try await update(id, by: caller) {
            $0.state = .archived
            $0.current = false
        }
    }

    /// Deletes run `id`: its layers (`LayerRemoval`), its rasters and its record.
    public func delete(_ id: String, rasters: ResultRasters?, by caller: Caller) async throws {
        let run = try await self.run(id, by: caller)
        guard AccessPolicy.canWrite(owner: Self.owner, caller) else {
            throw StoreError(.forbidden, "deleting a flood run needs an editor of \(Self.owner) or an admin", layer: Self.layerID)
        }
        guard run.status != .running else {
            throw ScenarioError(.scenarioNotFinished, "flood run '\(id)' is still running: dismiss its job first", field: "run")
        }
        guard let removal = store as? any LayerRemoval else {
            throw StoreError(.backend, "this store cannot remove layers")
        }
        for layer in Self.layerIDs(of: run) { _ = try await removal.dropLayer(layer, by: caller) }
        try rasters?.remove(layer: run.depthLayer)
        try await store.delete(layer: Self.layerID, ids: [id], by: caller, at: nil)
    }

    /// The run whose layers include `layer`, if any (the hazard overlay names the run it answers from).
    public func run(owning layer: String, by caller: Caller) async throws -> FloodRun? {
        try await list(by: caller).first { Self.layerIDs(of: $0).contains(layer) }
    }

    /// Every layer a run may have written (those of a failed run may be fewer).
    static func layerIDs(of run: FloodRun) -> [String] {
        Array(Set(run.layers + (FloodResultLayers.suffixes + ["depth_steps"]).map { "\(run.stem)_\($0)" })).sorted()
    }

    private func setSharing(of run: FloodRun, public isPublic: Bool, by caller: Caller) async throws {
        try ResultLifecycle.requireChange(owner: Self.owner, caller, layer: Self.layerID, "publishing or archiving a flood run")
        try await ResultLifecycle.share(run.layers, store: store, by: caller) { definition in
            let suffix = String(definition.id.dropFirst(run.stem.count + 1))
            return isPublic ? try Self.templateSharing(suffix: suffix, templates: templates) : Self.privateSharing
        }
    }

    static func templateSharing(suffix: String, templates: URL) throws -> SharingPolicy {
        let url = templates.appendingPathComponent("flood_scenario_\(suffix).json")
        do { return try LayerDefinition(json: try JSONDecoder().decode(JSONValue.self, from: Data(contentsOf: url))).sharing } catch {
            throw ScenarioError(.invalidDistrict, "cannot read the result layer template \(url.lastPathComponent)")
        }
    }

    @discardableResult
    private func update(_ id: String, by caller: Caller, _ change: (inout FloodRun) -> Void) async throws -> FloodRun {
        try await store.update(layer: Self.layerID, reading: [id], by: caller) {
            guard let f = try await store.feature(layer: Self.layerID, id: id, by: caller) else {
                throw ScenarioError(.noSuchScenario, "no flood run '\(id)'", field: "run")
            }
            var run = try FloodRun(feature: f)
            change(&run)
            return (FeatureChanges(upserts: [try run.feature]), run)
        }
    }
}
