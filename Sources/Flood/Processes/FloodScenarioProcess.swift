import Foundation
import GeoCore
import ProcessRuntime
import TwinStore

/// `flood-scenario`: runs a coupled 1D–2D flood scenario on the district in the store and writes
/// its result layers (`flood_<scenario>_depth|roads|buildings|cutoff`), which the Features and
/// Tiles APIs then serve like any layer. Asynchronous only (a district run takes minutes).
///
/// Inputs: `scenario` — a scenario document (the JSON of `Models/scenarios/*.json`) or the name
/// of a file there (`p50-waterlogging`); optional `durationScale` (0–1], `demCoarsening` (≥ 1)
/// and `dem`, the id of a raster the store manages (`ManagedRasters`; default `dem`, the one
/// `citytwin district build` imports). No input names a file on the server. Outputs: `layers` (ids) and `summary`, whose
/// `maxDepthRaster` is the API path of the maximum-depth grid (`ResultRasters`) when the process
/// has a raster directory.
///
/// A nowcast: optional `rainfall` (`ObservedRainfall`: `{"datastreams": [ids], "from", "to",
/// "forecast"?}`) drives the scenario with what the rain-gauge Datastreams observed (and the
/// forecast after them) instead of its design storm; the run is named `nowcast-<scenario>` (a
/// scenario document with its own `rainfall` keeps its id), needs a caller who reads the
/// SensorThings service (`iot_devices`), and raises, updates and clears alerts in `alerts` for
/// roads deeper than 15 cm and cut-off emergency resources (`FloodNowcastAlerts`; the summary's
/// `alerts`, `observedRainfall`). Alerts are the platform's, shared as the sensor data are: the
/// run writes them in the caller's name (audited) without needing the right to edit that layer.
public struct FloodScenarioProcess: TypedProcess {
    public let id = "flood-scenario"
    public let version = "1.0.0"
    public let title = "Urban flood scenario"
    public let description = "Runs a design-storm flood scenario (Chicago storm, SWMM-compatible pipe network coupled to a 2D street surface) on the district and writes result layers: depth classes, road flooding, buildings with flooded ground floors, cut-off emergency resources. With rainfall (rain-gauge Datastreams of the SensorThings API, a window, an optional forecast) it is a nowcast of the observed rain and raises alerts for roads deeper than 15 cm and cut-off resources."
    public let jobControlOptions: [JobControlOption] = [.asyncExecute, .dismiss]

    /// Directory holding the scenario files (`Models/scenarios`).
    public let scenariosDirectory: URL
    /// `Models/storm-intensity.json`.
    public let stormCatalog: URL
    /// Where the maximum-depth raster is written, for the server to serve; nil writes none.
    public let rasters: ResultRasters?
    /// The result layers' definition templates (`Layers/results`).
    public let resultLayers: URL

    public init(scenariosDirectory: URL = ProjectFiles.url("Models/scenarios"),
                stormCatalog: URL = ProjectFiles.url("Models/storm-intensity.json"),
                rasters: ResultRasters? = nil, resultLayers: URL = ProjectFiles.url("Layers/results")) {
        self.resultLayers = resultLayers
        self.scenariosDirectory = scenariosDirectory
        self.stormCatalog = stormCatalog
        self.rasters = rasters
    }

    public var outputs: [String: ProcessParameter] {
        [
            "layers": ProcessParameter(title: "Result layers", description: "Ids of the layers written.", schema: ["type": "array", "items": ["type": "string"]]),
            "summary": ProcessParameter(title: "Summary", description: "Flooded road km, buildings, cut-off resources, volumes and the mass-balance error; maxDepthRaster is the path (from the API root) of the maximum-depth grid, served under the depth layer's access rules.",
                                        schema: ["type": "object"]),
        ]
    }

    /// The inputs: the scenario as given (a document or a file name, read by `scenario(_:)`
    /// against `scenariosDirectory`), the observed rainfall as given, and the run's options.
    public struct Input: ProcessInput {
        var scenario: JSONValue
        var rainfall: JSONValue?
        var durationScale: Double
        var demCoarsening: Int
        var dem: String
        /// One district of a city alone (`FloodDistrictPart`); a city's flood job runs one child job per district with it.
        var district: String?

