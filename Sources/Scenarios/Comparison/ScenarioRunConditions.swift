import Flood
import Foundation
import GeoCore

/// What a scenario run's answer depends on besides the plan the scenario tests, so that two runs
/// compare only when they differ in the plan alone.
///
/// The plan is what a scenario changes: its sandbox edits (`changes`), a flood model's network
/// `upgrades` (storage tanks, larger pipes), a parking scenario's `guidance`. Everything else is a
/// condition: for a flood the storm (formula, return period, duration, peak position, interval,
/// or a nowcast's gauges and window), the river stage and where it applies, the ground-floor sill,
/// the run's resolution and length (`durationScale`, `demCoarsening`, `outputIntervalMinutes`),
/// its `start` when a scenario sets one (without it the storm starts at each scenario's base
/// instant, which moves only the time stamps) and its DEM; for a signal scenario the `period`
/// whose counts it meets; for a parking scenario the `drivers` and the trips' `seed`.
///
/// A flood run records its conditions in the scenario's result (`result.conditions`) as it ran
/// them (the model resolved); a run recorded before that is read from its parameters and its
/// summary's storm depth and length (`recorded` false).
public struct ScenarioRunConditions: Sendable, Equatable {
    /// Condition → value, e.g. `storm.returnPeriodYears` → 50; null where a default applies.
    public var values: [String: JSONValue]
    /// Whether these are the conditions the run recorded (false: read from an older record).
    public var recorded: Bool

    /// One condition two runs differ in.
    public struct Difference: Sendable, Equatable {
        public var condition: String
        public var a: JSONValue
        public var b: JSONValue

        public var json: JSONValue { ["condition": .string(condition), "a": a, "b": b] }
        public var text: String { "\(condition) (a: \(Self.text(a)), b: \(Self.text(b)))" }

        static func text(_ v: JSONValue) -> String {
            switch v {
            case .null: return "not set"
            case .string(let s): return s
            case .number(let d): return d == d.rounded() && abs(d) < 1e15 ? String(Int64(d)) : String(d)
            default:
                guard let data = try? JSONOutput.data(v) else { return "?" }
                return String(decoding: data, as: UTF8.self)
            }
        }
    }

    public var json: JSONValue { .object(values) }

    /// The conditions of a flood run of `model` at `durationScale` and `demCoarsening`, keeping a
    /// depth snapshot every `outputInterval` seconds (nil: none), for scenario `parameters`.
    static func flood(_ model: FloodScenario, durationScale: Double, demCoarsening: Int, outputInterval: Double?,
                      parameters: [String: JSONValue]) -> ScenarioRunConditions {
        var v: [String: JSONValue] = [:]
        if let rain = model.rainfall {
            v["storm.observedDatastreams"] = .array(rain.datastreams.map { .integer($0) })
            v["storm.observedFrom"] = .integer(rain.from)
            v["storm.observedTo"] = .integer(rain.to)
            v["storm.forecastMillimetres"] = rain.forecast.map { .array($0.depths.map(JSONValue.number)) } ?? .null
            v["storm.forecastIntervalMinutes"] = rain.forecast.map { .number($0.interval) } ?? .null
        } else {
            v["storm.formula"] = .string(model.stormFormula)
            v["storm.returnPeriodYears"] = .number(model.returnPeriod)
            v["storm.durationMinutes"] = .number(model.duration)
            v["storm.peakRatio"] = .number(model.peakRatio)
        }
        v["storm.timeStepMinutes"] = .number(model.timeStep)
        switch model.outfallStage {
        case .fixed(let z)?: v["riverStageMetres"] = .number(z)
        case .series(let t, let s)?: v["riverStageMetres"] = ["times_min": .array(t.map(JSONValue.number)), "stage_m": .array(s.map(JSONValue.number))]
        case nil: v["riverStageMetres"] = .null
        }
        v["stageReceivingWaters"] = model.stageReceivingWaters.map { .array($0.sorted().map(JSONValue.string)) } ?? .null
        v["groundFloorSillMetres"] = .number(model.groundFloorSill)
        v["durationScale"] = .number(durationScale)
        v["demCoarsening"] = .integer(Int64(demCoarsening))
        v["outputIntervalMinutes"] = outputInterval.map { .number($0 / 60) } ?? .null
        v["start"] = explicit(parameters["start"])
        v["dem"] = explicit(parameters["dem"])
        return ScenarioRunConditions(values: v, recorded: true)
    }

    static func explicit(_ value: JSONValue?) -> JSONValue {
        guard let value, !value.isNull else { return .null }
        return value
    }

    /// The conditions of a finished scenario: as its run recorded them, else from its record.
    public static func of(_ s: Scenario) -> ScenarioRunConditions {
        if s.kind == "flood", let recorded = s.result?.objectValue?["conditions"]?.objectValue {
            return ScenarioRunConditions(values: recorded, recorded: true)
        }
        return fromRecord(s)
    }

    /// The conditions that can be read from a scenario's parameters and its run's summary (a
    /// flood run recorded before runs recorded their conditions: its storm is known by its depth
    /// and the simulated time, which differ when the storm, its duration or `durationScale` do).
    static func fromRecord(_ s: Scenario) -> ScenarioRunConditions {
        let p = s.parameters
        var v: [String: JSONValue] = [:]
        switch s.kind {
        case "signal":
            v["period"] = explicit(p["period"]).isNull ? "07:00-09:00" : p["period"]!
        case "parking":
            v["drivers"] = explicit(p["drivers"])
            v["seed"] = explicit(p["seed"]).isNull ? .integer(17) : p["seed"]!
        default:
            let summary = s.result?.objectValue?["summary"]
            v["storm.rainMillimetres"] = summary?["rainfallMillimetres"]?.doubleValue.map { .number(($0 * 1000).rounded() / 1000) } ?? .null
            v["simulatedSeconds"] = summary?["simulatedSeconds"] ?? .null
            v["cellSizeMetres"] = summary?["cellSize"] ?? .null
            v["durationScale"] = p["durationScale"]?.doubleValue.map(JSONValue.number) ?? .number(1)
            v["demCoarsening"] = p["demCoarsening"]?.doubleValue.map { .integer(Int64($0)) } ?? .integer(1)
            v["outputIntervalMinutes"] = p["outputIntervalMinutes"]?.doubleValue.map(JSONValue.number) ?? .number(5)
            v["start"] = explicit(p["start"])
            v["dem"] = explicit(p["dem"])
        }
        return ScenarioRunConditions(values: v, recorded: s.kind != "flood")
    }

    /// The conditions `a` and `b` ran under that differ, by name. Two flood runs of which one
    /// has no recorded conditions are both read from their records.
    public static func differences(_ a: Scenario, _ b: Scenario) -> [Difference] {
        var ca = of(a), cb = of(b)
        if ca.recorded != cb.recorded {
            ca = fromRecord(a)
            cb = fromRecord(b)
        }
        return Set(ca.values.keys).union(cb.values.keys).sorted().compactMap { key in
            let va = ca.values[key] ?? .null, vb = cb.values[key] ?? .null
            return Self.same(va, vb) ? nil : Difference(condition: key, a: va, b: vb)
        }
    }

    /// JSON values equal as numbers where both are numbers (an integer 10 and a number 10.0 alike).
    static func same(_ x: JSONValue, _ y: JSONValue) -> Bool {
        if let dx = x.doubleValue, let dy = y.doubleValue { return dx == dy }
        return x == y
    }
}
