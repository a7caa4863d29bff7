import Foundation
import GeoCore
import NetworkAnalysis
import TwinStore

/// The layers of a pressurised utility network: water supply or gas. Both are valved networks of
/// undirected mains fed from sources, traced and isolated the same way (`WaterNetwork`).
public struct PressureNetworkLayers: Sendable, Hashable {
    /// The network's name in inputs and options: `water` or `gas`.
    public var name: String
    public var nodes: String
    public var mains: String
    public var valves: String
    /// The customers' service connections (`main` or `node`, `address_code`).
    public var customers: String
    /// `node_type` values of the nodes the network is fed from.
    public var sourceTypes: Set<String>

    /// Water supply: `water_nodes` (sources `水源`), `water_mains`, `water_valves`, `water_connections`.
    public static let water = PressureNetworkLayers(name: "water", nodes: "water_nodes", mains: "water_mains", valves: "water_valves",
                                                    customers: "water_connections", sourceTypes: ["水源"])
    /// Gas (GB 50028): `gas_nodes` (sources: the city gate stations `门站`; a regulator station `调压站`
    /// passes gas on from one pressure class to the next, see `gas_regulators`), `gas_mains` by
    /// pressure class, `gas_valves`, `gas_customers`.
    public static let gas = PressureNetworkLayers(name: "gas", nodes: "gas_nodes", mains: "gas_mains", valves: "gas_valves",
                                                  customers: "gas_customers", sourceTypes: ["门站"])
    public static let all = [water, gas]

    /// The layers of the network named `name`, nil for another name.
    public static func named(_ name: String) -> PressureNetworkLayers? { all.first { $0.name == name } }

    /// Every layer, in reading order.
    public var ids: [String] { [nodes, mains, valves, customers] }
}

/// The water and gas networks the utility processes answer from: read once per store and view
/// (`LayerDerivedCache`: which layers the caller reads, which attributes are masked for it) and
/// read again when the change feed shows one of the network's layers, or one the critical customers
/// are found from (hospitals, shelters, buildings, addresses), changed. An emergency team isolating
/// main after main waits for the isolation, not for the network's layers to be read each time.
public struct StorePressureNetworks: Sendable {
    /// The networks shared by every process of this server or worker.
    public static let shared = StorePressureNetworks()

    private let caches: [PressureNetworkLayers: LayerDerivedCache<StorePressureNetwork>]

    public init(criticalRule: UtilityNetworkCriticalCustomers = .init()) {
        caches = Dictionary(uniqueKeysWithValues: PressureNetworkLayers.all.map { layers in
            (layers, LayerDerivedCache(layers: Set(layers.ids + criticalRule.facilityLayers + ["buildings", "addresses"])) { store, caller in
                try await StorePressureNetwork.load(layers, from: store, by: caller, criticalRule: criticalRule)
            })
        })
    }

    /// `layers`' network as `caller` reads it now; as `StorePressureNetwork.load`.
    public func network(_ layers: PressureNetworkLayers, in store: any FeatureStore, by caller: Caller) async throws -> StorePressureNetwork {
        guard let cache = caches[layers] else { return try await StorePressureNetwork.load(layers, from: store, by: caller) }
        return try await cache.value(for: store, by: caller)
    }
}

/// A pressurised network of the one map (water supply or gas, `PressureNetworkLayers`) as a
/// `WaterNetwork`, with the features behind every id and the critical customers derived from
/// hospitals and shelters.
///
/// Nodes: `<nodes>` (sources: `node_type` among the layers' source types). Mains: `<mains>` from
/// `from_node` to `to_node`. Valves: `<valves>` on `main`, next to `near_node`. A normally closed
/// (`常闭`) valve next to a node is modelled as that main end detached from the node (it carries
/// nothing through that end in normal operation) and is not offered for closing; a normally closed
/// valve without `near_node` stays an ordinary valve. Customers: `<customers>` on `main` (or
/// `node`), serving `address_code`; which are critical is `UtilityNetworkCriticalCustomers`' rule.
public struct StorePressureNetwork: Sendable {
    public let layers: PressureNetworkLayers
    public let network: WaterNetwork
    public let nodeFeatures: [String: Feature]
    public let mainFeatures: [String: Feature]
    public let valveFeatures: [String: Feature]
    public let connectionFeatures: [String: Feature]
    /// Critical customers by connection id.
    public let criticalCustomers: [String: CriticalCustomer]