        public init(from r: ProcessInputReader) throws {
            scenario = try r.required(
                "scenario", title: "Scenario",
                description: """
                    A scenario document or the name of a file in Models/scenarios. Ranges: return_period_a 1–1000 a; duration_min \
                    (0, 1440]; time_step_min (0, duration_min]; peak_ratio (0, 1); outfall_stage_m (every stage_m of a series) \
                    within the district's elevations, from the lowest drainage invert to the highest manhole rim (m, 1985 datum); \
                    ground_floor_sill_m 0–3 m; upgrades.storage volume_m3 > 0, depth_m 0.1–60 m; upgrades.pipes 100–6000 mm.
                    """,
                schema: ["oneOf": [["type": "string"], ["type": "object"]]], placeholder: .string("")) { $0 }
            (durationScale, demCoarsening, dem) = try Self.options(r)
            district = try r.optional(
                "district", title: "District",
                description: """
                    One district of a city built with `citytwin district build --scale N` (D000 the first, D007 the eighth): its \
                    drainage network alone, on the DEM cut to that network. Absent: the whole city; as a job over a city of several \
                    districts, one child job per district, joined into one result.
                    """,
                schema: ["type": "string", "pattern": "^D[0-9]{3}$"]) { v in
                guard let key = v.stringValue, FloodDistrictPart.isValidKey(key) else {
                    throw ProcessInputError("district", "must name a district: D and three digits (D000 the first)")
                }
                return key
            }
            rainfall = r.value(
                "rainfall", title: "Observed rainfall (nowcast)",
                description: """
                    Rain-gauge Datastreams (@iot.ids; unit mm per reading or mm/h), the observed window and an optional forecast \
                    after it: {"datastreams": [12], "from": "2026-07-01T08:00:00Z", "to": "2026-07-01T10:00:00Z", "forecast": \
                    {"interval_min": 10, "depths_mm": [4, 6]}}. Replaces the scenario's design storm; the run is named \
                    nowcast-<scenario> and raises alerts.
                    """,
                schema: ["type": "object", "required": ["datastreams", "from", "to"], "properties": [
                    "datastreams": ["type": "array", "items": ["type": "integer"], "minItems": 1],
                    "from": ["type": "string", "format": "date-time"], "to": ["type": "string", "format": "date-time"],
                    "forecast": ["type": "object", "properties": ["interval_min": ["type": "number"],
                                                                  "depths_mm": ["type": "array", "items": ["type": "number"]]]],
                ]])
        }

        /// `durationScale` (0, 1], `demCoarsening` 1–10 and `dem` (the raster id `dem` when absent).
        static func options(_ r: ProcessInputReader) throws -> (Double, Int, String) {
            let scale = try r.optional("durationScale", title: "Duration scale", description: "Scale the storm duration for a quick run (0–1].",
                                       schema: ["type": "number", "exclusiveMinimum": 0, "maximum": 1, "default": 1]) { v in
                guard let d = v.doubleValue, d > 0, d <= 1 else { throw ProcessInputError("durationScale", "must be a number in (0, 1]") }
                return d
            } ?? 1
            let coarsening = try r.optional("demCoarsening", title: "DEM coarsening", description: "Block factor coarsening the 10 m DEM (1 = none).",
                                            schema: ["type": "integer", "minimum": 1, "maximum": 10, "default": 1]) { v in
                guard let d = v.doubleValue, d >= 1, d <= 10, d == d.rounded() else { throw ProcessInputError("demCoarsening", "must be an integer 1–10") }
                return Int(d)
            } ?? 1
            let dem = try r.optional("dem", title: "DEM",
                                     description: "The id of the DEM among the rasters the store manages (GET /rasters); default 'dem'.",
                                     schema: ["type": "string", "pattern": "^[a-z0-9][a-z0-9_-]{0,63}$", "default": .string(ManagedRaster.defaultDEM)]) { v in
                guard let id = v.stringValue else { throw ProcessInputError("dem", "must be the id of a raster the store manages (a string)") }
                do { try ManagedDEM.checkID(id) } catch let e as ScenarioError { throw ProcessInputError("dem", e.message) }
                return id
            } ?? ManagedRaster.defaultDEM
            return (scale, coarsening, dem)
        }

