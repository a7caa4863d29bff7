import GeoCore
import NetworkAnalysis
import TwinStore

extension FloodResultLayers {
    /// Finds the emergency resources the flood cuts off at their door, as `HazardOverlay` does for
    /// the run's depth layer filtered to `min_depth_m ≥ 0.15`: the same area (the depth classes
    /// from 0.15 m up, dissolved by `HazardArea.dissolve`), the same road graph and closures, the
    /// same snapping. The summary's `cutOffResources`, the `_cutoff` layer and a hazard overlay on
    /// the depth layer so name the same resources. Fills `cutoff` (each resource, then each
    /// closed access road) and `cutOffCount`.
    mutating func markCutOff(store: any FeatureStore, by caller: Caller, graphs: EmergencyRoadGraphs = .shared) async throws {
        cutoff = []
        cutOffCount = 0
        let deep = depth.filter { ($0.properties["min_depth_m"]?.doubleValue ?? 0) >= Self.roadThreshold }.compactMap { $0.geometry.map(Self.multi) }
        guard !deep.isEmpty else { return }
        let area = try HazardArea.dissolve(deep)
        let roads = try await graphs.graph(for: store, profile: .driving, by: caller)
        let closures = try RoadClosures(network: roads.graph.network, intersecting: try roads.toMetric.transform(area))
        var resources: [EmergencyResource] = []
        for layer in EmergencyResource.layers where try await store.layerDefinition(layer, for: caller) != nil {
            resources += try await EmergencyResource.load(layer: layer, from: store, by: caller, field: "resourceLayers")
        }
        let closed = AccessClosure.closed(resources, accesses: try roads.access(resources: resources).accesses, by: closures, on: roads)
        let names = Dictionary(roadLines.map { ($0.id, $0.name) }, uniquingKeysWith: { a, _ in a })
        func depthProperties(_ road: String?) -> [String: JSONValue] {
            let rd = road.flatMap { roadDepth[$0] }
            return ["road_max_depth_m": rd.map { .number(($0.depth * 1000).rounded() / 1000) } ?? .null,
                    "hours_above_15cm": rd.map { .number(($0.hours * 100).rounded() / 100) } ?? .null]
        }
        var cutRoads = Set<String>()
        for c in closed {
            let r = c.resource
            if let road = c.roadID { cutRoads.insert(road) }
            var properties: [String: JSONValue] = [
                "kind": "resource", "resource_layer": .string(r.layer), "resource_id": .string(r.id), "name": .string(r.name ?? ""),
                "access_road_id": c.roadID.map { .string($0) } ?? .null, "access_road": .string(c.roadID.flatMap { names[$0] } ?? ""),
            ]
            properties.merge(depthProperties(c.roadID)) { a, _ in a }
            cutoff.append(Feature(id: .string("\(r.layer)/\(r.id)"), geometry: .point(Point(r.position)), properties: properties))
        }
        cutOffCount = closed.count
        for road in roadLines where cutRoads.contains(road.id) {
            var properties: [String: JSONValue] = [
                "kind": "road", "resource_layer": .null, "resource_id": .null, "name": .string(road.name),
                "access_road_id": .string(road.id), "access_road": .string(road.name),
            ]
            properties.merge(depthProperties(road.id)) { a, _ in a }
            cutoff.append(Feature(id: .string("road/\(road.id)"), geometry: try toStorage.transform(road.geometry), properties: properties))
        }
    }
}
