import ArgumentParser
import CityModel
import Emergency
import Foundation
import GeoCore
import Scenarios

/// `citytwin network isochrone`: service areas around a point for several time breaks (the
/// `service-area` process run on a local store as the admin).
struct IsochroneCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "isochrone",
        abstract: "Service areas (isochrones) around a point for several time breaks (GeoJSON polygons, EPSG:4490).")

    @Option(help: "Centre as LON,LAT (CGCS2000 degrees).")
    var at: String
    @Option(help: "Breaks in minutes, comma-separated (each in (0, 240]).")
    var minutes: String = "5,10,15"
    @Option(help: "driving or walking.")
    var profile: RoutingProfile = .driving
    @Option(help: "Half-width of the area around reached roads, metres (1…200).")
    var buffer: Double = 25
    @Option(help: "How far in metres a point may lie from the nearest road and still be routed (default 500).")
    var maxSnapMetres: Double = StoreRoadGraph.defaultMaximumSnapMetres
    @OptionGroup var storeOption: StoreOption
    var store: String { storeOption.path }

    /// The `service-area` inputs these options stand for.
    func inputs() throws -> [String: JSONValue] {
        let breaks = try minutes.split(separator: ",").map { text -> JSONValue in
            guard let m = Double(text.trimmingCharacters(in: .whitespaces)) else {
                throw ValidationError("--minutes must be comma-separated numbers of minutes, got \(minutes)")
            }
            return .number(m)
        }
        return ["origin": try lonLatInput(at, option: "--at"), "breaks": .array(breaks), "profile": .string(profile.rawValue),
                "bufferMetres": .number(buffer), "maximumSnapMetres": .number(maxSnapMetres)]
    }

    func run() async throws {
        let result = try await ProcessRunner(store: store).run("service-area", try inputs())
        try printJSONDocument(result["areas"] ?? .null)
    }
}
