/// How an OpenStreetMap way becomes a CityTwin road: the one table of rules (docs/capabilities/city-build.md
/// shows it). Every value the way does not tag is derived here and reported as derived.
public enum RoadRules {
    /// `highway=*` values a motor vehicle drives on, with their CJJ 37-2012 class: motorway and trunk
    /// (China tags its urban expressways trunk) 快速路, primary 主干路, secondary 次干路, the rest 支路.
    public static let classes: [String: String] = [
        "motorway": "快速路", "motorway_link": "快速路", "trunk": "快速路", "trunk_link": "快速路",
        "primary": "主干路", "primary_link": "主干路",
        "secondary": "次干路", "secondary_link": "次干路",
        "tertiary": "支路", "tertiary_link": "支路", "unclassified": "支路", "residential": "支路",
        "living_street": "支路", "service": "支路", "road": "支路",
    ]

    /// Design speed by class when `maxspeed` is not tagged, km/h: the middle of CJJ 37-2012's
    /// ranges (快速路 60–100, 主干路 40–60, 次干路 30–50, 支路 20–40).
    public static let speeds: [String: Int] = ["快速路": 80, "主干路": 60, "次干路": 40, "支路": 30]

    /// Motor lanes in both directions by class when `lanes` is not tagged; a one-way road has half (at least 1).
    public static let lanes: [String: Int] = ["快速路": 6, "主干路": 6, "次干路": 4, "支路": 2]

    /// The class of a way's `highway` value, or `nil` for a way motor vehicles do not use.
    public static func roadClass(_ tags: OSMTags) -> String? {
        guard let highway = tags["highway"], let c = classes[highway] else { return nil }
        if tags["access"] == "no" || tags["motor_vehicle"] == "no" || tags["area"] == "yes" { return nil }
        return c
    }

    /// Which way traffic may go: `oneway=yes|true|1` along the line, `-1|reverse` against it,
    /// roundabouts (`junction=roundabout|circular`) and motorways along it unless `oneway=no`.
    public enum Direction: Sendable, Hashable { case both, forward, backward }

    public static func direction(_ tags: OSMTags) -> Direction {
        switch tags["oneway"]?.lowercased() {
        case "yes", "true", "1": return .forward
        case "-1", "reverse": return .backward
        case "no", "false", "0": return .both
        default: break
        }
        if ["roundabout", "circular"].contains(tags["junction"] ?? "") { return .forward }
        if ["motorway", "motorway_link"].contains(tags["highway"] ?? "") { return .forward }
        return .both
    }

    /// `maxspeed` in km/h: a number, `N mph`, or `none` (an unrestricted road: its class's speed);
    /// `nil` when absent or unreadable (`CN:urban` and other zone codes: the class's speed).
    public static func maxspeed(_ tags: OSMTags) -> Int? {
        guard let text = tags["maxspeed"]?.trimmingCharacters(in: .whitespaces).lowercased() else { return nil }
        let parts = text.split(separator: ";").first.map(String.init) ?? text
        if parts.hasSuffix("mph"), let v = Double(parts.dropLast(3).trimmingCharacters(in: .whitespaces)) {
            return Int((v * 1.609344).rounded())
        }
        if let v = Double(parts.replacingOccurrences(of: "km/h", with: "").trimmingCharacters(in: .whitespaces)), v > 0, v <= 200 {
            return Int(v.rounded())
        }
        return nil
    }

    /// `lanes` as a whole number 1–16, or `nil`.
    public static func taggedLanes(_ tags: OSMTags) -> Int? {
        guard let text = tags["lanes"], let v = Int(text.split(separator: ";").first ?? ""), (1...16).contains(v) else { return nil }
        return v
    }
}

import Foundation
