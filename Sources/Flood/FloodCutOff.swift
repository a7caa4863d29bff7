import Emergency
import GeoCore
import NetworkAnalysis
import TwinStore

extension FloodResultLayers {
    /// Finds the emergency resources the flood (and the scenario's closed roads) cut off, as
    /// `HazardOverlay` does for the run's depth layer filtered to `min_depth_m ≥ 0.15`: the same
    /// area (the depth classes from 0.15 m up, dissolved by `HazardArea.dissolve`), the same road
    /// graph and closures, the same snapping. A resource is cut off
    /// - at its door (`reason` `flooded` or `closed`): every road piece it is reached by is
    ///   flooded or closed in the scenario's sandbox (the overlay's `accessClosed` for `flooded`);
    /// - or `isolated`: its road is open but every way from it to the rest of the district crosses
    ///   a closed or flooded road (its open roads no longer belong to the largest connected part of
    ///   the network), e.g. a dead-end street behind a road the scenario closes.
    ///
    /// The summary's `cutOffResources`, the `_cutoff` layer and a hazard overlay on the depth layer
    /// so name the same resources. Fills `cutoff` (each resource, then each closed access road
    /// and each road the sandbox closes) and `cutOffCount`.
    /// - Parameter closedRoads: ids of `roads` the scenario's sandbox removes (closed roads).
    mutating func markCutOff(store: any FeatureStore, by caller: Caller, closedRoads: Set<String> = [],
                             graphs: EmergencyRoadGraphs = .shared) async throws {
        cutoff = []
        cutOffCount = 0
        let deep = depth.filter { ($0.properties["min_depth_m"]?.doubleValue ?? 0) >= Self.roadThreshold }.compactMap { $0.geometry.map(Self.multi) }
        guard !deep.isEmpty || !closedRoads.isEmpty else { return }
        let roads = try await graphs.graph(for: store, profile: .driving, by: caller)
        let network = roads.graph.network
        let flooded = deep.isEmpty ? RoadClosures.none
            : try RoadClosures(network: network, intersecting: try roads.toMetric.transform(try HazardArea.dissolve(deep)))
        let sandbox = Set(network.pieces.indices.filter { closedRoads.contains(network.lines[Int(network.pieces[$0].line)].id ?? "") })
        let closures = RoadClosures(pieces: flooded.pieces.union(sandbox))
        var resources: [EmergencyResource] = []
        for layer in EmergencyResource.layers where try await store.layerDefinition(layer, for: caller) != nil {
            resources += try await EmergencyResource.load(layer: layer, from: store, by: caller, field: "resourceLayers")
        }
        let accesses = try roads.access(resources: resources).accesses
        var closed = AccessClosure.closed(resources, accesses: accesses, by: closures, on: roads).map { ($0, $0.roadID, sandbox.contains($0.piece) ? "closed" : "flooded") }
        if !sandbox.isEmpty || !flooded.isEmpty {
            let main = Self.mainComponent(network, closures: closures)
            let atDoor = Set(closed.map { "\($0.0.resource.layer)/\($0.0.resource.id)" })
            for (resource, access) in zip(resources, accesses) {
                guard let access, !atDoor.contains("\(resource.layer)/\(resource.id)"),
                      access.positions.allSatisfy({ closures.contains($0.piece) || main[$0.piece] == false }) else { continue }
                let piece = access.positions.first { !closures.contains($0.piece) }?.piece ?? access.nearest.piece
                let road = network.lines[Int(network.pieces[piece].line)].id
                closed.append((AccessClosure(resource: resource, roadID: road, piece: piece), road, "isolated"))
            }
        }
        let names = Dictionary(roadLines.map { ($0.id, $0.name) }, uniquingKeysWith: { a, _ in a })
        func depthProperties(_ road: String?) -> [String: JSONValue] {
            let rd = road.flatMap { roadDepth[$0] }
            return ["road_max_depth_m": rd.map { .number(($0.depth * 1000).rounded() / 1000) } ?? .null,
                    "hours_above_15cm": rd.map { .number(($0.hours * 100).rounded() / 100) } ?? .null]
        }
        var cutRoads = Set<String>()
        for (c, roadID, reason) in closed {
            let r = c.resource
            if let road = roadID, reason != "isolated" { cutRoads.insert(road) }
            var properties: [String: JSONValue] = [
                "kind": "resource", "resource_layer": .string(r.layer), "resource_id": .string(r.id), "name": .string(r.name ?? ""),
                "access_road_id": roadID.map { .string($0) } ?? .null, "access_road": .string(roadID.flatMap { names[$0] } ?? ""),
                "reason": .string(reason),
            ]
            properties.merge(depthProperties(roadID)) { a, _ in a }
            cutoff.append(Feature(id: .string("\(r.layer)/\(r.id)"), geometry: .point(Point(r.position)), properties: properties))
        }
        cutOffCount = closed.count
        for road in roadLines where cutRoads.contains(road.id) {
            var properties: [String: JSONValue] = [
                "kind": "road", "resource_layer": .null, "resource_id": .null, "name": .string(road.name),
                "access_road_id": .string(road.id), "access_road": .string(road.name), "reason": "flooded",
            ]
            properties.merge(depthProperties(road.id)) { a, _ in a }
            cutoff.append(Feature(id: .string("road/\(road.id)"), geometry: try toStorage.transform(road.geometry), properties: properties))
        }
        // The roads the sandbox closes (gone from the scenario's roads, so drawn from the graph's lines).
        for line in network.lines where closedRoads.contains(line.id ?? "") {
            let id = line.id ?? ""
            cutoff.append(Feature(id: .string("road/\(id)"), geometry: try roads.toStorage.transform(.lineString(LineString(line.coordinates))), properties: [
                "kind": "road", "resource_layer": .null, "resource_id": .null, "name": .null,
                "access_road_id": .string(id), "access_road": .null, "reason": "closed", "road_max_depth_m": .null, "hours_above_15cm": .null,
            ]))
        }
    }

    /// Per road piece: whether it is open and belongs to the largest connected part of the open
    /// network (by length), the part the district's traffic and emergency services move in.
    static func mainComponent(_ network: RoadNetwork, closures: RoadClosures) -> [Bool] {
        var parent = Array(0..<network.nodes.count)
        func find(_ x: Int) -> Int {
            var x = x
            while parent[x] != x { parent[x] = parent[parent[x]]; x = parent[x] }
            return x
        }
        for (p, piece) in network.pieces.enumerated() where !closures.contains(p) {
            let a = find(Int(piece.from)), b = find(Int(piece.to))
            if a != b { parent[a] = b }
        }
        var length: [Int: Double] = [:]
        for (p, piece) in network.pieces.enumerated() where !closures.contains(p) { length[find(Int(piece.from)), default: 0] += piece.length }
        guard let main = length.max(by: { $0.value < $1.value })?.key else { return network.pieces.map { _ in false } }
        return network.pieces.indices.map { !closures.contains($0) && find(Int(network.pieces[$0].from)) == main }
    }
}
