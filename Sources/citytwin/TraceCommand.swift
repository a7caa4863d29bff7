import ArgumentParser
import CityModel
import Foundation
import GeoCore

/// `citytwin network trace`: what drains into / out of a drainage node or pipe, or what a water or
/// gas node or main is connected to (the `network-trace` process run on a local store as the admin).
struct TraceCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "trace",
        abstract: "Upstream or downstream trace on the drainage, water-supply or gas network (GeoJSON FeatureCollection, EPSG:4490).",
        discussion: """
            Drainage traces follow the pipes' flow direction (--direction down: where the start drains to; up: what drains \
            into it). Water and gas mains are undirected: such a trace returns everything connected to the start through open mains, \
            with any --closed-valve shut, and ignores --direction. Links come first, then nodes; each feature carries `layer` \
            and `trace_role`. A count line goes to standard error.
            """)

    @Option(help: "drainage, water or gas.")
    var network: String
    @Option(help: "Start node or pipe/main id, e.g. YS-J00012 or WM-0007.")
    var from: String
    @Option(help: "up or down (drainage only).")
    var direction: String = "down"
    @Option(name: .customLong("closed-valve"), help: "A valve to treat as closed (repeatable; water and gas only).")
    var closedValves: [String] = []
    @OptionGroup var storeOption: StoreOption
    var store: String { storeOption.path }

    /// The `network-trace` inputs these options stand for.
    func inputs() -> [String: JSONValue] {
        var inputs: [String: JSONValue] = ["network": .string(network), "from": .string(from), "direction": .string(direction)]
        if !closedValves.isEmpty { inputs["closedValves"] = .array(closedValves.map(JSONValue.string)) }
        return inputs
    }

    func run() async throws {
        let result = try await ProcessRunner(store: store).run("network-trace", inputs())
        try printJSONDocument(result["features"] ?? .null)
        let (links, nodes) = (result["links"]?.arrayValue?.count ?? 0, result["nodes"]?.arrayValue?.count ?? 0)
        let what = network != "drainage" ? "connected to" : (direction == "down" ? "downstream of" : "upstream of")
        FileHandle.standardError.write(Data("\(links) links and \(nodes) nodes \(what) \(from)\n".utf8))
    }
}
