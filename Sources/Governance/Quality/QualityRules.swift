import Foundation
import GeoCore
import TwinStore

/// A layer's quality rules, from the optional `"quality"` object of its definition:
///
/// ```json
/// "quality": {"key": "address_code", "sharedPositions": false,
///             "network": {"from": "upstream_node", "to": "downstream_node",
///                         "nodes": ["drainage_manholes", "drainage_outfalls"], "terminals": ["drainage_outfalls"],
///                         "toleranceMetres": 1,
///                         "invert": {"node": "invert_elevation_m", "fromOffset": "inlet_offset_m",
///                                    "toOffset": "outlet_offset_m", "direction": "flow_dir"}}}
/// ```
///
/// - `key`: a property whose value identifies a feature in the city (duplicates are defects);
/// - `sharedPositions`: several features at one position are the layer's nature (the rooms of
///   an entrance, the households of an address), so identical geometries are no defect;
/// - `network`: the layer's features are links from node `from` to node `to` (ids of features
///   in the `nodes` layers); each link's first and last positions should lie within
///   `toleranceMetres` (default 1 m) of those nodes. A connected part of the network that holds
///   a node of a `terminals` layer (an outfall: each gravity system drains to its own) is whole;
///   without `terminals`, every part but the largest is cut off. With `invert`, a link's invert at each end is
///   the node's invert (`node`) plus the link's offset there, and the link drains from `from` to
///   `to` unless its `direction` property says `-`.
public struct QualityRules: Sendable, Hashable {
    public var key: String?
    public var sharedPositions = false
    public var network: NetworkRules?
    public var attributeRules: [AttributeRule] = []

    public struct NetworkRules: Sendable, Hashable {
        public var from: String
        public var to: String
        public var nodeLayers: [String]
        public var terminalLayers: [String]
        public var toleranceMetres: Double
        public var invert: InvertRules?
    }

    public struct InvertRules: Sendable, Hashable {
        public var node: String
        public var fromOffset: String?
        public var toOffset: String?
        public var direction: String?
    }

    /// The rules of `definition`; a malformed `quality` object is an `invalidLayerDefinition` naming the field.
    public init(_ definition: LayerDefinition) throws {
        guard let q = definition.quality?.objectValue else { return }
        func fail(_ field: String, _ why: String) -> StoreError {
            StoreError(.invalidLayerDefinition, why, layer: definition.id, field: "quality." + field)
        }
        func name(_ o: [String: JSONValue], _ k: String, _ at: String, required: Bool = true) throws -> String? {
            guard let v = o[k], !v.isNull else {
                if required { throw fail(at + k, "\"\(k)\" is required") }
                return nil
            }
            guard let s = v.stringValue, !s.isEmpty else { throw fail(at + k, "\"\(k)\" must be a property name") }
            return s
        }
        key = try name(q, "key", "", required: false)
        switch q["sharedPositions"] {
        case nil, .null?: sharedPositions = false
        case .bool(let b)?: sharedPositions = b
        default: throw fail("sharedPositions", "must be true or false")
        }
        if let r = q["rules"], !r.isNull {
            attributeRules = try AttributeRule.parse(r, properties: Set(definition.schema.properties.keys)) { fail($0, $1) }
        }
        guard let nv = q["network"], !nv.isNull else { return }
        guard let n = nv.objectValue else { throw fail("network", "\"network\" must be an object") }
        guard let nodes = n["nodes"]?.arrayValue, !nodes.isEmpty, nodes.allSatisfy({ $0.stringValue != nil }) else {
            throw fail("network.nodes", "\"nodes\" must list the layers holding the network's nodes")
        }
        var terminals: [String] = []
        if let t = n["terminals"], !t.isNull {
            guard let a = t.arrayValue, a.allSatisfy({ $0.stringValue.map { nodes.contains(.string($0)) } ?? false }) else {
                throw fail("network.terminals", "\"terminals\" must list some of the node layers")
            }
            terminals = a.compactMap(\.stringValue)
        }
        let tolerance = n["toleranceMetres"]?.doubleValue ?? 1
        guard tolerance > 0, tolerance.isFinite else { throw fail("network.toleranceMetres", "must be a positive number of metres") }
        var invert: InvertRules?
        if let iv = n["invert"], !iv.isNull {
            guard let i = iv.objectValue else { throw fail("network.invert", "\"invert\" must be an object") }
            invert = InvertRules(node: try name(i, "node", "network.invert.")!, fromOffset: try name(i, "fromOffset", "network.invert.", required: false),
                                 toOffset: try name(i, "toOffset", "network.invert.", required: false),
                                 direction: try name(i, "direction", "network.invert.", required: false))
        }
        network = NetworkRules(from: try name(n, "from", "network.")!, to: try name(n, "to", "network.")!,
                               nodeLayers: nodes.compactMap(\.stringValue), terminalLayers: terminals, toleranceMetres: tolerance, invert: invert)
    }
}

/// 更新时限: how old a layer's last write may be for each declared update frequency.
public enum UpdateFrequency {
    /// The longest gap (seconds) `frequency` allows, or nil for an unknown word.
    /// realtime: 1 hour; hourly: 2 hours; daily: 1 day; weekly: 7 days; monthly: 31 days;
    /// quarterly: 92 days; yearly: 366 days; as-needed (不定期: a plan, written when it changes): no limit.
    public static func allowedAge(_ frequency: String) -> TimeInterval? {
        let hour = 3600.0, day = 86_400.0
        switch frequency.lowercased().replacingOccurrences(of: "-", with: "").replacingOccurrences(of: " ", with: "") {
        case "realtime": return hour
        case "hourly": return 2 * hour
        case "daily": return day
        case "weekly": return 7 * day
        case "monthly": return 31 * day
        case "quarterly": return 92 * day
        case "yearly", "annual", "annually": return 366 * day
        case "asneeded", "irregular": return .infinity
        default: return nil
        }
    }
}
