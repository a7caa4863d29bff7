import Foundation
import GeoCore
import NetworkAnalysis
import ProcessRuntime
import TwinStore

/// `network-trace`: upstream or downstream trace on the drainage network (by flow direction), or
/// everything connected to a water node or main through open mains — "where does this manhole
/// drain to?", "what feeds into this outfall?".
///
/// Inputs: `network` (`drainage` or `water`), `from` (a node or pipe/main id), `direction`
/// (`down`, the default, or `up`; drainage only) and `closedValves` (water valve ids treated as
/// closed; water only). Outputs: `features` (a GeoJSON FeatureCollection in CRS84/EPSG:4490
/// lon/lat, links then nodes, each tagged with `layer` and `trace_role`), `nodes` and `links`
/// (ids, sorted). The layers are read as the caller, so access rules and masking apply.
public struct NetworkTraceProcess: OGCProcess {
    public let id = "network-trace"
    public let version = "1.0.0"
    public let title = "Utility network trace"
    public let description = "Upstream or downstream trace on the drainage network following the pipes' flow direction, or everything connected to a water-supply or gas node or main through open mains."
    public let jobControlOptions: [JobControlOption] = [.syncExecute, .asyncExecute, .dismiss]

    public init() {}

    public var inputs: [String: ProcessParameter] {
        [
            "network": ProcessParameter(title: "Network", description: "drainage (rainwater sewers), water (supply mains) or gas (gas mains).",
                                        schema: ["type": "string", "enum": ["drainage", "water", "gas"]]),
            "from": ProcessParameter(title: "Start", description: "Id of the start node or pipe (drainage) or node or main (water, gas).",
                                     schema: ["type": "string"]),
            "direction": ProcessParameter(title: "Direction", description: "down (default): where the start drains to; up: what drains into it. Drainage only.",
                                          schema: ["type": "string", "enum": ["up", "down"], "default": "down"], minOccurs: 0),
            "closedValves": ProcessParameter(title: "Closed valves", description: "Valve ids treated as closed. Water and gas only.",
                                             schema: ["type": "array", "items": ["type": "string"], "uniqueItems": true], minOccurs: 0),
        ]
    }

    public var outputs: [String: ProcessParameter] {
        [
            "features": ProcessParameter(title: "Traced features", description: "GeoJSON FeatureCollection of the traced links then nodes (lon/lat degrees).",
                                         schema: ["type": "object"]),
            "nodes": ProcessParameter(title: "Node ids", description: "Ids of the traced nodes, sorted.", schema: ["type": "array", "items": ["type": "string"]]),
            "links": ProcessParameter(title: "Link ids", description: "Ids of the traced pipes, pumps or mains, sorted.",
                                      schema: ["type": "array", "items": ["type": "string"]]),
        ]
    }

    struct Request {
        /// The pressurised network traced; nil for drainage.
        var pressure: PressureNetworkLayers?
        var from: String
        var direction: TraceDirection
        var closedValves: Set<String>
    }

    func request(_ inputs: [String: JSONValue]) throws -> Request {
        let network = try ProcessInputs.string(inputs, "network")
        let pressure = network.flatMap(PressureNetworkLayers.named)
        guard network == "drainage" || pressure != nil else {
            throw ProcessInputError("network", "must be 'drainage', 'water' or 'gas'")
        }
        guard let from = try ProcessInputs.string(inputs, "from") else { throw ProcessInputError("from", "is required") }
        let directionText = try ProcessInputs.string(inputs, "direction") ?? "down"
        guard let direction = TraceDirection(rawValue: directionText) else {
            throw ProcessInputError("direction", "must be 'up' or 'down'")
        }
        let closed = try ProcessInputs.strings(inputs, "closedValves") ?? []
        if network == "drainage", !closed.isEmpty {
            throw ProcessInputError("closedValves", "applies to the water and gas networks only")
        }
        return Request(pressure: pressure, from: from, direction: direction, closedValves: Set(closed))
    }

    public func layers(_ inputs: [String: JSONValue]) -> ProcessLayers {
        switch ProcessInputs.unwrap(inputs["network"])?.stringValue {
        case "drainage": ProcessLayers(reads: ["drainage_manholes", "drainage_outfalls", "drainage_pipes"],
                                       optionalReads: ["drainage_storage", "drainage_pumps"])
        case let name?: PressureNetworkLayers.named(name).map { ProcessLayers(reads: [$0.nodes, $0.mains, $0.valves]) } ?? ProcessLayers()
        default: ProcessLayers()
        }
    }

    public func validate(_ inputs: [String: JSONValue], store: any FeatureStore, caller: Caller) async throws {
        _ = try request(inputs)
    }

    public func execute(_ inputs: [String: JSONValue], store: any FeatureStore, caller: Caller,
                        progress: JobProgress) async throws -> JSONValue {
        let r = try request(inputs)
        try await progress.report(0)
        let trace: NetworkTrace, collection: FeatureCollection
        do {
            if let layers = r.pressure {
                let network = try await StorePressureNetwork.load(layers, from: store, by: caller)
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
