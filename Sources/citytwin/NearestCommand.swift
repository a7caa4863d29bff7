import ArgumentParser
import CityModel
import Emergency
import Foundation
import GeoCore
import Scenarios

/// `citytwin network nearest`: the N resources of a layer fastest to reach from an incident (the
/// `nearest-resources` process run on a local store as the admin).
struct NearestCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "nearest",
        abstract: "Nearest-N emergency resources by travel time from an incident (GeoJSON FeatureCollection of routes).")

    @Option(help: "Incident as LON,LAT (CGCS2000 degrees).")
    var from: String
    @Option(help: "Resource layer, e.g. shelters or fire_stations.")
    var layer: String
    @Option(help: "How many resources to return (1…50).")
    var count: Int = 3
    @Option(name: .customLong("category"), help: "Keep resources of this category (category, class or grade attribute; repeatable).")
    var categories: [String] = []
    @Option(help: "Keep resources with this status.")
    var status: String?
    @Option(help: "Keep resources with at least this free capacity (shelter places, hospital beds, team members).")
    var minimumCapacity: Double?
    @Option(help: "Leave out resources farther than this many minutes.")
    var maximumMinutes: Double?
    @Option(help: "driving or walking.")
    var profile: RoutingProfile = .driving
    @Option(help: "How far in metres a point may lie from the nearest road and still be routed (default 500).")
    var maxSnapMetres: Double = StoreRoadGraph.defaultMaximumSnapMetres
    @OptionGroup var storeOption: StoreOption
    var store: String { storeOption.path }

    /// The `nearest-resources` inputs these options stand for.
    func inputs() throws -> [String: JSONValue] {
        var inputs: [String: JSONValue] = [
            "incident": try lonLatInput(from, option: "--from"), "layer": .string(layer),
            "count": .integer(Int64(count)), "profile": .string(profile.rawValue), "maximumSnapMetres": .number(maxSnapMetres),
        ]
        if !categories.isEmpty { inputs["categories"] = .array(categories.map(JSONValue.string)) }
        if let status { inputs["status"] = .string(status) }
        if let minimumCapacity { inputs["minimumCapacity"] = .number(minimumCapacity) }
        if let maximumMinutes { inputs["maximumMinutes"] = .number(maximumMinutes) }
        return inputs
    }

    func run() async throws {
        let result = try await ProcessRunner(store: store).run("nearest-resources", try inputs())
        try printJSONDocument(result["resources"] ?? .null)
        for entry in result["invalid"]?.arrayValue ?? [] {
            FileHandle.standardError.write(Data("warning: \(entry["layer"]?.stringValue ?? "")/\(entry["resource_id"]?.stringValue ?? ""): \(entry["reason"]?.stringValue ?? "")\n".utf8))
        }
    }
}