        /// The inputs as given, for `scenario(_:)` and `inputError`.
        var given: [String: JSONValue] {
            var inputs = ["scenario": scenario]
            inputs["rainfall"] = rainfall
            return inputs
        }
    }

    struct Request {
        var scenario: FloodScenario
        var options: FloodScenarioRun.Options
    }

    /// Reads the district (`FloodDistrictLayers`); the drainage network, catchments, roads and
    /// buildings are needed. Writes `flood_<scenario>_depth|roads|buildings|cutoff`, owned by
    /// the water authority (`FloodResultLayers.owner`): only its editors or the admin may run it.
    public func layers(_ inputs: [String: JSONValue]) -> ProcessLayers {
        var required = ["drainage_manholes", "drainage_outfalls", "drainage_pipes", "subcatchments", "roads", "buildings"]
        let scenario = try? scenario(inputs)
        // Each run writes layers of its own (`FloodRunCatalog`: `<stem>_<n>_…`), named when it starts.
        let stem = (scenario?.layerStem ?? "flood_<scenario>") + "_<run>"
        if scenario?.rainfall != nil || inputs["rainfall"] != nil { required.append(SensingAlerts.governingLayer) }
        return ProcessLayers(reads: required, optionalReads: FloodDistrictLayers.layerIDs.filter { !required.contains($0) },
                             writes: (FloodResultLayers.suffixes + ["depth_steps"]).map { ProcessLayers.Write("\(stem)_\($0)", owner: FloodResultLayers.owner) }
                                 + [ProcessLayers.Write(FloodRunCatalog.layerID, owner: FloodRunCatalog.owner)])
    }

    public func check(_ input: Input, store: any FeatureStore, caller: Caller) async throws {
        let request = try request(input)
        let inputs = input.given
        // The DEM is read before a job is accepted: a missing or unusable raster is the caller's 400, not a failed job.
        do { _ = try await ManagedDEM.read(request.options.dem, from: store) } catch let e as ScenarioError { throw inputError(e, inputs) }
        // The outfall stage within the district's elevations, before a job is accepted.
        do { try request.scenario.checkStage(within: try await FloodScenario.stageRange(in: store, by: caller)) } catch let e as ScenarioError {
            throw inputError(e, inputs)
        }
        // A nowcast's gauges are checked before a job is accepted: each Datastream exists, measures rain, reported.
        if request.scenario.rainfall != nil {
            do {
                _ = try await FloodScenarioRun.rainfall(request.scenario, store: store, caller: caller, stormCatalog: stormCatalog,
                                                        durationScale: request.options.durationScale)
            } catch let e as ScenarioError {
                throw inputError(e, inputs)
            }
        }
    }

    /// The input a `ScenarioError` is about: `dem`, `durationScale`, `rainfall` (when given as an input), else `scenario`.
    func inputError(_ e: ScenarioError, _ inputs: [String: JSONValue]) -> ProcessInputError {
        let field = e.field ?? ""
        if field == "dem" || field == "durationScale" || field == "district" { return ProcessInputError(field, e.message) }
        if field.hasPrefix("rainfall"), inputs["rainfall"] != nil { return ProcessInputError("rainfall", e.message) }
        return ProcessInputError("scenario", e.message)
    }

