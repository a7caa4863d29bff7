import GeoCore
import TwinStore

extension LeafBuilder {
    /// A pipe's section radius, metres: half the diameter of a circular pipe, half the height of a
    /// box section (drawn as a tube of that radius), from the layer's millimetre fields.
    static func pipeRadius(_ p: [String: JSONValue]) -> Double? {
        let mm = p["diameter_mm"]?.doubleValue ?? p["height_mm"]?.doubleValue
        return mm.flatMap { $0 > 0 ? $0 / 2000 : nil }
    }

    /// A pipe's tube: the axis runs from the upstream node's invert + `inlet_offset_m` + the radius
    /// to the downstream node's invert + `outlet_offset_m` + the radius, straight in elevation
    /// along the line's length (the line runs upstream to downstream unless `flow_dir` is `-`).
    /// Returns the lowest axis elevation, `nil` for a pipe whose nodes or section are unknown.
    func addPipe(_ feature: Feature, to mesh: inout TileMesh, id: UInt32, toMetric: CoordinateTransformer) throws -> Double? {
        let p = feature.properties
        guard case .lineString(let line) = feature.geometry, line.positions.count >= 2,
              let radius = Self.pipeRadius(p),
              let up = p["upstream_node"]?.stringValue.flatMap({ nodeInverts[$0] }),
              let down = p["downstream_node"]?.stringValue.flatMap({ nodeInverts[$0] }) else { return nil }
        let start = up + (p["inlet_offset_m"]?.doubleValue ?? 0) + radius
        let end = down + (p["outlet_offset_m"]?.doubleValue ?? 0) + radius
        let reversed = p["flow_dir"]?.stringValue == "-"
        var metric = line.positions.map(\.xy)
        try toMetric.transform(&metric)
        var along = [0.0]
        for i in metric.indices.dropFirst() {
            along.append(along[i - 1] + ((metric[i].x - metric[i - 1].x) * (metric[i].x - metric[i - 1].x)
                                         + (metric[i].y - metric[i - 1].y) * (metric[i].y - metric[i - 1].y)).squareRoot())
        }
        guard let total = along.last, total > 0 else { return nil }
        let axis = line.positions.indices.map { i in
            let t = reversed ? 1 - along[i] / total : along[i] / total
            return Position(x: line.positions[i].x, y: line.positions[i].y, z: start + (end - start) * t)
        }
        try mesh.addTube(axis: axis, radius: radius, frame: frame, feature: id)
        return min(start, end)
    }

    /// A manhole's cylinder (0.5 m radius: a 1 m well) from its rim down to its invert; returns the invert.
    func addManhole(_ feature: Feature, to mesh: inout TileMesh, id: UInt32) throws -> Double? {
        guard case .point(let point) = feature.geometry, let at = point.position,
              let rim = feature.properties["rim_elevation_m"]?.doubleValue,
              let invert = feature.properties["invert_elevation_m"]?.doubleValue, rim > invert else { return nil }
        try mesh.addCylinder(centre: at, bottom: invert, top: rim, radius: Self.manholeRadius, frame: frame, feature: id)
        return invert
    }

    /// A manhole's radius, metres.
    static let manholeRadius = 0.5

    /// The builder of `definition`'s leaves, with the node inverts its pipes need.
    static func make(_ definition: LayerDefinition, _ rule: SolidRule, frame: LocalFrame, terrain: Terrain,
                     store: any FeatureStore, caller: Caller) async throws -> LeafBuilder {
        var builder = LeafBuilder(layer: definition, rule: rule, frame: frame, terrain: terrain)
        if case .pipes(let nodes) = rule { builder.nodeInverts = try await nodeInverts(nodes, store: store, caller: caller) }
        return builder
    }

    /// The invert elevations of the nodes in `layers` the caller may read, by feature id.
    static func nodeInverts(_ layers: [String], store: any FeatureStore, caller: Caller) async throws -> [String: Double] {
        var inverts: [String: Double] = [:]
        for layer in layers where try await store.layerDefinition(layer, for: caller) != nil {
            for try await node in store.stream(layer: layer, FeatureQuery(limit: FeatureQuery.maximumLimit), by: caller) {
                if let id = node.id?.description, let z = node.properties["invert_elevation_m"]?.doubleValue { inverts[id] = z }
            }
        }
        return inverts
    }
}
