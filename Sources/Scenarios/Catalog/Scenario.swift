import Flood
import Foundation
import GeoCore
import ProcessRuntime
import TwinStore

/// A planner's scenario: a named, versioned set of inputs and, once run, its results.
///
/// - **base**: the one map as of an instant (`base`): a run reads every layer as it was then
///   (`FeatureQuery.asOf`), so a scenario answers the same however the map changed since;
/// - **changes**: edits in the scenario's sandbox (`ScenarioChange`): features added, replaced or
///   removed in a layer, applied only in the scenario's own run;
/// - **parameters**: the model's (for `kind` `signal`: `period`, see `SignalParameters`; for
///   `parking`: `guidance`, `drivers`, `seed`, see `ParkingParameters`; for `kind` `flood`: `model`, a flood scenario document or the
///   name of a file in `Models/scenarios`; `durationScale`, `demCoarsening`,
///   `outputIntervalMinutes`; `start`, the storm's start as an RFC 3339 instant, default `base`;
///   `dem`, the id of a raster the store manages, default `dem`);
/// - **results**: the result layers `scenario_<id>_…`, the run summary and the time steps.
///
/// Its results are a **what-if**, never the city as it stands, and have the flood runs' lifecycle
/// (`ResultLifecycle`, `state`): a run leaves them a **draft** of the owner department (the
/// layers `not-shared`, the record listed to the owner alone); **published**, every department
/// sees them, marked 情景（非实况） (`LayerConditions`: the layers' titles, legend, popups, print
/// and API), never shown by default on the web map and never the current state; **archived**,
/// the layers are the owner's again. A new run makes the scenario a draft again.
///
/// A scenario is stored as one feature (no geometry) of the store's `scenarios` layer
/// (`ScenarioCatalog`), so every write is versioned and audited like any feature and its history
/// is `/collections/scenarios/items/{id}/history`.
public struct Scenario: Sendable, Equatable {
    /// Where a scenario is in its life.
    public enum Status: String, Sendable, CaseIterable {
        /// Defined, never run.
        case created
        /// A run was submitted as a job and waits for a worker.
        case accepted
        case running
        /// The last run finished; `result` holds what it produced.
        case successful
        /// The last run failed; `error` says why.
        case failed
    }

    /// What a scenario simulates: `flood` (a storm on the drainage network and the surface),
    /// `signal` (the signal plans in force for a period's counts: delay per intersection) or
    /// `parking` (a day of drivers looking for a lot: search time per lot).
    public static let kinds = ["flood", "signal", "parking"]

    /// `[a-z][a-z0-9-]{0,24}`: it names the result layers (`scenario_<id with _>_<suffix>`, at most 48 characters).
    public var id: String
    public var title: String
    public var kind: String
    /// The admin division the scenario covers (an `admin_divisions` id, e.g. 420117): two
    /// scenarios compare only within one district.
    public var district: String
    /// The instant of the map the scenario starts from.
    public var base: Date
    public var parameters: [String: JSONValue]
    public var changes: [ScenarioChange]
    public var status: Status
    /// The job of the last run (`/jobs/{id}`).
    public var job: String?
    /// The last successful run's results: `layers`, `summary`, `steps` (each `datetime`,
    /// `seconds`, `raster`), `series` (paths of the hydrographs and road depths) and, for a
    /// flood run, `conditions` (`ScenarioRunConditions`: what compare-scenarios holds equal).
    public var result: JSONValue?
    /// Why the last run failed.
    public var error: String?
    /// Who sees the results (`ResultLifecycle`): a draft until its owner publishes it.
    public var state: ResultState = .draft
    /// Who published the results last (`Caller.author`), and when (RFC 3339).
    public var publishedBy: String?
    public var publishedAt: String?

    public init(id: String, title: String? = nil, kind: String = "flood", district: String, base: Date,
                parameters: [String: JSONValue] = [:], changes: [ScenarioChange] = []) {
        self.id = id
        self.title = title ?? id
        self.kind = kind
        self.district = district
        self.base = base
        self.parameters = parameters
        self.changes = changes
        self.status = .created
    }

    /// Whether `id` may name a scenario.
    public static func isValidID(_ id: String) -> Bool {
        id.range(of: "^[a-z][a-z0-9-]{0,24}$", options: .regularExpression) != nil
    }

