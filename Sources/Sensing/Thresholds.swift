import Foundation
import GeoCore

/// Warning levels of a Datastream (`properties.thresholds`), e.g.
/// `[{"level": "warning", "value": 27.5, "direction": "above", "hysteresis": 0.2},
///   {"level": "rapid-rise", "rise_per_hour": 0.5}]`:
/// a reading beyond `value` raises an alert of that level; it clears once the reading is back
/// by more than `hysteresis` (the result's unit), so a value hovering at the line does not flap.
/// A rate-of-rise threshold (`rise_per_hour` instead of `value`) compares the change since the
/// previous reading, per hour, in the same way (`direction` below: a fall faster than the rate).
/// Levels are unique within a Datastream (an open alert is found by its level).
struct Threshold: Sendable, Hashable {
    enum Direction: String, Sendable { case above, below }
    var level: String
    var value: Double
    var direction: Direction
    var hysteresis: Double
    /// `value` is a rate per hour of the reading's change, not a level.
    var isRate = false

    /// Whether `reading` is beyond the line (raises).
    func crossed(by reading: Double) -> Bool {
        direction == .above ? reading > value : reading < value
    }

    /// Whether `reading` is back by more than the hysteresis (clears a raised alert).
    func cleared(by reading: Double) -> Bool {
        direction == .above ? reading <= value - hysteresis : reading >= value + hysteresis
    }
}

public enum Thresholds {
    /// The thresholds of a Datastream's `properties`; `[]` without any.
    static func parse(_ properties: JSONValue?) -> [Threshold] {
        (try? read(properties, path: "")) ?? []
    }

    /// Checks `properties.thresholds` of a Datastream being written.
    /// - Throws: `ThresholdError` naming the member at fault by its JSON path under `path`.
    public static func check(_ properties: JSONValue, path: String) throws {
        _ = try read(properties, path: path)
    }

    private static func read(_ properties: JSONValue?, path: String) throws -> [Threshold] {
        guard let list = properties?.objectValue?["thresholds"] else { return [] }
        let at = "\(path).thresholds"
        guard case .array(let items) = list else { throw ThresholdError(at, "must be an array of {level, value or rise_per_hour, direction, hysteresis}") }
        var out = [Threshold]()
        for (i, item) in items.enumerated() {
            let p = "\(at)[\(i)]"
            guard let o = item.objectValue else { throw ThresholdError(p, "must be a JSON object") }
            guard let level = o["level"]?.stringValue, !level.isEmpty else { throw ThresholdError("\(p).level", "must be a non-empty string") }
            let isRate = o["rise_per_hour"] != nil
            if isRate, o["value"] != nil { throw ThresholdError("\(p).rise_per_hour", "a threshold has a value or a rise_per_hour, not both") }
            let key = isRate ? "rise_per_hour" : "value"
            guard let value = o[key]?.doubleValue, value.isFinite else { throw ThresholdError("\(p).\(key)", "must be a number") }
            if isRate, value <= 0 { throw ThresholdError("\(p).rise_per_hour", "must be > 0 (the result's unit per hour)") }
            guard !out.contains(where: { $0.level == level }) else { throw ThresholdError("\(p).level", "'\(level)' is the level of an earlier threshold") }
            let directionText = o["direction"]?.stringValue ?? "above"
            guard let direction = Threshold.Direction(rawValue: directionText) else { throw ThresholdError("\(p).direction", "must be above or below") }
            let hysteresis = o["hysteresis"]?.doubleValue ?? 0
            guard hysteresis.isFinite, hysteresis >= 0 else { throw ThresholdError("\(p).hysteresis", "must be a number ≥ 0") }
            for key in o.keys where !["level", "value", "rise_per_hour", "direction", "hysteresis"].contains(key) {
                throw ThresholdError("\(p).\(key)", "not a threshold member (level, value or rise_per_hour, direction, hysteresis)")
            }
            out.append(Threshold(level: level, value: value, direction: direction, hysteresis: hysteresis, isRate: isRate))
        }
        return out
    }
}

extension Thresholds {
    /// The warning levels of the river gauge a Datastream's Thing monitors (`river_gauges`:
    /// `warning_level_m` → warning, `guarantee_level_m` → danger, above, 0.1 m hysteresis), for a
    /// water-level Datastream (unit m) whose own thresholds set no level.
    static let gaugeHysteresis = 0.1

    /// Water on a road (m): passable with care above 15 cm (flood.md §1.1), closed from 30 cm —
    /// the levels of a flood nowcast's road alerts (`FloodNowcastAlerts`).
    static let roadDepth = [Threshold(level: "warning", value: 0.15, direction: .above, hysteresis: 0.02),
                            Threshold(level: "danger", value: 0.3, direction: .above, hysteresis: 0.02)]

    /// A municipal hydrant's least outlet pressure, GB 50974-2014 §7.2.8 (MPa), cleared 0.01 MPa above it.
    static let hydrantPressure = [Threshold(level: "low-pressure", value: 0.10, direction: .below, hysteresis: 0.01)]

    static func fromGauge(_ gauge: Feature) -> [Threshold] {
        var out = [Threshold]()
        if let w = gauge.properties["warning_level_m"]?.doubleValue {
            out.append(Threshold(level: "warning", value: w, direction: .above, hysteresis: gaugeHysteresis))
        }
        if let g = gauge.properties["guarantee_level_m"]?.doubleValue {
            out.append(Threshold(level: "danger", value: g, direction: .above, hysteresis: gaugeHysteresis))
        }
        return out
    }
}

/// A Datastream's `properties.thresholds` that cannot be read: the member at fault by its JSON
/// path (e.g. `$.properties.thresholds[1].direction`) and why (the SensorThings API answers 400 with both).
public struct ThresholdError: Error, Sendable, Equatable {
    public let path: String
    public let reason: String

    public init(_ path: String, _ reason: String) {
        self.path = path
        self.reason = reason
    }
}
