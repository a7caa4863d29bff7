import Foundation
import GeoCore
import NetworkAnalysis
import TwinStore

/// A feature of a utility network together with the layer it was read from.
public struct UtilityFeature: Sendable, Hashable {
    /// Layer id, e.g. `drainage_pipes`, `water_valves`.
    public var layer: String
    public var feature: Feature
    public init(layer: String, feature: Feature) {
        self.layer = layer
        self.feature = feature
    }
}

/// The rainwater/sewer network of the one map as a `DrainageGraph`, with the features behind
/// every node and link so results can be drawn.
///
/// Nodes: `drainage_manholes`, `drainage_outfalls` and (when present) `drainage_storage`.
/// Links: `drainage_pipes` from `upstream_node` to `downstream_node` (reversed when the survey
/// `flow_dir` is `-`), and (when present) `drainage_pumps` as links from `inlet_node` to their
/// `outfall`, as SWMM treats pumps. A storage facility hangs off its `node` manhole by a link
/// `"<storage id>@<node>"` (manhole → storage: the tank fills from the sewer); that link has no
/// feature of its own.
public struct StoreDrainageNetwork: Sendable {
    public let graph: DrainageGraph
    /// The feature behind each node id.
    public let nodeFeatures: [String: UtilityFeature]
    /// The feature behind each link id (pipes and pumps; storage links have none).
    public let linkFeatures: [String: UtilityFeature]

    /// Reads the drainage layers `caller` may see (access rules and masking applied by the store).
    /// - Throws: `StoreError` when a required layer (manholes, pipes, outfalls) is missing or hidden;
    ///   `UtilityNetworkError` naming the feature for a missing id or attribute, a duplicate id, or
    ///   a pipe whose end is not a node.
    public static func load(from store: any FeatureStore, by caller: Caller = .admin) async throws -> StoreDrainageNetwork {
        var nodes: [String] = [], nodeFeatures: [String: UtilityFeature] = [:]
        var pipes: [DrainageGraph.Pipe] = [], linkFeatures: [String: UtilityFeature] = [:]
        func addNode(_ layer: String, _ f: Feature) throws -> String {
            let id = try UtilityLayerReader.id(of: f, layer: layer)
            nodes.append(id)
            nodeFeatures[id] = UtilityFeature(layer: layer, feature: f)
            return id
        }
        for layer in ["drainage_manholes", "drainage_outfalls"] {
            for f in try await UtilityLayerReader.features(layer, in: store, by: caller) { _ = try addNode(layer, f) }
        }
        for f in try await UtilityLayerReader.features("drainage_pipes", in: store, by: caller) {
            let id = try UtilityLayerReader.id(of: f, layer: "drainage_pipes")
            var from = try UtilityLayerReader.text(f, "upstream_node", layer: "drainage_pipes", id: id)
            var to = try UtilityLayerReader.text(f, "downstream_node", layer: "drainage_pipes", id: id)
            if let dir = f.properties["flow_dir"]?.stringValue, dir == "-" || dir == "−" { swap(&from, &to) }
            pipes.append(.init(id: id, from: from, to: to))
            linkFeatures[id] = UtilityFeature(layer: "drainage_pipes", feature: f)
        }
        for f in try await UtilityLayerReader.features("drainage_storage", in: store, by: caller, optional: true) {
            let id = try addNode("drainage_storage", f)
            let node = try UtilityLayerReader.text(f, "node", layer: "drainage_storage", id: id)
            pipes.append(.init(id: "\(id)@\(node)", from: node, to: id))
        }
        for f in try await UtilityLayerReader.features("drainage_pumps", in: store, by: caller, optional: true) {
            let id = try UtilityLayerReader.id(of: f, layer: "drainage_pumps")
            pipes.append(.init(id: id, from: try UtilityLayerReader.text(f, "inlet_node", layer: "drainage_pumps", id: id),
                               to: try UtilityLayerReader.text(f, "outfall", layer: "drainage_pumps", id: id)))
            linkFeatures[id] = UtilityFeature(layer: "drainage_pumps", feature: f)
        }
        return StoreDrainageNetwork(graph: try DrainageGraph(nodes: nodes, pipes: pipes), nodeFeatures: nodeFeatures,
                                    linkFeatures: linkFeatures)
    }

    /// Upstream or downstream trace from a node or pipe id (see `DrainageGraph.trace`).
    public func trace(from start: String, direction: TraceDirection) throws -> NetworkTrace {
        try graph.trace(from: start, direction: direction)
    }

    /// The traced links then nodes as features (EPSG:4490) with their own properties plus
    /// `layer` and `trace_role` (`link` or `node`); links without a feature are left out.
    public func features(of trace: NetworkTrace) -> FeatureCollection {
        FeatureCollection(UtilityLayerReader.tagged(trace.links.compactMap { linkFeatures[$0] }, role: "link")
                          + UtilityLayerReader.tagged(trace.nodes.compactMap { nodeFeatures[$0] }, role: "node"))
    }
}

/// Reading utility layers: ids, required attributes, optional layers.
enum UtilityLayerReader {
    /// Every feature of `layer` (streamed in pages); an optional layer that is missing or hidden
    /// from `caller` reads as empty.
    static func features(_ layer: String, in store: any FeatureStore, by caller: Caller, optional: Bool = false,
                         bbox: BoundingBox? = nil) async throws -> [Feature] {
        if optional, try await store.layerDefinition(layer, for: caller) == nil { return [] }
        var out: [Feature] = []
        for try await f in store.stream(layer: layer, FeatureQuery(bbox: bbox, limit: 2000), by: caller) { out.append(f) }
        return out
    }

    static func id(of feature: Feature, layer: String) throws -> String {
        guard let id = feature.id else { throw UtilityNetworkError("a feature of \(layer) has no id") }
        return "\(id)"
    }

    static func text(_ feature: Feature, _ key: String, layer: String, id: String) throws -> String {
        guard let s = feature.properties[key]?.stringValue, !s.isEmpty else {
            throw UtilityNetworkError("\(layer)/\(id) has no \(key)", id: id)
        }
        return s
    }

    static func tagged(_ items: [UtilityFeature], role: String) -> [Feature] {
        items.map { item in
            var f = item.feature
            f.properties["layer"] = .string(item.layer)
            f.properties["trace_role"] = .string(role)
            return f
        }
    }
}