    /// The stem of the result layers: `scenario_<id>` with `-` → `_`.
    public var layerStem: String { "scenario_" + id.replacingOccurrences(of: "-", with: "_") }
    /// The run's depth layer (`<stem>_depth`), whose rasters hold the depth per time step.
    public var depthLayer: String { layerStem + "_depth" }

    /// The storm's start: `parameters.start` or the base instant.
    public var start: Date {
        parameters["start"]?.stringValue.flatMap(Scenario.instant) ?? base
    }

    /// Whether a run is under way (submitted or running).
    public var isRunning: Bool { status == .accepted || status == .running }

    /// What the scenario's result layers describe: its what-if (`LayerConditions`).
    public var conditions: LayerConditions { LayerConditions(kind: .scenario, scenarios: [id]) }

    /// The result layers of the last successful run (`result.layers`).
    public var resultLayers: [String] {
        result?.objectValue?["layers"]?.arrayValue?.compactMap(\.stringValue) ?? []
    }

    // MARK: Feature form

    /// The scenario as a feature of the `scenarios` layer.
    public var feature: Feature {
        Feature(id: .string(id), geometry: nil, properties: [
            "title": .string(title), "kind": .string(kind), "district": .string(district),
            "base": .string(Scenario.instantText(base)), "parameters": .object(parameters),
            "changes": .array(changes.map(\.json)), "status": .string(status.rawValue),
            "job": job.map(JSONValue.string) ?? .null, "result": result ?? .null, "error": error.map(JSONValue.string) ?? .null,
            "state": .string(state.rawValue), "published_by": publishedBy.map(JSONValue.string) ?? .null,
            "published_at": publishedAt.map(JSONValue.string) ?? .null,
        ])
    }

    /// Reads a feature of the `scenarios` layer.
    /// - Throws: `ScenarioError` `.invalidScenario` for a record the store holds malformed.
    public init(feature f: Feature) throws {
        let id = f.id.map { "\($0)" } ?? ""
        func fail(_ field: String) -> ScenarioError { ScenarioError(.invalidScenario, "scenario record '\(id)' has no valid \(field)") }
        self.id = id
        title = f.properties["title"]?.stringValue ?? id
        kind = f.properties["kind"]?.stringValue ?? "flood"
        guard let district = f.properties["district"]?.stringValue else { throw fail("district") }
        self.district = district
        guard let base = f.properties["base"]?.stringValue.flatMap(Scenario.instant) else { throw fail("base") }
        self.base = base
        parameters = f.properties["parameters"]?.objectValue ?? [:]
        changes = try (f.properties["changes"]?.arrayValue ?? []).enumerated().map { try ScenarioChange(json: $1, field: "changes[\($0)]") }
        status = f.properties["status"]?.stringValue.flatMap(Status.init(rawValue:)) ?? .created
        job = f.properties["job"]?.stringValue
        result = f.properties["result"].flatMap { $0.isNull ? nil : $0 }
        error = f.properties["error"]?.stringValue
        // A record from before scenarios had a lifecycle is a draft (`ScenarioCatalog.settle` hides its layers).
        state = f.properties["state"]?.stringValue.flatMap(ResultState.init(rawValue:)) ?? .draft
        publishedBy = f.properties["published_by"]?.stringValue
        publishedAt = f.properties["published_at"]?.stringValue
    }

    /// The scenario as the API and the CLI show it (`/scenarios/{id}`).
    public var document: JSONValue {
        var o = feature.properties
        o["id"] = .string(id)
        o["start"] = .string(Scenario.text(start))
        o["resultLayers"] = .array(resultLayers.map(JSONValue.string))
        // A scenario is a what-if, whoever reads it and whatever its state.
        o["whatIf"] = true
        o["conditions"] = conditions.document
        return .object(o)
    }

    /// An RFC 3339 instant, or nil (`ScenarioInstant.instant`).
    public static func instant(_ text: String) -> Date? { ScenarioInstant.instant(text) }

    /// `date` as RFC 3339 in UTC, to the millisecond when it is not a whole second (`ScenarioInstant.instantText`).
    public static func instantText(_ date: Date) -> String { ScenarioInstant.instantText(date) }

    /// `date` as RFC 3339 in UTC with seconds (`ScenarioInstant.text`).
    public static func text(_ date: Date) -> String { ScenarioInstant.text(date) }
}
