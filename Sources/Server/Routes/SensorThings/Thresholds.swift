import Foundation
import GeoCore

/// Warning levels of a Datastream (`properties.thresholds`), e.g.
/// `[{"level": "warning", "value": 27.5, "direction": "above", "hysteresis": 0.2}]`:
/// a reading beyond `value` raises an alert of that level; it clears once the reading is back
/// by more than `hysteresis` (the result's unit), so a value hovering at the line does not flap.
struct Threshold: Sendable, Hashable {
    enum Direction: String, Sendable { case above, below }
    var level: String
    var value: Double
    var direction: Direction
    var hysteresis: Double

    /// Whether `reading` is beyond the line (raises).
    func crossed(by reading: Double) -> Bool {
        direction == .above ? reading > value : reading < value
    }

    /// Whether `reading` is back by more than the hysteresis (clears a raised alert).
    func cleared(by reading: Double) -> Bool {
        direction == .above ? reading <= value - hysteresis : reading >= value + hysteresis
    }
}

enum Thresholds {
    /// The thresholds of a Datastream's `properties`; `[]` without any.
    static func parse(_ properties: JSONValue?) -> [Threshold] {
        (try? read(properties, path: "")) ?? []
    }

    /// Checks `properties.thresholds` of a Datastream being written.
    static func check(_ properties: JSONValue, path: String) throws {
        _ = try read(properties, path: path)
    }

    private static func read(_ properties: JSONValue?, path: String) throws -> [Threshold] {
        guard let list = properties?.objectValue?["thresholds"] else { return [] }
        let at = "\(path).thresholds"
        guard case .array(let items) = list else { throw STAWriter.invalid(at, "must be an array of {level, value, direction, hysteresis}") }
        var out = [Threshold]()
        for (i, item) in items.enumerated() {
            let p = "\(at)[\(i)]"
            guard let o = item.objectValue else { throw STAWriter.invalid(p, "must be a JSON object") }
            guard let level = o["level"]?.stringValue, !level.isEmpty else { throw STAWriter.invalid("\(p).level", "must be a non-empty string") }
            guard let value = o["value"]?.doubleValue, value.isFinite else { throw STAWriter.invalid("\(p).value", "must be a number") }
            let directionText = o["direction"]?.stringValue ?? "above"
            guard let direction = Threshold.Direction(rawValue: directionText) else { throw STAWriter.invalid("\(p).direction", "must be above or below") }
            let hysteresis = o["hysteresis"]?.doubleValue ?? 0
            guard hysteresis.isFinite, hysteresis >= 0 else { throw STAWriter.invalid("\(p).hysteresis", "must be a number ≥ 0") }
            for key in o.keys where !["level", "value", "direction", "hysteresis"].contains(key) {
                throw STAWriter.invalid("\(p).\(key)", "not a threshold member (level, value, direction, hysteresis)")
            }
            out.append(Threshold(level: level, value: value, direction: direction, hysteresis: hysteresis))
        }
        return out
    }
}
