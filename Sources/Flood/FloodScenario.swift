import FloodSim
import Foundation
import GeoCore
import ProcessRuntime
import SWMMFormat

/// A district flood scenario (a file in `Models/scenarios/`): a Chicago design storm from a
/// storm-intensity formula, the river stage at the outfalls, and upgrades to the drainage network
/// (storage tanks at manholes, enlarged pipes). `FloodScenarioRun` runs it on the district.
///
/// JSON keys (units in the names): `id`, `title`, `return_period_a`, `duration_min`, `peak_ratio`,
/// `time_step_min`, `storm_formula` (an id of `Models/storm-intensity.json`; default
/// `wuhan-manual`, which is **unverified**, flood.md §2.2), `outfall_stage_m` (a number, or
/// `{"times_min": […], "stage_m": […]}`; absent = free outfalls), `stage_receiving_waters` (which
/// receiving waters the stage applies to; absent = all), `ground_floor_sill_m` (ground-floor
/// height above the footprint's ground, default 0.15 m), and `upgrades` with `storage`
/// (`[{"node", "volume_m3", "depth_m"}]`) and `pipes` (`{"pipe id": diameter_mm}`).
///
/// Ranges (`FloodScenario.Ranges`, each with its source): `return_period_a` 1–1000 a, `duration_min`
/// (0, 1440], `time_step_min` (0, duration], `peak_ratio` (0, 1), `ground_floor_sill_m` 0–3 m, storage
/// `depth_m` 0.1–60 m, pipes 100–6000 mm; `outfall_stage_m` within the district's elevations
/// (`checkStage(within:)`, checked against the store's drainage layers when run).
///
/// A nowcast gives `rainfall` (`ObservedRainfall`: rain-gauge Datastreams, a window, an optional
/// forecast) instead of the design storm: `return_period_a`, `duration_min`, `peak_ratio` and
/// `storm_formula` are then not used (`duration_min` is the window plus the forecast), and
/// `time_step_min` is the interval the observations are binned into.
public struct FloodScenario: Decodable, Sendable, Equatable {
    /// A tank added beside a manhole.
    public struct StorageUpgrade: Decodable, Sendable, Equatable {
        /// The manhole id (drainage_manholes) the tank connects to.
        public var node: String
        /// Usable volume, m³.
        public var volume: Double
        /// Usable depth, m (the tank's plan area is volume ÷ depth).
        public var depth: Double
        enum CodingKeys: String, CodingKey { case node, volume = "volume_m3", depth = "depth_m" }
        public init(node: String, volume: Double, depth: Double = 4) { self.node = node; self.volume = volume; self.depth = depth }
        public init(from decoder: any Decoder) throws {
            let c = try decoder.container(keyedBy: CodingKeys.self)
            node = try c.decode(String.self, forKey: .node)
            volume = try c.decode(Double.self, forKey: .volume)
            depth = try c.decodeIfPresent(Double.self, forKey: .depth) ?? 4
        }
    }

    /// Network upgrades the scenario tests.
    public struct Upgrades: Decodable, Sendable, Equatable {
        public var storage: [StorageUpgrade]
        /// Pipe id → new inside diameter in millimetres.
        public var pipes: [String: Double]
        public init(storage: [StorageUpgrade] = [], pipes: [String: Double] = [:]) { self.storage = storage; self.pipes = pipes }
        public init(from decoder: any Decoder) throws {
            let c = try decoder.container(keyedBy: CodingKeys.self)
            storage = try c.decodeIfPresent([StorageUpgrade].self, forKey: .storage) ?? []
            pipes = try c.decodeIfPresent([String: Double].self, forKey: .pipes) ?? [:]
        }
        enum CodingKeys: String, CodingKey { case storage, pipes }
    }

    /// The river stage at the outfalls: constant or a series over the storm.
    public enum Stage: Sendable, Equatable {
        /// Water-surface elevation in metres (1985 datum).
        case fixed(Double)
        /// Elevations in metres at minutes from the storm start (linear between).
        case series(minutes: [Double], stage: [Double])
    }

    public var id: String
    public var title: String
    /// Return period P in years.
    public var returnPeriod: Double
    /// Storm duration T in minutes.
    public var duration: Double
    /// Peak position r (0…1).
    public var peakRatio: Double
    /// Hyetograph interval in minutes.
    public var timeStep: Double
    /// Storm-intensity formula id in `Models/storm-intensity.json`.
    public var stormFormula: String
    public var outfallStage: Stage?
    /// Receiving waters (drainage_outfalls.receiving_water) the stage applies to; `nil` = all.
    public var stageReceivingWaters: [String]?
    /// Ground-floor height above the footprint's ground in metres; a building floods when the
    /// water level beside it exceeds ground + sill.
    public var groundFloorSill: Double
    public var upgrades: Upgrades
    /// Observed (and forecast) rain instead of the design storm: a nowcast.
    public var rainfall: ObservedRainfall?
    /// The stem of the result layer ids when not `flood_<id>` (a `Scenario`'s runs write
    /// `scenario_<id>_…`, apart from the plain `flood-scenario` runs). Not part of the document.
    public var resultStem: String?

