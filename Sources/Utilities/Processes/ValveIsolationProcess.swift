import Foundation
import GeoCore
import NetworkAnalysis
import ProcessRuntime
import TwinStore

/// `valve-isolation`: which valves isolate a burst water or gas main, and who loses supply — "close
/// these valves; these mains, customers and hospitals are cut off; notify these addresses".
///
/// Inputs: `network` (`water`, the default, or `gas`), `main` (the burst main's id) and
/// `failedValves` (valve ids that are missing or will not close). Outputs: the members of
/// `MainIsolationReport.json()`: `valves_to_close` (id,
/// lon, lat, main, near_node), `failed_valves_passed`, `segment_mains`, `mains_cut_off`,
/// `mains_cut_off_geojson`, `nodes_cut_off`, `customers_cut_off`, `critical_customers`,
/// `addresses_to_notify`, `counts` (and the echoed `burst_main`, `failed_valves`). The layers are
/// read as the caller, so access rules and masking apply.
public struct ValveIsolationProcess: TypedProcess {
    public let id = "valve-isolation"
    public let version = "1.0.0"
    public let title = "Burst-main valve isolation"
    public let description = "The valves to close to isolate a burst water or gas main (expanding past failed valves), the mains, nodes and customers cut off, the critical customers (hospitals, shelters) among them and the addresses to notify."
    public let jobControlOptions: [JobControlOption] = [.syncExecute, .asyncExecute, .dismiss]

    public init() {}

    public var outputs: [String: ProcessParameter] {
        func ids(_ title: String, _ description: String) -> ProcessParameter {
            ProcessParameter(title: title, description: description, schema: ["type": "array", "items": ["type": "string"]])
        }
        return [
            "burst_main": ProcessParameter(title: "Burst main", description: "The main isolated.", schema: ["type": "string"]),
            "failed_valves": ids("Failed valves", "The failed valves given, sorted."),
            "valves_to_close": ProcessParameter(title: "Valves to close", description: "Each valve's id, lon, lat (CGCS2000 degrees), main and near_node.",
                                                schema: ["type": "array", "items": ["type": "object"]]),
            "failed_valves_passed": ids("Failed valves passed", "Failed valves the isolation had to expand past."),
            "failed_valves_not_reached": ids("Failed valves not reached", "Failed valves named that neither bound nor lie in the segment: they change nothing (see notes)."),
            "notes": ProcessParameter(title: "Notes", description: "What the answer should be read with (a failed valve that changes nothing).",
                                      schema: ["type": "array", "items": ["type": "string"]]),
            "segment_mains": ids("Isolated segment", "Mains inside the valve-bounded segment holding the burst main."),
            "mains_cut_off": ids("Mains cut off", "Mains out of service: the segment and everything no longer connected to a source."),
            "mains_cut_off_geojson": ProcessParameter(title: "Mains cut off (GeoJSON)", description: "The mains cut off as a FeatureCollection.",
                                                      schema: ["type": "object"]),
            "nodes_cut_off": ids("Nodes cut off", "Nodes no longer connected to a source."),
            "customers_cut_off": ids("Customers cut off", "Customer connection ids (water_connections, gas_customers) that lose supply."),
            "critical_customers": ProcessParameter(title: "Critical customers", description: "Connections supplying hospitals and shelters among those cut off.",
                                                   schema: ["type": "array", "items": ["type": "object"]]),
            "addresses_to_notify": ids("Addresses to notify", "Standard address codes of the customers cut off."),
            "counts": ProcessParameter(title: "Counts", description: "Number of valves, mains, nodes, customers, critical customers and addresses.",
                                       schema: ["type": "object"]),
        ]
    }

    public struct Input: ProcessInput {
        var network: PressureNetworkLayers
        var main: String
        var failed: Set<String>

        public init(from r: ProcessInputReader) throws {
            let name = try r.optionalString("network", title: "Network", description: "water (water_mains, the default) or gas (gas_mains).",
                                            schema: ["type": "string", "enum": ["water", "gas"], "default": "water"]) ?? PressureNetworkLayers.water.name
            guard let network = PressureNetworkLayers.named(name) else { throw ProcessInputError("network", "must be 'water' or 'gas'") }
            self.network = network
            main = try r.string("main", title: "Burst main", description: "Id of the burst main (water_mains or gas_mains).")
            failed = Set(try r.strings("failedValves", title: "Failed valves", description: "Ids of valves that are missing or will not close.",
                                       schema: ["type": "array", "items": ["type": "string"], "uniqueItems": true]) ?? [])
        }
    }

    /// The network and its customers are needed; the critical customers are found among
    /// hospitals and shelters through buildings and addresses the caller may read.
    public func layers(_ inputs: [String: JSONValue]) -> ProcessLayers {
        let network = ProcessInputs.unwrap(inputs["network"])?.stringValue.flatMap(PressureNetworkLayers.named) ?? .water
        return ProcessLayers(reads: network.ids,
                      optionalReads: ["hospitals", "shelters", "buildings", "addresses"])
    }

    public func run(_ r: Input, store: any FeatureStore, caller: Caller, progress: JobProgress) async throws -> JSONValue {
        try await progress.report(0)
        let network = try await StorePressureNetworks.shared.network(r.network, in: store, by: caller)
        try await progress.report(50)
        do {
            return try network.isolate(main: r.main, failedValves: r.failed).json()
        } catch let e as UtilityNetworkError {
            throw ProcessInputError(e.id == r.main ? "main" : "failedValves", e.message)
        }
    }
}
