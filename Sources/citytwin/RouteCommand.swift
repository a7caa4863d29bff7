import ArgumentParser
import CityModel
import Emergency
import Foundation
import GeoCore
import NetworkAnalysis
import Scenarios

/// `citytwin network route`: the fastest route between two points as a GeoJSON Feature.
struct RouteCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "route",
        abstract: "Fastest route between two points on the road network (GeoJSON Feature, EPSG:4490 lon/lat).")

    @Option(help: "Origin as LON,LAT (CGCS2000 degrees).")
    var from: String
    @Option(help: "Destination as LON,LAT (CGCS2000 degrees).")
    var to: String
    @Option(help: "driving (design speeds, one-way honoured) or walking (5 km/h).")
    var profile: RoutingProfile = .driving
    @Option(help: "How far in metres a point may lie from the nearest road and still be routed (default 500).")
    var maxSnapMetres: Double = StoreRoadGraph.defaultMaximumSnapMetres
    @Option(help: "A GeoJSON Polygon or MultiPolygon file (CRS84): every road crossing it is closed.")
    var avoid: String?
    @OptionGroup var storeOption: StoreOption

    func run() async throws {
        try checkMaximumSnap(maxSnapMetres)
        var inputs: [String: JSONValue] = ["from": try lonLatInput(from, option: "--from"), "to": try lonLatInput(to, option: "--to"),
                                           "profile": .string(profile.rawValue), "maximumSnapMetres": .number(maxSnapMetres)]
        if let avoid { inputs["avoidArea"] = try areaInput(avoid, option: "--avoid") }
        let result = try await ProcessRunner(store: storeOption.path).run("route", inputs)
        guard let route = result["route"], !route.isNull else {
            throw CommandFailure("no route: \(result["unavailable"]?.stringValue ?? "the destination cannot be reached")")
        }
        try printJSONDocument(route)
    }
}

/// Parses `LON,LAT` in degrees.
func parseLonLat(_ text: String, option: String) throws -> Position {
    let parts = text.split(separator: ",").map { Double($0.trimmingCharacters(in: .whitespaces)) }
    guard parts.count == 2, let lon = parts[0], let lat = parts[1], lon.isFinite, lat.isFinite,
          abs(lon) <= 180, abs(lat) <= 90 else {
        throw ValidationError("\(option) must be LON,LAT in degrees, got \(text)")
    }
    return Position(x: lon, y: lat)
}

/// `--max-snap-metres` checked: a finite number of metres ≥ 0.
func checkMaximumSnap(_ metres: Double) throws {
    guard metres.isFinite, metres >= 0 else { throw ValidationError("--max-snap-metres must be a number of metres ≥ 0, got \(metres)") }
}
