import Foundation
import GeoCore
import TwinStore

/// The alerts of a flood nowcast (a scenario with observed `rainfall`), kept in step with its
/// latest run in the `alerts` collection (`SensingAlerts`, `source` "flood-nowcast"):
///
/// - a road whose maximum depth exceeds 15 cm (flood.md §1.1) raises an alert at the point where
///   it is deepest, level `warning`, or `danger` from 30 cm (where cars stall and the road closes);
/// - an emergency resource whose access road the water closes (the run's `_cutoff` layer, as the
///   hazard overlay on its depth layer finds them) raises a `cut-off` alert at the resource;
/// - a later run of the same scenario updates the open alerts it finds again (value, level, peak;
///   `raised_at` stays) and clears those it does not (`cleared_at`, `cleared_value`).
///
/// `phenomenonTime` is the end of the observed window: the time of the data the nowcast stands on.
/// Written through the store, so `/alerts/events` pushes them wherever the run ran.
public struct FloodNowcastAlerts: Sendable {
    /// What a write did.
    public struct Count: Sendable, Encodable, Equatable {
        public var raised = 0
        public var updated = 0
        public var cleared = 0
        /// Alerts of this scenario open after the write.
        public var open = 0
    }

    /// Depth from which a flooded road's alert is `danger`, m.
    public static let dangerDepth = 0.3

    let scenario: FloodScenario
    let results: FloodResultLayers
    let phenomenonTime: Int64

    init(scenario: FloodScenario, results: FloodResultLayers, phenomenonTime: Int64) {
        self.scenario = scenario
        self.results = results
        self.phenomenonTime = phenomenonTime
    }

    /// The alerts this run finds, keyed by what they are about (`road/<id>`, `resource/<layer>/<id>`).
    func current() -> [String: (geometry: Geometry?, properties: [String: JSONValue])] {
        var out: [String: (geometry: Geometry?, properties: [String: JSONValue])] = [:]
        let names = Dictionary(results.roadLines.map { ($0.id, $0.name) }, uniquingKeysWith: { a, _ in a })
        for (road, rd) in results.roadDepth where rd.depth > FloodResultLayers.roadThreshold {
            let depth = (rd.depth * 1000).rounded() / 1000
            let danger = rd.depth >= Self.dangerDepth
            out["road/\(road)"] = (results.roadDeepest[road].map { .point(Point($0)) }, [
                "level": danger ? "danger" : "warning", "threshold": .number(danger ? Self.dangerDepth : FloodResultLayers.roadThreshold),
                "value": .number(depth), "road_id": .string(road), "road": .string(names[road] ?? ""), "name": .string(names[road] ?? ""),
            ])
        }
        for f in results.cutoff where f.properties["kind"] == "resource" {
            guard let layer = f.properties["resource_layer"]?.stringValue, let id = f.properties["resource_id"]?.stringValue else { continue }
            out["resource/\(layer)/\(id)"] = (f.geometry, [
                "level": "cut-off", "threshold": .number(FloodResultLayers.roadThreshold),
                "value": .number(f.properties["road_max_depth_m"]?.doubleValue ?? FloodResultLayers.roadThreshold), "road_id": f.properties["access_road_id"] ?? .null,
                "road": f.properties["access_road"] ?? .null, "resource_layer": .string(layer), "resource_id": .string(id),
                "name": f.properties["name"] ?? .null,
            ])
        }
        return out
    }

    /// What an alert is about, from its properties.
    static func subject(_ p: [String: JSONValue]) -> String? {
        if let layer = p["resource_layer"]?.stringValue, let id = p["resource_id"]?.stringValue { return "resource/\(layer)/\(id)" }
        if let road = p["road_id"]?.stringValue { return "road/\(road)" }
        return nil
    }

    /// Raises, updates and clears the scenario's alerts in one upsert.
    func write(to store: any FeatureStore, by caller: Caller) async throws -> Count {
        try await SensingAlerts.ensureLayer(in: store)
        let filter = try CQL2.parseText("source = 'flood-nowcast' AND scenario = '\(scenario.id)' AND cleared_at IS NULL", queryables: nil)
        var open: [String: Feature] = [:]
        for try await f in store.stream(layer: SensingAlerts.layer, FeatureQuery(filter: filter, limit: 1000), by: .admin) {
            if let key = Self.subject(f.properties) { open[key] = f }
        }
        let now = JSONValue.string(SensingTime.format(SensingTime.now))
        let when = JSONValue.string(SensingTime.format(phenomenonTime))
        var count = Count()
        var written: [Feature] = []
        let found = current()
        for (key, alert) in found.sorted(by: { $0.key < $1.key }) {
            let value = alert.properties["value"]?.doubleValue ?? 0
            if var f = open[key] {
                let before = f
                for (k, v) in alert.properties { f.properties[k] = v }
                f.properties["peak"] = .number(Swift.max(value, f.properties["peak"]?.doubleValue ?? value))
                f.geometry = alert.geometry ?? f.geometry
                if f != before {
                    written.append(f)
                    count.updated += 1
                }
            } else {
                var p = alert.properties
                p["source"] = "flood-nowcast"
                p["scenario"] = .string(scenario.id)
                p["direction"] = "above"
                p["hysteresis"] = 0
                p["peak"] = .number(value)
                p["phenomenonTime"] = when
                p["raised_at"] = now
                p["cleared_at"] = .null
                p["cleared_value"] = .null
                p["cleared_phenomenonTime"] = .null
                let id = "flood-\(scenario.id)-\(key.replacingOccurrences(of: "/", with: "-"))-\(phenomenonTime / 1_000_000)"
                written.append(Feature(id: .string(id), geometry: alert.geometry, properties: p))
                count.raised += 1
            }
        }
        for (key, var f) in open.sorted(by: { $0.key < $1.key }) where found[key] == nil {
            var value = 0.0
            if key.hasPrefix("road/"), let rd = results.roadDepth[String(key.dropFirst(5))] { value = (rd.depth * 1000).rounded() / 1000 }
            f.properties["cleared_at"] = now
            f.properties["cleared_value"] = .number(value)
            f.properties["cleared_phenomenonTime"] = when
            written.append(f)
            count.cleared += 1
        }
        count.open = found.count
        if !written.isEmpty { try await store.upsert(layer: SensingAlerts.layer, features: written, by: caller, at: nil) }
        return count
    }
}