    public func run(_ input: Input, store: any FeatureStore, caller: Caller, progress: JobProgress) async throws -> JSONValue {
        // A job over a city of several districts: one child job per district's drainage network, joined.
        if input.district == nil, let fanOut = JobFanOut.current {
            let districts = try await FloodDistrictPart.keys(in: store, by: caller)
            if districts.count > 1 {
                let runs = FloodRunCatalog(store: store, templates: resultLayers)
                return try await FloodCityJob.run(input, scenario: try request(input).scenario, districts: districts, fanOut: fanOut,
                                                  runs: runs, caller: caller, progress: progress)
            }
        }
        let request = try request(input)
        let inputs = input.given
        var runOptions = request.options
        runOptions.outputInterval = Self.outputInterval
        runOptions.start = TwinClock.current.now
        let options = runOptions
        let runs = FloodRunCatalog(store: store, templates: resultLayers)
        let (run, summary): (FloodRun, FloodScenarioSummary)
        do {
            (run, summary) = try await LatestProgress.run(reporting: progress) { report in
                try await runs.run(request.scenario, options: options, by: caller, progress: report)
            }
        } catch let e as ScenarioError where e.field != nil {
            // A field names the caller's input; an error without one (the server's result layer
            // templates) is the analysis failing, not the input.
            throw inputError(e, inputs)
        }
        let data = try JSONOutput.data(summary)
        let summaryJSON = try JSONDecoder().decode(JSONValue.self, from: data)
        return ["run": run.document, "layers": .array(summary.layers.map(JSONValue.string)), "summary": summaryJSON]
    }

    /// The `scenario` input: a document, or the name of a file in `scenariosDirectory`; with the
    /// `rainfall` input, that scenario as a nowcast (`nowcast-<id>` unless the document has its own rainfall).
    package func scenario(_ inputs: [String: JSONValue]) throws -> FloodScenario {
        var scenario: FloodScenario
        switch ProcessInputs.unwrap(inputs["scenario"]) {
        case .string(let name)?:
            guard name.range(of: "^[A-Za-z0-9_-]+(\\.json)?$", options: .regularExpression) != nil else {
                throw ProcessInputError("scenario", "a scenario name is a file name in Models/scenarios (letters, digits, - and _)")
            }
            let url = scenariosDirectory.appendingPathComponent(name.hasSuffix(".json") ? name : name + ".json")
            guard FileManager.default.fileExists(atPath: url.path) else {
                let known = ((try? FileManager.default.contentsOfDirectory(atPath: scenariosDirectory.path)) ?? [])
                    .filter { $0.hasSuffix(".json") }.map { String($0.dropLast(5)) }.sorted()
                throw ProcessInputError("scenario", "no scenario '\(name)' (known: \(known.joined(separator: ", ")))")
            }
            do { scenario = try FloodScenario.load(contentsOf: url) } catch let e as ScenarioError {
                throw ProcessInputError("scenario", e.message)
            }
        case let value? where value.objectValue != nil:
            do { scenario = try FloodScenario.decode(try JSONOutput.data(value), source: "scenario") } catch let e as ScenarioError {
                throw ProcessInputError("scenario", e.message)
            }
        default:
            throw ProcessInputError("scenario", "must be a scenario document (object) or a scenario name (string)")
        }
        if let value = ProcessInputs.unwrap(inputs["rainfall"]), !value.isNull {
            do {
                let rain = try ObservedRainfall(json: value)
                if scenario.rainfall == nil {
                    scenario.id = "nowcast-" + scenario.id
                    scenario.title = "临近预报 (nowcast): " + scenario.title
                }
                scenario.rainfall = rain
                scenario.duration = rain.minutes
                try scenario.validate()
            } catch let e as ScenarioError {
                throw ProcessInputError(e.field?.hasPrefix("rainfall") == true ? "rainfall" : "scenario", e.message)
            }
        }
        return scenario
    }

    func request(_ input: Input) throws -> Request {
        var options = FloodScenarioRun.Options(dem: input.dem, stormCatalog: stormCatalog, rasters: rasters, durationScale: input.durationScale,
                                               demCoarsening: input.demCoarsening, resultLayers: resultLayers)
        options.district = input.district
        return Request(scenario: try scenario(input.given), options: options)
    }

    /// The run options of `durationScale`, `demCoarsening` and `dem` (the raster id `dem` when absent).
    package func runOptions(_ inputs: [String: JSONValue]) throws -> FloodScenarioRun.Options {
        let (scale, coarsening, dem) = try Input.options(ProcessInputReader(inputs))
        return FloodScenarioRun.Options(dem: dem, stormCatalog: stormCatalog, rasters: rasters, durationScale: scale, demCoarsening: coarsening,
                                        resultLayers: resultLayers)
    }
}

extension FloodScenarioProcess {
    /// Seconds between the depth snapshots a run keeps (`FloodTimeSteps`).
    static let outputInterval = 300.0
}
