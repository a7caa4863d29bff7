import ArgumentParser
import CityModel
import Foundation
import GeoCore
import NetworkAnalysis
import Scenarios

/// `citytwin network trace`: what drains into / out of a drainage node or pipe, or what a water
/// node or main is connected to.
struct TraceCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "trace",
        abstract: "Upstream or downstream trace on the drainage or water-supply network (GeoJSON FeatureCollection, EPSG:4490).",
        discussion: """
            Drainage traces follow the pipes' flow direction (--direction down: where the start drains to; up: what drains \
            into it). Water mains are undirected: a water trace returns everything connected to the start through open mains, \
            with any --closed-valve shut, and ignores --direction. Links come first, then nodes; each feature carries `layer` \
            and `trace_role`. A count line goes to standard error.
            """)

    @Option(help: "drainage or water.")
    var network: String
    @Option(help: "Start node or pipe/main id, e.g. YS-J00012 or WM-0007.")
    var from: String
    @Option(help: "up or down (drainage only).")
    var direction: String = "down"
    @Option(name: .customLong("closed-valve"), help: "A water valve to treat as closed (repeatable; water only).")
    var closedValves: [String] = []
    @Option(help: "The store: a SpatiaLite file path, spatialite:PATH or postgresql://….")
    var store: String = DistrictLoader.defaultStorePath

    func run() async throws {
        guard let way = TraceDirection(rawValue: direction) else {
            throw ValidationError("--direction must be up or down, got \(direction)")
        }
        let featureStore = try await StoreLocation(store).openExisting()
        let collection: FeatureCollection
        let trace: NetworkTrace
        do {
            switch network {
            case "drainage":
                guard closedValves.isEmpty else { throw ValidationError("--closed-valve applies to --network water only") }
                let drainage = try await StoreDrainageNetwork.load(from: featureStore)
                trace = try drainage.trace(from: from, direction: way)
                collection = drainage.features(of: trace)
            case "water":
                let water = try await StoreWaterNetwork.load(from: featureStore)
                trace = try water.trace(from: from, closedValves: Set(closedValves))
                collection = water.features(of: trace)
            default:
                throw ValidationError("--network must be drainage or water, got \(network)")
            }
        } catch let e as UtilityNetworkError {
            throw CommandFailure(e.message)
        }
        printGeoJSON(.featureCollection(collection))
        let what = network == "water" ? "connected to" : (way == .downstream ? "downstream of" : "upstream of")
        FileHandle.standardError.write(Data("\(trace.links.count) links and \(trace.nodes.count) nodes \(what) \(from)\n".utf8))
    }
}
