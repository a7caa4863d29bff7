import Foundation
import GeoCore

extension ManifestLayerReader {
    /// A road layer's lines as ways for `RoadNetworkDraft`, derived as OpenStreetMap's are: `class`
    /// a CJJ 37 class or an OpenStreetMap `highway` value (`RoadRules.classes`); `speed_kmh` and
    /// `lanes` when given, else the class's (derived); `oneway` true/false or a direction word;
    /// `level` a whole number. A multi-line is one way per part (`<id>.<k>`); a line without a class
    /// is dropped (counted).
    /// - Parameter prefix: put before every id (a layer of several sources: `2/` for the second).
    /// - Throws: `ManifestError` naming the member whose value a feature holds cannot be read.
    mutating func ways(_ features: [Feature], prefix: String) throws -> [RoadNetworkDraft.Way] {
        var ways: [RoadNetworkDraft.Way] = []
        for (n, f) in features.enumerated() {
            let id = prefix + (f.id.map { "\($0)" } ?? "\(n + 1)")
            let parts: [[Position]]
            switch f.geometry {
            case .lineString(let l)?: parts = [l.positions]
            case .multiLineString(let m)?: parts = m.lineStrings.map(\.positions)
            default:
                report["roads: dropped, not a line", default: 0] += 1
                continue
            }
            guard let given = f.properties["class"] else {
                report["roads: dropped, no class (an empty value or one mapped to null)", default: 0] += 1
                continue
            }
            func bad(_ target: String, _ allowed: String) -> ManifestError {
                ManifestError(path: "\(source.path).fields.\(target)",
                              "feature \(id): \(f.properties[target].map { Self.key($0) } ?? "") is not a road's \(target)"
                              + " (translate the source's values in values.\(target))", allowed: allowed)
            }
            let text = Self.key(given)
            guard let roadClass = RoadRules.speeds[text] != nil ? text : RoadRules.classes[text] else {
                throw bad("class", "快速路, 主干路, 次干路, 支路, or an OpenStreetMap highway value: \(RoadRules.classes.keys.sorted().joined(separator: ", "))")
            }
            var speed: Int?
            if let v = f.properties["speed_kmh"] {
                guard let s = Self.whole(v), (1...200).contains(s) else { throw bad("speed_kmh", "a whole number of km/h, 1–200") }
                speed = s
            }
            var lanes: Int?
            if let v = f.properties["lanes"] {
                guard let l = Self.whole(v), (1...16).contains(l) else { throw bad("lanes", "a whole number, 1–16") }
                lanes = l
            }
            var direction = RoadRules.Direction.both
            if let v = f.properties["oneway"] {
                guard let d = Self.direction(v) else { throw bad("oneway", "true, false, yes, no, 1, 0, -1, forward, backward, both") }
                direction = d
            } else {
                report["roads with oneway derived (not in the source: two-way)", default: 0] += 1
            }
            var level = 0
            if let v = f.properties["level"] {
                guard let l = Self.whole(v), (-10...10).contains(l) else { throw bad("level", "a whole number, -10–10 (0 at grade, 1 a bridge, -1 a tunnel)") }
                level = l
            }
            let name = f.properties["name"].map { Self.key($0) } ?? ""
            let attributes = RoadNetworkDraft.Attributes(roadClass: roadClass, direction: direction, speed: speed, lanes: lanes, name: name)
            for (k, positions) in parts.enumerated() {
                ways.append(.init(id: parts.count == 1 ? id : "\(id).\(k + 1)", positions: positions, attributes: attributes, level: level))
            }
        }
        return ways
    }

    static func whole(_ value: JSONValue) -> Int? {
        if let i = value.integerValue { return Int(exactly: i) }
        if let s = value.stringValue, let i = Int(s.trimmingCharacters(in: .whitespaces)) { return i }
        return nil
    }

    static func direction(_ value: JSONValue) -> RoadRules.Direction? {
        if let b = value.boolValue { return b ? .forward : .both }
        switch key(value).lowercased() {
        case "yes", "true", "1", "forward": return .forward
        case "-1", "reverse", "backward": return .backward
        case "no", "false", "0", "both": return .both
        default: return nil
        }
    }
}
