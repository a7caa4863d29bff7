import Foundation
import GeoCore
import NetworkAnalysis
import ProcessRuntime
import TwinStore

/// `network-trace`: upstream or downstream trace on the drainage network (by flow direction), or
/// everything connected to a water or gas node or main through open mains — "where does this manhole
/// drain to?", "what feeds into this outfall?".
///
/// Inputs: `network` (`drainage`, `water` or `gas`), `from` (a node or pipe/main id), `direction`
/// (`down`, the default, or `up`; drainage only) and `closedValves` (valve ids treated as closed;
/// water and gas only). Outputs: `features` (a GeoJSON FeatureCollection in CRS84/EPSG:4490
/// lon/lat, links then nodes, each tagged with `layer` and `trace_role`), `nodes` and `links`
/// (ids, sorted). The layers are read as the caller, so access rules and masking apply.
public struct NetworkTraceProcess: TypedProcess {
    public let id = "network-trace"
    public let version = "1.0.0"
    public let title = "Utility network trace"
    public let description = "Upstream or downstream trace on the drainage network following the pipes' flow direction, or everything connected to a water-supply or gas node or main through open mains."
    public let jobControlOptions: [JobControlOption] = [.syncExecute, .asyncExecute, .dismiss]

    public init() {}

    public var outputs: [String: ProcessParameter] {
        [
            "features": ProcessParameter(title: "Traced features", description: "GeoJSON FeatureCollection of the traced links then nodes (lon/lat degrees).",
                                         schema: ["type": "object"]),
            "nodes": ProcessParameter(title: "Node ids", description: "Ids of the traced nodes, sorted.", schema: ["type": "array", "items": ["type": "string"]]),
            "links": ProcessParameter(title: "Link ids", description: "Ids of the traced pipes, pumps or mains, sorted.",
                                      schema: ["type": "array", "items": ["type": "string"]]),
        ]
    }

    public struct Input: ProcessInput {
        /// The pressurised network traced (water or gas); nil for drainage.
        var pressure: PressureNetworkLayers?
        var from: String
        var direction: TraceDirection
        var closedValves: Set<String>

        public init(from r: ProcessInputReader) throws {
            let network = try r.string("network", title: "Network", description: "drainage (rainwater sewers), water (supply mains) or gas (gas mains).",
                                       schema: ["type": "string", "enum": ["drainage", "water", "gas"]], placeholder: "drainage")
            pressure = PressureNetworkLayers.named(network)
            guard network == "drainage" || pressure != nil else {
                throw ProcessInputError("network", "must be 'drainage', 'water' or 'gas'")
            }
            from = try r.string("from", title: "Start", description: "Id of the start node or pipe (drainage) or node or main (water, gas).")
            let directionText = try r.optionalString(
                "direction", title: "Direction", description: "down (default): where the start drains to; up: what drains into it. Drainage only.",
                schema: ["type": "string", "enum": ["up", "down"], "default": "down"]) ?? "down"
            guard let direction = TraceDirection(rawValue: directionText) else {
                throw ProcessInputError("direction", "must be 'up' or 'down'")
            }
            self.direction = direction
            let closed = try r.strings("closedValves", title: "Closed valves", description: "Valve ids treated as closed. Water and gas only.",
                                       schema: ["type": "array", "items": ["type": "string"], "uniqueItems": true]) ?? []
            if pressure == nil, !closed.isEmpty {
                throw ProcessInputError("closedValves", "applies to the water and gas networks only")
            }
            closedValves = Set(closed)
        }
    }

    public func layers(_ inputs: [String: JSONValue]) -> ProcessLayers {
        switch ProcessInputs.unwrap(inputs["network"])?.stringValue {
        case "drainage": ProcessLayers(reads: ["drainage_manholes", "drainage_outfalls", "drainage_pipes"],
                                       optionalReads: ["drainage_storage", "drainage_pumps"])
        case let name?: PressureNetworkLayers.named(name).map { ProcessLayers(reads: [$0.nodes, $0.mains, $0.valves]) } ?? ProcessLayers()
        default: ProcessLayers()
        }
    }

    public func run(_ r: Input, store: any FeatureStore, caller: Caller, progress: JobProgress) async throws -> JSONValue {
        try await progress.report(0)
        let trace: NetworkTrace, collection: FeatureCollection
        do {
            if let layers = r.pressure {
                let network = try await StorePressureNetworks.shared.network(layers, in: store, by: caller)
                try await progress.report(50)
                trace = try network.trace(from: r.from, closedValves: r.closedValves)
                collection = network.features(of: trace)
            } else {
                let drainage = try await StoreDrainageNetwork.load(from: store, by: caller)
                try await progress.report(50)
                trace = try drainage.trace(from: r.from, direction: r.direction)
                collection = drainage.features(of: trace)
            }
        } catch let e as UtilityNetworkError {
            throw ProcessInputError(e.id == r.from ? "from" : "network", e.message)
        }
        let features = try JSONDecoder().decode(
            JSONValue.self, from: GeoJSON.encode(collection, options: GeoJSONWriteOptions(precision: 7)))
        return [
            "features": features,
            "nodes": .array(trace.nodes.map(JSONValue.string)),
            "links": .array(trace.links.map(JSONValue.string)),
        ]
    }
}