    /// Reads the network's layers `caller` may see, and hospitals, shelters, buildings and addresses
    /// (when present) to find the critical customers.
    /// - Throws: `StoreError` when a required layer (nodes, mains, valves, customers) is missing
    ///   or hidden; `UtilityNetworkError` naming the feature for a missing id or attribute or a
    ///   reference to an unknown node or main.
    public static func load(_ layers: PressureNetworkLayers, from store: any FeatureStore, by caller: Caller = .admin,
                            criticalRule: UtilityNetworkCriticalCustomers = .init()) async throws -> StorePressureNetwork {
        var nodes: [String] = [], sources: [String] = [], nodeFeatures: [String: Feature] = [:]
        for f in try await UtilityLayerReader.features(layers.nodes, in: store, by: caller) {
            let id = try UtilityLayerReader.id(of: f, layer: layers.nodes)
            nodes.append(id)
            nodeFeatures[id] = f
            if let type = f.properties["node_type"]?.stringValue, layers.sourceTypes.contains(type) { sources.append(id) }
        }
        var mains: [WaterNetwork.Main] = [], mainFeatures: [String: Feature] = [:], mainIndex: [String: Int] = [:]
        for f in try await UtilityLayerReader.features(layers.mains, in: store, by: caller) {
            let id = try UtilityLayerReader.id(of: f, layer: layers.mains)
            mainIndex[id] = mains.count
            mains.append(.init(id: id, from: try UtilityLayerReader.text(f, "from_node", layer: layers.mains, id: id),
                               to: try UtilityLayerReader.text(f, "to_node", layer: layers.mains, id: id)))
            mainFeatures[id] = f
        }
        var valves: [WaterNetwork.Valve] = [], valveFeatures: [String: Feature] = [:]
        for f in try await UtilityLayerReader.features(layers.valves, in: store, by: caller) {
            let id = try UtilityLayerReader.id(of: f, layer: layers.valves)
            let main = f.properties["main"]?.stringValue, node = f.properties["near_node"]?.stringValue
            guard main != nil || node != nil else {
                throw UtilityNetworkError("\(layers.valves)/\(id) names neither main nor near_node", id: id)
            }
            valveFeatures[id] = f
            if f.properties["status"]?.stringValue == "常闭", let main, let node, let k = mainIndex[main],
               mains[k].from == node || mains[k].to == node {
                // Detach the main's end from the node onto a node of its own.
                let detached = "\(node)|\(id)"
                nodes.append(detached)
                if mains[k].from == node { mains[k].from = detached } else { mains[k].to = detached }
                continue
            }
            valves.append(.init(id: id, main: main, node: node))
        }
        var connections: [WaterNetwork.Connection] = [], connectionFeatures: [String: Feature] = [:]
        let rawConnections = try await UtilityLayerReader.features(layers.customers, in: store, by: caller)
        let critical = try await criticalRule.find(connections: rawConnections, in: store, by: caller)
        for f in rawConnections {
            let id = try UtilityLayerReader.id(of: f, layer: layers.customers)
            let main = f.properties["main"]?.stringValue, node = f.properties["node"]?.stringValue
            guard main != nil || node != nil else {
                throw UtilityNetworkError("\(layers.customers)/\(id) names neither main nor node", id: id)
            }
            connections.append(.init(id: id, main: main, node: main == nil ? node : nil,
                                     addressCode: f.properties["address_code"]?.stringValue, critical: critical[id] != nil))
            connectionFeatures[id] = f
        }
        let network = try WaterNetwork(nodes: nodes, mains: mains, sources: sources, valves: valves, connections: connections)
        return StorePressureNetwork(layers: layers, network: network, nodeFeatures: nodeFeatures, mainFeatures: mainFeatures,
                                 valveFeatures: valveFeatures, connectionFeatures: connectionFeatures, criticalCustomers: critical)
    }

    /// Everything connected to a node or main through open mains (mains are undirected, so
    /// up- and downstream coincide), with `closedValves` shut; detached valve ends are left out.
    public func trace(from start: String, closedValves: Set<String> = []) throws -> NetworkTrace {
        let t = try network.trace(from: start, closedValves: closedValves)
        return NetworkTrace(nodes: t.nodes.filter { nodeFeatures[$0] != nil }, links: t.links)
    }

    /// The traced mains then nodes as features (EPSG:4490), tagged with `layer` and `trace_role`.
    public func features(of trace: NetworkTrace) -> FeatureCollection {
        FeatureCollection(
            UtilityLayerReader.tagged(trace.links.compactMap { mainFeatures[$0].map { UtilityFeature(layer: layers.mains, feature: $0) } },
                                      role: "link")
            + UtilityLayerReader.tagged(trace.nodes.compactMap { nodeFeatures[$0].map { UtilityFeature(layer: layers.nodes, feature: $0) } },
                                        role: "node"))
    }

    /// Isolates a burst main (see `WaterNetwork.isolate`) and joins the result back to features.
    /// - Throws: `UtilityNetworkError` for an unknown main or failed valve id.
    public func isolate(main: String, failedValves: Set<String> = []) throws -> MainIsolationReport {
        for v in failedValves.sorted() where valveFeatures[v] == nil {
            throw UtilityNetworkError("\(v) is not a valve of the \(layers.name) network", id: v)
        }
        var isolation = try network.isolate(main: main, failedValves: failedValves)
        isolation.nodesCutOff = isolation.nodesCutOff.filter { nodeFeatures[$0] != nil }
        return MainIsolationReport(
            burstMain: main, failedValves: failedValves.sorted(), isolation: isolation,
            valves: isolation.valvesToClose.compactMap { valveFeatures[$0] },
            mains: isolation.mainsCutOff.compactMap { mainFeatures[$0] },
            critical: isolation.criticalConnections.compactMap { criticalCustomers[$0] })
    }
}