    enum CodingKeys: String, CodingKey {
        case id, title, returnPeriod = "return_period_a", duration = "duration_min", peakRatio = "peak_ratio"
        case timeStep = "time_step_min", stormFormula = "storm_formula", outfallStage = "outfall_stage_m"
        case stageReceivingWaters = "stage_receiving_waters", groundFloorSill = "ground_floor_sill_m", upgrades, rainfall
    }

    struct StageSeries: Decodable {
        var times: [Double]
        var stage: [Double]
        enum CodingKeys: String, CodingKey { case times = "times_min", stage = "stage_m" }
    }

    public init(id: String, title: String, returnPeriod: Double, duration: Double, peakRatio: Double = 0.4, timeStep: Double = 5,
                stormFormula: String = "wuhan-manual", outfallStage: Stage? = nil, stageReceivingWaters: [String]? = nil,
                groundFloorSill: Double = 0.15, upgrades: Upgrades = .init(), rainfall: ObservedRainfall? = nil) throws {
        self.id = id; self.title = title; self.returnPeriod = returnPeriod; self.duration = duration; self.peakRatio = peakRatio
        self.timeStep = timeStep; self.stormFormula = stormFormula; self.outfallStage = outfallStage
        self.stageReceivingWaters = stageReceivingWaters; self.groundFloorSill = groundFloorSill; self.upgrades = upgrades
        self.rainfall = rainfall
        if let rainfall { self.duration = rainfall.minutes }
        try validate()
    }

    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        id = try c.decode(String.self, forKey: .id)
        title = try c.decodeIfPresent(String.self, forKey: .title) ?? id
        if let observed = try c.decodeIfPresent(JSONValue.self, forKey: .rainfall), !observed.isNull {
            let rain = try ObservedRainfall(json: observed)
            rainfall = rain
            returnPeriod = try c.decodeIfPresent(Double.self, forKey: .returnPeriod) ?? 1
            duration = rain.minutes
        } else {
            rainfall = nil
            returnPeriod = try c.decode(Double.self, forKey: .returnPeriod)
            duration = try c.decode(Double.self, forKey: .duration)
        }
        peakRatio = try c.decodeIfPresent(Double.self, forKey: .peakRatio) ?? 0.4
        timeStep = try c.decodeIfPresent(Double.self, forKey: .timeStep) ?? 5
        stormFormula = try c.decodeIfPresent(String.self, forKey: .stormFormula) ?? "wuhan-manual"
        if let v = try? c.decodeIfPresent(Double.self, forKey: .outfallStage) {
            outfallStage = .fixed(v)
        } else if let s = try c.decodeIfPresent(StageSeries.self, forKey: .outfallStage) {
            outfallStage = .series(minutes: s.times, stage: s.stage)
        } else {
            outfallStage = nil
        }
        stageReceivingWaters = try c.decodeIfPresent([String].self, forKey: .stageReceivingWaters)
        groundFloorSill = try c.decodeIfPresent(Double.self, forKey: .groundFloorSill) ?? 0.15
        upgrades = try c.decodeIfPresent(Upgrades.self, forKey: .upgrades) ?? .init()
        try validate()
    }

    /// Checks the values a decoder cannot: ranges and the id's shape.
    /// - Throws: `ScenarioError` `.invalidScenario` naming the field.
    public func validate() throws {
        func fail(_ field: String, _ why: String) -> ScenarioError { ScenarioError(.invalidScenario, why, field: field) }
        guard id.range(of: "^[a-z][a-z0-9_-]{0,30}$", options: .regularExpression) != nil else {
            throw fail("id", "scenario id \"\(id)\" must match [a-z][a-z0-9_-]{0,30} (it names the result layers)")
        }
        let P = Ranges.returnPeriod
        guard P.contains(returnPeriod) else {
            throw fail("return_period_a", "return_period_a must be within \(Int(P.lowerBound))–\(Int(P.upperBound)) a (the storm-intensity formula is fitted to annual maxima; the largest design return period is 100 a, flood.md §1.3), got \(returnPeriod)")
        }
        if let rainfall {
            let window = Double(rainfall.to - rainfall.from) / 60_000_000
            guard timeStep > 0, timeStep <= window else { throw fail("time_step_min", "must be in (0, the observed window], got \(timeStep)") }
        } else {
            guard duration > 0, duration <= Ranges.durationMaximum else {
                throw fail("duration_min", "duration_min must be in (0, 1440] minutes (up to 24 h for 防涝, flood.md §2.3), got \(duration)")
            }
            guard timeStep > 0, timeStep <= duration else { throw fail("time_step_min", "time_step_min must be in (0, duration_min = \(duration)] minutes, got \(timeStep)") }
        }
        guard peakRatio > 0, peakRatio < 1 else { throw fail("peak_ratio", "peak_ratio must be in (0, 1) (the peak's position in the storm; usually 0.35–0.45, flood.md §2.3), got \(peakRatio)") }
        guard Ranges.groundFloorSill.contains(groundFloorSill) else {
            throw fail("ground_floor_sill_m", "ground_floor_sill_m must be within 0–3 m (at most a storey above the ground), got \(groundFloorSill)")
        }
        if case .fixed(let z)? = outfallStage, !z.isFinite { throw fail("outfall_stage_m", "outfall_stage_m must be a finite elevation in metres") }
        if case .series(let t, let s)? = outfallStage {
            guard !t.isEmpty, t.count == s.count, zip(t, t.dropFirst()).allSatisfy({ $0 < $1 }), s.allSatisfy(\.isFinite) else {
                throw fail("outfall_stage_m", "a stage series needs as many stage_m as increasing times_min (at least one)")
            }
        }
        for (k, st) in upgrades.storage.enumerated() where !(st.volume > 0 && st.volume.isFinite && Ranges.storageDepth.contains(st.depth)) {
            throw fail("upgrades.storage[\(k)]", "upgrades.storage[\(k)]: volume_m3 must be > 0 and depth_m within 0.1–60 m, got \(st.volume) m³ and \(st.depth) m")
        }
        for (pipe, d) in upgrades.pipes where !Ranges.pipeDiameter.contains(d) {
            throw fail("upgrades.pipes.\(pipe)", "upgrades.pipes.\(pipe): diameter must be 100–6000 mm, got \(d)")
        }
    }

    /// Reads a scenario file.
    /// - Throws: `ScenarioError` naming the file and the field.
    public static func load(contentsOf url: URL) throws -> FloodScenario {
        let data: Data
        do { data = try Data(contentsOf: url) } catch {
            throw ScenarioError(.invalidScenario, "cannot read \(url.path): \(error.localizedDescription)", field: nil)
        }
        return try decode(data, source: url.lastPathComponent)
    }

    /// Decodes a scenario document; `source` names it in errors.
    public static func decode(_ data: Data, source: String) throws -> FloodScenario {
        do {
            return try JSONDecoder().decode(FloodScenario.self, from: data)
        } catch let e as ScenarioError {
            throw ScenarioError(e.code, "\(source): \(e.message)", field: e.field)
        } catch let DecodingError.keyNotFound(key, _) {
            throw ScenarioError(.invalidScenario, "\(source): the field \"\(key.stringValue)\" is missing", field: key.stringValue)
        } catch let DecodingError.typeMismatch(_, ctx), let DecodingError.valueNotFound(_, ctx) {
            let path = ctx.codingPath.map(\.stringValue).joined(separator: ".")
            throw ScenarioError(.invalidScenario, "\(source): \(path): \(ctx.debugDescription)", field: path)
        } catch let DecodingError.dataCorrupted(ctx) {
            throw ScenarioError(.invalidScenario, "\(source): not valid JSON (\(ctx.debugDescription))", field: nil)
        }
    }

    /// The storm-intensity formula named by `stormFormula`, from a catalogue file.
    /// - Throws: `ScenarioError` when the catalogue has no such id.
    public func formula(catalog url: URL) throws -> (formula: StormIntensityFormula, verified: Bool) {
        let catalog: [String: StormIntensityFormula.CatalogEntry]
        do { catalog = try StormIntensityFormula.catalog(at: url) } catch {
            throw ScenarioError(.invalidScenario, "cannot read the storm-intensity catalogue \(url.path): \(error)", field: "storm_formula")
        }
        guard let entry = catalog[stormFormula] else {
            throw ScenarioError(.invalidScenario, "storm formula \"\(stormFormula)\" is not in \(url.lastPathComponent) (it has \(catalog.keys.sorted().joined(separator: ", ")))",
                                     field: "storm_formula")
        }
        return (entry.formula, entry.verified)
    }

    /// The design storm, with the duration scaled by `durationScale` (a shorter storm of the same
    /// shape for quick runs: intensities follow the formula for the scaled duration).
    public func storm(formula: StormIntensityFormula, durationScale: Double = 1) -> Hyetograph {
        let minutes = Swift.max(timeStep, duration * durationScale)
        return ChicagoStorm(formula: formula, returnPeriod: returnPeriod, duration: minutes, peakRatio: peakRatio)
            .hyetograph(step: Swift.min(timeStep, minutes))
    }

    /// The id part of result layer names: lower case, `-` → `_`.
    public var layerStem: String { resultStem ?? "flood_" + id.replacingOccurrences(of: "-", with: "_") }
    /// The file name of the run's maximum-depth raster (`ResultRasters`, beside `<layerStem>_depth`).
    public var maxDepthRasterName: String { layerStem + "_maxdepth.asc" }
}

